import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import type { Config } from '../../config.ts';
import { AppError, appError } from '../../errors.ts';
import type { ExternalIdentity } from '../external-users.ts';
import { isIssuerOf, isTenantTemplate, tenantIssuer } from './issuers.ts';
import { cleanText, isObject, namesIn, PROVIDER_TIMEOUT_MS, safeText } from './provider-http.ts';

// OpenID Connect through openid-client (a certified Relying Party library): discovery, the code
// grant with optional PKCE, ID token validation and userinfo. We only map its outcomes to our
// answers (docs/auth-sso.md, "the code exchange").

export interface Oidc {
  /** The provider's discovery document, as openid-client read it. */
  server: client.ServerMetadata;
  /**
   * The operator configured an http:// issuer (a provider on a private network, or the tests'
   * loopback one): openid-client then allows plain HTTP to it. https issuers never fall back.
   */
  insecure: boolean;
  /** The provider's signing keys, kept between sign-ins (each sign-in has its own Configuration). */
  jwks?: ReturnType<typeof client.getJwksCache>;
}

/** An authorisation code as the web UI and the CLI hand it over (`POST /auth/<provider>`). */
export interface CodeGrant {
  code: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** RFC 7636: sent along when the client started the sign-in with a code challenge. */
  codeVerifier?: string | undefined;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Fetches and checks an issuer's discovery document; throws a message fit for a start-up error.
 * `tenants`: Azure, whose multi-tenant endpoints name the tenant-specific issuer (issuers.ts).
 */
export async function discoverOidc(issuer: string, tenants = false): Promise<Oidc> {
  const url = `${trimSlash(issuer)}/.well-known/openid-configuration`;
  const insecure = new URL(url).protocol === 'http:';
  let server: client.ServerMetadata;
  try {
    // Given the document's own URL, openid-client leaves the issuer comparison to us: we keep ours,
    // which ignores a trailing slash on either side. Only the server's metadata is kept; each
    // sign-in makes its own client (clientFor).
    const found = await client.discovery(new URL(url), 'discovery', undefined, undefined, {
      timeout: PROVIDER_TIMEOUT_MS / 1000,
      execute: insecure ? [client.allowInsecureRequests] : [],
    });
    server = found.serverMetadata();
  } catch (err) {
    const { cause, message } = err as Error;
    const reason = cause instanceof Response ? `HTTP ${cause.status}` : message;
    throw new Error(`OpenID Connect discovery at ${url} failed: ${reason}`, { cause: err });
  }
  // OIDC Discovery §4.3: the document must name the issuer it was fetched for.
  if (!isIssuerOf(server.issuer, issuer, tenants)) {
    throw new Error(
      `OpenID Connect discovery at ${url} names issuer '${server.issuer}', expected '${issuer}'`,
    );
  }
  return { server, insecure };
}

/** The client authentication: OIDC_TOKEN_AUTH_METHODS' first that the provider supports. */
function clientAuthOf(config: Config, oidc: Oidc, grant: CodeGrant): client.ClientAuth {
  if (!grant.clientSecret) return client.None();
  const supported = oidc.server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const method = config.OIDC_TOKEN_AUTH_METHODS.find((m) => supported.includes(m)) ?? 'client_secret_basic';
  if (method === 'client_secret_post') return client.ClientSecretPost(grant.clientSecret);
  if (method === 'client_secret_jwt') return client.ClientSecretJwt(grant.clientSecret);
  if (method === 'none') return client.None();
  return client.ClientSecretBasic(grant.clientSecret);
}

/** One call to the provider; network failures and timeouts are 503. */
async function send(url: string, options: client.CustomFetchOptions): Promise<Response> {
  try {
    return await fetch(url, options as RequestInit);
  } catch {
    throw appError('provider_unreachable', url);
  }
}

/** Sends the code to the token endpoint instead of `send` (tokensOfTenant). */
type TokenRequest = (url: string, options: client.CustomFetchOptions) => Promise<Response>;

/**
 * Every call to the provider. The token request carries the redirect URI exactly as the browser
 * used it: openid-client derives it from a URL object, which writes a bare origin with a trailing
 * slash, while providers compare redirect URIs as exact strings and the web UI registers its origin
 * without one.
 */
function providerFetch(redirectUri: string, tokenRequest: TokenRequest = send): client.CustomFetch {
  return async (url, options) => {
    const { body } = options;
    if (!(body instanceof URLSearchParams) || body.get('grant_type') !== 'authorization_code') {
      return send(url, options);
    }
    body.set('redirect_uri', redirectUri);
    return tokenRequest(url, options);
  };
}

/** One sign-in's client: the discovered provider, our client id and authentication, 60 s leeway. */
function clientFor(
  config: Config,
  oidc: Oidc,
  grant: CodeGrant,
  server: client.ServerMetadata = oidc.server,
  tokenRequest?: TokenRequest,
): client.Configuration {
  const rp = new client.Configuration(
    server,
    grant.clientId,
    { [client.clockTolerance]: 60 },
    clientAuthOf(config, oidc, grant),
  );
  rp[client.customFetch] = providerFetch(grant.redirectUri, tokenRequest);
  rp.timeout = PROVIDER_TIMEOUT_MS / 1000;
  if (oidc.insecure) client.allowInsecureRequests(rp);
  // The ID token's signature is checked against the provider's keys (jwks_uri) even over TLS.
  client.enableNonRepudiationChecks(rp);
  if (oidc.jwks) client.setJwksCache(rp, oidc.jwks);
  return rp;
}

/** Our own answer (503) when openid-client passes one through, wrapped or not. */
function ownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  return err instanceof Error && err.cause !== undefined ? ownError(err.cause) : null;
}

