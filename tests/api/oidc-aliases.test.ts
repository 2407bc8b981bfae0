/**
 * The established server's OpenID Connect providers `azure`, `google` and `cognito`
 * (docs/auth-sso.md, "Providers"): each against a real OpenID Provider (oidc-provider on loopback,
 * named by OIDC_ISSUER_URL): the code exchange at `POST /auth/<provider>`, our token and user for
 * that provider, ALLOWED_OIDC_ROLES, and the /config fields the web UI and the CLI read. Then Azure's
 * multi-tenant endpoint (common), whose issuer is a `{tenantid}` template, against a stand-in of it;
 * and start-up with these providers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { boot } from '../../server/boot.ts';
import { createLog } from '../../server/log.ts';
import { UserSchema } from '../../shared/users.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError } from '../helpers/secured.ts';
import { startEntraFake, type EntraFake } from '../helpers/entra-fake.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';

const UI = 'http://localhost:8000';
const CLIENT = { OAUTH2_CLIENT_ID: 'alerta-ui', OAUTH2_CLIENT_SECRET: 'ui-secret' };

interface Ctx extends AppContext {
  idp: TestOidcProvider;
}

type Answer = { status: number; body: Record<string, unknown> };

async function post(ctx: AppContext, path: string, body: unknown): Promise<Answer> {
  const res = await ctx.api.post(path, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const bearer = (token: unknown) => ({ headers: { Authorization: `Bearer ${String(token)}` } });

// --- each alias against a real provider ------------------------------------------------------------

const ALIASES = {
  azure: { text: 'Azure user', settings: {} },
  google: { text: 'Google user', settings: {} },
  cognito: {
    text: 'Cognito user',
    settings: {
      AWS_REGION: 'eu-west-1',
      COGNITO_USER_POOL_ID: 'eu-west-1_Pool42',
      COGNITO_DOMAIN: 'alerta-test',
    },
  },
} as const;

for (const [provider, { text, settings }] of Object.entries(ALIASES)) {
  const test = suite<Ctx>(`AUTH_PROVIDER = ${provider}, its issuer in OIDC_ISSUER_URL`, {} as Ctx);
  test.before(async (ctx) => {
    ctx.idp = await startOidcProvider({
      clientId: 'alerta-ui',
      clientSecret: 'ui-secret',
      redirectUris: [UI, 'http://127.0.0.1:9004'],
    });
    await startApp(ctx, {
      TEST_LABEL: `oidc_${provider}`,
      AUTH_REQUIRED: 'True',
      SECRET_KEY: 'oidc-alias-secret',
      AUTH_PROVIDER: provider,
      OIDC_ISSUER_URL: ctx.idp.issuer,
      ALLOWED_OIDC_ROLES: 'ops',
      ...CLIENT,
      ...settings,
    });
    ctx.idp.accounts.set('sub-olga', {
      preferred_username: 'olga',
      name: 'Olga',
      email: 'olga@example.com',
      email_verified: provider === 'cognito' ? 'true' : true,
      roles: ['ops'],
    });
    ctx.idp.accounts.set('sub-dev', { preferred_username: 'dev', roles: ['developer'] });
  });
  test.after(async (ctx) => {
    await stopApp(ctx);
    await ctx.idp?.close();
  });

  test(`POST /auth/${provider} exchanges the code; the token and the user are ${provider}'s`, async (ctx) => {
    const code = await ctx.idp.authorize('sub-olga', UI);
    const r = await post(ctx, `/auth/${provider}`, { code, clientId: 'alerta-ui', redirectUri: UI });
    assert.is(r.status, 200, JSON.stringify(r.body));
    const claims = decodeJwt(r.body.token as string);
    assert.equal(
      [claims.provider, claims.preferred_username, claims.email, claims.email_verified, claims.roles],
      [provider, 'olga', 'olga@example.com', true, ['ops', 'user']],
    );
    const me = await ctx.api.get('/user/me', bearer(r.body.token));
    const user = UserSchema.parse(((await me.json()) as { user: unknown }).user);
    assert.equal([user.id, user.provider, user.text], [claims.sub, provider, text]);
    assert.is(ctx.idp.tokenRequests() > 0, true);
  });

  test('the CLI redirect works; ALLOWED_OIDC_ROLES is enforced; another provider is refused', async (ctx) => {
    const redirectUri = 'http://127.0.0.1:9004';
    const code = await ctx.idp.authorize('sub-olga', redirectUri);
    const cli = await post(ctx, `/auth/${provider}`, { code, clientId: 'alerta-ui', redirectUri });
    assert.is(cli.status, 200, JSON.stringify(cli.body));
    const dev = await ctx.idp.authorize('sub-dev', UI);
    assertError(
      await post(ctx, `/auth/${provider}`, { code: dev, redirectUri: UI }),
      403,
      'User dev is not authorized',
    );
    assertError(
      await post(ctx, '/auth/openid', { code: 'x', redirectUri: UI }),
      400,
      `login with openid is not enabled (AUTH_PROVIDER is '${provider}')`,
    );
    const replay = await post(ctx, `/auth/${provider}`, { code, clientId: 'alerta-ui', redirectUri });
    assertError(replay, 401, 'code exchange failed: invalid_grant');
  });

  test('/config gives the provider, its endpoints and the reference defaults', async (ctx) => {
    const config = (await (await ctx.api.get('/config')).json()) as Record<string, unknown>;
    const cognito = provider === 'cognito';
    assert.equal(
      [
        config.provider,
        config.client_id,
        config.azure_tenant,
        config.aws_region,
        config.cognito_domain,
        config.oidc_auth_url,
      ],
      [
        provider,
        'alerta-ui',
        'common',
        cognito ? 'eu-west-1' : 'us-east-1',
        cognito ? 'alerta-test' : null,
        `${ctx.idp.issuer}/auth`,
      ],
    );
    assert.is(config.signup_enabled, false);
    const out = (await (await ctx.api.get('/auth/logout')).json()) as Record<string, unknown>;
    assert.equal(out, { status: 'ok', logoutUrl: `${ctx.idp.issuer}/session/end` });
  });

  test.run();
}

// --- Azure's multi-tenant endpoint: a {tenantid} issuer --------------------------------------------

interface EntraCtx extends AppContext {
  entra: EntraFake;
}

const TENANT_A = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const TENANT_B = 'f8cdef31-a31e-4b4a-93e4-5f571e91255a';

const entra = suite<EntraCtx>(
  'AUTH_PROVIDER = azure, AZURE_TENANT common: tenant-specific ID tokens',
  {} as EntraCtx,
);
entra.before(async (ctx) => {
  ctx.entra = await startEntraFake({ tenant: 'common', clientId: 'alerta-ui', clientSecret: 'ui-secret' });
  // Start-up accepts the discovery document's `{tenantid}` issuer for the configured `common`.
  await startApp(ctx, {
    TEST_LABEL: 'oidc_azure_common',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'oidc-azure-common-secret',
    AUTH_PROVIDER: 'azure',
    OIDC_ISSUER_URL: ctx.entra.issuerUrl,
    ALLOWED_EMAIL_DOMAINS: 'contoso.com,fabrikam.com',
    ...CLIENT,
  });
});
entra.after(async (ctx) => {
  await stopApp(ctx);
  await ctx.entra?.close();
});

/** ID token claims of someone in tenant `tid`, with that tenant's issuer unless `iss` says otherwise. */
const person = (ctx: EntraCtx, tid: string, login: string, iss = ctx.entra.issuerOfTenant(tid)) => ({
  iss,
  sub: `sub-${login}`,
  tid,
  preferred_username: login,
  name: login,
});

