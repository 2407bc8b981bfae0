import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { ExternalIdentity } from '../external-users.ts';
import { AppError, badRequest, unauthorized } from '../../errors.ts';
import { callProvider, cleanText, isObject, namesIn, objectFrom } from './provider-http.ts';

/** The parts of an OpenID Provider's discovery document we use (OIDC Discovery §3). */
const DiscoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string().optional(),
  jwks_uri: z.string().optional(),
  end_session_endpoint: z.string().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

export interface Oidc {
  discovery: Discovery;
  /** The provider's signing keys (fetched when first needed, refreshed on an unknown key id). */
  keys: JWTVerifyGetKey | null;
}

/** An authorisation code as the web UI and the CLI hand it over (`POST /auth/<provider>`). */
export interface CodeGrant {
  code: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The issuer whose discovery document AUTH_PROVIDER uses: GITLAB_URL for gitlab, the realm under
 * KEYCLOAK_URL for keycloak (the /auth/realms layout the established web UI also uses), and
 * OIDC_ISSUER_URL for openid; null for providers that are not OpenID Connect.
 */
export function issuerOf(config: Config): string | null {
  switch (config.AUTH_PROVIDER) {
    case 'openid':
      return config.OIDC_ISSUER_URL;
    case 'gitlab':
      return trimSlash(config.GITLAB_URL);
    case 'keycloak':
      return `${trimSlash(config.KEYCLOAK_URL ?? '')}/auth/realms/${config.KEYCLOAK_REALM}`;
    default:
      return null;
  }
}

/** Fetches and checks an issuer's discovery document; throws a message fit for a start-up error. */
export async function discoverOidc(issuer: string): Promise<Oidc> {
  const url = `${trimSlash(issuer)}/.well-known/openid-configuration`;
  let doc: Discovery;
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(10_000),
      headers: { Accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    doc = DiscoverySchema.parse(await res.json());
  } catch (err) {
    const reason = err instanceof z.ZodError ? 'not a discovery document' : (err as Error).message;
    throw new Error(`OpenID Connect discovery at ${url} failed: ${reason}`, { cause: err });
  }
  // OIDC Discovery §4.3: the document must name the issuer it was fetched for.
  if (trimSlash(doc.issuer) !== trimSlash(issuer)) {
    throw new Error(`OpenID Connect discovery at ${url} names issuer '${doc.issuer}', expected '${issuer}'`);
  }
  return { discovery: doc, keys: doc.jwks_uri ? createRemoteJWKSet(new URL(doc.jwks_uri)) : null };
}

/** The client authentication method: OIDC_TOKEN_AUTH_METHODS' first that the provider supports. */
function authMethodOf(config: Config, oidc: Oidc, grant: CodeGrant): string {
  if (!grant.clientSecret) return 'none';
  const supported = oidc.discovery.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return config.OIDC_TOKEN_AUTH_METHODS.find((m) => supported.includes(m)) ?? 'client_secret_basic';
}

/** The token request (RFC 6749 §4.1.3), authenticated as the client the provider expects. */
async function requestTokens(config: Config, oidc: Oidc, grant: CodeGrant): Promise<Record<string, unknown>> {
  const endpoint = oidc.discovery.token_endpoint;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
  });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const method = authMethodOf(config, oidc, grant);
  if (method === 'client_secret_basic') {
    // RFC 6749 §2.3.1: both parts form-encoded before the Basic encoding.
    const pair = `${encodeURIComponent(grant.clientId)}:${encodeURIComponent(grant.clientSecret)}`;
    headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    form.set('client_id', grant.clientId);
    if (method === 'client_secret_post') form.set('client_secret', grant.clientSecret);
    if (method === 'client_secret_jwt') {
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set(
        'client_assertion',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(grant.clientId)
          .setSubject(grant.clientId)
          .setAudience(endpoint)
          .setJti(randomUUID())
          .setIssuedAt()
          .setExpirationTime('60s')
          .sign(new TextEncoder().encode(grant.clientSecret)),
      );
    }
  }
  const answer = await callProvider(endpoint, { method: 'POST', headers, body: form.toString() });
  return objectFrom(answer, 'code exchange');
}

/** The ID token's claims, checked: signature (JWKS, or the client secret for HS*), issuer, audience, expiry. */
async function idTokenClaims(
  oidc: Oidc,
  grant: CodeGrant,
  idToken: string,
): Promise<Record<string, unknown>> {
  const options = { issuer: oidc.discovery.issuer, audience: grant.clientId, clockTolerance: 60 };
  try {
    const { alg } = decodeProtectedHeader(idToken);
    if (alg?.startsWith('HS')) {
      const secret = new TextEncoder().encode(grant.clientSecret);
      return (await jwtVerify(idToken, secret, options)).payload;
    }
    if (!oidc.keys) throw new Error('no jwks_uri');
    return (await jwtVerify(idToken, oidc.keys, options)).payload;
  } catch {
    throw unauthorized('ID token is invalid');
  }
}

/**
 * Exchanges an authorisation code at the provider and reads who signed in: the ID token (verified)
 * and the userinfo endpoint, userinfo winning where both have a claim (auth.md §12).
 */
export async function oidcClaims(
  config: Config,
  oidc: Oidc,
  grant: CodeGrant,
): Promise<Record<string, unknown>> {
  const tokens = await requestTokens(config, oidc, grant);
  const idClaims =
    typeof tokens.id_token === 'string' ? await idTokenClaims(oidc, grant, tokens.id_token) : {};
  let userinfo: Record<string, unknown> = {};
  if (oidc.discovery.userinfo_endpoint && typeof tokens.access_token === 'string') {
    const answer = await callProvider(oidc.discovery.userinfo_endpoint, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    userinfo = objectFrom(answer, 'userinfo');
  }
  // OIDC Core §5.3.2: userinfo must be about the ID token's subject.
  if (idClaims.sub !== undefined && userinfo.sub !== undefined && idClaims.sub !== userinfo.sub) {
    throw unauthorized('userinfo is about another subject than the ID token');
  }
  const claims = { ...idClaims, ...userinfo };
  if (!isObject(claims) || cleanText(claims.sub) === null) {
    throw new AppError(502, 'the identity provider named no subject (sub claim)');
  }
  return claims;
}

const TEXT_OF: Record<string, string> = {
  openid: 'OpenID user',
  gitlab: 'GitLab user',
  keycloak: 'Keycloak user',
};

/** Who the claims say signed in; login is preferred_username, else nickname, else email. */
export function identityOfClaims(config: Config, claims: Record<string, unknown>): ExternalIdentity {
  const email = cleanText(claims.email);
  const login = cleanText(claims.preferred_username) ?? cleanText(claims.nickname) ?? email;
  if (!login) {
    throw badRequest(
      "Must support one of the following OpenID claims: 'preferred_username', 'nickname' or 'email'",
    );
  }
  const provider = config.AUTH_PROVIDER;
  return {
    provider,
    subject: cleanText(claims.sub)!,
    login,
    name: cleanText(claims.name) ?? login,
    email,
    // An address the provider does not say it verified is never used to link accounts.
    emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === 'true'),
    picture: cleanText(claims.picture),
    roles: namesIn(claims[config.OIDC_ROLE_CLAIM]),
    groups: namesIn(claims[config.OIDC_GROUP_CLAIM]),
    linkByEmail: config.OIDC_LINK_USER_EMAIL,
    text: TEXT_OF[provider] ?? 'OpenID user',
  };
}
