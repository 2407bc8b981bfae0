import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Every permission's match and scopes (roles and groups → scopes, auth.md §4). */
export function permMatches(db: CommonQueryMethods) {
  return db.any(sql.type(z.object({ match: z.string(), scopes: z.array(z.string()) }))`
    SELECT match, scopes FROM perms`);
}
