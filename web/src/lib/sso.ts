import { API, api, setToken } from './api.ts';
import type { ClientConfig } from './config.ts';

/**
 * Signing in through an identity provider (docs/auth-sso.md, "Web login"): the OAuth 2.0 / OpenID
 * Connect code flow by full-page redirect, and SAML 2.0 in a popup.
 */

/** Providers whose sign-in ends with a code the server exchanges at `POST /auth/<provider>`. */
const CODE_PROVIDERS = ['openid', 'keycloak', 'gitlab', 'github', 'azure', 'google', 'cognito'] as const;
export type CodeProvider = (typeof CODE_PROVIDERS)[number];

const NAMES: Record<string, string> = {
  openid: 'OpenID Connect',
  keycloak: 'Keycloak',
  gitlab: 'GitLab',
  github: 'GitHub',
  azure: 'Microsoft',
  google: 'Google',
  cognito: 'Amazon Cognito',
  saml2: 'SAML',
};
export const providerName = (provider: string): string => NAMES[provider] ?? provider;

/** How the login page signs people in with `/config provider`. */
export type LoginMethod =
  | { kind: 'password'; directory: boolean }
  | { kind: 'code'; provider: CodeProvider }
  | { kind: 'saml' }
  | { kind: 'unsupported'; provider: string };

export function loginMethod(provider: string): LoginMethod {
  if (provider === 'basic' || provider === 'ldap')
    return { kind: 'password', directory: provider === 'ldap' };
  if (provider === 'saml2') return { kind: 'saml' };
  const code = CODE_PROVIDERS.find((p) => p === provider);
  return code ? { kind: 'code', provider: code } : { kind: 'unsupported', provider };
}

/**
 * Where to go after signing in: a path on this site only. `//host` and `/\host` are read by browsers
 * as another site, so they count as absent.
 */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/(?![/\\])/.test(next) ? next : '/alerts';
}

/** GitHub is plain OAuth: no OpenID scopes; `read:org` lets the server see teams (docs/auth-sso.md). */
const SCOPES: Record<CodeProvider, string> = {
  openid: 'openid profile email',
  keycloak: 'openid profile email',
  gitlab: 'openid profile email',
  github: 'user:email read:org',
  azure: 'openid profile email',
  google: 'openid profile email',
  cognito: 'openid profile email',
};

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The provider's authorisation endpoint: the discovered one first, as the server knows it best (for
 * azure and google with their own issuers it is the very one below); else the one the established
 * web UI builds from the provider's settings.
 */
function authorizeEndpoint(config: ClientConfig, provider: CodeProvider): string | null {
  if (provider === 'github') return `${trimSlash(config.github_url)}/login/oauth/authorize`;
  if (config.oidc_auth_url) return config.oidc_auth_url;
  switch (provider) {
    case 'gitlab':
      return `${trimSlash(config.gitlab_url)}/oauth/authorize`;
    case 'keycloak': {
      if (!config.keycloak_url || !config.keycloak_realm) return null;
      const realm = encodeURIComponent(config.keycloak_realm);
      return `${trimSlash(config.keycloak_url)}/auth/realms/${realm}/protocol/openid-connect/auth`;
    }
    case 'azure':
      return `https://login.microsoftonline.com/${encodeURIComponent(config.azure_tenant)}/oauth2/v2.0/authorize`;
    case 'google':
      return 'https://accounts.google.com/o/oauth2/v2/auth';
    case 'cognito':
      return config.cognito_domain
        ? `https://${config.cognito_domain}.auth.${config.aws_region}.amazoncognito.com/login`
        : null;
    default:
      return null;
  }
}

/** A sign-in sent to the provider and not yet back; kept per tab (sessionStorage). */
interface Pending {
  state: string;
  next: string;
  provider: CodeProvider;
  clientId: string;
  redirectUri: string;
}
const PENDING = 'alertwall.sso';

function randomState(): string {
  // getRandomValues, unlike randomUUID, also works on plain-http origins other than localhost.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Sends the browser to the provider's login. It comes back to this origin (the redirect URI is the
 * origin without a path, as registered with the provider) with `?code=…&state=…`.
 */
