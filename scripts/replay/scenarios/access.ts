/** Access: API keys, users, groups, permissions and customers. */
import type { Scenario } from '../types.ts';
import { alert, del, get, post, put, query } from './common.ts';

export const keys: Scenario = {
  name: 'keys',
  title: 'create, get by id and by value, list, update, use (scopes), delete, a deleted key refused',
  steps: (run) => [
    post(
      'create',
      '/key',
      { user: `${run}-owner@example.com`, scopes: ['read'], text: `${run} read key` },
      { save: { key: 'key', keyId: 'data.id' } },
    ),
    post(
      'create-write',
      '/key',
      { user: `${run}-owner@example.com`, scopes: ['read', 'write'], text: `${run} write key` },
      {
        save: { writeKeyId: 'data.id' },
      },
    ),
    get('get', '/key/{keyId}'),
    get('get-by-value', '/key/{key}'),
    get('list', `/keys${query(['user', `${run}-owner@example.com`], ['sort-by', 'text'])}`),
    put('update', '/key/{keyId}', { text: `${run} read key, renamed` }),
    get('read-with-it', `/alerts/count${query(['tag', `none-${run}`])}`, {
      anonymous: true,
      headers: { Authorization: 'Key {key}' },
    }),
    post('write-with-it', '/alert', alert(run, { resource: `${run}-key`, event: 'Denied' }), {
      anonymous: true,
      headers: { Authorization: 'Key {key}' },
    }),
    post('scope-above', '/key', { user: `${run}-owner@example.com`, scopes: ['read', 'nonsense'] }),
    del('delete', '/key/{keyId}'),
    del('delete-write', '/key/{writeKeyId}'),
    get('deleted', '/key/{keyId}'),
    get('use-deleted', `/alerts/count${query(['tag', `none-${run}`])}`, {
      anonymous: true,
      headers: { Authorization: 'Key {key}' },
    }),
  ],
};

export const users: Scenario = {
  name: 'users',
  title: 'create, get, list, update, attributes, log in, wrong password, without a password, delete',
  steps: (run) => {
    const login = `${run}-jane@example.com`;
    return [
      post(
        'create',
        '/user',
        {
          name: 'Jane Replay',
          login,
          email: login,
          password: 'Replay-pass-1',
          roles: ['user'],
          text: 'on call',
        },
        { save: { user: 'id' } },
      ),
      post('duplicate', '/user', { name: 'Jane Again', login, email: login, password: 'Replay-pass-1' }),
      post(
        'without-password',
        '/user',
        {
          name: 'Sso Replay',
          login: `${run}-sso@example.com`,
          email: `${run}-sso@example.com`,
          roles: ['user'],
        },
        { save: { sso: 'id' } },
      ),
      get('get', '/user/{user}'),
      get('list', `/users${query(['email', login])}`),
      put('update', '/user/{user}', { name: 'Jane R. Replay', text: 'on call, week 2' }),
      put('attributes', '/user/{user}/attributes', { attributes: { prefs: { theme: 'dark' } } }),
      get('get-after', '/user/{user}'),
      post('login', '/auth/login', { username: login, password: 'Replay-pass-1' }, { anonymous: true }),
      post('login-wrong', '/auth/login', { username: login, password: 'wrong-pass-1' }, { anonymous: true }),
      post(
        'login-sso',
        '/auth/login',
        { username: `${run}-sso@example.com`, password: '' },
        { anonymous: true },
      ),
      post('no-email', '/user', { name: 'Nobody' }),
      del('delete', '/user/{user}'),
      del('delete-sso', '/user/{sso}'),
      get('deleted', '/user/{user}'),
    ];
  },
};

export const groups: Scenario = {
  name: 'groups',
  title: 'create, add and remove a member, list members and groups of a user, update, delete',
  steps: (run) => [
    post(
      'user',
      '/user',
      {
        name: 'Group Member',
        login: `${run}-member@example.com`,
        email: `${run}-member@example.com`,
        password: 'Replay-pass-1',
      },
      { save: { user: 'id' } },
    ),
    post('create', '/group', { name: `${run}-ops`, text: 'operations' }, { save: { group: 'id' } }),
    post('no-name', '/group', { text: 'nameless' }),
    get('get', '/group/{group}'),
    put('add', '/group/{group}/user/{user}'),
    get('members', '/group/{group}/users'),
    get('of-user', '/user/{user}/groups'),
    get('list', `/groups${query(['name', `${run}-ops`])}`),
    put('update', '/group/{group}', { text: 'operations, nights' }),
    del('remove', '/group/{group}/user/{user}'),
    get('members-after', '/group/{group}/users'),
    del('delete', '/group/{group}'),
    get('deleted', '/group/{group}'),
    del('delete-user', '/user/{user}'),
  ],
};

export const perms: Scenario = {
  name: 'perms',
  title: 'create, get, list with match filters, update, reserved role, bad scope, delete, scopes',
  steps: (run) => [
    post(
      'create',
      '/perm',
      { match: `${run}-role`, scopes: ['read', 'write:alerts'] },
      { save: { perm: 'id' } },
    ),
    get('get', '/perm/{perm}'),
    get('match', `/perms${query(['match', `${run}-role`])}`),
    get('match-substring', `/perms${query(['match', `~${run}-RO`])}`),
    put('update', '/perm/{perm}', { scopes: ['read', 'write:alerts', 'write:blackouts'] }),
    post('reserved', '/perm', { match: 'admin', scopes: ['read'] }),
    post('bad-scope', '/perm', { match: `${run}-bad`, scopes: ['read', 'fly'] }),
    post('not-a-list', '/perm', { match: `${run}-bad`, scopes: 'read' }),
    del('delete', '/perm/{perm}'),
    get('deleted', '/perm/{perm}'),
    get('scopes', '/scopes'),
  ],
};

export const customers: Scenario = {
  name: 'customers',
  title: 'create, get, list with filters, update, delete',
  steps: (run) => [
    post(
      'create',
      '/customer',
      { match: `${run}.example.com`, customer: `${run}-acme` },
      { save: { customer: 'id' } },
    ),
    get('get', '/customer/{customer}'),
    get('list', `/customers${query(['customer', `${run}-acme`])}`),
    get('match', `/customers${query(['match', `${run}.example.com`])}`),
    put('update', '/customer/{customer}', { customer: `${run}-acme-eu` }),
    get('get-after', '/customer/{customer}'),
    post('no-customer', '/customer', { match: `${run}.example.org` }),
    del('delete', '/customer/{customer}'),
    get('deleted', '/customer/{customer}'),
  ],
};
