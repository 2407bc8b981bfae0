/**
 * The web UI's login page by `/config provider` (docs/auth-sso.md, "Web login"): the OpenID Connect
 * code flow in Chromium against a real provider (oidc-provider on loopback, its own login form),
 * the state check, the provider's and the server's refusals; SAML in a popup whose identity provider
 * the test plays with a signed response; the LDAP form; a provider the UI cannot start.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '../../scripts/cluster.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { until } from '../helpers/live.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';
import { createSamlIdp, type TestSamlIdp } from '../helpers/saml-idp.ts';
import { launchBrowser } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

/** A fresh browser profile per test: no token, no session at the identity provider. */
async function inContext(ctx: Ctx, body: (page: Page, context: BrowserContext) => Promise<void>) {
  const context = await ctx.browser.newContext();
  // The provider's login page imports a web font; nothing here may leave the machine.
  await context.route(/^https:\/\/fonts\./, (route) => route.abort());
  try {
    await body(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem('alertwall.token'));
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

// ---- OpenID Connect ------------------------------------------------------------------------------

interface OidcCtx extends Ctx {
  idp: TestOidcProvider;
}

/**
 * A local OpenID provider with a login form, holding `accounts`, and the app signing in through it
 * with `settings` (its AUTH_PROVIDER among them). The redirect URI registered with the provider is
 * the UI's origin, so the port is chosen first.
 */
async function startWithOidc(
  ctx: OidcCtx,
  accounts: Record<string, Record<string, unknown>>,
  settings: Record<string, string>,
): Promise<void> {
  const port = await freePort();
  ctx.idp = await startOidcProvider({
    clientId: 'alerta-web',
    clientSecret: 'web-secret',
    redirectUris: [`http://127.0.0.1:${port}`],
    loginForm: true,
  });
  for (const [sub, claims] of Object.entries(accounts)) ctx.idp.accounts.set(sub, claims);
  await startApp(ctx, {
    PORT: String(port),
    AUTH_REQUIRED: 'True',
    OIDC_ISSUER_URL: ctx.idp.issuer,
    OAUTH2_CLIENT_ID: 'alerta-web',
    OAUTH2_CLIENT_SECRET: 'web-secret',
    ...settings,
  });
  ctx.browser = await launchBrowser();
}
async function stopWithOidc(ctx: OidcCtx): Promise<void> {
  await ctx.browser?.close();
  await stopApp(ctx);
  await ctx.idp?.close();
}

const oidc = suite<OidcCtx>('web login: OpenID Connect code flow', {} as OidcCtx);
oidc.before((ctx) =>
  startWithOidc(
    ctx,
    Object.fromEntries(
      [
        ['alice', 'alice@example.com'],
        ['mallory', 'mallory@elsewhere.test'],
      ].map(([sub, email]) => [sub, { preferred_username: sub, name: sub, email, email_verified: true }]),
    ),
    {
      TEST_LABEL: 'browser_login_oidc',
      SECRET_KEY: 'login-oidc-secret',
      AUTH_PROVIDER: 'openid',
      ALLOWED_EMAIL_DOMAINS: 'example.com',
    },
  ),
);
oidc.after(stopWithOidc);

/** Clicks the provider button and signs in on the provider's own login form. */
async function signInAtProvider(
  page: Page,
  idp: TestOidcProvider,
  login: string,
  button = 'Sign in with OpenID Connect',
) {
  await page.getByRole('button', { name: button }).click();
  await page.waitForURL((u) => u.origin === idp.origin);
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

oidc('the code flow ends on /alerts, logged in as the provider says; next is honoured', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/alerts`);
    await page.waitForURL(/\/login\?next=/);
    assert.is(await page.getByLabel('Password').count(), 0, 'no password form in front');
    await signInAtProvider(page, ctx.idp, 'alice');
    await page.waitForURL(`${ctx.origin}/alerts`);
    await nav(page).getByTestId('login').filter({ hasText: 'alice' }).waitFor();
    const claims = decodeJwt((await storedToken(page))!);
    assert.equal([claims.provider, claims.email], ['openid', 'alice@example.com']);
    const pending = await page.evaluate(() => sessionStorage.getItem('alertwall.sso'));
    assert.is(pending, null, 'the pending sign-in is used up');

    // The provider remembers alice: signing in again goes straight back, to the page asked for.
    await nav(page).getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`${ctx.origin}/heartbeats`);
    await page.waitForURL(/\/login\?next=%2Fheartbeats$/);
    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click();
    await page.waitForURL(`${ctx.origin}/heartbeats`);
    assert.ok(await storedToken(page));

    // A next that names another site is ignored.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${ctx.origin}/login?next=${encodeURIComponent('//evil.example/x')}`);
    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click();
    await page.waitForURL(`${ctx.origin}/alerts`);
  });
});

