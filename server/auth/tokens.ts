import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Config } from '../config.ts';
import { appError } from '../errors.ts';

/** What a token says about its user (auth.md §8). */
export interface TokenSubject {
  userId: string;
  login: string;
  name?: string | null;
  email?: string | null;
  emailVerified?: boolean;
  provider: string;
  scopes: readonly string[];
  roles?: readonly string[];
  groups?: readonly string[];
  /** GitHub organisations. */
  orgs?: readonly string[];
  picture?: string | null;
  /** Only with CUSTOMER_VIEWS. */
  customers?: readonly string[] | null;
}

const keyOf = (config: Pick<Config, 'SECRET_KEY'>) => new TextEncoder().encode(config.SECRET_KEY);

type AudienceConfig = Pick<Config, 'OAUTH2_CLIENT_ID' | 'SAML2_ENTITY_ID' | 'BASE_URL'>;

/**
 * The audience tokens are issued for (auth.md §8): OAUTH2_CLIENT_ID, else SAML2_ENTITY_ID, else
 * the base URL as the established server writes it — BASE_URL as configured, else the request's
 * root URL with its trailing slash (`http://localhost/api/`). `baseUrl` is the API base without it.
 */
export const audienceOf = (config: AudienceConfig, baseUrl: string) =>
  config.OAUTH2_CLIENT_ID || config.SAML2_ENTITY_ID || config.BASE_URL || `${baseUrl}/`;

/**
 * The audiences a token may carry: an explicit client or entity id exactly; the base URL with or
 * without its trailing slash, so tokens of either server in a mixed deployment are accepted.
 */
export function acceptedAudiences(config: AudienceConfig, baseUrl: string): string[] {
  const audience = audienceOf(config, baseUrl);
  if (config.OAUTH2_CLIENT_ID || config.SAML2_ENTITY_ID) return [audience];
  return [...new Set([audience, baseUrl, `${baseUrl}/`])];
}

/** A signed HS256 token valid TOKEN_EXPIRE_DAYS, with the established server's claims. */
export async function createToken(
  config: Pick<Config, 'SECRET_KEY' | 'TOKEN_EXPIRE_DAYS' | 'CUSTOMER_VIEWS'> & AudienceConfig,
  s: TokenSubject,
  baseUrl: string,
  now = Date.now(),
): Promise<string> {
  const claims: Record<string, unknown> = {
    typ: 'Bearer',
    preferred_username: s.login,
    provider: s.provider,
    scope: s.scopes.join(' '),
  };
  if (s.name) claims.name = s.name;
  if (s.email) {
    claims.email = s.email;
    claims.email_verified = Boolean(s.emailVerified);
  }
  if (s.roles?.length) claims.roles = [...s.roles];
  if (s.groups?.length) claims.groups = [...s.groups];
  if (s.orgs?.length) claims.orgs = [...s.orgs];
  if (s.picture) claims.picture = s.picture;
  if (config.CUSTOMER_VIEWS) claims.customers = [...(s.customers ?? [])];
  const iat = Math.floor(now / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(`${baseUrl}/`)
    .setSubject(s.userId)
    .setAudience(audienceOf(config, baseUrl))
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + config.TOKEN_EXPIRE_DAYS * 86400)
    .setJti(randomUUID())
    .sign(keyOf(config));
}

/** The verified claims of a Bearer token; 401 JSON with Alerta's wording otherwise. */
export async function verifyToken(
  config: Pick<Config, 'SECRET_KEY'> & AudienceConfig,
  token: string,
  baseUrl: string,
  now = Date.now(),
): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(token, keyOf(config), {
      algorithms: ['HS256'],
      audience: acceptedAudiences(config, baseUrl),
      currentDate: new Date(now),
    });
    return payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw appError('token_expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
      throw appError('token_audience');
    }
    throw appError('token_invalid');
  }
}
