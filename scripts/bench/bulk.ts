/**
 * Bulk benchmark (issue #42 item 3): acting on 1,000 matching alerts among 10,000 others, with
 * screens watching. A real server process on a throw-away database; 10 console clients (view '',
 * every alert) and 10 wall clients (open/ack/assign, grouped by event), both subscribed as the web
 * UI subscribes (web/src/lib/live/alerts.svelte.ts: `patches: true`, the wall with groupBy).
 *
 * Each round, on a fresh group of 1,000 open major alerts, PUT /_bulk/alerts/action (ack), then
 * /_bulk/alerts/tag, then /_bulk/alerts/action (close), each timed from the request to
 *   db:      the task finished (GET /_bulk/task/:id polled every 20 ms; the answer when inline);
 *   screens: every one of the 20 clients holding all 1,000 alerts changed (status ack / tag
 *            present / status closed or removed from the view).
 * Baseline in the same round, on another fresh group of 1,000: the same three changes as 1,000
 * single requests each (PUT /alert/:id/action, /tag), 4 in flight as the per-alert bulk path ran
 * them. Figures are medians of the rounds; the targets are db ≤ 2 s and screens ≤ 3 s.
 *
 * Usage: node scripts/bench/bulk.ts [--rounds 3] [--others 10000] [--matching 1000]
 *   [--consoles 10] [--walls 10] [--concurrency 4]
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { SubscribeRequest } from '../../shared/events.ts';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess, type ServerProcess } from '../../tests/helpers/process.ts';
import { numberArg } from './args.ts';
import { seedAlerts } from './seed.ts';
import { openSocket, subscribeOnConnect, type BenchSocket } from './socket.ts';
import { startFlags } from './start-flags.ts';

const rounds = numberArg('rounds', 3);
const others = numberArg('others', 10_000);
const matching = numberArg('matching', 1000);
const consoles = numberArg('consoles', 10);
const walls = numberArg('walls', 10);
const concurrency = numberArg('concurrency', 4);
const TIMEOUT_MS = 120_000;

type Op = 'ack' | 'tag' | 'close';
const OPS: Op[] = ['ack', 'tag', 'close'];
const TAG = 'bench-bulk';

/** What a screen holds of one alert: enough to tell whether it shows the change. */
interface Held {
  status?: string;
  tags?: string[];
  gone?: boolean;
}
const shows: Record<Op, (h: Held | undefined) => boolean> = {
  ack: (h) => h?.status === 'ack',
  tag: (h) => Boolean(h?.tags?.includes(TAG)),
  close: (h) => Boolean(h?.gone || h?.status === 'closed'),
};

/** One screen: a socket and the state it was sent of every alert, as the web UI keeps it. */
class Screen {
  readonly held = new Map<string, Held>();
  resyncs = 0;
  private waiting: { ids: string[]; op: Op; done: () => void } | null = null;
  readonly socket: BenchSocket;
  constructor(socket: BenchSocket, request: SubscribeRequest) {
    this.socket = socket;
    socket.on('alert.updated', (m) => {
      for (const a of m.alerts) this.held.set(a.id, { status: a.status, tags: a.tags });
      for (const p of m.patches ?? []) {
        const h = this.held.get(p.id) ?? {};
        if (p.status !== undefined) h.status = p.status;
        if (p.tags !== undefined) h.tags = p.tags;
        h.gone = false;
        this.held.set(p.id, h);
      }
      this.check();
    });
    socket.on('alert.removed-from-view', (m) => {
      for (const id of m.ids) this.held.set(id, { ...this.held.get(id), gone: true });
      this.check();
    });
    socket.on('resync', () => {
      this.resyncs++;
      socket.emit('subscribe', { ...request, since: null }, () => undefined);
    });
  }
  /** Resolves when every alert of `ids` shows `op`'s change here. */
  until(ids: string[], op: Op): Promise<void> {
    return new Promise((done) => {
      this.waiting = { ids, op, done };
      this.check();
    });
  }
  private check() {
    const w = this.waiting;
    if (!w || !w.ids.every((id) => shows[w.op](this.held.get(id)))) return;
    this.waiting = null;
    w.done();
  }
}

