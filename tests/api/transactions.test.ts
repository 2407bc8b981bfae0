/**
 * Every write that edits inside a database transaction, through its endpoint (issue #17 item 6).
 * slonik refuses a query on the pool while a transaction runs in the same call chain
 * (UnexpectedForeignConnectionError, a 500), so each answer here proves that the edit and every
 * helper it calls (duplicate checks, history reads, plugin changes) used the transaction's
 * connection. The suite starts with ADMIN_KEY, which start-up creates in a transaction of its own.
 */
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { BlackoutSchema } from '../../shared/blackouts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { CustomerSchema, PermissionSchema } from '../../shared/perms.ts';
import { UserSchema } from '../../shared/users.ts';
import type { Answer } from '../helpers/api.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';

const ADMIN_KEY = 'transactions-admin-key-0123456789';
const ADMIN = { Authorization: `Key ${ADMIN_KEY}` };
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

const tx = appSuite('edits inside a transaction', {
  TEST_LABEL: 'transactions',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'test-secret-key-123',
  ADMIN_USERS: 'admin@example.com',
  ADMIN_KEY,
  PLUGINS: 'remote_ip,acked_by,./tests/fixtures/plugins/post-receive-mark.ts',
});

/** A request as the admin key (or with `headers`); answers read as JSON. */
const call = (ctx: AppContext, method: string, path: string, body?: unknown, headers = ADMIN) =>
  ctx.api.call(method, path, body, { headers });

function ok(a: Answer, label: string): Record<string, unknown> {
  assert.is(a.status < 300, true, `${label}: ${a.status} ${JSON.stringify(a.body)}`);
  return a.body;
}

function assertError(a: Answer, status: number) {
  assert.is(a.status, status, JSON.stringify(a.body));
  assert.is(ErrorBodySchema.parse(a.body).code, status);
}

tx('PUT /perm/:id renames a permission; a name already taken is still 409', async (ctx) => {
  const made = ok(await call(ctx, 'POST', '/perm', { match: 'ops', scopes: ['read:alerts'] }), 'POST');
  ok(await call(ctx, 'POST', '/perm', { match: 'taken', scopes: [] }), 'POST');
  const perm = PermissionSchema.parse(made.permission);

  const renamed = ok(await call(ctx, 'PUT', `/perm/${perm.id}`, { match: 'operators' }), 'PUT match');
  assert.equal(PermissionSchema.parse(renamed.permission), { ...perm, match: 'operators' });
  const both = ok(
    await call(ctx, 'PUT', `/perm/${perm.id}`, {
      match: 'ops-team',
      scopes: ['read:alerts', 'write:alerts'],
    }),
    'PUT match and scopes',
  );
  assert.equal(PermissionSchema.parse(both.permission), {
    ...perm,
    match: 'ops-team',
    scopes: ['read:alerts', 'write:alerts'],
  });
  assertError(await call(ctx, 'PUT', `/perm/${perm.id}`, { match: 'taken' }), 409);
  const got = ok(await call(ctx, 'GET', `/perm/${perm.id}`), 'GET');
  assert.is(PermissionSchema.parse(got.permission).match, 'ops-team');
});

tx('PUT /customer/:id', async (ctx) => {
  const made = ok(await call(ctx, 'POST', '/customer', { match: 'acme.com', customer: 'Acme' }), 'POST');
  const c = CustomerSchema.parse(made.customer);
  const put = ok(
    await call(ctx, 'PUT', `/customer/${c.id}`, { match: 'acme.org', customer: 'Acme Corp' }),
    'PUT',
  );
  assert.equal(CustomerSchema.parse(put.customer), { ...c, match: 'acme.org', customer: 'Acme Corp' });
});

tx('PUT /key/:key', async (ctx) => {
  const made = ok(await call(ctx, 'POST', '/key', { scopes: ['read'], text: 'before' }), 'POST');
  const key = made.key as string;
  const put = ok(
    await call(ctx, 'PUT', `/key/${key}`, {
      scopes: ['read', 'write:alerts'],
      text: 'after',
      user: 'someone@example.com',
      customer: 'Acme',
    }),
    'PUT',
  );
  const changed = put.key as Record<string, unknown>;
  assert.equal(
    [changed.scopes, changed.text, changed.user, changed.customer],
    [['read', 'write:alerts'], 'after', 'someone@example.com', 'Acme'],
  );
});

