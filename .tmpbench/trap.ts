import pg from 'pg';
import { createTestDatabase, dropTestDatabase } from '../tests/helpers/db.ts';
import { migrate } from '../server/db/migrate.ts';
import { claim } from '../server/db/notifications.ts';
import { capturing, numbered } from '../tests/helpers/receive-statements.ts';
const db = await createTestDatabase('claimtrap');
try {
  await migrate(db.url);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const { db: cap, seen } = capturing();
  await claim(cap, { receiverId: 'r1', owner: 'me', limit: 200, leaseMs: 30000 });
  const q = seen[0]!;
  const text = numbered(q);
  await c.query(`INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at)
    SELECT 'r1', 'rule-last', 'a' || g, 'trigger', now() - interval '1 second' FROM generate_series(1, 5) g`);
  await c.query(`PREPARE p AS ${text}`);
  for (let i = 0; i < 7; i++) { await c.query('BEGIN'); await c.query(`EXECUTE p(${q.values.map((v) => typeof v === 'string' ? `'${v}'` : v).join(',')})`); await c.query('ROLLBACK'); }
  console.log((await c.query(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'p'`)).rows);
  await c.query(`INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at)
    SELECT 'r1', 'rule-last', 'a' || g, 'trigger', now() + ((g - 200) * 0.5) * interval '1 millisecond' FROM generate_series(1, 19000) g`);
  await c.query('BEGIN');
  const r = await c.query(`EXPLAIN (ANALYZE) EXECUTE p(${q.values.map((v) => typeof v === 'string' ? `'${v}'` : v).join(',')})`);
  for (const row of r.rows) console.log(row['QUERY PLAN']);
  await c.query('ROLLBACK');
  await c.end();
} finally {
  await dropTestDatabase(db.name);
}
