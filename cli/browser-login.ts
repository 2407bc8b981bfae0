import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { delimiter } from 'node:path';
import type { Context } from './context.ts';
import { CliError } from './http.ts';

/**
 * `alerta login` for the OAuth providers (clients.md, `login`): the provider's login page in the
 * browser, its answer on a local callback at port 9004, then `POST /auth/<provider>` with the code.
 * The redirect URIs are the established client's, so the ones registered for it keep working.
 */

const CALLBACK_PORT = 9004;
/** How long the browser has to come back before the login gives up. */
const WAIT_MS = 5 * 60_000;

/** Where a provider's sign-in starts, and what it asks for. */
export interface BrowserFlow {
  provider: string;
  authorize: string;
  redirectUri: string;
  scope: string;
  /** RFC 7636: the code is bound to this client (RFC 8252 §8.1 asks it of loopback redirects). */
  pkce: boolean;
  extra: Record<string, string>;
}

const LOOPBACK = `http://127.0.0.1:${CALLBACK_PORT}`;
const OIDC_SCOPE = 'openid profile email';

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The sign-in of `provider` as /config describes it: its discovered authorisation endpoint
 * (`oidc_auth_url`) for the OpenID Connect providers, else the endpoint the established clients
 * build from the provider's settings; null for a provider that has no browser sign-in.
 */
export function browserFlow(
  provider: string,
  remote: Record<string, unknown>,
  username?: string,
): BrowserFlow | null {
  const discovered = text(remote.oidc_auth_url);
  const oidc = (authorize: string | null, redirectUri = LOOPBACK): BrowserFlow | null =>
    authorize ? { provider, authorize, redirectUri, scope: OIDC_SCOPE, pkce: true, extra: {} } : null;
  switch (provider) {
    case 'github':
      return {
        provider,
        authorize: `${trimSlash(text(remote.github_url) ?? 'https://github.com')}/login/oauth/authorize`,
        redirectUri: LOOPBACK,
        scope: 'user:email read:org',
        pkce: false,
        extra: { allow_signup: 'false' },
      };
    case 'azure': {
      const tenant = encodeURIComponent(text(remote.azure_tenant) ?? 'common');
      const own = `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`;
      return oidc(discovered ?? own, `http://localhost:${CALLBACK_PORT}`);
    }
    case 'google': {
      const flow = oidc(discovered ?? 'https://accounts.google.com/o/oauth2/v2/auth');
      return flow && username ? { ...flow, extra: { login_hint: username } } : flow;
    }
    case 'gitlab':
      return oidc(
        discovered ?? `${trimSlash(text(remote.gitlab_url) ?? 'https://gitlab.com')}/oauth/authorize`,
      );
    case 'cognito': {
      const domain = text(remote.cognito_domain);
      const region = text(remote.aws_region) ?? 'us-east-1';
      return oidc(discovered ?? (domain && `https://${domain}.auth.${region}.amazoncognito.com/login`));
    }
    case 'keycloak': {
      const [url, realm] = [text(remote.keycloak_url), text(remote.keycloak_realm)];
      const own =
        url &&
        realm &&
        `${trimSlash(url)}/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/auth`;
      return oidc(discovered ?? own);
    }
    case 'openid':
      return oidc(discovered);
    default:
      return null;
  }
}

/** The URL the browser opens: the flow's endpoint with the client, the callback, state and PKCE. */
export function authorizeUrl(flow: BrowserFlow, clientId: string, state: string, challenge: string | null) {
  const url = new URL(flow.authorize);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', flow.redirectUri);
  url.searchParams.set('scope', flow.scope);
  url.searchParams.set('state', state);
  if (challenge) {
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [k, v] of Object.entries(flow.extra)) url.searchParams.set(k, v);
  return url.href;
}

/**
 * The command that opens a URL: `BROWSER` as Python's webbrowser reads it (the established client's:
 * commands separated like PATH, `%s` for the URL, else the URL last), else the platform's opener.
 */
export function browserCommand(url: string, env: NodeJS.ProcessEnv, platform = process.platform): string[] {
  const chosen = env.BROWSER?.split(delimiter).find((c) => c.trim());
  if (chosen) {
    const words = chosen.trim().split(/\s+/);
    return words.some((w) => w.includes('%s')) ? words.map((w) => w.replaceAll('%s', url)) : [...words, url];
  }
  if (platform === 'darwin') return ['open', url];
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler', url];
  return ['xdg-open', url];
}