oidc('a refusal by the allow-list shows the server message and stores no token', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/login`);
    await signInAtProvider(page, ctx.idp, 'mallory');
    await page.getByRole('alert').filter({ hasText: 'User mallory is not authorized' }).waitFor();
    assert.is(new URL(page.url()).search, '', 'the used code is gone from the address bar');
    assert.is(await storedToken(page), null);
    // Still a way to try again.
    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).waitFor();
  });
});

oidc('an answer whose state was not sent from this tab is refused before the code is used', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/login`);
    const isCallback = (u: URL) => u.origin === ctx.origin && u.searchParams.has('code');
    await page.route(isCallback, (route) => route.abort());
    const callback = page.waitForRequest((r) => isCallback(new URL(r.url())));
    await signInAtProvider(page, ctx.idp, 'alice');
    const tampered = new URL((await callback).url());
    await page.unrouteAll();
    assert.ok(tampered.searchParams.get('state'));
    tampered.searchParams.set('state', 'forged-state');
    const exchanges = ctx.idp.tokenRequests();
    await page.goto(tampered.href);
    await page.getByRole('alert').filter({ hasText: 'state mismatch' }).waitFor();
    assert.is(ctx.idp.tokenRequests(), exchanges, 'the code never reached the token endpoint');
    assert.is(await storedToken(page), null);
  });
});

oidc("the provider's own error comes back with its description", async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/login`);
    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click();
    await page.waitForURL((u) => u.origin === ctx.idp.origin);
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'OpenID Connect refused the sign-in: End-User aborted interaction' })
      .waitFor();
    assert.is(await storedToken(page), null);
  });
});

oidc.run();

// ---- azure, google, cognito: the OpenID Connect code flow under the established names -------------

const alias = suite<OidcCtx>('web login: AUTH_PROVIDER = azure, google, cognito', {} as OidcCtx);
// Azure, with the local provider as its issuer (as an explicit OIDC_ISSUER_URL names it).
alias.before((ctx) =>
  startWithOidc(
    ctx,
    { ada: { preferred_username: 'ada', email: 'ada@example.com', email_verified: true } },
    { TEST_LABEL: 'browser_login_azure', SECRET_KEY: 'login-azure-secret', AUTH_PROVIDER: 'azure' },
  ),
);
alias.after(stopWithOidc);

alias('azure: the discovered authorize endpoint, then POST /auth/azure, ends on /alerts', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/alerts`);
    await page.waitForURL(/\/login\?next=/);
    const authorize = page.waitForRequest((r) => r.url().startsWith(`${ctx.idp.issuer}/auth?`));
    const exchange = page.waitForRequest((r) => r.url().endsWith('/api/auth/azure'));
    await signInAtProvider(page, ctx.idp, 'ada', 'Sign in with Microsoft');
    const asked = new URL((await authorize).url());
    assert.equal(
      ['client_id', 'response_type', 'scope', 'redirect_uri'].map((k) => asked.searchParams.get(k)),
      ['alerta-web', 'code', 'openid profile email', ctx.origin],
    );
    assert.ok(asked.searchParams.get('state'));
    await page.waitForURL(`${ctx.origin}/alerts`);
    const body = (await exchange).postDataJSON() as Record<string, unknown>;
    assert.equal([body.clientId, body.redirectUri], ['alerta-web', ctx.origin]);
    await nav(page).getByTestId('login').filter({ hasText: 'ada' }).waitFor();
    assert.is(decodeJwt((await storedToken(page))!).provider, 'azure');
  });
});