async function connectScreens(origin: string): Promise<Screen[]> {
  const requests: SubscribeRequest[] = [
    ...Array.from({ length: consoles }, () => ({ query: '', patches: true })),
    ...Array.from({ length: walls }, () => ({
      query: 'status=open&status=ack&status=assign&sort-by=severity',
      patches: true,
      groupBy: 'event' as const,
      groupLimit: 200,
    })),
  ];
  return Promise.all(
    requests.map(async (request, i) => {
      const socket = openSocket(origin, 30_000);
      const screen = new Screen(socket, request);
      await subscribeOnConnect(socket, request, 30_000, `screen ${i}`);
      return screen;
    }),
  );
}

/** Inserts `count` open major alerts of group `group` (with their creation entry); returns their ids. */
async function seedGroup(c: pg.Client, group: string, count: number): Promise<string[]> {
  const r = await c.query<{ id: string }>(
    `INSERT INTO alerts (id, resource, event, environment, severity, correlate, status, service, "group", value,
       text, tags, attributes, origin, type, create_time, timeout, raw_data, customer, duplicate_count, repeat,
       previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
     SELECT gen_random_uuid()::text, $1 || '-' || i, 'BulkBench', 'Production', 'major', '{}', 'open',
       ARRAY['bench'], $1, NULL, 'bulk bench', '{}', '{}', 'bench/bulk', 'exceptionAlert', now(), 86400,
       NULL, NULL, 0, false, 'indeterminate', 'moreSevere', now(), gen_random_uuid()::text, now(), now()
     FROM generate_series(1, $2::int) AS i RETURNING id`,
    [group, count],
  );
  await c.query(
    `INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time)
     SELECT id, id, event, severity, status, value, text, 'new', create_time FROM alerts WHERE "group" = $1`,
    [group],
  );
  return r.rows.map((x) => x.id);
}

const json = async (res: Response) => {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
};

/** The bulk request of `op` on `group`; resolves when its task finished (or its inline answer came). */
async function bulk(api: string, op: Op, group: string): Promise<void> {
  const path = op === 'tag' ? '/_bulk/alerts/tag' : '/_bulk/alerts/action';
  const body = op === 'tag' ? { tags: [TAG] } : { action: op, text: 'bench', timeout: null };
  const res = await fetch(`${api}${path}?group=${encodeURIComponent(group)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await json(res);
  if (res.status !== 202) return check(answer.count, answer.errors);
  for (const end = Date.now() + TIMEOUT_MS; Date.now() < end;) {
    const task = await json(await fetch(`${api}/_bulk/task/${String(answer.id)}`));
    if (task.status === 'success' || task.status === 'failure') {
      const result = task.result as { count: number; errors: unknown[] };
      if (task.status === 'failure') throw new Error(`task failed: ${JSON.stringify(result)}`);
      return check(result.count, result.errors);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${String(answer.id)} did not finish`);
}

function check(count: unknown, errors: unknown) {
  if (count !== matching)
    throw new Error(`changed ${String(count)} of ${matching}: ${JSON.stringify(errors)}`);
}

