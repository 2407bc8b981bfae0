/**
 * `alerta login` with an OAuth provider (clients.md, `login`), here AUTH_PROVIDER = azure against a
 * real OpenID Provider (oidc-provider on loopback, named by OIDC_ISSUER_URL): the client prints the
 * provider's login URL and runs BROWSER (here `true`, which opens nothing); the test plays the
 * browser with that URL and delivers the provider's answer to the local callback on port 9004; the
 * client posts the code to /auth/azure and keeps the token in ~/.netrc. Then the refusals.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { until } from '../helpers/live.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';
import { alertaOk, start, tempHome } from './helpers.ts';

interface Ctx extends AppContext {
  idp: TestOidcProvider;
  homes: (() => void)[];
  /** Logins still waiting for the browser when a test fails. */
  logins: (() => Promise<unknown>)[];
}

const test = suite<Ctx>('alerta login in the browser (azure)', {} as Ctx);

test.before(async (ctx) => {
  ctx.homes = [];
  ctx.logins = [];
  ctx.idp = await startOidcProvider({
    clientId: 'alerta-cli',
    clientSecret: 'cli-secret',
    redirectUris: ['http://localhost:9004', 'http://127.0.0.1:9004'],
  });
  ctx.idp.accounts.set('sub-olga', {
    preferred_username: 'olga',
    email: 'olga@example.com',
    email_verified: true,
  });
  ctx.idp.accounts.set('sub-eve', {
    preferred_username: 'eve',
    email: 'eve@elsewhere.test',
    email_verified: true,
  });
  await startApp(ctx, {
    TEST_LABEL: 'cli_login_azure',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'cli-login-secret-0123456789',
    AUTH_PROVIDER: 'azure',
    OIDC_ISSUER_URL: ctx.idp.issuer,
    OAUTH2_CLIENT_ID: 'alerta-cli',
    OAUTH2_CLIENT_SECRET: 'cli-secret',
    ALLOWED_EMAIL_DOMAINS: 'example.com',
  });
});
test.after(async (ctx) => {
  for (const stop of ctx.logins ?? []) await stop();
  for (const cleanup of ctx.homes ?? []) cleanup();
  await stopApp(ctx);
  await ctx.idp?.close();
});

/** Starts `alerta login`; gives the URL it asks the browser to open, and its exit. */
async function startLogin(ctx: Ctx) {
  const h = tempHome('login');
  ctx.homes.push(h.cleanup);
  const running = start(['login'], { home: h.home, env: { ALERTA_ENDPOINT: ctx.api.base, BROWSER: 'true' } });
  const exited = new Promise<number | null>((ok) => running.child.on('close', (code) => ok(code)));
  ctx.logins.push(() => (running.child.exitCode === null ? running.stop() : exited));
  const found = (text: string) => /^(https?:\/\/\S+\/auth\?\S+)$/m.exec(text)?.[1];
  const url = new URL(
    await until(
      () => found(running.stderr()),
      15_000,
      () => running.stderr(),
    ),
  );
  return { home: h.home, running, exited, url };
}

test('the provider page, the callback, POST /auth/azure: logged in, the token kept', async (ctx) => {
  const login = await startLogin(ctx);
  assert.is(`${login.url.origin}${login.url.pathname}`, `${ctx.idp.issuer}/auth`, 'the discovered endpoint');
  const p = login.url.searchParams;
  assert.equal(
    ['client_id', 'redirect_uri', 'response_type', 'scope', 'code_challenge_method'].map((k) => p.get(k)),
    ['alerta-cli', 'http://localhost:9004', 'code', 'openid profile email', 'S256'],
  );
  assert.match(p.get('state')!, /^[0-9a-f]{32}$/);

  const back = await ctx.idp.follow(login.url.href, 'sub-olga');
  assert.is(back.origin, 'http://localhost:9004');
  const res = await fetch(back);
  assert.is(res.status, 200);
  assert.match(await res.text(), 'Authorization success!');
  assert.is(await login.exited, 0, login.running.stderr());
  assert.equal(login.running.lines(), ['Logged in as olga']);
  const port = new URL(ctx.api.base).port;
  assert.match(
    readFileSync(join(login.home, '.netrc'), 'utf8'),
    new RegExp(`^machine 127\\.0\\.0\\.1:${port}\\n\\tlogin olga\\n\\tpassword ey`),
  );
  const whoami = await alertaOk(['whoami'], { home: login.home, env: { ALERTA_ENDPOINT: ctx.api.base } });
  assert.is(whoami.trim(), 'olga');
});

test("the provider's refusal and a foreign answer end the login (exit 4); the server's refusal exit 1", async (ctx) => {
  const refused = await startLogin(ctx);
  const state = refused.url.searchParams.get('state')!;
  const error = new URLSearchParams({ state, error: 'access_denied', error_description: 'User said no' });
  assert.is((await fetch(`http://127.0.0.1:9004/?${error}`)).status, 401);
  assert.is(await refused.exited, 4);
  assert.match(refused.running.stderr(), 'ERROR: azure refused the login: User said no');

  const foreign = await startLogin(ctx);
  assert.is(
    (await fetch('http://127.0.0.1:9004/favicon.ico')).status,
    404,
    'other requests are not the answer',
  );
  assert.is((await fetch('http://127.0.0.1:9004/?state=forged&code=stolen')).status, 400);
  assert.is(await foreign.exited, 4);
  assert.match(foreign.running.stderr(), 'ERROR: the answer is not for this login (state mismatch)');

  const outsider = await startLogin(ctx);
  await fetch(await ctx.idp.follow(outsider.url.href, 'sub-eve'));
  assert.is(await outsider.exited, 1);
  assert.match(outsider.running.stderr(), 'User eve is not authorized');
});

test.run();