alias('without a discovered endpoint each alias goes where the established web UI sends it', async (ctx) => {
  const cases = [
    {
      provider: 'azure',
      button: 'Sign in with Microsoft',
      config: { azure_tenant: 'contoso.onmicrosoft.com' },
      endpoint: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize',
    },
    {
      provider: 'google',
      button: 'Sign in with Google',
      config: {},
      endpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    },
    {
      provider: 'cognito',
      button: 'Sign in with Amazon Cognito',
      config: { cognito_domain: 'alerta-test', aws_region: 'eu-west-1' },
      endpoint: 'https://alerta-test.auth.eu-west-1.amazoncognito.com/login',
    },
  ];
  for (const c of cases) {
    await inContext(ctx, async (page, context) => {
      await page.route('**/api/config', async (route) => {
        const res = await route.fetch();
        const json = { ...(await res.json()), provider: c.provider, oidc_auth_url: null, ...c.config };
        await route.fulfill({ response: res, json });
      });
      // Nothing leaves the machine: the request is seen and answered 204, which keeps the page.
      const left: string[] = [];
      await context.route(/^https:\/\//, (route) => {
        left.push(route.request().url());
        return route.fulfill({ status: 204 });
      });
      await page.goto(`${ctx.origin}/login?next=%2Fheartbeats`);
      await page.getByRole('button', { name: c.button }).click();
      const asked = new URL(await until(() => left[0], 5000, `no request to ${c.endpoint}`));
      assert.is(`${asked.origin}${asked.pathname}`, c.endpoint, c.provider);
      assert.equal(
        ['client_id', 'response_type', 'scope', 'redirect_uri'].map((k) => asked.searchParams.get(k)),
        ['alerta-web', 'code', 'openid profile email', ctx.origin],
      );
      // The sign-in this tab started, with its state and the page to return to.
      const pending = JSON.parse((await page.evaluate(() => sessionStorage.getItem('alertwall.sso')))!);
      assert.equal(
        [pending.provider, pending.state, pending.next],
        [c.provider, asked.searchParams.get('state'), '/heartbeats'],
      );
    });
  }
});

alias.run();

// ---- SAML 2.0 -----------------------------------------------------------------------------------

interface SamlCtx extends Ctx {
  idp: TestSamlIdp;
  baseUrl: string;
}

const saml = suite<SamlCtx>('web login: SAML 2.0 popup', {} as SamlCtx);
saml.before(async (ctx) => {
  const port = await freePort();
  ctx.baseUrl = `http://127.0.0.1:${port}/api`;
  ctx.idp = createSamlIdp('http://idp.example.test/sso/redirect');
  const sp = ctx.idp.makeKeyPair('sp');
  await startApp(ctx, {
    TEST_LABEL: 'browser_login_saml',
    PORT: String(port),
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'login-saml-secret',
    AUTH_PROVIDER: 'saml2',
    BASE_URL: ctx.baseUrl,
    SAML2_CONFIG: JSON.stringify({
      metadata: { local: [ctx.idp.metadataFile] },
      key_file: sp.keyFile,
      cert_file: sp.certFile,
    }),
    ALLOWED_SAML2_GROUPS: 'ops',
  });
  ctx.browser = await launchBrowser();
});
saml.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
  ctx.idp?.cleanup();
});

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Plays the identity provider in the popup: its single sign-on URL answers with the self-posting
 * form an identity provider sends, carrying a response signed by its key and the RelayState it got.
 */
async function playIdp(
  ctx: SamlCtx,
  context: BrowserContext,
  who: () => Promise<string>,
): Promise<{ relayStates: string[] }> {
  const relayStates: string[] = [];
  const people: Record<string, Record<string, string | string[]>> = {
    'ada@example.com': {
      emailAddress: 'ada@example.com',
      givenName: 'Ada',
      surname: 'Lovelace',
      groups: 'ops',
    },
    'bob@example.com': { emailAddress: 'bob@example.com', givenName: 'Bob', surname: 'Outsider' },
  };
  await context.route('http://idp.example.test/**', async (route) => {
    const relayState = new URL(route.request().url()).searchParams.get('RelayState') ?? '';
    relayStates.push(relayState);
    const nameId = await who();
    const acs = `${ctx.baseUrl}/auth/saml`;
    const response = ctx.idp.response({ nameId, attributes: people[nameId], audience: ctx.baseUrl, acs });
    await route.fulfill({
      contentType: 'text/html',
      body:
        `<form method="post" action="${acs}">` +
        `<input type="hidden" name="SAMLResponse" value="${attr(response)}">` +
        `<input type="hidden" name="RelayState" value="${attr(relayState)}"></form>` +
        '<script>document.forms[0].submit()</script>',
    });
  });
  return { relayStates };
}