/** The same change as 1,000 single requests, `concurrency` in flight. */
async function singles(api: string, op: Op, ids: string[]): Promise<void> {
  let next = 0;
  const one = async (id: string) => {
    const path = op === 'tag' ? 'tag' : 'action';
    const body = op === 'tag' ? { tags: [TAG] } : { action: op, text: 'bench', timeout: null };
    await json(
      await fetch(`${api}/alert/${id}/${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) await one(ids[next++]!);
    }),
  );
}

/** Times one change: to the database (`apply` resolved) and to every screen. */
async function timed(screens: Screen[], ids: string[], op: Op, apply: () => Promise<void>) {
  const t0 = performance.now();
  const shown = Promise.all(screens.map((s) => s.until(ids, op))).then(() => performance.now() - t0);
  await apply();
  const db = performance.now() - t0;
  const screensMs = await Promise.race([
    shown,
    new Promise<number>((_, fail) =>
      setTimeout(() => fail(new Error(`${op}: screens timed out`)), TIMEOUT_MS),
    ),
  ]);
  return { db, screens: screensMs };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sec = (ms: number) => (ms / 1000).toFixed(2);

async function main() {
  const db = await createTestDatabase('bench_bulk');
  let server: ServerProcess | undefined;
  let screens: Screen[] = [];
  try {
    // The server migrates the database; the alerts are seeded in SQL before any screen connects.
    const flags = [...startFlags(), ...(process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)];
    server = await startServerProcess(
      { DATABASE_URL: db.url, LOG_LEVEL: 'error', HOUSEKEEPING_INTERVAL: '0' },
      60_000,
      flags,
    );
    const groups: { bulk: string[]; single: string[] }[] = [];
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await seedAlerts(db.url, others, { spanSeconds: 3600 });
      for (let r = 0; r < rounds; r++)
        groups.push({
          bulk: await seedGroup(c, `bulk-${r}`, matching),
          single: await seedGroup(c, `single-${r}`, matching),
        });
      await c.query('SELECT alert_history_recount(NULL)');
      await c.query('VACUUM ANALYZE alerts');
      await c.query('VACUUM ANALYZE alert_history');
    } finally {
      await c.end();
    }
    const origin = new URL(server.url).origin;
    const api = `${origin}/api`;
    screens = await connectScreens(origin);
    console.log(
      `bulk bench: ${others} other alerts, ${rounds} rounds of ${matching} matching (bulk) + ${matching} (single requests, ${concurrency} in flight); ${consoles} console + ${walls} wall screens`,
    );
    const figures: Record<string, { db: number[]; screens: number[] }> = {};
    const add = (key: string, f: { db: number; screens: number }) => {
      figures[key] ??= { db: [], screens: [] };
      figures[key].db.push(f.db);
      figures[key].screens.push(f.screens);
    };
    for (const [r, g] of groups.entries()) {
      // Alternate which path goes first, so neither always meets a warmer server.
      const paths = r % 2 === 0 ? (['bulk', 'single'] as const) : (['single', 'bulk'] as const);
      for (const path of paths)
        for (const op of OPS) {
          const ids = g[path];
          const f = await timed(screens, ids, op, () =>
            path === 'bulk' ? bulk(api, op, `bulk-${r}`) : singles(api, op, ids),
          );
          add(`${path} ${op}`, f);
          console.log(
            `round ${r + 1} ${path.padEnd(6)} ${op.padEnd(5)} db ${sec(f.db)} s  screens ${sec(f.screens)} s`,
          );
        }
    }
    console.log(`\nmedians of ${rounds} rounds (targets: db ≤ 2 s, screens ≤ 3 s):`);
    for (const op of OPS) {
      const b = figures[`bulk ${op}`]!;
      const s = figures[`single ${op}`]!;
      const [bd, bs, sd, ss] = [median(b.db), median(b.screens), median(s.db), median(s.screens)];
      console.log(
        `${op.padEnd(5)} bulk db ${sec(bd)} s ${bd <= 2000 ? 'ok' : 'OVER'}, screens ${sec(bs)} s ${bs <= 3000 ? 'ok' : 'OVER'}` +
          ` | ${matching} single requests db ${sec(sd)} s, screens ${sec(ss)} s | ratio bulk/single db ${(bd / sd).toFixed(2)}, screens ${(bs / ss).toFixed(2)}`,
      );
    }
    const resyncs = screens.reduce((n, s) => n + s.resyncs, 0);
    if (resyncs) console.log(`screens told to resync: ${resyncs}`);
  } finally {
    for (const s of screens) s.socket.close();
    await server?.stop();
    await dropTestDatabase(db.name);
  }
}

await main();
