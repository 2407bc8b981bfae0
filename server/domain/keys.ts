import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { formatTime } from '../../shared/alerts.ts';
import type { ApiKey, ApiKeyList, KeyInput, KeyUpdate } from '../../shared/keys.ts';
import { isAdminOf } from '../auth/scopes.ts';
import type { Auth } from '../auth/types.ts';
import * as keysDb from '../db/keys.ts';
import type { KeyFilters, KeyRow, KeyVisibility } from '../db/keys.ts';
import type { Deps } from '../deps.ts';
import { ShownOnce } from '../log.ts';
import { appError } from '../errors.ts';
import { assignCustomer } from './caller.ts';
import { assertGrantable } from './perms.ts';
import { filtersOf, textFilters } from './query/list-filters.ts';
import { invalidDate, parseIsoDate } from './query/conditions.ts';
import { pageFieldsOf, pagingOf } from './query/params.ts';

const ADMIN_SCOPES = ['admin', 'read', 'write'];
const DAY_MS = 86_400_000;
const iso = formatTime;

/** `read-write` when any scope writes or administers, else `read-only` (auth.md §9). */
export const keyTypeOf = (scopes: readonly string[]): 'read-write' | 'read-only' =>
  scopes.some((s) => s.startsWith('write') || s.startsWith('admin')) ? 'read-write' : 'read-only';

/** A new key value: 40 URL-safe base64 characters of an HMAC-SHA256 (SECRET_KEY) of 32 random bytes. */
export function newKeyValue(secret: string): string {
  return createHmac('sha256', secret).update(randomBytes(32)).digest('base64url').slice(0, 40);
}

/** How a stored key's value is shown: its first characters and an ellipsis (the rest is not kept). */
export const maskedKey = (hint: string) => `${hint}…`;

/**
 * The API's key (api.md §8), its status evaluated at `now`. Only the hash of the value is stored,
 * so `key` is the masked value (`abcdef…`) unless `value` is given (POST /key answers with it, once)
 * and `href` names the key by its id.
 */
export function presentKey(row: KeyRow, baseUrl: string, now: number, value?: string): ApiKey {
  return {
    id: row.id,
    key: value ?? maskedKey(row.hint),
    status: row.expireTime > now ? 'active' : 'expired',
    href: `${baseUrl}/key/${row.id}`,
    user: row.user,
    scopes: row.scopes,
    type: keyTypeOf(row.scopes),
    text: row.text,
    expireTime: iso(row.expireTime),
    count: row.count,
    lastUsedTime: row.lastUsedTime === null ? null : iso(row.lastUsedTime),
    customer: row.customer,
  };
}

/** Administrators of keys (and the open anonymous caller, AUTH_REQUIRED off) see and name anyone's keys. */
const isKeyAdmin = (auth: Auth) => auth.unrestricted || isAdminOf(auth.scopes, 'keys');

/** The caller's customer restriction; null = unrestricted. */
const customersOf = (deps: Deps, auth: Auth) =>
  deps.config.CUSTOMER_VIEWS && auth.customers.length ? auth.customers : null;

/** Non-admins see only their own keys; everyone only keys of their customers. */
const visibilityOf = (deps: Deps, auth: Auth): KeyVisibility => ({
  user: isKeyAdmin(auth) ? null : (auth.login ?? ''),
  customers: customersOf(deps, auth),
});

/** Scopes asked for: explicit ones, else the legacy `type`, else USER_DEFAULT_SCOPES (auth.md §9). */
function requestedScopes(
  deps: Deps,
  input: Pick<KeyInput, 'scopes' | 'type'>,
  user: string,
): string[] | null {
  if (input.scopes && input.scopes.length) return [...new Set(input.scopes)];
  if (input.type === 'read-only') return ['read'];
  if (input.type === 'read-write') {
    return deps.config.ADMIN_USERS.includes(user) ? [...ADMIN_SCOPES] : ['read', 'write'];
  }
  return null;
}

/** The customer a key gets: admins name any; others get theirs (alert-lifecycle.md §3 rule). */
function customerFor(deps: Deps, auth: Auth, wanted: string | null | undefined): string | null | undefined {
  if (isAdminOf(auth.scopes, 'keys')) return wanted;
  const customers = customersOf(deps, auth);
  return customers ? assignCustomer(wanted, customers) : undefined;
}

/**
 * POST /key (api.md §8): the answer is the only time the value is seen; only its hash is stored.
 * Non-admins always own the key they make; admins may name the user and
 * customer. Every requested scope must be a scope (400) the caller holds (403).
 */
export async function createKey(deps: Deps, auth: Auth, baseUrl: string, input: KeyInput): Promise<ApiKey> {
  const now = deps.clock.now();
  const user = isAdminOf(auth.scopes, 'keys') ? (input.user ?? auth.login) : auth.login;
  if (!user) throw appError('key_needs_user');
  const scopes = requestedScopes(deps, input, user) ?? [...deps.config.USER_DEFAULT_SCOPES];
  assertGrantable(deps, auth, scopes);
  const customer = customerFor(deps, auth, input.customer) ?? null;
  if (input.key && (await keysDb.keyValueExists(deps.db, input.key))) {
    throw appError('key_exists');
  }
  const value = input.key ?? newKeyValue(deps.config.SECRET_KEY);
  const row = await keysDb.insertKey(deps.db, {
    id: randomUUID(),
    value,
    user,
    scopes,
    text: input.text ?? '',
    expireTime: input.expireTime ?? now + deps.config.API_KEY_EXPIRE_DAYS * DAY_MS,
    customer,
  });
  return presentKey(row, baseUrl, now, value);
}

