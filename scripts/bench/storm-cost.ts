/**
 * What a webhook payload of 50 alerts costs per alert against the same alerts as single POST /alert
 * requests (issue #42 item 2, target ≤ 0.5×): one server on a fresh database, no screens; each
 * round sends N new alerts both ways at the same pace (`rate` alerts a second: payloads of `size`
 * at rate / size a second, or single POSTs at `rate` a second), alternated with each side first in
 * half of the rounds, and reads the CPU the server and its PostgreSQL backends used (/proc, as
 * ingest.ts does) per 1,000 alerts. Prints each run, each round's ratios and their medians.
 * Run by storm.ts (`--only cost` runs only this).
 */
import pg from 'pg';
import { createTestDatabase, dropTestDatabase, serverUrl } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { cpuOf, Histogram, round1 } from './push-measure.ts';
import { EVENTS, amAlert, amPayload, createPoster, paced, singleBodies } from './storm-payloads.ts';

interface CostOptions {
  rounds: number;
  alerts: number;
  rate: number;
  size: number;
  serverFlags: string[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureCost({ rounds, alerts, rate, size, serverFlags }: CostOptions) {
  const db = await createTestDatabase('storm_cost');
  const server = await startServerProcess(
    { DATABASE_URL: db.url, LOG_LEVEL: 'error', DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10' },
    60_000,
    serverFlags,
  );
  const origin = server.url.replace(/\/$/, '');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const poster = createPoster(origin, 256);
  const cpu = async () => {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [db.name],
    );
    const pgCpu = rows.reduce((sum, r) => sum + (cpuOf(r.pid) || 0), 0);
    const stats = await admin.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [db.name],
    );
    return { server: cpuOf(server.child.pid!), pg: pgCpu, commits: Number(stats.rows[0]?.n ?? 0) };
  };

  /**
   * N new alerts (resources `<prefix><r>`, ten names each) as payloads of `size`, or as single
   * bodies: the very alerts the Prometheus receiver makes of those payloads (rawData included).
   */
  const bodies = (prefix: string, n: number, webhook: boolean) => {
    const list = Array.from({ length: n }, (_, i) =>
      amAlert(prefix, Math.floor(i / EVENTS.length), i % EVENTS.length),
    );
    const payloads = [];
    for (let i = 0; i < list.length; i += size) payloads.push(amPayload(list.slice(i, i + size)));
    return webhook ? payloads : singleBodies(payloads);
  };

  async function run(side: 'webhook' | 'single', prefix: string, n: number) {
    const webhook = side === 'webhook';
    const sent = bodies(prefix, n, webhook);
    const before = await cpu();
    const answers = await paced(
      poster.post,
      webhook ? '/api/webhooks/prometheus' : '/api/alert',
      sent,
      n / rate,
    );
    // Work the answers left behind (live events, key usage) belongs to the run; backends report
    // their commits to pg_stat_database within a second of going idle.
    await new Promise((ok) => setTimeout(ok, 1200));
    const after = await cpu();
    const hist = new Histogram();
    for (const a of answers) hist.add(a.answeredAt - a.sentAt);
    const row = {
      side,
      alerts: n,
      requests: sent.length,
      non201: answers.filter((a) => a.status !== 201).length,
      p50ms: round1(hist.quantile(0.5)),
      p99ms: round1(hist.quantile(0.99)),
      serverMsPer1k: round1(((after.server - before.server) * 1e6) / n),
      pgMsPer1k: round1(((after.pg - before.pg) * 1e6) / n),
      totalMsPer1k: round1(((after.server - before.server + after.pg - before.pg) * 1e6) / n),
      commitsPer1k: Math.round(((after.commits - before.commits) * 1000) / n),
    };
    console.log(JSON.stringify(row));
    return row;
  }

  try {
    console.log(
      `\ncost: ${alerts} new alerts a side a round at ${rate} alerts/s, payloads of ${size} against single POST /alert; ${rounds} rounds`,
    );
    await run('webhook', 'warm-w-', Math.min(alerts, 1000));
    await run('single', 'warm-s-', Math.min(alerts, 1000));
    const server: number[] = [];
    const total: number[] = [];
    const pgOnly: number[] = [];
    for (let k = 0; k < rounds; k++) {
      const order = k % 2 === 0 ? (['webhook', 'single'] as const) : (['single', 'webhook'] as const);
      const rows: Partial<Record<'webhook' | 'single', Awaited<ReturnType<typeof run>>>> = {};
      for (const side of order) rows[side] = await run(side, `r${k}${side[0]}-h`, alerts);
      server.push(rows.webhook!.serverMsPer1k! / rows.single!.serverMsPer1k!);
      total.push(rows.webhook!.totalMsPer1k! / rows.single!.totalMsPer1k!);
      pgOnly.push(rows.webhook!.pgMsPer1k! / rows.single!.pgMsPer1k!);
      console.log(
        `round ${k + 1}: webhook ÷ single, server ${server.at(-1)!.toFixed(2)}, server + PostgreSQL ${total.at(-1)!.toFixed(2)}`,
      );
    }
    console.log(
      `\nCPU per alert, 50-alert payloads ÷ single POSTs, median of ${rounds} rounds: server ${median(server).toFixed(2)} ` +
        `(${server.map((r) => r.toFixed(2)).join(', ')}); server + PostgreSQL ${median(total).toFixed(2)} ` +
        `(${total.map((r) => r.toFixed(2)).join(', ')}); PostgreSQL alone ${median(pgOnly).toFixed(2)}`,
    );
  } finally {
    poster.close();
    await admin.end();
    await server.stop();
    await dropTestDatabase(db.name);
  }
}