saml('the popup signs in at the identity provider and the opener ends logged in', async (ctx) => {
  await inContext(ctx, async (page, context) => {
    const idp = await playIdp(ctx, context, async () => 'ada@example.com');
    await page.goto(`${ctx.origin}/alerts`);
    await page.waitForURL(/\/login\?next=/);
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Sign in with SAML' }).click();
    await popup;
    await page.waitForURL(`${ctx.origin}/alerts`);
    // The server sent the identity provider our login page to return to.
    assert.equal(idp.relayStates, [`${ctx.origin}/login?next=%2Falerts`]);
    await nav(page).getByTestId('login').filter({ hasText: 'ada@example.com' }).waitFor();
    assert.is(decodeJwt((await storedToken(page))!).provider, 'saml2');
  });
});

saml('only the popup may hand a token over; a refusal shows its message', async (ctx) => {
  await inContext(ctx, async (page, context) => {
    let release = (_: string) => {};
    const gate = new Promise<string>((ok) => (release = ok));
    await playIdp(ctx, context, () => gate);
    await page.goto(`${ctx.origin}/login`);
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Sign in with SAML' }).click();
    await popup;
    await page.getByRole('status').filter({ hasText: 'Waiting for the sign-in window' }).waitFor();
    // Same origin, but not the popup: ignored.
    await page.evaluate(() => window.postMessage({ status: 'ok', token: 'forged' }, '*'));
    await page.waitForTimeout(300);
    assert.is(await storedToken(page), null);
    release('bob@example.com');
    await page.getByRole('alert').filter({ hasText: 'User bob@example.com is not authorized' }).waitFor();
    assert.is(await storedToken(page), null);
    assert.match(page.url(), /\/login$/);
  });
});

saml.run();

// ---- LDAP, and a provider the UI cannot start ----------------------------------------------------

const ldap = suite<Ctx>('web login: LDAP form; an unknown provider', {} as Ctx);
ldap.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_login_ldap',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'login-ldap-secret',
    AUTH_PROVIDER: 'ldap',
    // Nothing listens there: the form's answer is the server's "unavailable".
    LDAP_URL: 'ldap://127.0.0.1:9',
    LDAP_DOMAINS: JSON.stringify({ 'example.com': 'uid=%s,ou=people,dc=example,dc=com' }),
  });
  ctx.browser = await launchBrowser();
});
ldap.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

ldap('the password form asks for user@domain and offers no sign-up', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.goto(`${ctx.origin}/login`);
    const username = page.getByLabel('Username');
    await username.waitFor();
    assert.is(await username.getAttribute('placeholder'), 'user@domain');
    assert.match((await page.locator('#username-hint').textContent()) ?? '', /user@domain/);
    assert.is(await page.getByRole('link', { name: 'Sign up' }).count(), 0);
    assert.is(await page.getByRole('button', { name: /^Sign in with/ }).count(), 0);
    await username.fill('carol@example.com');
    await page.getByLabel('Password').fill('secret');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'LDAP server unavailable' }).waitFor();
  });
});

ldap('a provider the UI cannot start says so instead of offering a form', async (ctx) => {
  await inContext(ctx, async (page) => {
    await page.route('**/api/config', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), provider: 'cas' } });
    });
    await page.goto(`${ctx.origin}/login`);
    await page
      .getByRole('alert')
      .filter({ hasText: "cannot sign in with the server's provider 'cas'" })
      .waitFor();
    assert.is(await page.getByLabel('Password').count(), 0);
    assert.is(await page.getByRole('button').count(), 0);
  });
});

ldap.run();