/** What a refused or unreadable answer from the provider means to the caller of POST /auth/<provider>. */
function providerFailure(err: unknown, what: string): AppError | null {
  const own = ownError(err);
  if (own) return own;
  if (err instanceof client.ResponseBodyError) return appError('provider_refused', what, safeText(err.error));
  if (err instanceof client.WWWAuthenticateChallengeError) {
    const code = err.cause.find((c) => c.parameters.error)?.parameters.error;
    return appError('provider_refused', what, safeText(code ?? `HTTP ${err.status}`));
  }
  if (err instanceof client.ClientError && err.cause instanceof Response) {
    if (err.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
      return appError('provider_refused', what, `HTTP ${err.cause.status}`);
    }
    return appError('provider_not_json', what);
  }
  if (err instanceof client.ClientError && err.code === 'OAUTH_HTTP_REQUEST_FORBIDDEN') {
    return appError('provider_not_https', what);
  }
  if (err instanceof client.ClientError && err.code === 'OAUTH_PARSE_ERROR') {
    return appError('provider_not_json', what);
  }
  return null;
}

/** The authorisation response as the browser received it, for openid-client to read the code from. */
function callbackOf(server: client.ServerMetadata, grant: CodeGrant): URL {
  if (!URL.canParse(grant.redirectUri)) throw appError('redirect_uri_invalid');
  const url = new URL(grant.redirectUri);
  url.search = '';
  url.hash = '';
  url.searchParams.set('code', grant.code);
  // The browser checked `state` itself and posts only the code. The code can only have come from
  // the one provider this server is configured with, so its issuer is the response's (RFC 9207).
  if (server.authorization_response_iss_parameter_supported) {
    url.searchParams.set('iss', server.issuer);
  }
  return url;
}

type Tokens = Awaited<ReturnType<typeof client.authorizationCodeGrant>>;

/** The code grant with one client; openid-client's failures mapped to our answers. */
async function exchange(config: Config, oidc: Oidc, grant: CodeGrant, rp: client.Configuration) {
  try {
    return await client.authorizationCodeGrant(rp, callbackOf(rp.serverMetadata(), grant), {
      pkceCodeVerifier: grant.codeVerifier,
    });
  } catch (err) {
    // A token answer that came back but did not pass the checks: in practice the ID token's.
    throw providerFailure(err, 'code exchange') ?? appError('id_token_invalid');
  } finally {
    oidc.jwks = client.getJwksCache(rp) ?? oidc.jwks;
  }
}

/** A token endpoint answer, kept to be read again. */
interface KeptAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** Ends the first pass of tokensOfTenant once the token endpoint has answered. */
class TokenAnswerKept extends Error {}