tx('PUT /user/:id, /user/:id/attributes, /user/me and /user/me/attributes', async (ctx) => {
  const made = ok(
    await call(ctx, 'POST', '/user', { name: 'Ann', email: 'ann@example.com', password: 'ann-secret-1' }),
    'POST',
  );
  const ann = UserSchema.parse(made.user);
  ok(
    await call(ctx, 'POST', '/user', { name: 'Ben', email: 'ben@example.com', password: 'ben-secret-1' }),
    'POST',
  );

  const put = ok(
    await call(ctx, 'PUT', `/user/${ann.id}`, {
      name: 'Ann B',
      login: 'annb',
      email: 'ann.b@example.com',
      password: 'ann-secret-2',
      roles: ['user'],
      attributes: { team: 'ops' },
      text: 'renamed',
    }),
    'PUT /user/:id',
  );
  const changed = UserSchema.parse(put.user);
  assert.equal(
    [changed.name, changed.login, changed.email, changed.text, changed.attributes],
    ['Ann B', 'annb', 'ann.b@example.com', 'renamed', { team: 'ops' }],
  );
  assertError(await call(ctx, 'PUT', `/user/${ann.id}`, { email: 'ben@example.com' }), 409);
  ok(
    await call(ctx, 'PUT', `/user/${ann.id}/attributes`, { attributes: { shift: 'night' } }),
    'PUT /user/:id/attributes',
  );

  const asAnn = basic('ann.b@example.com', 'ann-secret-2');
  const me = ok(
    await call(ctx, 'PUT', '/user/me', { name: 'Ann C', email: 'ann.c@example.com' }, asAnn),
    'PUT /user/me',
  );
  assert.equal(
    [UserSchema.parse(me.user).name, UserSchema.parse(me.user).email],
    ['Ann C', 'ann.c@example.com'],
  );
  const asAnnNow = basic('ann.c@example.com', 'ann-secret-2');
  ok(
    await call(ctx, 'PUT', '/user/me/attributes', { attributes: { prefs: { dark: true } } }, asAnnNow),
    'PUT /user/me/attributes',
  );
  const got = UserSchema.parse(ok(await call(ctx, 'GET', `/user/${ann.id}`), 'GET').user);
  assert.equal(got.attributes, { team: 'ops', shift: 'night', prefs: { dark: true } });
});

tx('PUT /blackout/:id', async (ctx) => {
  const made = ok(await call(ctx, 'POST', '/blackout', { environment: 'Production', duration: 600 }), 'POST');
  const b = BlackoutSchema.parse(made.blackout);
  const put = ok(
    await call(ctx, 'PUT', `/blackout/${b.id}`, { resource: 'web01', customer: 'Acme', text: 'moved' }),
    'PUT',
  );
  const changed = BlackoutSchema.parse(put.blackout);
  assert.equal([changed.resource, changed.customer, changed.text], ['web01', 'Acme', 'moved']);
});

tx(
  'alert edits: post-receive changes, actions with plugin changes, status, tags, attributes, notes',
  async (ctx) => {
    const posted = ok(
      await call(ctx, 'POST', '/alert', {
        resource: 'tx01',
        event: 'Down',
        environment: 'Production',
        service: ['web'],
        severity: 'major',
      }),
      'POST /alert',
    );
    const id = (posted.alert as Alert).id;
    const alertPath = `/alert/${id}`;
    const edits: [string, string, unknown][] = [
      ['PUT', `${alertPath}/action`, { action: 'ack', text: 'looking' }],
      ['PUT', `${alertPath}/action`, { action: 'unack' }],
      ['PUT', `${alertPath}/action`, { action: 'shelve', timeout: 600 }],
      ['PUT', `${alertPath}/action`, { action: 'unshelve' }],
      ['PUT', `${alertPath}/status`, { status: 'assign', text: 'mine' }],
      ['PUT', `${alertPath}/tag`, { tags: ['a', 'b'] }],
      ['PUT', `${alertPath}/untag`, { tags: ['a'] }],
      ['PUT', `${alertPath}/attributes`, { attributes: { owner: 'ops' } }],
    ];
    for (const [method, path, body] of edits) ok(await call(ctx, method, path, body), `${method} ${path}`);
    const note = ok(await call(ctx, 'PUT', `${alertPath}/note`, { text: 'a note' }), 'PUT note');
    const noteId = (note.note as { id: string }).id;
    ok(await call(ctx, 'DELETE', `${alertPath}/note/${noteId}`), 'DELETE note');

    const alert = ok(await call(ctx, 'GET', alertPath), 'GET').alert as Alert;
    assert.is(alert.attributes.marked, true, 'the post-receive change was stored');
    assert.is(alert.attributes.owner, 'ops');
    assert.not.ok(
      'acked-by' in alert.attributes,
      'acked_by set the attribute on ack and removed it on unack',
    );
    assert.ok(alert.tags.includes('watch:admin@example.com'), 'acked_by added its watch tag on ack');
    assert.ok(alert.tags.includes('b') && !alert.tags.includes('a'));
    assert.equal(
      alert.history.slice(1).map((h) => h.type),
      ['ack', 'unack', 'shelve', 'unshelve', 'status', 'note', 'dismiss'],
    );
  },
);

tx.run();
