import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests make their databases on: set by scripts/test.ts, or the local one. */
export const serverUrl =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs `fn` on a connection of its own to `url`, closed however `fn` ends. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const admin = <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => withClient(serverUrl, fn);

/** A new, empty database owned by one suite. */
export async function createTestDatabase(label = 'suite'): Promise<{ name: string; url: string }> {
  const name =
    `test_${label.replace(/\W/g, '_').slice(0, 30)}_${randomBytes(5).toString('hex')}`.toLowerCase();
  await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
  return { name, url: databaseUrl(name) };
}

export async function dropTestDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}

/** Runs one query on a database, for assertions on stored state. */
export async function queryDb<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** An API key as a test stores it: no customer unless given. */
export interface StoredKey {
  key: string;
  user: string;
  scopes: readonly string[];
  customer?: string | null;
}

/** API keys written straight into `keys`, valid for a day (the server hashes the plain value on insert). */
export async function insertKeys(url: string, keys: readonly StoredKey[]): Promise<void> {
  for (const k of keys)
    await queryDb(
      url,
      `INSERT INTO keys (id, key, "user", scopes, expire_time, customer)
       VALUES (gen_random_uuid(), $1, $2, $3, now() + interval '1 day', $4)`,
      [k.key, k.user, k.scopes, k.customer ?? null],
    );
}

/**
 * Keys named by who holds them: `admin` an administrator of every customer, any other name a
 * reader and writer of the customer of that name; user `<name>@example.com`.
 */
export const customerKeys = (keys: Record<string, string>): StoredKey[] =>
  Object.entries(keys).map(([who, key]) => ({
    key,
    user: `${who}@example.com`,
    scopes: who === 'admin' ? ['admin', 'read', 'write'] : ['read', 'write'],
    customer: who === 'admin' ? null : who,
  }));
