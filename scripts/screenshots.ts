/**
 * Screenshots for the README (docs/screenshots/), from 300 realistic alerts: every severity, acked,
 * shelved, closed and blacked-out ones, notes, a runbook link, heartbeats (ok, slow, expired) and a
 * blackout. Shots: the wall at 1920×1080 and 3840×2160, dark and light; the wall grouped by event;
 * the console, light and dark; an alert's page; the notifications page with a failing paging
 * receiver (also the wall's badge); recurring blackouts; the reports, dark; and the wall a few
 * seconds after the server stopped.
 * Usage: node scripts/screenshots.ts [--only wall-4k,detail]
 * Needs Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) and a built UI (npm run build:web).
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright-core';
import { createTestDatabase, dropTestDatabase } from '../tests/helpers/db.ts';
import { startServerProcess } from '../tests/helpers/process.ts';

const out = new URL('../docs/screenshots/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1]!.split(',')
  : null;
const wanted = (name: string) => !only || only.some((o) => name.startsWith(o));

const db = await createTestDatabase('screenshots');
const server = await startServerProcess({
  DATABASE_URL: db.url,
  LOG_LEVEL: 'error',
  PLUGINS: 'remote_ip,blackout',
  HEARTBEAT_TIMEOUT: '600',
});
const origin = new URL(server.url).origin;

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}/api${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A fixed pseudo-random sequence, so every run draws the same screen. */
let seed = 19;
const rand = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
/** Severities weighted as a real estate sees them: a few critical, many minor and warning. */
const SEVERITIES = [
  ...Array<string>(3).fill('critical'),
  ...Array<string>(8).fill('major'),
  ...Array<string>(14).fill('minor'),
  ...Array<string>(14).fill('warning'),
  ...Array<string>(4).fill('informational'),
  ...Array<string>(2).fill('indeterminate'),
  'security',
  ...Array<string>(4).fill('normal'),
  'ok',
  'cleared',
  'debug',
  'trace',
];
const ENVIRONMENTS = ['Production', 'Production', 'Production', 'Staging', 'Development'];
const EVENTS: [string, string, string][] = [
  ['NodeDown', 'web', 'Host does not answer ping'],
  ['DiskFull', 'storage', '/var is 97% full'],
  ['HighLatency', 'api', 'p99 latency 2.4 s over 5 min'],
  ['CertExpiry', 'web', 'TLS certificate expires in 6 days'],
  ['QueueBacklog', 'queue', '12,400 messages waiting'],
  ['HighCPU', 'api', 'CPU above 95% for 10 min'],
  ['ReplicationLag', 'db', 'replica 340 s behind primary'],
  ['PacketLoss', 'network', '4% packet loss on uplink'],
  ['BackupFailed', 'db', 'nightly backup exited 2'],
  ['OOMKilled', 'api', 'container restarted after OOM kill'],
];
const HOSTS = ['web', 'api', 'db', 'cache', 'mq', 'lb', 'dns', 'store'];