function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const [command, ...args] = browserCommand(url, env);
  const child = spawn(command!, args, { stdio: 'ignore', detached: true, env });
  // No browser to open is no failure: the URL is on the terminal.
  child.on('error', () => {});
  child.unref();
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, message: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>alerta login</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`
  );
}

/**
 * Listens on the redirect URI's port until the provider's answer arrives there: the code, or why
 * not. `localhost` is served on both loopback addresses, since the browser may pick either.
 */
function awaitCallback(
  flow: BrowserFlow,
  state: string,
): { listening: Promise<void>; code: Promise<string>; close: () => void } {
  const servers: Server[] = [];
  let listening!: Promise<void>;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    // Answers close their connection: what stays open is a browser's spare connection, not ours.
    for (const s of servers) {
      s.close();
      s.closeIdleConnections();
    }
  };
  const code = new Promise<string>((resolve, reject) => {
    timer = setTimeout(
      () => reject(new CliError(`no answer from the browser within ${WAIT_MS / 60_000} minutes`)),
      WAIT_MS,
    );
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const params = new URL(req.url ?? '/', flow.redirectUri).searchParams;
      const answer = (status: number, title: string, message: string) => {
        res.writeHead(status, {
          Connection: 'close',
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': "default-src 'none'",
          'Cache-Control': 'no-store',
        });
        res.end(page(title, message));
      };
      if (!params.has('state') || !(params.has('code') || params.has('error'))) {
        return answer(404, 'Not found', 'This is the alerta login callback.');
      }
      if (params.get('state') !== state) {
        answer(400, 'Login failed', 'This answer is not for the login running in the terminal.');
        return reject(new CliError('the answer is not for this login (state mismatch)', 4));
      }
      const error = params.get('error');
      if (error) {
        const why = params.get('error_description') || error;
        answer(401, 'Login failed', why);
        return reject(new CliError(`${flow.provider} refused the login: ${why}`, 4));
      }
      answer(200, 'Authorization success!', 'Please close the web browser and return to the terminal.');
      resolve(params.get('code')!);
    };
    const hosts = new URL(flow.redirectUri).hostname === 'localhost' ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    let listened: () => void;
    // The URL is shown only once the first address listens: a quick browser must find the callback.
    listening = new Promise<void>((ok) => (listened = ok));
    hosts.forEach((host, i) => {
      const server = createServer(onRequest);
      servers.push(server);
      if (i === 0) server.once('listening', () => listened());
      server.once('error', (err: NodeJS.ErrnoException) => {
        // IPv6 may be off: only the first address must be ours.
        if (i > 0) return;
        const why =
          err.code === 'EADDRINUSE' ? 'is in use (another alerta login?)' : `cannot be used (${err.code})`;
        reject(new CliError(`port ${CALLBACK_PORT} for the login callback ${why}`));
      });
      server.listen(CALLBACK_PORT, host);
    });
  });
  return { listening, code, close };
}

/** Logs in through the provider in the browser; gives our token. */
export async function browserLogin(ctx: Context, flow: BrowserFlow): Promise<string> {
  const configured = ctx.settings.clientId ?? text(ctx.remote.client_id)?.split(',')[0]?.trim() ?? null;
  if (!configured) {
    throw new CliError('no OAuth client id: set client_id in the config file (the server sends none)', 2);
  }
  const state = randomBytes(16).toString('hex');
  const verifier = flow.pkce ? randomBytes(32).toString('base64url') : null;
  const challenge = verifier && createHash('sha256').update(verifier).digest('base64url');
  const url = authorizeUrl(flow, configured, state, challenge);
  const callback = awaitCallback(flow, state);
  try {
    // A port that cannot be had ends the login before any URL is shown.
    await Promise.race([callback.listening, callback.code]);
    ctx.notice(`Log in with ${flow.provider} in the browser; if it does not open, visit:\n${url}`);
    openBrowser(url, ctx.env);
    const code = await callback.code;
    const answer = await ctx.http.request<{ token?: unknown }>('POST', `/auth/${flow.provider}`, {
      body: {
        code,
        clientId: configured,
        redirectUri: flow.redirectUri,
        ...(verifier ? { codeVerifier: verifier } : {}),
      },
      anonymous: true,
    });
    if (typeof answer.body.token !== 'string') throw new CliError('login answered without a token');
    return answer.body.token;
  } finally {
    callback.close();
  }
}
