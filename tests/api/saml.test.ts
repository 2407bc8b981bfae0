/**
 * SAML 2.0 sign-in (AUTH_PROVIDER = saml2) with a locally generated identity provider
 * (tests/helpers/saml-idp.ts): our metadata (well-formed XML with the ACS and our certificate), the
 * redirect to the identity provider, assertions signed by its key accepted, tampered, expired,
 * mis-addressed, forged and unsigned ones refused, ALLOWED_SAML2_GROUPS, SAML2_USER_NAME_FORMAT, the
 * popup hand-back page (postMessage to a trusted origin only, under a CSP), CORS for the identity
 * provider's origin, and the settings start-up checks.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { DOMParser } from '@xmldom/xmldom';
import { boot } from '../../server/boot.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { loadSaml } from '../../server/auth/sso/saml.ts';
import { createLog } from '../../server/log.ts';
import { type AppContext, appSuite, startApp, stopApp } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { createSamlIdp, type KeyPair, type TestSamlIdp } from '../helpers/saml-idp.ts';

/** The public address the identity provider knows us by; tests reach the server on 127.0.0.1. */
const BASE_URL = 'http://alerta.test/api';
const ACS = `${BASE_URL}/auth/saml`;
const UI = 'http://ui.test';

interface Ctx extends AppContext {
  idp: TestSamlIdp;
  sp: KeyPair;
}

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';

function strictXml(xml: string): Document {
  const fail = (m: string) => {
    throw new Error(`not well-formed: ${m}`);
  };
  return new DOMParser({
    errorHandler: { warning: () => {}, error: fail, fatalError: fail },
  }).parseFromString(xml, 'text/xml');
}

interface Page {
  status: number;
  html: string;
  headers: Headers;
  /** What the page posts to its opener, and to which origin; null when it posts nothing. */
  message: Record<string, unknown> | null;
  target: string | null;
}

