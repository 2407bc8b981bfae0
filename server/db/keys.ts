import { createHash } from 'node:crypto';
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { deleteByUuid, isUuid, textFilterSql, texts, ts } from './rows.ts';
import type { TextFilter } from '../domain/query/list-filters.ts';

/**
 * What is stored of a key's value: its SHA-256 (UTF-8 bytes). Keys are long random tokens, so one
 * unsalted digest suffices; migration 0050 computes the same with `sha256(convert_to(key, 'UTF8'))`
 * (tests/api/migration-key-hashes.test.ts checks that both agree).
 */
export const hashKey = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The first characters of a key, kept so lists can tell keys apart: at most 6, and at most a quarter
 * of the value (a short key given in the settings keeps most of its secret). Migration 0050's
 * trigger cuts the same.
 */
export const keyHintOf = (value: string): string => value.slice(0, Math.min(6, Math.floor(value.length / 4)));

export const KeyRowSchema = z.object({
  id: z.string(),
  /** The first characters of the value (keyHintOf); the value itself is never stored. */
  hint: z.string(),
  user: z.string(),
  scopes: z.array(z.string()),
  text: z.string(),
  expireTime: z.number(),
  count: z.number(),
  lastUsedTime: z.number().nullable(),
  customer: z.string().nullable(),
});
export type KeyRow = z.infer<typeof KeyRowSchema>;

export const keyColumns = sql.fragment`
  k.id::text AS id, k.key_hint AS hint, k."user", k.scopes, k.text, k.expire_time AS "expireTime", k.count,
  k.last_used_time AS "lastUsedTime", k.customer`;

/** A key found by its value or id: by its hash, or (as Alerta allows) by id when the text is a UUID. */
const matchOf = (keyOrId: string) => {
  const hash = sql.binary(hashKey(keyOrId));
  return isUuid(keyOrId)
    ? sql.fragment`(k.key_hash = ${hash} OR k.id = ${keyOrId}::uuid)`
    : sql.fragment`k.key_hash = ${hash}`;
};

const KeyAuthRowSchema = KeyRowSchema.extend({
  /** The status of the user the key belongs to (by login or email), null when no such user exists. */
  userStatus: z.string().nullable(),
});
export type KeyAuthRow = z.infer<typeof KeyAuthRowSchema>;

/**
 * The key a request presents, by its value or (as Alerta allows) its id, expired keys included,
 * with its owner's status, in one statement: a key of a user who is not active is refused
 * (tests/api/users-disabled.test.ts).
 */
export function findKeyForAuth(db: CommonQueryMethods, value: string): Promise<KeyAuthRow | null> {
  return db.maybeOne(sql.type(KeyAuthRowSchema)`
    SELECT ${keyColumns},
      (SELECT u.status FROM users u WHERE u.login = k."user" OR lower(u.email) = lower(k."user")
       ORDER BY (u.login = k."user") DESC LIMIT 1) AS "userStatus"
    FROM keys k WHERE ${matchOf(value)}
    ORDER BY (k.key_hash = ${sql.binary(hashKey(value))}) DESC LIMIT 1`);
}

/** Adds batched uses to keys' `count` and moves `lastUsedTime` forward, in one statement. */
export async function recordKeyUses(
  db: CommonQueryMethods,
  uses: readonly { id: string; count: number; last: number }[],
): Promise<void> {
  if (uses.length === 0) return;
  const rows = sql.join(
    uses.map((u) => sql.fragment`(${u.id}::uuid, ${u.count}::bigint, ${sql.timestamp(new Date(u.last))})`),
    sql.fragment`, `,
  );
  await db.query(sql.unsafe`
    UPDATE keys k SET count = k.count + v.n,
      last_used_time = GREATEST(COALESCE(k.last_used_time, v.last), v.last)
    FROM (VALUES ${rows}) AS v(id, n, last) WHERE k.id = v.id`);
}

/** A write of every field a key owns; count and lastUsedTime only move through `recordKeyUses`. */
export type KeyWrite = Omit<KeyRow, 'count' | 'lastUsedTime' | 'hint'>;

/** Stores a new key: its hash and hint, never `value` itself. */
export function insertKey(db: CommonQueryMethods, k: KeyWrite & { value: string }): Promise<KeyRow> {
  return db.one(sql.type(KeyRowSchema)`
    INSERT INTO keys AS k (id, key_hash, key_hint, "user", scopes, text, expire_time, customer)
    VALUES (${k.id}::uuid, ${sql.binary(hashKey(k.value))}, ${keyHintOf(k.value)}, ${k.user},
      ${texts(k.scopes)}, ${k.text}, ${ts(k.expireTime)}, ${k.customer})
    RETURNING ${keyColumns}`);
}

/** Who may see a key: its owner only (null = anyone), within these customers (null = any). */
export interface KeyVisibility {
  user: string | null;
  customers: readonly string[] | null;
}

const visibleSql = (v: KeyVisibility) => sql.fragment`
  ${v.user === null ? sql.fragment`` : sql.fragment`AND k."user" = ${v.user}`}
  ${v.customers === null ? sql.fragment`` : sql.fragment`AND k.customer = ANY(${texts(v.customers)})`}`;

