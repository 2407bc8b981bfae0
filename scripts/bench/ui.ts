/**
 * UI benchmark (issue #8): the console with 10,000 alerts in view while 100 updates a second are
 * pushed for 30 s, in Debian's Chromium. Records long tasks (PerformanceObserver 'longtask') and
 * frame times (requestAnimationFrame gaps). Target: no long task over 100 ms.
 * Usage: node scripts/bench/ui.ts [--alerts 10000] [--rate 100] [--duration 30]
 */
import pg from 'pg';
import { chromium } from 'playwright-core';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const count = arg('alerts', 10_000);
const rate = arg('rate', 100);
const duration = arg('duration', 30);

const db = await createTestDatabase('bench_ui');
const server = await startServerProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'error', PLUGINS: 'remote_ip' });
const origin = new URL(server.url).origin;
const c = new pg.Client({ connectionString: db.url });
await c.connect();
await c.query(
  `INSERT INTO alerts (id, resource, event, environment, severity, correlate, status, service, "group", value, text,
     tags, attributes, origin, type, create_time, timeout, customer, duplicate_count, repeat, previous_severity,
     trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
   SELECT gen_random_uuid()::text, 'host' || i, 'event' || (i % 20), (ARRAY['Production','Development'])[1 + i % 2],
     (ARRAY['critical','major','minor','warning','informational'])[1 + i % 5], '{}', 'open', ARRAY['svc' || (i % 10)],
     'Misc', (i % 100)::text, 'Seeded alert ' || i, '{}', '{}', 'bench/ui', 'exceptionAlert', now(), 86400, NULL, 0,
     false, 'indeterminate', 'noChange', now(), gen_random_uuid()::text, now() - (i * interval '1 second'), now()
   FROM generate_series(1, $1::int) AS i`,
  [count],
);
await c.end();

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await page.goto(`${origin}/alerts?page-size=${count}`);
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=total]')?.textContent === `${n} alerts`,
    count,
    {
      timeout: 60_000,
    },
  );
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[]; frames: number[] };
    w.longTasks = [];
    w.frames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const frame = (t: number) => {
      w.frames.push(t - last);
      last = t;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const severities = ['critical', 'major', 'minor', 'warning', 'informational'];
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < duration * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    const batch: Promise<unknown>[] = [];
    for (; sent < due; sent++) {
      const i = 1 + Math.floor(Math.random() * count);
      batch.push(
        fetch(`${origin}/api/alert`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            resource: `host${i}`,
            event: `event${i % 20}`,
            environment: i % 2 ? 'Development' : 'Production',
            severity: severities[Math.floor(Math.random() * 5)],
            service: [`svc${i % 10}`],
          }),
        }),
      );
    }
    await Promise.all(batch);
    await new Promise((r) => setTimeout(r, 10));
  }
  const { longTasks, frames } = await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[]; frames: number[] };
    return { longTasks: w.longTasks, frames: w.frames };
  });
  const sorted = [...frames].sort((a, b) => a - b);
  const q = (p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10;
  const row = {
    alerts: count,
    updatesSent: sent,
    updatesPerSec: Math.round(sent / duration),
    longTasks: longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...longTasks)),
    over100ms: longTasks.filter((d) => d > 100).length,
    frames: frames.length,
    frameP50: q(0.5),
    frameP99: q(0.99),
    frameMax: Math.round(Math.max(...frames)),
  };
  console.log(JSON.stringify(row));
  console.log(
    '\n| alerts | updates/s | long tasks | longest ms | over 100 ms | frame p50 ms | p99 ms | max ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${row.alerts} | ${row.updatesPerSec} | ${row.longTasks} | ${row.longestTaskMs} | ${row.over100ms} | ${row.frameP50} | ${row.frameP99} | ${row.frameMax} |`,
  );
} finally {
  await browser.close();
  await server.stop();
  await dropTestDatabase(db.name);
}
