import { z } from 'zod';
import { IsoInputTimeSchema, IsoTimeSchema, MAX_LENGTH, noNul, tooLong } from './alerts.ts';
import { PagedListShape } from './paging.ts';

// Real clients send null for "not given" (the CLI sends every field), so optional fields accept null.

const text = (name: string) => z.string({ error: `${name} must be a string` }).refine(...noNul(name));

/** Requested scopes: a list of strings; whether each names a scope is checked against the settings. */
export const ScopeListSchema = z.array(
  z.string({ error: 'scopes must be a list of strings' }).max(200, 'scopes must be at most 200 characters'),
  { error: 'scopes must be a list' },
);

/** Fields POST and PUT /key share; presence matters on PUT (absent = unchanged). */
const fields = {
  user: text('user').min(1, 'user must not be an empty string').max(256).nullish(),
  scopes: ScopeListSchema.nullish(),
  /** Legacy: `read-only` → [read], `read-write` → [read, write] (auth.md §9). */
  type: z.enum(['read-only', 'read-write'], { error: "type must be 'read-only' or 'read-write'" }).nullish(),
  text: text('text').max(10_000).nullish(),
  expireTime: IsoInputTimeSchema.nullish(),
  // Alerts sent with the key get this customer, so it takes their limit.
  customer: text('customer')
    .min(1, 'customer must not be an empty string')
    .max(MAX_LENGTH.customer, tooLong('customer', MAX_LENGTH.customer))
    .nullish(),
};

/** POST /key (api.md §8); `key` is an explicit key value (the container's ADMIN_KEY relies on it). */
export const KeyInputSchema = z.object(
  {
    ...fields,
    key: z
      .string({ error: 'key must be a string' })
      .regex(/^[\x21-\x7e]{1,128}$/, 'key must be 1 to 128 printable characters without spaces')
      .nullish(),
  },
  { error: 'expected a JSON object' },
);
export type KeyInput = z.infer<typeof KeyInputSchema>;

/** PUT /key/:key: any subset of the fields. */
export const KeyUpdateSchema = z.object(fields, { error: 'expected a JSON object' });
export type KeyUpdate = z.infer<typeof KeyUpdateSchema>;

/** A key value or id as it appears in a URL; a masked value (`abcdef…`, from a list) names no key. */
export const KeyParamSchema = z.string({ error: 'key must be a string' }).superRefine((v, c) => {
  if (v.endsWith('…')) {
    c.addIssue({ code: 'custom', message: 'a masked key names no key: use the key id or its whole value' });
  } else if (!/^[\x21-\x7e]{1,128}$/.test(v)) {
    c.addIssue({ code: 'custom', message: 'key must be 1 to 128 printable characters' });
  }
});

/**
 * An API key as the API returns it (api.md §8). Only POST /key's answer carries the whole value in
 * `key`; everywhere else it is masked (`abcdef…`, the server keeps only a hash) and `href` names
 * the key by its id, which addresses it as well as the value does.
 */
export const ApiKeySchema = z.object({
  id: z.string(),
  key: z.string(),
  status: z.enum(['active', 'expired']),
  href: z.string(),
  user: z.string(),
  scopes: z.array(z.string()),
  type: z.enum(['read-only', 'read-write']),
  text: z.string(),
  expireTime: IsoTimeSchema,
  count: z.number().int(),
  lastUsedTime: IsoTimeSchema.nullable(),
  customer: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** GET /keys */
export const ApiKeyListSchema = z.object({ ...PagedListShape, keys: z.array(ApiKeySchema) });
export type ApiKeyList = z.infer<typeof ApiKeyListSchema>;
