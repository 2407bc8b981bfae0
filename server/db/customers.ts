import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Every customer lookup's match and customer (auth.md §5). */
export function customerMatches(db: CommonQueryMethods) {
  return db.any(sql.type(z.object({ match: z.string(), customer: z.string() }))`
    SELECT match, customer FROM customers`);
}