async function signInWith(ctx: EntraCtx, claims: Record<string, unknown>, strangerKey = false) {
  const code = await ctx.entra.code(claims, { email: claims.preferred_username }, strangerKey);
  return post(ctx, '/auth/azure', { code, clientId: 'alerta-ui', redirectUri: UI });
}

entra('people of any tenant sign in with their own tenant as issuer, one token request each', async (ctx) => {
  const before = ctx.entra.tokenRequests();
  const a = await signInWith(ctx, person(ctx, TENANT_A, 'ann@contoso.com'));
  assert.is(a.status, 200, JSON.stringify(a.body));
  const b = await signInWith(ctx, person(ctx, TENANT_B, 'ben@fabrikam.com'));
  assert.is(b.status, 200, JSON.stringify(b.body));
  const [ca, cb] = [decodeJwt(a.body.token as string), decodeJwt(b.body.token as string)];
  assert.equal(
    [ca.provider, ca.preferred_username, cb.preferred_username],
    ['azure', 'ann@contoso.com', 'ben@fabrikam.com'],
  );
  assert.is(ctx.entra.tokenRequests() - before, 2, 'the kept answer is read again, not fetched again');
  const config = (await (await ctx.api.get('/config')).json()) as Record<string, unknown>;
  assert.is(config.oidc_auth_url, `${ctx.entra.origin}/common/oauth2/v2.0/authorize`);
});