/**
 * The code grant of an Azure multi-tenant endpoint (common, organizations), whose discovery document
 * names the issuer `…/{tenantid}/v2.0`: each ID token carries its own tenant's issuer and that
 * tenant's id (`tid`), and must match the template with it. Which issuer to expect is known only
 * from the answer, and openid-client checks the issuer it was given, so the token endpoint's answer
 * is fetched first and kept; then openid-client reads that same answer (no second request) with the
 * template filled in from the token's `tid`, and checks everything else as usual, signature included.
 */
async function tokensOfTenant(config: Config, oidc: Oidc, grant: CodeGrant): Promise<Tokens> {
  const kept: { answer?: KeptAnswer } = {};
  const keep: TokenRequest = async (url, options) => {
    const res = await send(url, options);
    const headers = new Headers(res.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    kept.answer = { status: res.status, headers, body: await res.text() };
    throw new TokenAnswerKept();
  };
  try {
    await exchange(config, oidc, grant, clientFor(config, oidc, grant, oidc.server, keep));
  } catch (err) {
    if (!kept.answer) throw err;
  }
  const answer = kept.answer;
  if (!answer) throw appError('id_token_invalid');
  const issuer = tenantIssuer(oidc.server.issuer, unverifiedIdClaims(answer.body).tid);
  // Without a usable tid the template itself is expected, which no ID token names: refused.
  const server = { ...oidc.server, issuer: issuer ?? oidc.server.issuer };
  const replay: TokenRequest = async () =>
    new Response(answer.body, { status: answer.status, headers: answer.headers });
  return exchange(config, oidc, grant, clientFor(config, oidc, grant, server, replay));
}

/** The ID token's claims, unverified: only to choose which issuer to check it against. */
function unverifiedIdClaims(body: string): Record<string, unknown> {
  try {
    const idToken: unknown = (JSON.parse(body) as Record<string, unknown>).id_token;
    return typeof idToken === 'string' ? { ...decodeJwt(idToken) } : {};
  } catch {
    return {};
  }
}

/**
 * Exchanges an authorisation code at the provider and reads who signed in: the ID token (verified:
 * signature, issuer, audience, expiry) and the userinfo endpoint, userinfo winning where both have a
 * claim (auth.md §12).
 */
export async function oidcClaims(
  config: Config,
  oidc: Oidc,
  grant: CodeGrant,
): Promise<Record<string, unknown>> {
  const rp = clientFor(config, oidc, grant);
  const tokens = isTenantTemplate(oidc.server.issuer)
    ? await tokensOfTenant(config, oidc, grant)
    : await exchange(config, oidc, grant, rp);
  const idClaims: Record<string, unknown> = { ...tokens.claims() };
  let userinfo: Record<string, unknown> = {};
  if (oidc.server.userinfo_endpoint) {
    // OIDC Core §5.3.2: userinfo must be about the ID token's subject.
    const subject = typeof idClaims.sub === 'string' ? idClaims.sub : client.skipSubjectCheck;
    try {
      userinfo = { ...(await client.fetchUserInfo(rp, tokens.access_token, subject)) };
    } catch (err) {
      if (err instanceof client.ClientError && err.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON') {
        throw appError('userinfo_subject_mismatch');
      }
      throw providerFailure(err, 'userinfo') ?? err;
    }
  }
  const claims = { ...idClaims, ...userinfo };
  if (!isObject(claims) || cleanText(claims.sub) === null) {
    throw appError('provider_no_subject');
  }
  return claims;
}

const TEXT_OF: Record<string, string> = {
  openid: 'OpenID user',
  gitlab: 'GitLab user',
  keycloak: 'Keycloak user',
  azure: 'Azure user',
  google: 'Google user',
  cognito: 'Cognito user',
};

/** Who the claims say signed in; login is preferred_username, else nickname, else email. */
export function identityOfClaims(config: Config, claims: Record<string, unknown>): ExternalIdentity {
  const email = cleanText(claims.email);
  const login = cleanText(claims.preferred_username) ?? cleanText(claims.nickname) ?? email;
  if (!login) {
    throw appError('oidc_no_login_claim');
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
