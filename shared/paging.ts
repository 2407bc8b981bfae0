import { z } from 'zod';

/**
 * What every paged list answer (GET /alerts, /blackouts, /keys, /users, /groups, /perms,
 * /customers) carries besides its items: where the page stands in the whole list.
 */
export const PagedListShape = {
  status: z.literal('ok'),
  message: z.string().optional(),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  pages: z.number().int(),
  more: z.boolean(),
};
