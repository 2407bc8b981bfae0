import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listMigrations, migrate } from '../../server/db/migrate.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';

/**
 * Migration 0041 on a database that already holds alerts and history: every stored alert gets the
 * counts of its history (stored alerts first read as one entry and no flap, and only the others are
 * rewritten). Then migration 0054 counts them again with `severity` entries only (a `new` entry is
 * no longer one), and the migrator takes the database the rest of the way.
 */

const upgrade = suite<{ db: { name: string; url: string } }>('migrations 0041 and 0054 on stored history', {
  db: { name: '', url: '' },
});
upgrade.before(async (ctx) => {
  ctx.db = await createTestDatabase('mig41');
});
upgrade.after(async (ctx) => {
  await dropTestDatabase(ctx.db.name);
});

upgrade('counts the entries already stored', async ({ db }) => {
  await migrate(db.url, 'public', 41);
  // Five alerts: one entry only; a flap back and forth; a repeat of the same severity (no flap);
  // history trimmed down to status entries (no counted entry); and no history at all.
  const severities: Record<string, [string, string][]> = {
    once: [['new', 'major']],
    flapping: [
      ['new', 'minor'],
      ['severity', 'major'],
      ['status', 'major'],
      ['severity', 'minor'],
    ],
    repeated: [
      ['new', 'warning'],
      ['severity', 'warning'],
    ],
    trimmed: [['status', 'major']],
    bare: [],
  };
  for (const [resource, entries] of Object.entries(severities)) {
    await queryDb(
      db.url,
      `INSERT INTO alerts (id, resource, event, environment, severity, status, service, create_time, receive_time,
         last_receive_id, last_receive_time, update_time, previous_severity, trend_indication)
       VALUES ($1, $1, 'E', 'Production', 'major', 'open', '{web}', now(), now(), 'r', now(), now(), 'indeterminate',
         'noChange')`,
      [resource],
    );
    for (const [i, [type, severity]] of entries.entries())
      await queryDb(
        db.url,
        `INSERT INTO alert_history (alert_id, id, event, severity, status, type, update_time)
         VALUES ($1, $2, 'E', $3, 'open', $4, now())`,
        [resource, `${resource}-${i}`, severity, type],
      );
  }

  const stored = () =>
    queryDb<{ id: string; severity_entries: number; flaps: number }>(
      db.url,
      'SELECT id, severity_entries, flaps FROM alerts ORDER BY id',
    );
  // 0041 to 0053: `severity_entries` counts the entries typed new or severity.
  assert.equal(await migrate(db.url, 'public', 54), [
    ...listMigrations()
      .filter((m) => m.version >= 41 && m.version < 54)
      .map((m) => m.version),
  ]);
  assert.equal(await stored(), [
    { id: 'bare', severity_entries: 0, flaps: 0 },
    { id: 'flapping', severity_entries: 3, flaps: 2 },
    { id: 'once', severity_entries: 1, flaps: 0 },
    { id: 'repeated', severity_entries: 2, flaps: 0 },
    { id: 'trimmed', severity_entries: 0, flaps: 0 },
  ]);
  // 0054 on: the entries typed severity only; flaps are unchanged.
  assert.equal(await migrate(db.url), [
    ...listMigrations()
      .filter((m) => m.version >= 54)
      .map((m) => m.version),
  ]);
  assert.equal(await stored(), [
    { id: 'bare', severity_entries: 0, flaps: 0 },
    { id: 'flapping', severity_entries: 2, flaps: 2 },
    { id: 'once', severity_entries: 0, flaps: 0 },
    { id: 'repeated', severity_entries: 1, flaps: 0 },
    { id: 'trimmed', severity_entries: 0, flaps: 0 },
  ]);
  // Alerts inserted from now on start from none (the insert path sets its own).
  await queryDb(
    db.url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, create_time, receive_time,
       last_receive_id, last_receive_time, update_time, previous_severity, trend_indication)
     VALUES ('later', 'later', 'E', 'Production', 'major', 'open', now(), now(), 'r', now(), now(), 'indeterminate',
       'noChange')`,
  );
  const [later] = await queryDb<{ severity_entries: number }>(
    db.url,
    `SELECT severity_entries FROM alerts WHERE id = 'later'`,
  );
  assert.is(later!.severity_entries, 0);
});

upgrade.run();