/** One key by its value or id, if the caller may see it. */
export function findKey(
  db: CommonQueryMethods,
  keyOrId: string,
  visibility: KeyVisibility,
  options: { forUpdate?: boolean } = {},
): Promise<KeyRow | null> {
  const lock = options.forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``;
  return db.maybeOne(sql.type(KeyRowSchema)`
    SELECT ${keyColumns} FROM keys k WHERE ${matchOf(keyOrId)} ${visibleSql(visibility)}
    ORDER BY (k.key_hash = ${sql.binary(hashKey(keyOrId))}) DESC LIMIT 1 ${lock}`);
}

/** GET /keys filters (api.md §8): each list is "any of these"; undefined = no filter. */
export interface KeyFilters {
  status?: readonly ('active' | 'expired')[];
  user?: readonly TextFilter[];
  scope?: readonly string[];
  type?: readonly ('read-only' | 'read-write')[];
  text?: readonly TextFilter[];
  customer?: readonly TextFilter[];
  key?: readonly string[];
  count?: readonly number[];
  expireTime?: readonly number[];
  lastUsedTime?: readonly number[];
}

export interface KeySelection extends KeyVisibility {
  filters: KeyFilters;
  now: number;
}

const READ_WRITE = sql.fragment`EXISTS (SELECT 1 FROM unnest(k.scopes) s WHERE s LIKE 'write%' OR s LIKE 'admin%')`;

/** The key's time column `column` is one of these times (epoch ms). */
const timeAmong = (column: string, times: readonly number[]) =>
  sql.fragment`${sql.identifier(['k', column])} = ANY(${sql.array(
    times.map((ms) => new Date(ms).toISOString()),
    'timestamptz',
  )})`;

function whereOf(s: KeySelection) {
  const f = s.filters;
  const parts = [sql.fragment`TRUE ${visibleSql(s)}`];
  const now = ts(s.now);
  if (f.status) {
    const st = [...new Set(f.status)];
    if (st.length === 1)
      parts.push(
        st[0] === 'active' ? sql.fragment`k.expire_time > ${now}` : sql.fragment`k.expire_time <= ${now}`,
      );
  }
  if (f.type) {
    const ty = [...new Set(f.type)];
    if (ty.length === 1) parts.push(ty[0] === 'read-write' ? READ_WRITE : sql.fragment`NOT ${READ_WRITE}`);
  }
  parts.push(...textFilterSql(sql.fragment`k."user"`, f.user ?? []));
  if (f.scope) parts.push(sql.fragment`k.scopes && ${texts(f.scope)}`);
  parts.push(...textFilterSql(sql.fragment`k.text`, f.text ?? []));
  parts.push(...textFilterSql(sql.fragment`k.customer`, f.customer ?? []));
  if (f.key) {
    const hashes = f.key.map((v) => hashKey(v).toString('hex'));
    parts.push(sql.fragment`k.key_hash IN (SELECT decode(h, 'hex') FROM unnest(${texts(hashes)}) AS h)`);
  }
  if (f.count) parts.push(sql.fragment`k.count = ANY(${sql.array([...f.count], 'int8')})`);
  if (f.expireTime) parts.push(timeAmong('expire_time', f.expireTime));
  if (f.lastUsedTime) parts.push(timeAmong('last_used_time', f.lastUsedTime));
  return sql.join(parts, sql.fragment` AND `);
}

/** One page of keys, the latest to expire first, ties broken by id so pages never overlap. */
export function listKeys(
  db: CommonQueryMethods,
  selection: KeySelection,
  page: { limit: number; offset: number },
): Promise<readonly KeyRow[]> {
  return db.any(sql.type(KeyRowSchema)`
    SELECT ${keyColumns} FROM keys k WHERE ${whereOf(selection)}
    ORDER BY k.expire_time DESC, k.id LIMIT ${page.limit} OFFSET ${page.offset}`);
}

export function countKeys(db: CommonQueryMethods, selection: KeySelection): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM keys k WHERE ${whereOf(selection)}`);
}

export function updateKey(db: CommonQueryMethods, k: KeyWrite): Promise<KeyRow> {
  return db.one(sql.type(KeyRowSchema)`
    UPDATE keys AS k SET "user" = ${k.user}, scopes = ${texts(k.scopes)}, text = ${k.text},
      expire_time = ${ts(k.expireTime)}, customer = ${k.customer}
    WHERE k.id = ${k.id}::uuid
    RETURNING ${keyColumns}`);
}

/** Deletes one key by id; false when it was already gone. */
export const deleteKey = (db: CommonQueryMethods, id: string) => deleteByUuid(db, 'keys', id);

/** Does this user hold an unexpired key with the `admin` scope? (admin bootstrap, auth.md §13) */
export async function hasAdminKey(db: CommonQueryMethods, user: string, now: number): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM keys k WHERE k."user" = ${user} AND 'admin' = ANY(k.scopes) AND k.expire_time > ${ts(now)}`);
}

/** Is any key stored under this value (its hash)? */
export function keyValueExists(db: CommonQueryMethods, value: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM keys k WHERE k.key_hash = ${sql.binary(hashKey(value))}`);
}

/** Serialises the admin-key bootstrap of instances starting together (released at commit). */
export async function lockKeyBootstrap(db: CommonQueryMethods): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext('bootstrap_admin_keys'))`);
}