async function post(
  ctx: Ctx,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Page> {
  const res = await fetch(`${ctx.api.base}/auth/saml`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const html = await res.text();
  const m = /postMessage\((\{.*\}), ("[^"]*")\)/.exec(html);
  return {
    status: res.status,
    html,
    headers: res.headers,
    message: m ? (JSON.parse(m[1]!) as Record<string, unknown>) : null,
    target: m ? (JSON.parse(m[2]!) as string) : null,
  };
}

const ada = {
  nameId: 'ada@example.com',
  attributes: {
    emailAddress: 'ada@example.com',
    givenName: 'Ada',
    surname: 'Lovelace',
    groups: ['ops', 'analytics'],
  },
};

const signIn = (
  ctx: Ctx,
  who: Parameters<TestSamlIdp['response']>[0] = { ...ada, audience: BASE_URL, acs: ACS },
) => post(ctx, { SAMLResponse: ctx.idp.response(who), RelayState: `${UI}/#/login` });

const saml = suite<Ctx>('AUTH_PROVIDER = saml2', {} as Ctx);
saml.before(async (ctx) => {
  ctx.idp = createSamlIdp();
  ctx.sp = ctx.idp.makeKeyPair('sp');
  const config = {
    metadata: { local: [ctx.idp.metadataFile] },
    key_file: ctx.sp.keyFile,
    cert_file: ctx.sp.certFile,
  };
  await startApp(ctx, {
    TEST_LABEL: 'saml',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'saml-test-secret',
    AUTH_PROVIDER: 'saml2',
    BASE_URL,
    SAML2_CONFIG: JSON.stringify(config),
    ALLOWED_SAML2_GROUPS: 'ops,admins',
    CORS_ORIGINS: `${UI},http://localhost:8000`,
  });
});
saml.after(async (ctx) => {
  await stopApp(ctx);
  ctx.idp?.cleanup();
});

saml('GET /auth/saml/metadata.xml is well-formed SP metadata with our ACS and certificate', async (ctx) => {
  const res = await ctx.api.get('/auth/saml/metadata.xml');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/xml/);
  const doc = strictXml(await res.text());
  const root = doc.documentElement!;
  assert.equal([root.namespaceURI, root.localName], [MD, 'EntityDescriptor']);
  assert.is(root.getAttribute('entityID'), BASE_URL);
  const acs = doc.getElementsByTagNameNS(MD, 'AssertionConsumerService')[0]!;
  assert.equal(
    [acs.getAttribute('Location'), acs.getAttribute('Binding')],
    [ACS, 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'],
  );
  const sp = doc.getElementsByTagNameNS(MD, 'SPSSODescriptor')[0]!;
  assert.is(sp.getAttribute('WantAssertionsSigned'), 'true');
  const list = doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'X509Certificate');
  const certs = Array.from({ length: list.length }, (_, i) => list.item(i)!);
  assert.ok(certs.length > 0);
  assert.ok(certs.every((c) => (c.textContent ?? '').replace(/\s+/g, '') === ctx.sp.certBody));
});

saml(
  'GET /auth/saml redirects to the identity provider with a signed request; RelayState is the page',
  async (ctx) => {
    const res = await fetch(`${ctx.api.base}/auth/saml`, {
      redirect: 'manual',
      headers: { Referer: `${UI}/#/login` },
    });
    assert.is(res.status, 302);
    const location = new URL(res.headers.get('location')!);
    assert.is(`${location.origin}${location.pathname}`, ctx.idp.ssoUrl);
    assert.is(location.searchParams.get('RelayState'), `${UI}/#/login`);
    assert.ok(location.searchParams.get('Signature'), 'signed with key_file');
    const request = inflateRawSync(
      Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64'),
    ).toString();
    const doc = strictXml(request);
    assert.is(doc.documentElement!.localName, 'AuthnRequest');
    assert.is(doc.documentElement!.getAttribute('AssertionConsumerServiceURL'), ACS);
    assert.is(doc.documentElement!.getAttribute('Destination'), ctx.idp.ssoUrl);

    const foreign = await fetch(`${ctx.api.base}/auth/saml`, {
      redirect: 'manual',
      headers: { Referer: 'https://evil.test/' },
    });
    assert.is(foreign.status, 400, 'a page on an origin we do not trust may not start a sign-in');
  },
);

saml(
  'a signed assertion signs in: the popup posts the token to the UI origin only, under a CSP',
  async (ctx) => {
    const page = await signIn(ctx);
    assert.is(page.status, 200, page.html);
    assert.is(page.target, UI);
    assert.is(page.message?.status, 'ok');
    const claims = decodeJwt(page.message!.token as string);
    assert.equal(
      [
        claims.provider,
        claims.preferred_username,
        claims.name,
        claims.email,
        claims.email_verified,
        claims.groups,
      ],
      ['saml2', 'ada@example.com', 'Ada Lovelace', 'ada@example.com', true, ['ops', 'analytics']],
    );
    assert.is(claims.scope, 'read write');
    const script = /<script>(.*)<\/script>/s.exec(page.html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    assert.is(page.headers.get('content-security-policy'), `default-src 'none'; script-src 'sha256-${hash}'`);
    assert.is(page.headers.get('cache-control'), 'no-store');
    const rows = await queryDb(
      ctx.db.url,
      `SELECT login, name, text, password FROM users WHERE email = 'ada@example.com'`,
    );
    assert.equal(rows, [
      { login: 'ada@example.com', name: 'Ada Lovelace', text: 'SAML2 user', password: '' },
    ]);
    const me = await ctx.api.get('/user/me', {
      headers: { Authorization: `Bearer ${String(page.message!.token)}` },
    });
    assert.is(me.status, 200);

    const again = decodeJwt((await signIn(ctx)).message!.token as string);
    assert.is(again.sub, claims.sub, 'the same person is the same user');
  },
);

saml('tampered, expired, mis-addressed, forged and unsigned responses are refused', async (ctx) => {
  const good = { ...ada, audience: BASE_URL, acs: ACS };
  const refused = async (samlResponse: string, why: string) => {
    const page = await post(ctx, { SAMLResponse: samlResponse, RelayState: UI });
    assert.is(page.status, 401, `${why}: ${page.html}`);
    assert.equal(page.message, { status: 'error', message: 'SAML response rejected' }, why);
  };
  const signed = Buffer.from(ctx.idp.response(good), 'base64').toString();
  const tampered = signed.replace(
    '>ada@example.com</saml:AttributeValue>',
    '>eve@example.com</saml:AttributeValue>',
  );
  assert.not.equal(tampered, signed);
  await refused(Buffer.from(tampered).toString('base64'), 'tampered');
  await refused(ctx.idp.response({ ...good, notBefore: -3600, notOnOrAfter: -600 }), 'expired');
  await refused(ctx.idp.response({ ...good, notBefore: 600, notOnOrAfter: 1200 }), 'not yet valid');
  await refused(ctx.idp.response({ ...good, audience: 'https://someone-else.test' }), 'wrong audience');
  await refused(ctx.idp.response({ ...good, signWith: ctx.sp }), 'signed by another key');
  await refused(ctx.idp.response({ ...good, unsigned: true }), 'unsigned');
  await refused(Buffer.from('<not-saml/>').toString('base64'), 'not a response');
  await refused('%%% not base64 %%%', 'garbage');
  const eve = await queryDb(ctx.db.url, `SELECT id FROM users WHERE email = 'eve@example.com'`);
  assert.equal(eve, []);
});

saml('ALLOWED_SAML2_GROUPS: members of other groups, or of none, are not authorized', async (ctx) => {
  const outsider = {
    nameId: 'bob@example.com',
    audience: BASE_URL,
    acs: ACS,
    attributes: { emailAddress: 'bob@example.com', groups: ['dev'] },
  };
  const page = await signIn(ctx, outsider);
  assert.is(page.status, 403);
  assert.equal(page.message, { status: 'error', message: 'User bob@example.com is not authorized' });
  const none = await signIn(ctx, { ...outsider, attributes: { emailAddress: 'bob@example.com' } });
  assert.is(none.status, 403);
  assert.equal(await queryDb(ctx.db.url, `SELECT id FROM users WHERE email = 'bob@example.com'`), []);
});

saml('a transient NameID is not a login; a missing email attribute is a 400', async (ctx) => {
  const page = await signIn(ctx, {
    nameId: '_f3a9c1e2',
    nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
    audience: BASE_URL,
    acs: ACS,
    attributes: { emailAddress: 'tom@example.com', givenName: 'Tom', groups: 'ops' },
  });
  assert.is(page.status, 200, page.html);
  const claims = decodeJwt(page.message!.token as string);
  assert.equal([claims.preferred_username, claims.name], ['tom@example.com', 'Tom']);
  const nomail = await signIn(ctx, {
    nameId: 'x',
    audience: BASE_URL,
    acs: ACS,
    attributes: { groups: 'ops' },
  });
  assert.is(nomail.status, 400);
  assert.equal(nomail.message, {
    status: 'error',
    message: "the SAML assertion carries no 'emailAddress' attribute",
  });
});

saml('the hand-back goes only to trusted origins; a missing response is a 400', async (ctx) => {
  const response = ctx.idp.response({ ...ada, audience: BASE_URL, acs: ACS });
  const evil = await post(ctx, { SAMLResponse: response, RelayState: 'https://evil.test/steal' });
  assert.is(evil.status, 400);
  assert.is(evil.message, null, 'nothing is posted anywhere');
  assert.not.match(evil.html, /<script/);
  assert.not.match(evil.html, /eyJ/, 'no token on the page');
  const own = await post(ctx, { SAMLResponse: response, RelayState: 'http://alerta.test/' });
  assert.is(own.target, 'http://alerta.test', "the API's own origin is trusted");
  const missing = await post(ctx, { RelayState: UI });
  assert.is(missing.status, 400);
  assert.equal(missing.message, { status: 'error', message: 'missing SAMLResponse' });
});

saml("CORS: the identity provider's origin is allowed on /auth/saml without listing it", async (ctx) => {
  const preflight = (origin: string, path = '/auth/saml') =>
    fetch(`${ctx.api.base}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
    });
  const idpOrigin = 'https://idp.example.test';
  assert.is((await preflight(idpOrigin)).headers.get('access-control-allow-origin'), idpOrigin);
  assert.is((await preflight(idpOrigin, '/alerts')).headers.get('access-control-allow-origin'), null);
  assert.is((await preflight('https://evil.test')).headers.get('access-control-allow-origin'), null);
  const page = await post(
    ctx,
    { SAMLResponse: ctx.idp.response({ ...ada, audience: BASE_URL, acs: ACS }), RelayState: UI },
    { Origin: idpOrigin },
  );
  assert.is(page.status, 200);
  assert.is(page.headers.get('access-control-allow-origin'), idpOrigin);
});

saml.run();

// --- not configured, and start-up -------------------------------------------------------------

const off = appSuite('SAML endpoints without AUTH_PROVIDER = saml2', { TEST_LABEL: 'saml_off' });

off('answer a JSON 400', async (ctx) => {
  for (const res of [
    await ctx.api.get('/auth/saml/metadata.xml'),
    await ctx.api.get('/auth/saml'),
    await ctx.api.post('/auth/saml', undefined, {
      raw: 'SAMLResponse=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    }),
  ]) {
    assert.is(res.status, 400);
    assert.equal(await res.json(), {
      status: 'error',
      message: "SAML is not enabled (AUTH_PROVIDER is 'basic')",
      code: 400,
      errors: null,
      requestId: res.headers.get('x-request-id'),
      errorCode: 'saml_not_enabled',
    });
  }
});

off.run();

const startup = suite('SAML settings at start-up');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(
      { DATABASE_URL: 'postgres://127.0.0.1:1/none', AUTH_PROVIDER: 'saml2', ...env },
      { systemFile: null },
    );
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

startup('BASE_URL and metadata are required; files must exist; key and certificate go together', () => {
  const idp = createSamlIdp();
  try {
    const metadata = JSON.stringify({ metadata: { local: [idp.metadataFile] } });
    assert.ok(problemsOf({ SAML2_CONFIG: metadata }).some((p) => p.startsWith('BASE_URL: needed')));
    assert.ok(problemsOf({ BASE_URL }).some((p) => p.startsWith("SAML2_CONFIG: needs 'metadata'")));
    assert.equal(problemsOf({ BASE_URL, SAML2_CONFIG: metadata }), []);
    assert.equal(problemsOf({ BASE_URL, SAML2_METADATA_URL: 'https://idp.example.test/metadata' }), []);
    const missing = JSON.stringify({ metadata: { local: ['/nonexistent/idp.xml'] } });
    assert.ok(
      problemsOf({ BASE_URL, SAML2_CONFIG: missing }).some((p) =>
        p.includes("'/nonexistent/idp.xml' does not exist"),
      ),
    );
    const halfPair = JSON.stringify({ metadata: idp.metadataFile, key_file: idp.keys.keyFile });
    assert.ok(
      problemsOf({ BASE_URL, SAML2_CONFIG: halfPair }).some((p) =>
        p.includes('key_file and cert_file go together'),
      ),
    );
    assert.ok(
      problemsOf({ BASE_URL, SAML2_CONFIG: '{"metadata": 5}' }).some((p) =>
        p.startsWith('SAML2_CONFIG (environment)'),
      ),
    );
  } finally {
    idp.cleanup();
  }
});

startup('metadata that is not an identity provider’s stops start-up', async () => {
  const idp = createSamlIdp();
  try {
    const bad = join(idp.dir, 'bad.xml');
    for (const [text, reason] of [
      [
        '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>',
        'no IDPSSODescriptor',
      ],
      ['<unclosed', ''],
    ] as const) {
      writeFileSync(bad, text);
      const config = loadConfig(
        {
          DATABASE_URL: 'postgres://127.0.0.1:1/none',
          AUTH_PROVIDER: 'saml2',
          BASE_URL,
          SAML2_CONFIG: JSON.stringify({ metadata: bad }),
        },
        { systemFile: null },
      );
      try {
        await boot(config, createLog('silent'));
        assert.unreachable('boot should fail');
      } catch (err) {
        assert.match((err as Error).message, "SAML2_CONFIG: cannot use the identity provider's metadata");
        assert.match((err as Error).message, reason);
      }
    }
  } finally {
    idp.cleanup();
  }
});

startup(
  'the entity id is BASE_URL as configured (trailing slash kept), as the established server',
  async () => {
    const idp = createSamlIdp();
    try {
      const entityOf = async (env: Record<string, string>) => {
        const config = loadConfig(
          {
            DATABASE_URL: 'postgres://127.0.0.1:1/none',
            AUTH_PROVIDER: 'saml2',
            SAML2_CONFIG: JSON.stringify({ metadata: idp.metadataFile }),
            ...env,
          },
          { systemFile: null },
        );
        const { metadata } = await loadSaml(config);
        const doc = strictXml(metadata);
        const acs = doc.getElementsByTagNameNS(MD, 'AssertionConsumerService')[0]!;
        return [doc.documentElement!.getAttribute('entityID'), acs.getAttribute('Location')];
      };
      assert.equal(await entityOf({ BASE_URL: `${BASE_URL}/` }), [`${BASE_URL}/`, ACS]);
      assert.equal(await entityOf({ BASE_URL }), [BASE_URL, ACS]);
      assert.equal(await entityOf({ BASE_URL, SAML2_ENTITY_ID: 'urn:alerta:sp' }), ['urn:alerta:sp', ACS]);
    } finally {
      idp.cleanup();
    }
  },
);

startup.run();
