/**
 * Seeds a migrated database with `count` realistic alerts straight in SQL: 5 environments, 50 services, 7 severities, 5 statuses, 97 events, 20,000 resources, one
 * history entry each, then VACUUM ANALYZE. Alert `i` is resource `host<i % 20000>`,
 * event `event<i % 97>`.
 */
import pg from 'pg';

export const SEED_ENVIRONMENTS = ['Production', 'Development', 'Staging', 'QA', 'Lab'];

export interface SeedOptions {
  /**
   * Receive times spread over that many seconds before now (default a week). A short span
   * (scripts/bench/memory.ts) keeps housekeeping from expiring or deleting seeded alerts mid-run.
   */
  spanSeconds?: number;
  /** Each alert's timeout in seconds (default a day). */
  timeout?: number;
  /**
   * A severity change on every alert with duplicate_count 1 or 4, from another severity than the
   * alert's, so that each of them has flapped once (scripts/bench/query.ts's flapping report).
   */
  flapping?: boolean;
}

export async function seedAlerts(url: string, count: number, options: SeedOptions = {}): Promise<void> {
  const { spanSeconds = 604800, timeout = 86400, flapping = false } = options;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO alerts (id, resource, event, environment, severity, correlate, status, service, "group", value,
         text, tags, attributes, origin, type, create_time, timeout, raw_data, customer, duplicate_count, repeat,
         previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
       SELECT gen_random_uuid()::text, 'host' || (i % 20000), 'event' || (i % 97),
         (ARRAY['Production','Development','Staging','QA','Lab'])[1 + i % 5],
         (ARRAY['critical','major','minor','warning','indeterminate','informational','normal'])[1 + i % 7],
         '{}', (ARRAY['open','ack','closed','shelved','expired'])[1 + (i / 7) % 5],
         ARRAY['service' || (i % 50)], 'group' || (i % 10), (i % 100)::text,
         'Disk usage at ' || (i % 100) || '% on host' || (i % 20000), ARRAY['tag' || (i % 20)],
         jsonb_build_object('region', 'region' || (i % 4), 'ip', '10.0.' || (i % 250) || '.' || (i % 200)),
         'bench/' || (i % 8), 'exceptionAlert', t - interval '1 hour', $3::int,
         'raw payload ' || i, NULL, i % 5, i % 5 > 0, 'indeterminate', 'moreSevere', t, gen_random_uuid()::text, t, t
       FROM (SELECT i, now() - (i % $2::int) * interval '1 second' AS t FROM generate_series(1, $1::int) AS i) s`,
      [count, spanSeconds, timeout],
    );
    // The creation entry; a flapping alert's from another severity than the change after it.
    await c.query(
      `INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time)
      SELECT id, id, event,
        CASE WHEN NOT $1 OR duplicate_count NOT IN (1, 4) THEN severity WHEN severity = 'warning' THEN 'minor' ELSE 'warning' END,
        status, value, text, 'new', create_time FROM alerts`,
      [flapping],
    );
    if (flapping)
      await c.query(`INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time)
        SELECT id, last_receive_id, event, severity, status, value, text, 'severity', last_receive_time
        FROM alerts WHERE duplicate_count IN (1, 4)`);
    // History written by hand: the alerts' own counts of it (migration 0041).
    await c.query('SELECT alert_history_recount(NULL)');
    await c.query('VACUUM ANALYZE alerts');
    await c.query('VACUUM ANALYZE alert_history');
  } finally {
    await c.end();
  }
}
