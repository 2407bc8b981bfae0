/**
 * LDAPS (docs/auth-providers.md): a slapd presenting a self-signed certificate made by the test is
 * trusted through LDAP_CACERT or LDAP_CONFIG's CA file, refused without it or with another CA
 * (503, no token), accepted unverified only with LDAP_ALLOW_SELF_SIGNED_CERT; and LDAP settings
 * that cannot work stop start-up with a message naming the setting.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { reportFailure, startSlapd, USERS, type Slapd } from '../helpers/slapd.ts';

interface Ctx extends AppContext {
  slapd: Slapd;
  settings: Record<string, string>;
}

const base = (slapd: Slapd): Record<string, string> => ({
  TEST_LABEL: 'ldap_tls',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'test-secret-key-123',
  AUTH_PROVIDER: 'ldap',
  LDAP_URL: slapd.ldapsUrl,
  LDAP_DOMAINS: JSON.stringify({ 'example.com': 'uid=%s,ou=people,dc=example,dc=com' }),
});

/** POST /auth/login as alice on an instance with these settings changed. */
async function loginWith(
  ctx: Ctx,
  changes: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await bootInstance(ctx.db.url, { ...ctx.settings, ...changes });
  try {
    const res = await apiFor(r).post('/auth/login', {
      username: 'alice@example.com',
      password: USERS.alice.password,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    await r.close();
  }
}

const tls = suite<Ctx>('LDAPS', {} as Ctx);

tls.before((ctx) =>
  reportFailure(async () => {
    ctx.slapd = await startSlapd();
    ctx.settings = { ...base(ctx.slapd), LDAP_CACERT: ctx.slapd.certFile };
    await startApp(ctx, ctx.settings);
  }),
);
tls.after(async (ctx) => {
  await stopApp(ctx);
  await ctx.slapd?.stop();
});

tls('the server certificate is verified against LDAP_CACERT', async (ctx) => {
  const res = await ctx.api.post('/auth/login', {
    username: 'alice@example.com',
    password: USERS.alice.password,
  });
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, 200, JSON.stringify(body));
  assert.type(body.token, 'string');
});

tls('LDAP_CONFIG OPT_X_TLS_CACERTFILE works as the CA too', async (ctx) => {
  const a = await loginWith(ctx, {
    LDAP_CACERT: '',
    LDAP_CONFIG: JSON.stringify({ OPT_X_TLS_CACERTFILE: ctx.slapd.certFile, OPT_NETWORK_TIMEOUT: 5 }),
  });
  assert.is(a.status, 200, JSON.stringify(a.body));
});

tls('without the CA (system trust store) the connection is refused: 503, no token', async (ctx) => {
  const a = await loginWith(ctx, { LDAP_CACERT: '' });
  assert.equal([a.status, a.body.message, a.body.token], [503, 'LDAP server unavailable', undefined]);
});

tls('another CA does not verify the server either', async (ctx) => {
  const a = await loginWith(ctx, { LDAP_CACERT: ctx.slapd.otherCertFile });
  assert.equal([a.status, a.body.token], [503, undefined]);
});

tls('LDAP_ALLOW_SELF_SIGNED_CERT skips verification', async (ctx) => {
  const a = await loginWith(ctx, { LDAP_CACERT: '', LDAP_ALLOW_SELF_SIGNED_CERT: 'True' });
  assert.is(a.status, 200, JSON.stringify(a.body));
});

tls('LDAP_CONFIG OPT_X_TLS_REQUIRE_CERT = 0 (never) skips verification; 2 (demand) does not', async (ctx) => {
  const never = await loginWith(ctx, { LDAP_CACERT: '', LDAP_CONFIG: '{"OPT_X_TLS_REQUIRE_CERT": 0}' });
  assert.is(never.status, 200, JSON.stringify(never.body));
  const demand = await loginWith(ctx, { LDAP_CACERT: '', LDAP_CONFIG: '{"OPT_X_TLS_REQUIRE_CERT": 2}' });
  assert.is(demand.status, 503);
});

tls('settings that cannot work stop start-up, each named', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ AUTH_PROVIDER: 'ldap', ...env }, { systemFile: null });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems.join('\n');
      throw err;
    }
    return '';
  };
  const ok = { LDAP_URL: 'ldaps://127.0.0.1:1', LDAP_DOMAINS: '{"a.com": "uid=%s,dc=a"}' };
  assert.is(problems(ok), '');
  assert.match(problems({}), /LDAP_URL: expected an ldap:\/\/ or ldaps:\/\/ URL/);
  assert.match(problems({}), /LDAP_DOMAINS: needs at least one domain/);
  assert.match(problems({ ...ok, LDAP_URL: 'http://x' }), /LDAP_URL/);
  assert.match(problems({ ...ok, LDAP_DOMAINS: '{"a.com": "uid=alice,dc=a"}' }), /needs %s or \{\}/);
  assert.match(
    problems({ ...ok, LDAP_DOMAINS: '["a.com"]' }),
    /LDAP_DOMAINS \(environment\): expected a dict/,
  );
  assert.match(problems({ ...ok, LDAP_CACERT: '/no/such/ca.pem' }), /LDAP_CACERT: no such file/);
  assert.match(
    problems({ ...ok, LDAP_DOMAINS_GROUP: '{"a.com": "(member={user})"}', LDAP_BASEDN: 'dc=a' }),
    /LDAP_DOMAINS_GROUP\['a.com'\]: unknown placeholder \{user\}/,
  );
  assert.match(
    problems({ ...ok, LDAP_DOMAINS_GROUP: '{"a.com": "(member={userdn}"}', LDAP_BASEDN: 'dc=a' }),
    /is not an LDAP filter/,
  );
  assert.match(
    problems({ ...ok, LDAP_GROUP_FILTER: '(member={userdn})' }),
    /LDAP_GROUP_FILTER: needs a base DN/,
  );
  assert.match(
    problems({ ...ok, LDAP_CONFIG: '{"OPT_DEBUG_LEVEL": 255}' }),
    /unsupported option 'OPT_DEBUG_LEVEL'/,
  );
  assert.match(problems({ ...ok, LDAP_BIND_USERNAME: 'cn=reader' }), /LDAP_BIND_PASSWORD: needed/);
  // Other providers do not care about LDAP settings.
  assert.not.throws(() => loadConfig({ LDAP_URL: 'nonsense' }, { systemFile: null }));
});

tls.run();
