/**
 * A real OpenID Provider (the `oidc-provider` package) on loopback, for the code flow tests: it
 * serves discovery, authorisation, token, userinfo and JWKS under `prefix` (so it can stand in for a
 * Keycloak realm at /auth/realms/<realm>), signs ID tokens with a fresh RS256 key, and logs in
 * whichever account the test names without a login page.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface OidcProviderOptions {
  /** Path the provider lives under, e.g. /auth/realms/alerta; '' for the root. */
  prefix?: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** The client authentication the provider demands at its token endpoint. */
  tokenAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt';
  /** Show the provider's own development login form (any login, any password) to a real browser. */
  loginForm?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  origin: string;
  /** Claims of each account, by subject; tests change them between logins. */
  accounts: Map<string, Record<string, unknown>>;
  /** Plays the browser: signs `subject` in and returns the code the provider sends to redirectUri. */
  /** With `codeChallenge` (S256) the code is bound to it (RFC 7636). */
  authorize(subject: string, redirectUri: string, clientId?: string, codeChallenge?: string): Promise<string>;
  /**
   * Plays the browser on an authorisation URL a client made (its own state, redirect URI, PKCE):
   * signs `subject` in and returns where the provider sends the browser back, code and state in it.
   */
  follow(authorizeUrl: string, subject: string): Promise<URL>;
  /** How many token requests the provider has seen. */
  tokenRequests(): number;
  close(): Promise<void>;
}

/** The provider's storage, in memory and per instance (its own quick-start adapter warns on use). */
class MemoryAdapter {
  private static stores = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly store: Map<string, Record<string, unknown>>;
  constructor(model: string) {
    this.store = MemoryAdapter.stores.get(model) ?? new Map();
    MemoryAdapter.stores.set(model, this.store);
  }
  async upsert(id: string, payload: Record<string, unknown>) {
    this.store.set(id, payload);
  }
  async find(id: string) {
    return this.store.get(id);
  }
  async findByUid(uid: string) {
    return [...this.store.values()].find((p) => p.uid === uid);
  }
  async findByUserCode(code: string) {
    return [...this.store.values()].find((p) => p.userCode === code);
  }
  async consume(id: string) {
    const p = this.store.get(id);
    if (p) p.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    this.store.delete(id);
  }
  async revokeByGrantId(grantId: string) {
    for (const [id, p] of this.store) if (p.grantId === grantId) this.store.delete(id);
  }
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  const prefix = options.prefix ?? '';
  const accounts = new Map<string, Record<string, unknown>>();
  let tokenRequests = 0;
  let provider: Provider | null = null;
  const loginAs = new Map<string, string>();

  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!provider || !url.startsWith(`${prefix}/`)) {
      res.writeHead(404).end();
      return;
    }
    const interaction = !options.loginForm && /^\/interaction\/([\w-]+)/.exec(url.slice(prefix.length));
    if (interaction) {
      void finishInteraction(req, res);
      return;
    }
    if (req.method === 'POST' && url.slice(prefix.length).startsWith('/token')) tokenRequests++;
    // As Express does for a mounted app: the provider sees its own path and the original one.
    (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
    req.url = url.slice(prefix.length) || '/';
    provider.callback()(req, res);
  });

  async function finishInteraction(req: IncomingMessage, res: ServerResponse) {
    try {
      const { params } = await provider!.interactionDetails(req, res);
      const accountId = loginAs.get(String(params.state));
      if (!accountId) throw new Error('no login planned for this state');
      await provider!.interactionFinished(
        req,
        res,
        { login: { accountId } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${prefix}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        token_endpoint_auth_method: options.tokenAuthMethod ?? 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-cookie-key'] },
    findAccount: (_ctx: unknown, sub: string) => {
      const claims = accounts.get(sub);
      return claims ? { accountId: sub, claims: () => ({ sub, ...claims }) } : undefined;
    },
    // roles and groups come with the openid scope, as a Keycloak mapper or GitLab puts them in userinfo.
    claims: {
      openid: ['sub', 'roles', 'groups'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username', 'nickname', 'picture'],
    },
    features: { devInteractions: { enabled: options.loginForm === true } },
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `${prefix}/interaction/${i.uid}` },
    // No consent page: every scope the client asks for is granted.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope([...ctx.oidc.requestParamScopes].join(' '));
      await grant.save();
      return grant;
    },
    pkce: { required: () => false },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    adapter: MemoryAdapter,
  });

  async function authorize(
    subject: string,
    redirectUri: string,
    clientId = options.clientId,
    codeChallenge?: string,
  ): Promise<string> {
    const url = `${issuer}/auth?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile email',
      state: Math.random().toString(36).slice(2),
      ...(codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {}),
    })}`;
    const back = await follow(url, subject);
    const code = back.searchParams.get('code');
    if (!code) throw new Error(`no code: ${back.search}`);
    return code;
  }

  async function follow(authorizeUrl: string, subject: string): Promise<URL> {
    const asked = new URL(authorizeUrl);
    const redirectUri = asked.searchParams.get('redirect_uri') ?? '';
    loginAs.set(asked.searchParams.get('state') ?? '', subject);
    const jar = new Map<string, string>();
    let url = asked.href;
    for (let hop = 0; hop < 10; hop++) {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      for (const c of res.headers.getSetCookie()) {
        const pair = c.split(';')[0]!;
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`no redirect from ${url}: ${res.status} ${await res.text()}`);
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next.href;
    }
    throw new Error('too many redirects');
  }

  return {
    issuer,
    origin,
    accounts,
    authorize,
    follow,
    tokenRequests: () => tokenRequests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
