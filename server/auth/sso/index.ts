import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { isDomainAllowed } from '../access.ts';
import { signInExternal, type ExternalIdentity } from '../external-users.ts';
import { AppError, appError } from '../../errors.ts';
import { githubIdentity, githubSecretFor } from './github.ts';
import { issuerOf } from './issuers.ts';
import { discoverOidc, identityOfClaims, oidcClaims, type CodeGrant, type Oidc } from './oidc.ts';
import { identityOfProfile, loadSaml, type HandBack, type Saml } from './saml.ts';

/** What AUTH_PROVIDER needs from its identity provider before the first login. */
export interface SsoSetup {
  oidc: Oidc | null;
  saml: Saml | null;
}

/**
 * The discovery document (OpenID Connect) or metadata (SAML) of AUTH_PROVIDER, fetched once by
 * boot.ts before the database is touched, so an unreachable provider stops start-up there
 * (docs/auth-sso.md; tests/api/oidc.test.ts). boot.ts hands the setup to createApp for the routes.
 */
export async function loadSso(config: Config): Promise<SsoSetup> {
  const issuer = issuerOf(config);
  return {
    oidc: issuer ? await discoverOidc(issuer, config.AUTH_PROVIDER === 'azure') : null,
    saml: config.AUTH_PROVIDER === 'saml2' ? await loadSaml(config) : null,
  };
}

/** Allow-lists are enforced only with AUTH_REQUIRED; `*` lets everyone in (auth.md §12). */
const isListed = (config: Config, allowed: readonly string[], names: readonly string[]) =>
  !config.AUTH_REQUIRED || allowed.includes('*') || names.some((n) => allowed.includes(n));

/** 403 unless each of the provider's allow-lists and ALLOWED_EMAIL_DOMAINS let this person in. */
function assertAllowed(deps: Deps, who: ExternalIdentity): void {
  const c = deps.config;
  const byProvider: Record<string, [readonly string[], readonly string[]][]> = {
    openid: [[c.ALLOWED_OIDC_ROLES, who.roles]],
    azure: [[c.ALLOWED_OIDC_ROLES, who.roles]],
    google: [[c.ALLOWED_OIDC_ROLES, who.roles]],
    cognito: [[c.ALLOWED_OIDC_ROLES, who.roles]],
    keycloak: [
      [c.ALLOWED_KEYCLOAK_ROLES, who.roles],
      [c.ALLOWED_OIDC_ROLES, who.roles],
    ],
    gitlab: [
      [c.ALLOWED_GITLAB_GROUPS, who.groups],
      [c.ALLOWED_OIDC_ROLES, who.roles],
    ],
    github: [[c.ALLOWED_GITHUB_ORGS, who.orgs ?? []]],
    saml2: [[c.ALLOWED_SAML2_GROUPS, who.groups]],
  };
  const lists = byProvider[who.provider] ?? [];
  const principal = who.email && c.ADMIN_USERS.includes(who.email) ? who.email : who.login;
  const domain = who.email?.includes('@') ? who.email.split('@').pop()! : null;
  if (
    !lists.every(([allowed, names]) => isListed(c, allowed, names)) ||
    !isDomainAllowed(deps, domain, principal)
  ) {
    deps.log.info({ provider: who.provider, login: who.login }, 'auth.login_not_authorized');
    throw appError('user_not_authorized', who.login);
  }
}

/** The OAuth providers whose authorisation codes `POST /auth/<provider>` exchanges. */
export const CODE_PROVIDERS = [
  'openid',
  'gitlab',
  'keycloak',
  'github',
  'azure',
  'google',
  'cognito',
] as const;

/**
 * `POST /auth/<provider>`: exchanges the code the web UI or CLI got, checks the allow-lists, and
 * answers with our own token for the local user of that person.
 */
