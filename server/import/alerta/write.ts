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
/** Rows as one jsonb parameter, for `jsonb_to_recordset`. */
export const jsonb = (rows: readonly object[]) => sql.jsonb(rows as unknown as SerializableValue);

/** Column types a table's rows travel as in `jsonb_to_recordset`. */
const TYPES = {
  uuid: sql.fragment`uuid`,
  text: sql.fragment`text`,
  'text[]': sql.fragment`text[]`,
  jsonb: sql.fragment`jsonb`,
  integer: sql.fragment`integer`,
  bigint: sql.fragment`bigint`,
  boolean: sql.fragment`boolean`,
  timestamptz: sql.fragment`timestamptz`,
  bytea: sql.fragment`bytea`,
};

/** A table the import writes: its columns (the rows' keys) with their types, and what a conflict on another unique key means. */
interface TableSpec<R> {
  readonly table: string;
  readonly columns: { readonly [K in keyof R & string]: keyof typeof TYPES };
  readonly conflict: string;
}

/**
 * Inserts the rows (`ON CONFLICT DO NOTHING`), then sorts those not inserted into skipped (their
 * id is here) and refused (another unique key of the table is taken).
 */
async function insertRows<R extends { readonly id: string }>(
  db: CommonQueryMethods,
  spec: TableSpec<R>,
  rows: readonly R[],
): Promise<{ outcome: Outcome; inserted: Set<string> }> {
  const columns = Object.entries(spec.columns) as [string, keyof typeof TYPES][];
  const table = sql.identifier([spec.table]);
  const names = sql.join(
    columns.map(([c]) => sql.identifier([c])),
    sql.fragment`, `,
  );
  const values = sql.join(
    columns.map(([c]) => sql.identifier(['x', c])),
    sql.fragment`, `,
  );
  const types = sql.join(
    columns.map(([c, t]) => sql.fragment`${sql.identifier([c])} ${TYPES[t]}`),
    sql.fragment`, `,
  );
  const done = await db.any(sql.type(Ids)`
    INSERT INTO ${table} (${names})
    SELECT ${values} FROM jsonb_to_recordset(${jsonb(rows)}) AS x(${types})
    ON CONFLICT DO NOTHING RETURNING id::text AS id`);
  const inserted = new Set(done.map((r) => r.id));
  const missed = rows.map((r) => r.id).filter((id) => !inserted.has(id));
  if (!missed.length) return { outcome: { imported: inserted.size, skipped: 0, refused: [] }, inserted };
  const here = await db.any(sql.type(Ids)`
    SELECT id::text AS id FROM ${table} WHERE id = ANY(${sql.array(missed, 'uuid')})`);
  const present = new Set(here.map((r) => r.id));
  const refused = missed.filter((id) => !present.has(id)).map((id) => ({ id, reason: spec.conflict }));
  return { outcome: { imported: inserted.size, skipped: present.size, refused }, inserted };
}

const write =
  <R extends { readonly id: string }>(spec: TableSpec<R>) =>
  async (db: CommonQueryMethods, rows: readonly R[]): Promise<Outcome> =>
    (await insertRows(db, spec, rows)).outcome;

export const writeCustomers = write<CustomerRow>({
  table: 'customers',
  columns: { id: 'uuid', match: 'text', customer: 'text' },
  conflict: 'conflict',
});

export const writePerms = write<PermRow>({
  table: 'perms',
  columns: { id: 'uuid', match: 'text', scopes: 'text[]' },
  conflict: 'a permission for the same match exists here under another id',
});

export const writeUsers = write<UserRow>({
  table: 'users',
  columns: {
    id: 'uuid',
    name: 'text',
    login: 'text',
    email: 'text',
    password: 'text',
    status: 'text',
    roles: 'text[]',
    attributes: 'jsonb',
    create_time: 'timestamptz',
    last_login: 'timestamptz',
    text: 'text',
    update_time: 'timestamptz',
    email_verified: 'boolean',
    hash: 'text',
  },
  conflict: 'a user with the same login or email exists here under another id',
});

const GROUPS: TableSpec<Omit<GroupRow, 'users'>> = {
  table: 'groups',
  columns: { id: 'uuid', name: 'text', text: 'text', update_time: 'timestamptz' },
  conflict: 'a group with the same name exists here under another id',
};

/** Groups, and the members of those inserted (a join table here, an id array in Alerta). */
export async function writeGroups(db: CommonQueryMethods, rows: readonly GroupRow[]): Promise<Outcome> {
  const { outcome, inserted } = await insertRows(
    db,
    GROUPS,
    rows.map(({ users: _, ...g }) => g),
  );
  const members = rows
    .filter((g) => inserted.has(g.id))
    .flatMap((g) => g.users.map((u) => ({ group_id: g.id, user_id: u })));
  if (members.length) {
    await db.query(sql.unsafe`
      INSERT INTO group_users (group_id, user_id)
      SELECT x.group_id, x.user_id FROM jsonb_to_recordset(${jsonb(members)}) AS x(group_id uuid, user_id uuid)
      ON CONFLICT DO NOTHING`);
  }
  return outcome;
}

type HashedKey = Omit<KeyRow, 'key'> & { readonly key_hash: string; readonly key_hint: string };
const writeHashedKeys = write<HashedKey>({
  table: 'keys',
  columns: {
    id: 'uuid',
    key_hash: 'bytea',
    key_hint: 'text',
    user: 'text',
    scopes: 'text[]',
    text: 'text',
    expire_time: 'timestamptz',
    count: 'bigint',
    last_used_time: 'timestamptz',
    customer: 'text',
  },
  conflict: 'the same key value exists here under another id',
});

/** Keys are stored as ours are: the SHA-256 of the value and its hint, never the value. */
export const writeKeys = (db: CommonQueryMethods, rows: readonly KeyRow[]): Promise<Outcome> =>
  writeHashedKeys(
    db,
    rows.map(({ key, ...k }) => ({
      ...k,
      key_hash: `\\x${hashKey(key).toString('hex')}`,
      key_hint: keyHintOf(key),
    })),
  );

export const writeBlackouts = write<BlackoutRow>({
  table: 'blackouts',
  columns: {
    id: 'uuid',
    priority: 'integer',
    environment: 'text',
    service: 'text[]',
    resource: 'text',
    event: 'text',
    group: 'text',
    origin: 'text',
    tags: 'text[]',
    customer: 'text',
    start_time: 'timestamptz',
    end_time: 'timestamptz',
    duration: 'integer',
    user: 'text',
    create_time: 'timestamptz',
    text: 'text',
  },
  conflict: 'conflict',
});

export const writeHeartbeats = write<HeartbeatRow>({
  table: 'heartbeats',
  columns: {
    id: 'uuid',
    origin: 'text',
    tags: 'text[]',
    attributes: 'jsonb',
    type: 'text',
    create_time: 'timestamptz',
    receive_time: 'timestamptz',
    timeout: 'integer',
    customer: 'text',
  },
  conflict: 'a heartbeat of the same origin and customer exists here under another id',
});

export const writeNotes = write<NoteRow>({
  table: 'notes',
  columns: {
    id: 'uuid',
    text: 'text',
    user: 'text',
    attributes: 'jsonb',
    type: 'text',
    create_time: 'timestamptz',
    update_time: 'timestamptz',
    alert: 'text',
    customer: 'text',
  },
  conflict: 'conflict',
});
