import { randomUUID } from 'node:crypto';
import { queryDb } from './db.ts';

/**
 * The id of the local user with this login, stored straight in the database (created when absent,
 * status `active`). A bearer token is accepted only while its user exists and is active, so a test
 * that signs its own tokens signs them for a user made here.
 */
export async function tokenUser(databaseUrl: string, login: string): Promise<string> {
  const rows = await queryDb<{ id: string }>(
    databaseUrl,
    `INSERT INTO users (id, name, login, email, create_time)
     VALUES ($1, $2, $2, CASE WHEN $2 LIKE '%@%' THEN $2 END, now())
     ON CONFLICT (login) DO UPDATE SET login = EXCLUDED.login
     RETURNING id::text`,
    [randomUUID(), login],
  );
  return rows[0]!.id;
}
