import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import type { Permission, PermissionList, PermInput, PermUpdate } from '../../shared/perms.ts';
import { allScopes, isGranted, isScope } from '../auth/scopes.ts';
import type { Auth } from '../auth/types.ts';
import * as permsDb from '../db/perms.ts';
import type { PermRow } from '../db/perms.ts';
import { isUuid } from '../db/rows.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { filtersOf, passesTextFilters, textFilters } from './query/list-filters.ts';
import { pageFieldsOf, pagingOf } from './query/params.ts';

/** Ids are UUIDs; anything else names nothing (404, never a database error). */
export const isId = isUuid;

/**
 * Requested scopes (keys, permissions) must each name a scope (400 `'<s>' is not a valid Scope`)
 * and be granted to the caller (403), auth.md §3. The anonymous caller holds no scope, so it can
 * grant none.
 */
export function assertGrantable(deps: Deps, auth: Auth, scopes: readonly string[]): void {
  for (const s of scopes) {
    if (!isScope(s, deps.config.CUSTOM_SCOPES)) throw appError('invalid_scope', s);
  }
  for (const s of scopes) {
    if (!isGranted(auth.scopes, s, deps.config.DELETE_SCOPES)) {
      throw appError('scope_not_held', s, auth.scopes);
    }
  }
}

const presentPerm = (row: PermRow, baseUrl: string): Permission => ({
  id: row.id,
  href: `${baseUrl}/perm/${row.id}`,
  match: row.match,
  scopes: row.scopes,
});

/** The role names Alerta reserves and shows as built-in permissions (auth.md §4). */
function builtinPerms(deps: Deps): PermRow[] {
  const c = deps.config;
  return [
    { id: randomUUID(), match: c.DEFAULT_ADMIN_ROLE, scopes: ['admin', 'read', 'write'] },
    { id: randomUUID(), match: c.DEFAULT_USER_ROLE, scopes: [...c.USER_DEFAULT_SCOPES] },
    { id: randomUUID(), match: c.DEFAULT_GUEST_ROLE, scopes: [...c.GUEST_DEFAULT_SCOPES] },
  ];
}

function assertNotReserved(deps: Deps, match: string): void {
  const c = deps.config;
  if ([c.DEFAULT_ADMIN_ROLE, c.DEFAULT_USER_ROLE, c.DEFAULT_GUEST_ROLE].includes(match)) {
    throw appError('role_exists', match);
  }
}

/** 409 when another permission has this match; `db` is the caller's transaction when there is one. */
async function assertMatchFree(db: CommonQueryMethods, match: string, except?: string): Promise<void> {
  const same = await permsDb.listPerms(db, { match: [{ values: [match], contains: false, negated: false }] });
  if (same.some((p) => p.id !== except)) throw appError('permission_exists', match);
}

/** POST /perm: a role name → scopes; reserved names 409, scopes beyond the caller's 403. */
export async function createPerm(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  input: PermInput,
): Promise<Permission> {
  const scopes = [...new Set(input.scopes ?? [])];
  assertNotReserved(deps, input.match);
  assertGrantable(deps, auth, scopes);
  await assertMatchFree(deps.db, input.match);
  const row = await permsDb.insertPerm(deps.db, { id: randomUUID(), match: input.match, scopes });
  return presentPerm(row, baseUrl);
}

/** GET /perm/:id */
export async function getPerm(deps: Deps, baseUrl: string, id: string): Promise<Permission> {
  const row = isId(id) ? await permsDb.findPerm(deps.db, id) : null;
  if (!row) throw appError('not_found');
  return presentPerm(row, baseUrl);
}

/** PUT /perm/:id: omitted (or null) fields unchanged. */
export async function updatePerm(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  id: string,
  change: PermUpdate,
): Promise<Permission> {
  const row = await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await permsDb.findPerm(tx, id) : null;
    if (!current) throw appError('not_found');
    const match = change.match ?? current.match;
    const scopes = change.scopes ? [...new Set(change.scopes)] : current.scopes;
    if (match !== current.match) {
      assertNotReserved(deps, match);
      await assertMatchFree(tx, match, current.id);
    }
    if (change.scopes) assertGrantable(deps, auth, scopes);
    return permsDb.updatePerm(tx, { id: current.id, match, scopes });
  });
  return presentPerm(row, baseUrl);
}

/** DELETE /perm/:id */
export async function deletePerm(deps: Deps, id: string): Promise<void> {
  if (!isId(id) || !(await permsDb.deletePerm(deps.db, id))) throw appError('not_found');
}

/**
 * GET /perms: the built-in admin, user and guest roles first (fresh ids each time, counted in
 * total), then the stored ones. Filters `match` (text: exact, `~` substring, `match!` negation)
 * and `scopes` (overlap) apply to both.
 */
export async function listPerms(
  deps: Deps,
  baseUrl: string,
  search: URLSearchParams,
): Promise<PermissionList> {
  const { params, filters } = filtersOf(search, ['match', 'scopes', 'scope'], ['match']);
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const match = textFilters(filters, 'match');
  const wanted = [...(filters.get('scopes') ?? []), ...(filters.get('scope') ?? [])];
  const scopes = wanted.length ? wanted : undefined;
  const builtins = builtinPerms(deps).filter(
    (p) => passesTextFilters(match, p.match) && (!scopes || p.scopes.some((s) => scopes.includes(s))),
  );
  const all = [...builtins, ...(await permsDb.listPerms(deps.db, { match, scopes }))];
  const paging = pageFieldsOf(page, pageSize, all.length);
  const permissions = all.slice((page - 1) * pageSize, page * pageSize).map((p) => presentPerm(p, baseUrl));
  return {
    status: 'ok',
    ...(permissions.length === 0 ? { message: 'not found' } : {}),
    permissions,
    ...paging,
    time: new Date(deps.clock.now()).toISOString(),
  };
}

/** GET /scopes: the built-in scopes, then CUSTOM_SCOPES. */
export function listScopes(deps: Deps) {
  const scopes = allScopes(deps.config.CUSTOM_SCOPES);
  return { status: 'ok' as const, scopes, total: scopes.length };
}
