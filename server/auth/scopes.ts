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
  // ours: notification receivers and rules (docs/notifications.md)
  'read:notifications',
  'admin:notifications',
] as const;

export const CUSTOM_SCOPE = /^(admin|write|read|delete):\w+(\.\w+)?$/;

/** Every scope this server knows: the built-in list, then CUSTOM_SCOPES. */
export function allScopes(custom: readonly string[]): string[] {
  return [...BUILTIN_SCOPES, ...custom.filter((s) => !(BUILTIN_SCOPES as readonly string[]).includes(s))];
}

export const isScope = (s: string, custom: readonly string[]) => allScopes(custom).includes(s);

// The rule is shared with the web UI, which hides links the caller's scopes do not allow.
export { isGranted } from '../../shared/scopes.ts';

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
