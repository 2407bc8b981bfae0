import { Router } from '../router.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  assertSamlEnabled,
  CODE_PROVIDERS,
  samlMetadata,
  samlSignIn,
  samlSignInRequest,
  signInWithCode,
  type SsoSetup,
} from '../../auth/sso/index.ts';
import { handBackPage, type HandBack } from '../../auth/sso/saml.ts';
import type { Deps } from '../../deps.ts';
import { appError } from '../../errors.ts';
import { apiBase } from '../../base-url.ts';
import { bodyObject } from '../body.ts';
import { originMatcher } from '../../config/origins.ts';

/** What the web UI and the CLI send after the provider's redirect (clients.md: `login`). */
const CodeSchema = z.object({
  code: z.string().min(1).max(4096),
  clientId: z.string().max(500).nullish(),
  redirectUri: z.string().min(1).max(2000),
  /** RFC 7636 (optional): the verifier of the code challenge the client sent to the provider. */
  codeVerifier: z.string().min(43).max(128).nullish(),
});

/** Providers of the established server not offered here. */
const NOT_HERE: Record<string, string> = {
  pingfederate: "use AUTH_PROVIDER = 'openid' with OIDC_ISSUER_URL",
  cas: 'CAS is not supported',
};

/**
 * The origin the SAML popup may hand its result to: the RelayState's, when it is this server's own
 * or one CORS_ORIGINS lists (the web UI's). Any other page could otherwise open the popup and
 * receive the token of whoever is signed in at the identity provider.
 */
function handBackOrigin(deps: Deps, relayState: string, base: string): string | null {
  let origin: string;
  try {
    origin = new URL(relayState).origin;
  } catch {
    return null;
  }
  if (origin === 'null') return null;
  return origin === new URL(base).origin || originMatcher(deps.config.CORS_ORIGINS)(origin) ? origin : null;
}

function sendPage(ctx: Context, status: number, result: HandBack, origin: string | null) {
  const page = handBackPage(result, origin);
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', page.csp);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = page.html;
}

/** OAuth 2.0 / OpenID Connect code exchange and SAML 2.0 (auth.md §6, §12; docs/auth-sso.md). */
export function ssoRoutes(deps: Deps, sso: SsoSetup): Router {
  const router = new Router();

  for (const provider of CODE_PROVIDERS) {
    /** POST /auth/<provider>: `{code, clientId, redirectUri, codeVerifier?}` → `{token}`. */
    router.post(`/auth/${provider}`, async (ctx) => {
      const input = CodeSchema.parse(bodyObject(ctx));
      const grant = {
        code: input.code,
        clientId: input.clientId ?? undefined,
        redirectUri: input.redirectUri,
        codeVerifier: input.codeVerifier ?? undefined,
      };
      ctx.body = { token: await signInWithCode(deps, sso, provider, grant, apiBase(ctx, deps.config)) };
    });
  }
  for (const [provider, advice] of Object.entries(NOT_HERE)) {
    router.post(`/auth/${provider}`, () => {
      throw appError('sso_not_implemented', provider, advice);
    });
  }

  /** GET /auth/saml/metadata.xml: this service provider's metadata, for the identity provider's admin. */
  router.get('/auth/saml/metadata.xml', (ctx) => {
    const xml = samlMetadata(deps.config, sso);
    ctx.type = 'text/xml; charset=utf-8';
    ctx.body = xml;
  });

  /** GET /auth/saml: off to the identity provider; its answer returns to the page that opened us. */
  router.get('/auth/saml', async (ctx) => {
    assertSamlEnabled(deps.config);
    const base = apiBase(ctx, deps.config);
    const relayState = ctx.get('Referer') || base;
    if (!handBackOrigin(deps, relayState, base)) {
      throw appError('sso_untrusted_origin');
    }
    const next = await samlSignInRequest(deps.config, sso, relayState);
    ctx.set('Cache-Control', 'no-store');
    if ('redirect' in next) ctx.redirect(next.redirect);
    else {
      ctx.type = 'html';
      ctx.body = next.form;
    }
  });

  /** POST /auth/saml: the identity provider's form post (SAMLResponse, RelayState) → hand-back page. */
  router.post('/auth/saml', async (ctx) => {
    assertSamlEnabled(deps.config);
    const base = apiBase(ctx, deps.config);
    const form = new URLSearchParams(ctx.request.rawBody ?? '');
    const origin = handBackOrigin(deps, form.get('RelayState') ?? '', base);
    const samlResponse = form.get('SAMLResponse');
    if (!origin) {
      const message = 'RelayState is not on an origin CORS_ORIGINS lists';
      return sendPage(ctx, 400, { status: 'error', message }, null);
    }
    if (!samlResponse)
      return sendPage(ctx, 400, { status: 'error', message: 'missing SAMLResponse' }, origin);
    const { status, result } = await samlSignIn(deps, sso, samlResponse, base);
    sendPage(ctx, status, result, origin);
  });

  return router;
}