export function startCodeLogin(config: ClientConfig, provider: CodeProvider, next: string): void {
  const endpoint = authorizeEndpoint(config, provider);
  const clientId = config.client_id.split(',')[0]!.trim();
  if (!endpoint || !clientId) {
    throw new Error(`The server does not say where to sign in with ${providerName(provider)}.`);
  }
  const pending: Pending = {
    state: randomState(),
    next: safeNext(next),
    provider,
    clientId,
    redirectUri: location.origin,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(endpoint);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', SCOPES[provider]);
  url.searchParams.set('redirect_uri', pending.redirectUri);
  url.searchParams.set('state', pending.state);
  location.assign(url.href);
}

/** Whether these query parameters are a provider's answer to a code sign-in. */
export const isCodeCallback = (params: URLSearchParams): boolean =>
  params.has('state') && (params.has('code') || params.has('error'));

/** The sign-in this tab started, removed so that an answer is used once. */
export function takePendingLogin(): Pending | null {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  if (!raw) return null;
  try {
    const p = JSON.parse(raw) as Partial<Pending>;
    const ok = [p.state, p.next, p.clientId, p.redirectUri].every((v) => typeof v === 'string');
    return ok && CODE_PROVIDERS.some((c) => c === p.provider) ? (p as Pending) : null;
  } catch {
    return null;
  }
}

/**
 * Finishes a code sign-in: the answer must carry the state this tab sent (else someone else's code
 * could sign this browser in as them), then the server exchanges the code for our token.
 */
export async function finishCodeLogin(params: URLSearchParams, pending: Pending | null): Promise<void> {
  if (!pending || params.get('state') !== pending.state) {
    throw new Error(
      'This sign-in was not started from this browser tab (state mismatch). Please sign in again.',
    );
  }
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    throw new Error(`${providerName(pending.provider)} refused the sign-in: ${description || error}`);
  }
  const { token } = await api<{ token: string }>('POST', `/auth/${pending.provider}`, {
    code: params.get('code'),
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
  });
  setToken(token);
}

/** The hand-back page's message (server/auth/sso/saml.ts, handBackPage). */
type HandBack = { status: 'ok'; token: string } | { status: 'error'; message: string };

function isHandBack(data: unknown): data is HandBack {
  if (!data || typeof data !== 'object') return false;
  const d = data as Record<string, unknown>;
  return (
    (d.status === 'ok' && typeof d.token === 'string') ||
    (d.status === 'error' && typeof d.message === 'string')
  );
}

/**
 * SAML: a popup on `<API>/auth/saml` goes through the identity provider and ends on the server's
 * hand-back page, which posts `{status, token}` here; the token is then stored. Only messages from that popup on the API's
 * origin count: any other window could post a token of its choosing.
 */
export function samlLogin(): Promise<void> {
  const apiOrigin = new URL(API, location.href).origin;
  const popup = window.open(`${API}/auth/saml`, 'alertwall-saml', 'popup,width=600,height=700');
  if (!popup) return Promise.reject(new Error('The browser blocked the sign-in window: allow pop-ups here.'));
  return new Promise((resolve, reject) => {
    let closedSince = 0;
    const stop = () => {
      window.removeEventListener('message', onMessage);
      clearInterval(watch);
    };
    function onMessage(event: MessageEvent) {
      if (event.origin !== apiOrigin || event.source !== popup || !isHandBack(event.data)) return;
      stop();
      if (event.data.status === 'ok') {
        setToken(event.data.token);
        resolve();
      } else reject(new Error(event.data.message));
    }
    // The hand-back page closes itself right after posting: give its message a moment to arrive.
    const watch = setInterval(() => {
      if (!popup.closed) return;
      if (!closedSince) closedSince = Date.now();
      else if (Date.now() - closedSince >= 1000) {
        stop();
        reject(new Error('The sign-in window was closed before signing in.'));
      }
    }, 250);
    window.addEventListener('message', onMessage);
  });
}
