import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allScopes, isGranted, matchesName, scopesForRoles } from '../../server/auth/scopes.ts';

test('read ⊂ write ⊂ admin per resource; bare actions cover every resource at their level', () => {
  assert.ok(isGranted(['read:alerts'], 'read:alerts', []));
  assert.ok(isGranted(['write:alerts'], 'read:alerts', []));
  assert.ok(isGranted(['admin:alerts'], 'write:alerts', []));
  assert.ok(isGranted(['admin:alerts'], 'read:alerts', []));
  assert.not.ok(isGranted(['read:alerts'], 'write:alerts', []));
  assert.not.ok(isGranted(['admin:alerts'], 'read:heartbeats', []));
  assert.ok(isGranted(['read'], 'read:keys', []));
  assert.not.ok(isGranted(['read'], 'write:keys', []));
  assert.ok(isGranted(['write'], 'write:blackouts', []));
  assert.ok(isGranted(['write'], 'read:blackouts', []));
  assert.not.ok(isGranted(['write'], 'admin:management', []));
  assert.ok(isGranted(['admin'], 'read:management', []));
  assert.ok(isGranted(['admin'], 'admin:management', []));
  assert.not.ok(isGranted([], 'read:alerts', []));
});

test('delete:x is implied by write:x unless DELETE_SCOPES lists it, then by admin:x', () => {
  assert.ok(isGranted(['write:alerts'], 'delete:alerts', []));
  assert.ok(isGranted(['write'], 'delete:alerts', []));
  assert.ok(isGranted(['delete:alerts'], 'delete:alerts', ['delete:alerts']));
  assert.not.ok(isGranted(['write:alerts'], 'delete:alerts', ['delete:alerts']));
  assert.ok(isGranted(['admin:alerts'], 'delete:alerts', ['delete:alerts']));
  assert.not.ok(isGranted(['read:alerts'], 'delete:alerts', []));
});

const settings = {
  ADMIN_USERS: ['boss@example.com'],
  ADMIN_ROLES: ['admin', 'ops-admins'],
  USER_ROLES: ['user'],
  USER_DEFAULT_SCOPES: ['read', 'write'],
  GUEST_ROLES: ['guest'],
  GUEST_DEFAULT_SCOPES: ['read:alerts'],
};

test('roles map to scopes: ADMIN_USERS and admin roles win, user and guest defaults, permissions by match', () => {
  assert.equal(scopesForRoles(settings, 'boss@example.com', [], []), ['admin', 'read', 'write']);
  assert.equal(scopesForRoles(settings, 'x', ['guest', 'ops-admins'], []), ['admin', 'read', 'write']);
  assert.equal(scopesForRoles(settings, 'x', ['user'], []), ['read', 'write']);
  assert.equal(scopesForRoles(settings, 'x', ['guest'], []), ['read:alerts']);
  const perms = [
    { match: 'noc-.*', scopes: ['write:alerts', 'read:heartbeats'] },
    { match: 'exact', scopes: ['read:keys'] },
  ];
  assert.equal(scopesForRoles(settings, 'x', ['noc-emea', 'guest'], perms), [
    'read:alerts',
    'read:heartbeats',
    'write:alerts',
  ]);
  assert.equal(scopesForRoles(settings, 'x', ['exactly'], perms), []);
  assert.equal(scopesForRoles(settings, 'x', [], perms), []);
});

test('matches are anchored regexes, falling back to equality when not a regex', () => {
  assert.ok(matchesName('ops', 'ops'));
  assert.not.ok(matchesName('ops', 'devops'));
  assert.ok(matchesName('.*ops', 'devops'));
  assert.ok(matchesName('a|b', 'b'));
  assert.ok(matchesName('team[', 'team['));
  assert.not.ok(matchesName('team[', 'team'));
});

test('the scope list is the built-ins in order, then custom scopes', () => {
  const scopes = allScopes(['read:things', 'read']);
  assert.equal(scopes.slice(0, 3), ['read', 'write', 'admin']);
  assert.is(scopes.at(-1), 'read:things');
  assert.is(scopes.filter((s) => s === 'read').length, 1);
  assert.ok(scopes.includes('read:userinfo'));
});

test.run();
