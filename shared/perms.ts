import { z } from 'zod';
import { IsoTimeSchema, MAX_LENGTH, noNul } from './alerts.ts';
import { ScopeListSchema } from './keys.ts';
import { PagedListShape } from './paging.ts';

// Real clients send null for "not given" (the CLI sends every field), so optional fields accept null.

/** A required name; a missing one is worded as the established server words it. */
const required = (name: string, max: number) =>
  z
    .string({
      error: (i) => (i.input == null ? `Missing mandatory value for ${name}` : `${name} must be a string`),
    })
    .min(1, `Missing mandatory value for ${name}`)
    .max(max, `${name} must be at most ${max} characters`)
    .refine(...noNul(name));

/** A permission's match is unique (indexed): 512 characters fit an index row at any encoding. */
const PERM_MATCH_MAX = 512;
/** A customer lookup's match is not indexed. */
const CUSTOMER_MATCH_MAX = 1000;

/** POST /perm: a role (or group) name pattern and the scopes it grants (api.md §9). */
export const PermInputSchema = z.object(
  { match: required('match', PERM_MATCH_MAX), scopes: ScopeListSchema.nullish() },
  { error: 'expected a JSON object' },
);
export type PermInput = z.infer<typeof PermInputSchema>;

/** PUT /perm/:id: omitted fields unchanged. */
export const PermUpdateSchema = z.object(
  { match: required('match', PERM_MATCH_MAX).nullish(), scopes: ScopeListSchema.nullish() },
  { error: 'expected a JSON object' },
);
export type PermUpdate = z.infer<typeof PermUpdateSchema>;

/** POST /customer: a login, group or email domain pattern and the customer (alerts get it: their limit). */
export const CustomerInputSchema = z.object(
  { match: required('match', CUSTOMER_MATCH_MAX), customer: required('customer', MAX_LENGTH.customer) },
  { error: 'expected a JSON object' },
);
export type CustomerInput = z.infer<typeof CustomerInputSchema>;

/** PUT /customer/:id: omitted fields unchanged. */
export const CustomerUpdateSchema = z.object(
  {
    match: required('match', CUSTOMER_MATCH_MAX).nullish(),
    customer: required('customer', MAX_LENGTH.customer).nullish(),
  },
  { error: 'expected a JSON object' },
);
export type CustomerUpdate = z.infer<typeof CustomerUpdateSchema>;

/** A permission as the API returns it. */
export const PermissionSchema = z.object({
  id: z.string(),
  href: z.string(),
  match: z.string(),
  scopes: z.array(z.string()),
});
export type Permission = z.infer<typeof PermissionSchema>;

/** A customer lookup as the API returns it. */
export const CustomerSchema = z.object({
  id: z.string(),
  href: z.string(),
  match: z.string(),
  customer: z.string(),
});
export type Customer = z.infer<typeof CustomerSchema>;

const paging = { ...PagedListShape, time: IsoTimeSchema };

/** GET /perms */
export const PermissionListSchema = z.object({ ...paging, permissions: z.array(PermissionSchema) });
export type PermissionList = z.infer<typeof PermissionListSchema>;

/** GET /customers */
export const CustomerListSchema = z.object({ ...paging, customers: z.array(CustomerSchema) });
export type CustomerList = z.infer<typeof CustomerListSchema>;

/** GET /scopes */
export const ScopesSchema = z.object({
  status: z.literal('ok'),
  scopes: z.array(z.string()),
  total: z.number().int(),
});