export async function signInWithCode(
  deps: Deps,
  sso: SsoSetup,
  provider: string,
  input: {
    code: string;
    clientId?: string | undefined;
    redirectUri: string;
    codeVerifier?: string | undefined;
  },
  baseUrl: string,
): Promise<string> {
  const { config } = deps;
  if (config.AUTH_PROVIDER !== provider) {
    throw appError('sso_not_enabled', provider, config.AUTH_PROVIDER);
  }
  const clientId = input.clientId || config.OAUTH2_CLIENT_ID.split(',')[0]!;
  const secret =
    provider === 'github'
      ? githubSecretFor(config, clientId)
      : clientId === config.OAUTH2_CLIENT_ID
        ? config.OAUTH2_CLIENT_SECRET
        : null;
  if (secret === null) throw appError('sso_unknown_client', clientId);
  const grant: CodeGrant = {
    code: input.code,
    clientId,
    clientSecret: secret,
    redirectUri: input.redirectUri,
    codeVerifier: input.codeVerifier,
  };
  let who: ExternalIdentity;
  if (provider === 'github') who = await githubIdentity(config, grant);
  else {
    who = identityOfClaims(config, await oidcClaims(config, sso.oidc!, grant));
  }
  assertAllowed(deps, who);
  return signInExternal(deps, who, baseUrl);
}

/** The end-session URL GET /auth/logout hands to the web UI: OIDC_LOGOUT_URL or the discovered one. */
export function oidcLogoutUrl(config: Config, sso: SsoSetup): string | null {
  return config.OIDC_LOGOUT_URL ?? sso.oidc?.server.end_session_endpoint ?? null;
}

/** The authorisation URL the web UI sends people to: OIDC_AUTH_URL or the discovered one. */
export function oidcAuthUrl(config: Config, sso: SsoSetup): string | null {
  return config.OIDC_AUTH_URL ?? sso.oidc?.server.authorization_endpoint ?? null;
}

/** 400 unless AUTH_PROVIDER is saml2: the SAML endpoints answer nothing else. */
export function assertSamlEnabled(config: Config): void {
  if (config.AUTH_PROVIDER !== 'saml2') {
    throw appError('saml_not_enabled', config.AUTH_PROVIDER);
  }
}

function samlOf(config: Config, sso: SsoSetup): Saml {
  assertSamlEnabled(config);
  return sso.saml!;
}

/** The identity provider's origin, which may post to /auth/saml (CORS). */
export const samlIdpOrigins = (sso: SsoSetup): string[] => (sso.saml ? [sso.saml.idpOrigin] : []);

/** GET /auth/saml/metadata.xml */
export function samlMetadata(config: Config, sso: SsoSetup): string {
  return samlOf(config, sso).metadata;
}

/**
 * GET /auth/saml: where to send the browser to sign in: a redirect URL, or (for an identity
 * provider that only takes posts) a self-submitting form. `relayState` comes back with the answer.
 */
export async function samlSignInRequest(
  config: Config,
  sso: SsoSetup,
  relayState: string,
): Promise<{ redirect: string } | { form: string }> {
  const saml = samlOf(config, sso);
  if (saml.idp.binding.endsWith('HTTP-POST'))
    return { form: await saml.sp.getAuthorizeFormAsync(relayState) };
  return { redirect: await saml.sp.getAuthorizeUrlAsync(relayState, undefined, {}) };
}

/** POST /auth/saml: the identity provider's answer, checked; the token for the popup, or why not. */
export async function samlSignIn(
  deps: Deps,
  sso: SsoSetup,
  samlResponse: string,
  baseUrl: string,
): Promise<{ status: number; result: HandBack }> {
  const saml = samlOf(deps.config, sso);
  let profile: Record<string, unknown>;
  try {
    const checked = await saml.sp.validatePostResponseAsync({ SAMLResponse: samlResponse });
    if (!checked.profile) throw new Error('no assertion');
    profile = checked.profile;
  } catch (err) {
    deps.log.info({ reason: (err as Error).message }, 'auth.saml_response_rejected');
    return { status: 401, result: { status: 'error', message: 'SAML response rejected' } };
  }
  try {
    const who = identityOfProfile(deps.config, profile);
    assertAllowed(deps, who);
    return { status: 200, result: { status: 'ok', token: await signInExternal(deps, who, baseUrl) } };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return { status: err.status, result: { status: 'error', message: err.message } };
  }
}