/** GET /key/:key (the key value or its id); 404 for keys the caller may not see. */
export async function getKey(deps: Deps, auth: Auth, baseUrl: string, keyOrId: string): Promise<ApiKey> {
  const row = await keysDb.findKey(deps.db, keyOrId, visibilityOf(deps, auth));
  if (!row) throw appError('not_found');
  return presentKey(row, baseUrl, deps.clock.now());
}

/** PUT /key/:key: omitted or null fields unchanged (Alerta clears expireTime; we do not). */
export async function updateKey(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  keyOrId: string,
  change: KeyUpdate,
): Promise<ApiKey> {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await keysDb.findKey(tx, keyOrId, visibilityOf(deps, auth), { forUpdate: true });
    if (!current) throw appError('not_found');
    const user = isAdminOf(auth.scopes, 'keys') ? (change.user ?? current.user) : current.user;
    const scopes = requestedScopes(deps, change, user);
    if (scopes) assertGrantable(deps, auth, scopes);
    const customer = change.customer === undefined ? undefined : customerFor(deps, auth, change.customer);
    return keysDb.updateKey(tx, {
      id: current.id,
      user,
      scopes: scopes ?? current.scopes,
      text: change.text ?? current.text,
      expireTime: change.expireTime ?? current.expireTime,
      customer: customer ?? current.customer,
    });
  });
  return presentKey(row, baseUrl, now);
}

/** DELETE /key/:key (admin:keys; still only within the caller's customers). */
export async function deleteKey(deps: Deps, auth: Auth, keyOrId: string): Promise<void> {
  const row = await keysDb.findKey(deps.db, keyOrId, visibilityOf(deps, auth));
  if (!row || !(await keysDb.deleteKey(deps.db, row.id))) throw appError('not_found');
}

const FILTERS = [
  'status',
  'user',
  'scope',
  'type',
  'text',
  'expireTime',
  'count',
  'lastUsedTime',
  'customer',
  'key',
];

/** GET /keys filters on text columns: exact, `~` substring, `name!` negation (list-filters.ts). */
const TEXT_FILTERS = ['user', 'text', 'customer'] as const;

function oneOf<T extends string>(name: string, values: string[], allowed: readonly T[]): T[] {
  for (const v of values) {
    if (!(allowed as readonly string[]).includes(v)) throw appError('invalid_choice_param', name, allowed);
  }
  return values as T[];
}

function keyFiltersOf(filters: Map<string, string[]>): KeyFilters {
  const f: KeyFilters = {};
  const times = (name: string, values: string[]) =>
    values.map((v) => {
      const d = parseIsoDate(v);
      if (!d) throw invalidDate(name, v);
      return d.ms;
    });
  for (const [name, values] of filters) {
    if (name === 'status') f.status = oneOf(name, values, ['active', 'expired'] as const);
    else if (name === 'type') f.type = oneOf(name, values, ['read-only', 'read-write'] as const);
    else if (name === 'count') {
      f.count = values.map((v) => {
        if (!/^\d{1,15}$/.test(v)) throw appError('count_not_integer');
        return Number(v);
      });
    } else if (name === 'expireTime' || name === 'lastUsedTime') f[name] = times(name, values);
    else if (name === 'scope' || name === 'key') f[name] = values;
  }
  for (const name of TEXT_FILTERS) f[name] = textFilters(filters, name);
  return f;
}

/** GET /keys: paged; non-admins see only their own keys, everyone only their customers' keys. */
export async function listKeys(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  search: URLSearchParams,
): Promise<ApiKeyList> {
  const now = deps.clock.now();
  const { params, filters } = filtersOf(search, FILTERS, TEXT_FILTERS);
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const selection = { ...visibilityOf(deps, auth), filters: keyFiltersOf(filters), now };
  const [rows, total] = await Promise.all([
    keysDb.listKeys(deps.db, selection, { limit: pageSize, offset: (page - 1) * pageSize }),
    keysDb.countKeys(deps.db, selection),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const keys = rows.map((r) => presentKey(r, baseUrl, now));
  return { status: 'ok', ...(keys.length === 0 ? { message: 'not found' } : {}), keys, ...paging };
}

/**
 * Creates the admin API keys of auth.md §13 at start: ADMIN_KEY (valid ADMIN_KEY_MAXAGE seconds)
 * for the first admin unless a key with that value (its hash) exists, then a random admin key for
 * every admin who has none, logged once (the only time a key is ever printed). Stored hashed like
 * every key; serialised across instances starting together, so a restart adds nothing.
 */
export async function bootstrapAdminKeys(deps: Deps): Promise<void> {
  const { config } = deps;
  const admins = config.ADMIN_USERS;
  if (admins.length === 0) return;
  const created = await deps.db.transaction(async (tx) => {
    await keysDb.lockKeyBootstrap(tx);
    const now = deps.clock.now();
    const fresh: { user: string; value: string }[] = [];
    const make = (user: string, value: string, expireTime: number) =>
      keysDb.insertKey(tx, {
        id: randomUUID(),
        value,
        user,
        scopes: [...ADMIN_SCOPES],
        text: 'Admin key created at start',
        expireTime,
        customer: null,
      });
    if (config.ADMIN_KEY && !(await keysDb.keyValueExists(tx, config.ADMIN_KEY))) {
      await make(admins[0]!, config.ADMIN_KEY, now + config.ADMIN_KEY_MAXAGE * 1000);
    }
    for (const user of admins) {
      if (await keysDb.hasAdminKey(tx, user, now)) continue;
      const value = newKeyValue(config.SECRET_KEY);
      await make(user, value, now + config.API_KEY_EXPIRE_DAYS * DAY_MS);
      fresh.push({ user, value });
    }
    return fresh;
  });
  for (const { user, value } of created)
    deps.log.info({ user, apiKey: new ShownOnce(value) }, 'admin API key created');
}
