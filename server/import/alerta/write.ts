/**
 * Writes mapped rows into our tables, a batch per statement, each batch in one transaction: an
 * alert is written with its whole history or not at all. Every insert is `ON CONFLICT DO NOTHING`,
 * so a second run adds nothing and an interrupted one continues where it stopped; rows that were
 * not inserted are told apart afterwards (already here by id, or taken by another row's unique
 * key). Tallies and counters are kept by the tables' own triggers (migrations 0031, 0038) and
 * `alert_history_recount` (migration 0041), as for any write of ours.
 * tests/api/import-alerta.test.ts.
 */
import { sql, type CommonQueryMethods, type SerializableValue } from 'slonik';
import { z } from 'zod';
import { hashKey, keyHintOf } from '../../db/keys.ts';
import type { CustomerRow, GroupRow, KeyRow, PermRow, UserRow } from './access-rows.ts';
import type { BlackoutRow, HeartbeatRow, NoteRow } from './rows.ts';

/** What became of each row of a batch: imported, or not, and why. */
export interface Outcome {
  readonly imported: number;
  /** Rows already here with the same id (a second run, or the forwarded stream). */
  readonly skipped: number;
  /** Rows that could not be written, each with its reason. */
  readonly refused: { id: string; reason: string }[];
  /** History entries written (alerts only). */
  readonly history?: number;
  /** Alerts here that the source holds more of (a newer state, more history): replaced. */
  readonly replaced?: number;
}

const Ids = z.object({ id: z.string() });
const jsonb = (rows: readonly object[]) => sql.jsonb(rows as unknown as SerializableValue);

/** Sorts the rows a statement did not insert into skipped (id here) and refused (another key). */
async function classify(
  db: CommonQueryMethods,
  table: string,
  idType: 'uuid' | 'text',
  all: readonly string[],
  inserted: readonly string[],
  conflict: string,
): Promise<Outcome> {
  const done = new Set(inserted);
  const missed = all.filter((id) => !done.has(id));
  if (!missed.length) return { imported: inserted.length, skipped: 0, refused: [] };
  const here = await db.any(sql.type(Ids)`
    SELECT id::text AS id FROM ${sql.identifier([table])}
    WHERE id = ANY(${sql.array(missed, idType)})`);
  const present = new Set(here.map((r) => r.id));
  return {
    imported: inserted.length,
    skipped: present.size,
    refused: missed.filter((id) => !present.has(id)).map((id) => ({ id, reason: conflict })),
  };
}

export async function writeCustomers(db: CommonQueryMethods, rows: readonly CustomerRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO customers (id, match, customer)
    SELECT x.id, x.match, x.customer FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, match text, customer text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'customers',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'conflict',
  );
}

export async function writePerms(db: CommonQueryMethods, rows: readonly PermRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO perms (id, match, scopes)
    SELECT x.id, x.match, x.scopes FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, match text, scopes text[])
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'perms',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'a permission for the same match exists here under another id',
  );
}

export async function writeUsers(db: CommonQueryMethods, rows: readonly UserRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO users (id, name, login, email, password, status, roles, attributes, create_time, last_login,
      text, update_time, email_verified, hash)
    SELECT x.id, x.name, x.login, x.email, x.password, x.status, x.roles, x.attributes, x.create_time,
      x.last_login, x.text, x.update_time, x.email_verified, x.hash
    FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, name text, login text, email text, password text,
      status text, roles text[], attributes jsonb, create_time timestamptz, last_login timestamptz, text text,
      update_time timestamptz, email_verified boolean, hash text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'users',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'a user with the same login or email exists here under another id',
  );
}

export async function writeGroups(db: CommonQueryMethods, rows: readonly GroupRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO groups (id, name, text, update_time)
    SELECT x.id, x.name, x.text, x.update_time
    FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, name text, text text, update_time timestamptz)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  const members = rows
    .filter((g) => inserted.some((i) => i.id === g.id))
    .flatMap((g) => g.users.map((u) => ({ group_id: g.id, user_id: u })));
  if (members.length) {
    await db.query(sql.unsafe`
      INSERT INTO group_users (group_id, user_id)
      SELECT x.group_id, x.user_id FROM jsonb_to_recordset(${jsonb(members)}) AS x(group_id uuid, user_id uuid)
      ON CONFLICT DO NOTHING`);
  }
  return classify(
    db,
    'groups',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'a group with the same name exists here under another id',
  );
}

/** Keys are stored as ours are: the SHA-256 of the value and its hint, never the value. */
export async function writeKeys(db: CommonQueryMethods, rows: readonly KeyRow[]): Promise<Outcome> {
  const hashed = rows.map(({ key, ...k }) => ({
    ...k,
    key_hash: hashKey(key).toString('hex'),
    key_hint: keyHintOf(key),
  }));
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO keys (id, key_hash, key_hint, "user", scopes, text, expire_time, count, last_used_time, customer)
    SELECT x.id, decode(x.key_hash, 'hex'), x.key_hint, x."user", x.scopes, x.text, x.expire_time, x.count,
      x.last_used_time, x.customer
    FROM jsonb_to_recordset(${jsonb(hashed)}) AS x(id uuid, key_hash text, key_hint text, "user" text,
      scopes text[], text text, expire_time timestamptz, count bigint, last_used_time timestamptz, customer text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'keys',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'the same key value exists here under another id',
  );
}

export async function writeBlackouts(db: CommonQueryMethods, rows: readonly BlackoutRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO blackouts (id, priority, environment, service, resource, event, "group", origin, tags, customer,
      start_time, end_time, duration, "user", create_time, text)
    SELECT x.id, x.priority, x.environment, x.service, x.resource, x.event, x."group", x.origin, x.tags,
      x.customer, x.start_time, x.end_time, x.duration, x."user", x.create_time, x.text
    FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, priority integer, environment text, service text[],
      resource text, event text, "group" text, origin text, tags text[], customer text, start_time timestamptz,
      end_time timestamptz, duration integer, "user" text, create_time timestamptz, text text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'blackouts',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'conflict',
  );
}

export async function writeHeartbeats(
  db: CommonQueryMethods,
  rows: readonly HeartbeatRow[],
): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO heartbeats (id, origin, tags, attributes, type, create_time, receive_time, timeout, customer)
    SELECT x.id, x.origin, x.tags, x.attributes, x.type, x.create_time, x.receive_time, x.timeout, x.customer
    FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, origin text, tags text[], attributes jsonb, type text,
      create_time timestamptz, receive_time timestamptz, timeout integer, customer text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'heartbeats',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'a heartbeat of the same origin and customer exists here under another id',
  );
}

export async function writeNotes(db: CommonQueryMethods, rows: readonly NoteRow[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO notes (id, text, "user", attributes, type, create_time, update_time, alert, customer)
    SELECT x.id, x.text, x."user", x.attributes, x.type, x.create_time, x.update_time, x.alert, x.customer
    FROM jsonb_to_recordset(${jsonb(rows)}) AS x(id uuid, text text, "user" text, attributes jsonb, type text,
      create_time timestamptz, update_time timestamptz, alert text, customer text)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  return classify(
    db,
    'notes',
    'uuid',
    rows.map((r) => r.id),
    inserted.map((r) => r.id),
    'conflict',
  );
}