entra("an issuer other than the template filled in with the token's own tid is refused", async (ctx) => {
  const refused = async (claims: Record<string, unknown>) =>
    assertError(await signInWith(ctx, claims), 401, 'ID token is invalid');
  // Tenant A's issuer, tenant B's id.
  await refused({ ...person(ctx, TENANT_A, 'x@contoso.com'), tid: TENANT_B });
  // A tid that is not a tenant id, even with the issuer made from it.
  await refused(person(ctx, 'contoso', 'y@contoso.com'));
  // No tid: only the template itself would be expected, and that is no issuer.
  const { tid: _tid, ...noTid } = person(ctx, TENANT_A, 'z@contoso.com');
  await refused(noTid);
  await refused(person(ctx, TENANT_A, 't@contoso.com', `${ctx.entra.origin}/{tenantid}/v2.0`));
});

entra("the signature is still checked, and the provider's refusal still reported", async (ctx) => {
  const forged = await signInWith(ctx, person(ctx, TENANT_A, 'f@contoso.com'), true);
  assertError(forged, 401, 'ID token is invalid');
  assertError(
    await post(ctx, '/auth/azure', { code: 'made-up', clientId: 'alerta-ui', redirectUri: UI }),
    401,
    'code exchange failed: invalid_grant',
  );
});

entra.run();

// --- start-up -----------------------------------------------------------------------------------

const startup = suite('azure, google, cognito at start-up');
const log = createLog('silent');
const configOf = (env: Record<string, string>) =>
  loadConfig(
    { DATABASE_URL: 'postgres://127.0.0.1:1/none', PORT: '0', ...CLIENT, ...env },
    { systemFile: null },
  );

async function bootError(env: Record<string, string>): Promise<string> {
  try {
    const running = await boot(configOf(env), log);
    await running.close();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return (err as Error).message;
  }
  assert.unreachable('boot should fail');
  return '';
}

startup('an unreachable provider stops start-up, as with openid', async () => {
  for (const provider of Object.keys(ALIASES)) {
    const message = await bootError({ AUTH_PROVIDER: provider, OIDC_ISSUER_URL: 'http://127.0.0.1:1/idp' });
    assert.match(
      message,
      'OpenID Connect discovery at http://127.0.0.1:1/idp/.well-known/openid-configuration',
    );
  }
});

startup("a {tenantid} issuer is Azure's alone: openid refuses it", async () => {
  const fake = await startEntraFake({ tenant: 'common', clientId: 'x', clientSecret: 'y' });
  try {
    const openid = await bootError({ AUTH_PROVIDER: 'openid', OIDC_ISSUER_URL: fake.issuerUrl });
    assert.match(openid, `names issuer '${fake.origin}/{tenantid}/v2.0', expected '${fake.issuerUrl}'`);
  } finally {
    await fake.close();
  }
});

startup.run();
