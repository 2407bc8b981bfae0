import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Config } from '../config.ts';
import { unauthorized } from '../errors.ts';

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

/** The audience tokens are issued for and checked against: OAUTH2_CLIENT_ID, else the API's base URL. */
export const audienceOf = (config: Pick<Config, 'OAUTH2_CLIENT_ID'>, baseUrl: string) =>
  config.OAUTH2_CLIENT_ID || baseUrl;

/** A signed HS256 token valid TOKEN_EXPIRE_DAYS, with the established server's claims. */
export async function createToken(
  config: Pick<Config, 'SECRET_KEY' | 'TOKEN_EXPIRE_DAYS' | 'OAUTH2_CLIENT_ID' | 'CUSTOMER_VIEWS'>,
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
    .setIssuer(baseUrl)
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
  config: Pick<Config, 'SECRET_KEY' | 'OAUTH2_CLIENT_ID'>,
  token: string,
  baseUrl: string,
  now = Date.now(),
): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(token, keyOf(config), {
      algorithms: ['HS256'],
      audience: audienceOf(config, baseUrl),
      currentDate: new Date(now),
    });
    return payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw unauthorized('Token has expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
      throw unauthorized('Invalid audience');
    }
    throw unauthorized('Token is invalid');
  }
}
