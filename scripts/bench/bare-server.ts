/**
 * The least a Node server on this stack does for a receipt, for `side-by-side.ts --only bare`
 * (issue #20 item 6): `node:http` without a framework, the body parsed with JSON.parse and not
 * validated, no authentication, plugins, alarm model, history, metrics, log or live push; each
 * receipt one row of a batched upsert into side-by-side's `upserts` table (one statement in flight
 * at a time, every receipt that waited going into the next, as the product's own batching does),
 * answered with the row as JSON. What it reaches is the ceiling of Node + `pg` + PostgreSQL on the
 * machine for this load: the product's figure is read against it.
 * Usage: DATABASE_URL=… node scripts/bench/bare-server.ts  (prints `listening on PORT`)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const UPSERT = `
WITH k AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS k(environment, resource, event))
INSERT INTO upserts AS u (id, environment, resource, event, severity, status, service, tags, attributes, text,
  last_receive_id, create_time, receive_time, last_receive_time)
SELECT gen_random_uuid()::text, k.environment, k.resource, k.event, 'major', 'open', '{network}', '{}',
  '{"notify": true}', '', gen_random_uuid()::text, now(), now(), now()
FROM k
ON CONFLICT (environment, resource, event, COALESCE(customer, '')) DO UPDATE SET
  duplicate_count = u.duplicate_count + 1, repeat = true, last_receive_id = EXCLUDED.last_receive_id,
  last_receive_time = EXCLUDED.last_receive_time, attributes = u.attributes || EXCLUDED.attributes
RETURNING u.*`;

const keyOf = (r: { environment?: unknown; resource?: unknown; event?: unknown }) =>
  `${String(r.environment)}\u0000${String(r.resource)}\u0000${String(r.event)}`;

interface Receipt {
  environment: string;
  resource: string;
  event: string;
  answer: (row: Record<string, unknown> | undefined) => void;
}

let waiting: Receipt[] = [];
let writing = false;

async function write() {
  writing = true;
  while (waiting.length) {
    // One row per identity per statement (an upsert may not touch a row twice): a repeat waits.
    const keys = new Set<string>();
    const batch: Receipt[] = [];
    const later: Receipt[] = [];
    for (const r of waiting) {
      const key = keyOf(r);
      (keys.has(key) ? later : batch).push(r);
      keys.add(key);
    }
    waiting = later;
    try {
      const { rows } = await pool.query<Record<string, unknown>>({
        name: 'upsert',
        text: UPSERT,
        values: [batch.map((r) => r.environment), batch.map((r) => r.resource), batch.map((r) => r.event)],
      });
      const byKey = new Map(rows.map((row) => [keyOf(row), row]));
      for (const r of batch) r.answer(byKey.get(keyOf(r)));
    } catch (err) {
      console.error(err);
      for (const r of batch) r.answer(undefined);
    }
  }
  writing = false;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const a = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, string>;
    waiting.push({
      environment: a.environment!,
      resource: a.resource!,
      event: a.event!,
      answer: (row) => {
        const body = JSON.stringify(row ? { status: 'ok', id: row.id, alert: row } : { status: 'error' });
        res.writeHead(row ? 201 : 500, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
    });
    if (!writing) void write();
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
