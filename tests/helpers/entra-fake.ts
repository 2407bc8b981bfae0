/**
 * A stand-in for Microsoft's multi-tenant sign-in endpoints (AZURE_TENANT common or organizations)
 * on loopback, for what oidc-provider cannot play: a discovery document at `/<tenant>/v2.0` naming
 * the issuer template `<origin>/{tenantid}/v2.0`, and ID tokens that carry the issuer of the
 * person's own tenant and its id (`tid`). Token endpoint (client_secret_basic or _post), JWKS and
 * userinfo as Microsoft serves them; no authorisation page: the test mints codes with the ID token
 * claims it wants, including wrong ones.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export interface EntraFakeOptions {
  tenant: string;
  clientId: string;
  clientSecret: string;
}

export interface EntraFake {
  origin: string;
  /** OIDC_ISSUER_URL of the multi-tenant endpoint: `<origin>/<tenant>/v2.0`. */
  issuerUrl: string;
  /** The issuer of tenant `tid`'s ID tokens. */
  issuerOfTenant(tid: string): string;
  /**
   * A code the token endpoint exchanges once for an ID token with these claims (`iss`, `tid`, `sub`
   * and the rest) and the same `sub` and `profile` at userinfo. `strangerKey` signs with a key the
   * JWKS does not publish.
   */
  code(
    claims: Record<string, unknown>,
    profile?: Record<string, unknown>,
    strangerKey?: boolean,
  ): Promise<string>;
  tokenRequests(): number;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return new URLSearchParams(body);
}

export async function startEntraFake(options: EntraFakeOptions): Promise<EntraFake> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'entra-test-key', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { idToken: string; sub: unknown; profile: Record<string, unknown> }>();
  const userinfo = new Map<string, Record<string, unknown>>();
  let tokenRequests = 0;
  let origin = '';
  const base = () => `${origin}/${options.tenant}`;

  const server: Server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === `/${options.tenant}/v2.0/.well-known/openid-configuration`) {
      return json(200, {
        issuer: `${origin}/{tenantid}/v2.0`,
        authorization_endpoint: `${base()}/oauth2/v2.0/authorize`,
        token_endpoint: `${base()}/oauth2/v2.0/token`,
        jwks_uri: `${base()}/discovery/v2.0/keys`,
        userinfo_endpoint: `${origin}/oidc/userinfo`,
        end_session_endpoint: `${base()}/oauth2/v2.0/logout`,
        token_endpoint_auth_methods_supported: [
          'client_secret_post',
          'private_key_jwt',
          'client_secret_basic',
        ],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      });
    }
    if (url.pathname === `/${options.tenant}/discovery/v2.0/keys`) return json(200, { keys: [jwk] });
    if (url.pathname === '/oidc/userinfo') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const profile = token && userinfo.get(token);
      return profile ? json(200, profile) : json(401, { error: 'invalid_token' });
    }
    if (url.pathname === `/${options.tenant}/oauth2/v2.0/token` && req.method === 'POST') {
      tokenRequests++;
      void readForm(req).then((form) => {
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const [id, secret] = basic
          ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent)
          : [form.get('client_id'), form.get('client_secret')];
        if (id !== options.clientId || secret !== options.clientSecret) {
          return json(401, { error: 'invalid_client' });
        }
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (form.get('grant_type') !== 'authorization_code' || !grant)
          return json(400, { error: 'invalid_grant' });
        const accessToken = randomBytes(16).toString('hex');
        userinfo.set(accessToken, { sub: grant.sub, ...grant.profile });
        json(200, {
          token_type: 'Bearer',
          expires_in: 3600,
          access_token: accessToken,
          id_token: grant.idToken,
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sign = (claims: Record<string, unknown>, key: CryptoKey) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' })
      .setAudience(options.clientId)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);

  return {
    origin,
    issuerUrl: `${origin}/${options.tenant}/v2.0`,
    issuerOfTenant: (tid) => `${origin}/${tid}/v2.0`,
    async code(claims, profile = {}, strangerKey = false) {
      const code = randomBytes(12).toString('hex');
      const idToken = await sign(claims, strangerKey ? stranger.privateKey : privateKey);
      codes.set(code, { idToken, sub: claims.sub, profile });
      return code;
    },
    tokenRequests: () => tokenRequests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
