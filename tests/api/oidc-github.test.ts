/**
 * GitHub-style OAuth sign-in (`POST /auth/github`). GitHub itself cannot be reached from the tests,
 * so a small fake of a GitHub Enterprise server runs on loopback with GITHUB_URL pointing at it: its
 * token endpoint (`/login/oauth/access_token`, refusing a code with 200 + `error` as GitHub does)
 * and the API under /api/v3 (`/user`, `/user/orgs`, `/user/teams`, `/user/emails`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, keyAuth, securedSettings } from '../helpers/secured.ts';

const ADMIN_KEY = 'github-test-admin-key-0123456789';
const CLIENTS: Record<string, string> = { 'ui-id': 'ui-secret', 'cli-id': 'cli-secret' };

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
  orgs: string[];
  teams: [org: string, slug: string][];
}

interface FakeGitHub {
  url: string;
  /** A one-time code for this user, as GitHub's authorize page would hand out. */
  codeFor(user: GitHubUser, clientId: string, redirectUri: string): string;
  close(): Promise<void>;
}

async function startFakeGitHub(): Promise<FakeGitHub> {
  const codes = new Map<string, { user: GitHubUser; clientId: string; redirectUri: string }>();
  const tokens = new Map<string, GitHubUser>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(text);
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const clientOk = CLIENTS[form.get('client_id') ?? ''] === form.get('client_secret');
        if (!clientOk) return send(200, { error: 'incorrect_client_credentials' });
        if (
          !grant ||
          grant.clientId !== form.get('client_id') ||
          grant.redirectUri !== form.get('redirect_uri')
        ) {
          return send(200, { error: 'bad_verification_code' });
        }
        const token = `gho_${++n}`;
        tokens.set(token, grant.user);
        return send(200, { access_token: token, token_type: 'bearer', scope: 'read:org,user:email' });
      }
      const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user) return send(401, { message: 'Bad credentials' });
      switch (url.pathname) {
        case '/api/v3/user':
          return send(200, {
            id: user.id,
            login: user.login,
            name: user.name,
            email: user.email,
            avatar_url: `https://avatars.example/${user.id}`,
          });
        case '/api/v3/user/orgs':
          return send(
            200,
            user.orgs.map((login) => ({ login, id: login.length })),
          );
        case '/api/v3/user/teams':
          return send(
            200,
            user.teams.map(([org, slug]) => ({ slug, organization: { login: org } })),
          );
        case '/api/v3/user/emails':
          return send(200, user.emails);
        default:
          return send(404, { message: 'Not Found' });
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    codeFor(user, clientId, redirectUri) {
      const code = `code-${++n}`;
      codes.set(code, { user, clientId, redirectUri });
      return code;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

interface Ctx extends AppContext {
  github: FakeGitHub;
}

const octo: GitHubUser = {
  id: 583231,
  login: 'octocat',
  name: 'The Octocat',
  email: null,
  emails: [
    { email: 'octo@old.example', primary: false, verified: true },
    { email: 'octo@example.com', primary: true, verified: true },
  ],
  orgs: ['acme', 'octo-org'],
  teams: [['acme', 'sre']],
};

async function signIn(ctx: Ctx, user: GitHubUser, clientId = 'ui-id', redirectUri = 'http://localhost:8000') {
  const code = ctx.github.codeFor(user, clientId, redirectUri);
  const res = await ctx.api.post('/auth/github', { code, clientId, redirectUri });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, claims: res.ok ? decodeJwt(body.token as string) : {} };
}

const test = suite<Ctx>('AUTH_PROVIDER = github (fake GitHub Enterprise on loopback)', {} as Ctx);
test.before(async (ctx) => {
  ctx.github = await startFakeGitHub();
  await startApp(
    ctx,
    securedSettings('github', 'github-test-secret', {
      ADMIN_KEY,
      AUTH_PROVIDER: 'github',
      GITHUB_URL: ctx.github.url,
      OAUTH2_CLIENT_ID: 'ui-id,cli-id',
      OAUTH2_CLIENT_SECRET: 'ui-secret,cli-secret',
      ALLOWED_GITHUB_ORGS: 'acme',
      USER_DEFAULT_SCOPES: 'read:alerts',
    }),
  );
  const perm = await ctx.api.post(
    '/perm',
    { match: 'acme/sre', scopes: ['write:heartbeats'] },
    { headers: keyAuth(ADMIN_KEY) },
  );
  assert.is(perm.status, 201, await perm.text());
});
test.after(async (ctx) => {
  await stopApp(ctx);
  await ctx.github?.close();
});

test('an organisation member gets a token: @login, orgs, teams as roles, private primary email', async (ctx) => {
  const r = await signIn(ctx, octo);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const c = r.claims;
  assert.equal(
    [c.provider, c.preferred_username, c.name, c.email, c.email_verified, c.picture],
    ['github', '@octocat', 'The Octocat', 'octo@example.com', true, 'https://avatars.example/583231'],
  );
  assert.equal(c.orgs, ['acme', 'octo-org']);
  assert.equal(c.roles, ['acme/sre', 'user']);
  assert.is(c.scope, 'read:alerts write:heartbeats', 'the team matched a permission');
  const again = await signIn(ctx, octo, 'cli-id', 'http://localhost:9004');
  assert.is(again.status, 200, 'the second client id is paired with the second secret');
  assert.is(again.claims.sub, c.sub, 'one local user per GitHub account');
});

test('outside ALLOWED_GITHUB_ORGS: 403; a bad code: 401; an unknown client id: 400', async (ctx) => {
  const stranger = {
    ...octo,
    id: 42,
    login: 'stranger',
    email: 'st@example.com',
    orgs: ['other'],
    teams: [],
  };
  assertError(await signIn(ctx, stranger), 403, 'User @stranger is not authorized');
  const res = await ctx.api.post('/auth/github', { code: 'made-up', clientId: 'ui-id', redirectUri: 'x' });
  assertError(
    { status: res.status, body: await res.json() },
    401,
    'code exchange failed: bad_verification_code',
  );
  const unknown = await ctx.api.post('/auth/github', { code: 'c', clientId: 'nope', redirectUri: 'x' });
  assertError(
    { status: unknown.status, body: await unknown.json() },
    400,
    "clientId 'nope' is not OAUTH2_CLIENT_ID",
  );
});

test('GitHub unreachable: 503, not a hang or a 500', async (ctx) => {
  await ctx.github.close();
  const res = await ctx.api.post('/auth/github', { code: 'c', clientId: 'ui-id', redirectUri: 'x' });
  assertError(
    { status: res.status, body: await res.json() },
    503,
    `could not reach the identity provider at ${ctx.github.url}`,
  );
});

test.run();
