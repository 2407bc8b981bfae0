import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { texts } from './rows.ts';

/** The fields of an alert a blackout matches on (domain/blackout-status.ts matchesBlackout). */
export const BlackoutFieldsSchema = z.object({
  id: z.string(),
  environment: z.string(),
  resource: z.string(),
  event: z.string(),
  group: z.string(),
  origin: z.string(),
  service: z.array(z.string()),
  tags: z.array(z.string()),
  customer: z.string().nullable(),
});
export type BlackoutFields = z.infer<typeof BlackoutFieldsSchema>;

/**
 * The alerts a blackout of these places could cover: each place is an environment and the
 * resources its blackouts name (null: a blackout of the environment names none, so any resource).
 * Only a narrowing read: whether a blackout covers an alert is `matchesBlackout`'s to say.
 */
export function alertsAt(
  db: CommonQueryMethods,
  places: ReadonlyMap<string, readonly string[] | null>,
): Promise<readonly BlackoutFields[]> {
  if (places.size === 0) return Promise.resolve([]);
  const conditions = [...places].map(([environment, resources]) =>
    resources
      ? sql.fragment`(a.environment = ${environment} AND a.resource = ANY(${texts(resources)}))`
      : sql.fragment`a.environment = ${environment}`,
  );
  return db.any(sql.type(BlackoutFieldsSchema)`
    SELECT a.id::text AS id, a.environment, a.resource, a.event, a."group", a.origin, a.service, a.tags,
      a.customer
    FROM alerts a WHERE ${sql.join(conditions, sql.fragment` OR `)}`);
}
