import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Running } from '../../server/boot.ts';
import { migrate } from '../../server/db/migrate.ts';
import { apiFor, bootInstance } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';

/**
 * Migration 0050 on a database whose keys were stored in plain text: every key gets the SHA-256 the
 * server computes and its first characters, the value is gone from the table, and the keys still
 * authenticate (by value and by id) on a server started afterwards.
 */

const upgrade = suite<{ db: { name: string; url: string }; running: Running | null }>(
  'migration 0050 on stored keys',
  { db: { name: '', url: '' }, running: null },
);
upgrade.before(async (ctx) => {
  ctx.db = await createTestDatabase('mig50');
});
upgrade.after(async (ctx) => {
  await ctx.running?.close();
  await dropTestDatabase(ctx.db.name);
});

const OLD = {
  random: 'Zq3v_8kLp0aXy-Tb2nRc7mWf4hJd9sGe1uQoViKt', // 40 characters, as the server makes them
  chosen: 'ops-team-key-2024', // an explicit value, as ADMIN_KEY or `alerta key -K`
  short: 'abcd', // shorter than any the API accepts today
};

upgrade('hashes every stored key and keeps it working', async (ctx) => {
  const { db } = ctx;
  await migrate(db.url, 'public', 50);
  for (const [text, value] of Object.entries(OLD)) {
    await queryDb(
      db.url,
      `INSERT INTO keys (id, key, "user", scopes, text, expire_time)
       VALUES (gen_random_uuid(), $1, 'ops@example.com', '{read}', $2, now() + interval '1 day')`,
      [value, text],
    );
  }
  await migrate(db.url);

  const rows = await queryDb<{ text: string; key: string | null; hash: Buffer; hint: string }>(
    db.url,
    'SELECT text, key, key_hash AS hash, key_hint AS hint FROM keys ORDER BY text',
  );
  assert.equal(
    rows.map((r) => [r.text, r.key, r.hash.toString('hex'), r.hint]),
    [
      ['chosen', null, createHash('sha256').update(OLD.chosen).digest('hex'), 'ops-'],
      ['random', null, createHash('sha256').update(OLD.random).digest('hex'), 'Zq3v_8'],
      ['short', null, createHash('sha256').update(OLD.short).digest('hex'), 'a'],
    ],
  );
  const dump = await queryDb<{ t: string }>(db.url, "SELECT string_agg(k::text, ' ') AS t FROM keys k");
  for (const value of Object.values(OLD)) assert.not.ok(dump[0]!.t.includes(value), value);

  ctx.running = await bootInstance(db.url, { AUTH_REQUIRED: 'True', SECRET_KEY: 'migration-test-secret' });
  const api = apiFor(ctx.running);
  for (const value of Object.values(OLD)) {
    const res = await api.call('GET', '/keys', undefined, { headers: { Authorization: `Key ${value}` } });
    assert.is(res.status, 200, value);
    const listed = (res.body.keys as { key: string }[]).map((k) => k.key).sort();
    assert.equal(listed, ['Zq3v_8…', 'a…', 'ops-…']);
  }
  const [{ id }] = (await queryDb<{ id: string }>(
    db.url,
    `SELECT id::text FROM keys WHERE text = 'random'`,
  )) as [{ id: string }];
  const byId = await api.call('GET', '/alerts', undefined, { headers: { 'X-API-Key': id } });
  assert.is(byId.status, 200);
});

upgrade.run();