const ids: string[] = [];
// A chat webhook that takes every message, and a paging service that cannot be reached (a closed
// port): the notifications page and the wall's badge show one working and one failing receiver.
const chat = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve));
try {
  await call('POST', '/blackout', {
    environment: 'Development',
    resource: 'dns03.dev.example.net',
    text: 'DNS migration',
    duration: 7200,
  });
  await call('POST', '/blackout', {
    environment: 'Production',
    service: ['Backup'],
    text: 'Nightly backups',
    rrule: 'FREQ=DAILY;BYHOUR=1;BYMINUTE=0',
    timezone: 'Europe/Berlin',
    duration: 3600,
  });
  await call('POST', '/blackout', {
    environment: 'Production',
    group: 'OS',
    text: 'Patching, first Tuesday of the month',
    rrule: 'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=2;BYMINUTE=0',
    timezone: 'Europe/Berlin',
    duration: 2 * 3600,
  });
  const { port } = chat.address() as AddressInfo;
  await call('POST', '/notifications/receivers', {
    name: 'ops-chat',
    type: 'webhook',
    settings: { url: `http://127.0.0.1:${port}/hook` },
  });
  await call('POST', '/notifications/receivers', {
    name: 'pd-primary',
    type: 'pagerduty',
    settings: { routingKey: 'R0UT1NGKEY', url: 'http://127.0.0.1:9/v2/enqueue' },
  });
  await call('POST', '/notifications/rules', {
    name: 'production-pages',
    environment: 'Production',
    severity: ['critical', 'major'],
    receivers: ['ops-chat', 'pd-primary'],
    groupWait: 0,
  });
  for (let i = 0; i < 300; i++) {
    const [event, service, text] = pick(EVENTS);
    const environment = pick(ENVIRONMENTS);
    const host = `${pick(HOSTS)}${String(1 + Math.floor(rand() * 24)).padStart(2, '0')}`;
    const domain = environment === 'Production' ? 'prod' : environment === 'Staging' ? 'stg' : 'dev';
    const body = await call('POST', '/alert', {
      resource: i === 7 ? 'dns03.dev.example.net' : `${host}.${domain}.example.net`,
      event,
      environment: i === 7 ? 'Development' : environment,
      severity: pick(SEVERITIES),
      service: [service],
      group: service === 'db' ? 'Database' : 'Infrastructure',
      value: `${Math.floor(rand() * 100)}%`,
      text,
      origin: `prometheus/${domain}`,
      attributes: {
        runbook: `https://runbooks.example.net/${event.toLowerCase()}`,
        region: pick(['eu-west-1', 'us-east-1', 'ap-south-1']),
      },
    });
    // An alert in a blackout is answered 202 without one.
    const id = (body.alert as { id?: string } | undefined)?.id;
    if (id) ids.push(id);
  }
  // Operators at work: acks, a 2 h shelve, closes and notes.
  for (const [n, id] of ids.entries()) {
    const r = rand();
    if (r < 0.22)
      await call('PUT', `/alert/${id}/action`, { action: 'ack', text: 'looking' }).catch(() => null);
    else if (r < 0.27)
      await call('PUT', `/alert/${id}/action`, {
        action: 'shelve',
        text: 'planned work',
        timeout: 7200,
      }).catch(() => null);
    else if (r < 0.35)
      await call('PUT', `/alert/${id}/action`, { action: 'close', text: 'fixed' }).catch(() => null);
    if (n % 23 === 0) await call('PUT', `/alert/${id}/note`, { text: 'Paged the on-call DBA; waiting.' });
  }
  for (const [name, timeout, late] of [
    ['prometheus/prod', 600, 0],
    ['prometheus/stg', 600, 0],
    ['prometheus/dev', 600, 0],
    ['zabbix/dc1', 600, 0],
    ['zabbix/dc2', 1, 0],
    ['nagios/legacy', 1, 0],
    ['cloudwatch/eu', 600, 6000],
    ['grafana/alerts', 600, 0],
  ] as const) {
    const createTime = new Date(Date.now() - late).toISOString();
    await call('POST', '/heartbeat', { origin: name, timeout, createTime });
  }
  // A window opened on alerts already raised: the wall shows them in maintenance.
  await call('POST', '/blackout', {
    environment: 'Production',
    event: 'CertExpiry',
    text: 'Certificate rotation',
    duration: 3600,
  });
  const detail = ids[0]!;
  await call('PUT', `/alert/${detail}/note`, { text: 'Disk grows 2 GB an hour since the 14:00 deploy.' });
  await call('PUT', `/alert/${detail}/action`, { action: 'ack', text: 'DBA on it', timeout: 3600 }).catch(
    () => null,
  );
  await new Promise((r) => setTimeout(r, 1500)); // the two short heartbeats expire

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const shoot = async (
    name: string,
    viewport: { width: number; height: number },
    scheme: 'light' | 'dark',
    path: string,
    ready: (page: Page) => Promise<unknown>,
  ) => {
    if (!wanted(name)) return;
    const context = await browser.newContext({ viewport, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(`${origin}${path}`);
    await ready(page);
    await page.waitForTimeout(6000); // past the highlight of new rows
    await page.screenshot({ path: `${out}${name}.png` });
    await context.close();
    console.log(`${name}.png`);
  };
  const wallReady = (page: Page) => page.getByTestId('more').waitFor();
  const HD = { width: 1920, height: 1080 };
  const UHD = { width: 3840, height: 2160 };
  for (const scheme of ['dark', 'light'] as const) {
    await shoot(`wall-1080-${scheme}`, HD, scheme, `/wall?theme=${scheme}`, wallReady);
    await shoot(`wall-4k-${scheme}`, UHD, scheme, `/wall?theme=${scheme}`, wallReady);
    await shoot(`alerts-${scheme}`, HD, scheme, `/alerts?theme=${scheme}`, (p) =>
      p.getByTestId('alert-row').nth(30).waitFor(),
    );
  }
  await shoot('wall-grouped-dark', HD, 'dark', '/wall?group-by=event', (p) =>
    p.getByTestId('wall-group').nth(5).waitFor(),
  );
  await shoot('alert-detail', HD, 'light', `/alert/${detail}?theme=light`, (p) =>
    p.getByTestId('note').first().waitFor(),
  );
  await shoot('notifications', HD, 'light', '/notifications?theme=light', (p) =>
    p.getByTestId('receivers-failing').filter({ hasText: 'pd-primary' }).waitFor({ timeout: 30_000 }),
  );
  await shoot('blackouts', HD, 'light', '/blackouts?theme=light', (p) =>
    p.getByText('Nightly backups').waitFor(),
  );
  await shoot('reports-dark', HD, 'dark', '/reports?theme=dark', (p) => p.locator('table').first().waitFor());
  if (wanted('wall-disconnected')) {
    const page = await browser.newPage({ viewport: HD, colorScheme: 'dark' });
    await page.goto(`${origin}/wall`);
    await wallReady(page);
    await server.stop();
    await page.getByTestId('disconnected').waitFor({ timeout: 20_000 });
    await page.waitForTimeout(8000);
    await page.screenshot({ path: `${out}wall-disconnected.png` });
    console.log('wall-disconnected.png');
  }
  await browser.close();
  console.log(`screenshots written to ${out}`);
} finally {
  chat.close();
  await server.stop();
  await dropTestDatabase(db.name);
}
