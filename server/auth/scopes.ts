/** Scopes (auth.md §2): `action[:resource[.type]]`, action ∈ read | write | admin | delete. */
export const BUILTIN_SCOPES = [
  'read',
  'write',
  'admin',
  'read:alerts',
  'write:alerts',
  'delete:alerts',
  'admin:alerts',
  'read:blackouts',
  'write:blackouts',
  'admin:blackouts',
  'read:heartbeats',
  'write:heartbeats',
  'admin:heartbeats',
  'write:users',
  'admin:users',
  'read:groups',
  'admin:groups',
  'read:perms',
  'admin:perms',
  'read:customers',
  'admin:customers',
  'read:keys',
  'write:keys',
  'admin:keys',
  'write:webhooks',
  'read:oembed',
  'read:management',
  'admin:management',
  'read:userinfo',
] as const;

export const CUSTOM_SCOPE = /^(admin|write|read|delete):\w+(\.\w+)?$/;

/** Every scope this server knows: the built-in list, then CUSTOM_SCOPES. */
export function allScopes(custom: readonly string[]): string[] {
  return [...BUILTIN_SCOPES, ...custom.filter((s) => !(BUILTIN_SCOPES as readonly string[]).includes(s))];
}

export const isScope = (s: string, custom: readonly string[]) => allScopes(custom).includes(s);

/**
 * Does holding `held` grant `wanted` (auth.md §2)? read:x ⊂ write:x ⊂ admin:x; a bare action
 * (`read`, `write`, `admin`) covers every resource at its level; `delete:x` is implied by write:x
 * unless DELETE_SCOPES lists it, then by admin:x.
 */
export function isGranted(held: readonly string[], wanted: string, deleteScopes: readonly string[]): boolean {
  const have = new Set(held);
  let w = wanted;
  for (let guard = 0; guard < 4; guard++) {
    const action = w.split(':')[0]!;
    if (have.has(w) || have.has(action)) return true;
    if (action === 'read') w = `write${w.slice(4)}`;
    else if (action === 'write') w = `admin${w.slice(5)}`;
    else if (action === 'delete') w = `${deleteScopes.includes(w) ? 'admin' : 'write'}${w.slice(6)}`;
    else return false;
  }
  return false;
}

/**
 * A permission or customer `match`: an anchored, whole-string regular expression (a superset of
 * Alerta's exact comparison, auth.md §4); equality when the pattern does not compile.
 */
export function matchesName(pattern: string, name: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(name);
  } catch {
    return pattern === name;
  }
}

export interface RoleSettings {
  ADMIN_USERS: readonly string[];
  ADMIN_ROLES: readonly string[];
  USER_ROLES: readonly string[];
  USER_DEFAULT_SCOPES: readonly string[];
  GUEST_ROLES: readonly string[];
  GUEST_DEFAULT_SCOPES: readonly string[];
}

const ADMIN_SCOPES = ['admin', 'read', 'write'];

/** Scopes of a login with these role and group names (auth.md §4), sorted. */
export function scopesForRoles(
  settings: RoleSettings,
  login: string | null,
  roles: readonly string[],
  perms: readonly { match: string; scopes: readonly string[] }[],
): string[] {
  if (login !== null && settings.ADMIN_USERS.includes(login)) return [...ADMIN_SCOPES].sort();
  const scopes = new Set<string>();
  for (const role of roles) {
    if (settings.ADMIN_ROLES.includes(role)) return [...ADMIN_SCOPES].sort();
    if (settings.USER_ROLES.includes(role)) settings.USER_DEFAULT_SCOPES.forEach((s) => scopes.add(s));
    if (settings.GUEST_ROLES.includes(role)) settings.GUEST_DEFAULT_SCOPES.forEach((s) => scopes.add(s));
    for (const p of perms) if (matchesName(p.match, role)) p.scopes.forEach((s) => scopes.add(s));
  }
  return [...scopes].sort();
}

/** Is this caller an administrator of `resource` (`admin` or `admin:<resource>`)? */
export const isAdminOf = (held: readonly string[], resource: string) =>
  held.includes('admin') || held.includes(`admin:${resource}`);
