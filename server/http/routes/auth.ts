import { Router } from '../router.ts';
import { SignupSchema } from '../../../shared/users.ts';
import type { Deps } from '../../deps.ts';
import { logIn } from '../../auth/sign-in.ts';
import { signUp } from '../../domain/users.ts';
import { logInWithLdap } from '../../auth/ldap.ts';
import { oidcLogoutUrl, type SsoSetup } from '../../auth/sso/index.ts';
import { appError } from '../../errors.ts';
import { apiBase } from '../../base-url.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { bodyObject } from '../body.ts';

const LOGGED_OUT = { status: 'ok', message: 'OIDC end_session_endpoint not configured' };

/** Login, signup, logout and userinfo (auth.md §6). Only /userinfo needs credentials. */
export function authRoutes(deps: Deps, sso: SsoSetup): Router {
  const router = new Router();
  /** The web UI sends people on to the OpenID provider's end-session URL when there is one. */
  const loggedOut = () => {
    const logoutUrl = oidcLogoutUrl(deps.config, sso);
    return logoutUrl ? { status: 'ok', logoutUrl } : LOGGED_OUT;
  };

  /** POST /auth/login: `{username | email, password}` → `{token}`. */
  router.post('/auth/login', async (ctx) => {
    const body = bodyObject(ctx);
    const name = typeof body.username === 'string' && body.username ? body.username : body.email;
    const { password } = body;
    if (typeof name !== 'string' || !name || typeof password !== 'string') {
      throw appError('credentials_required');
    }
    if (deps.config.AUTH_PROVIDER === 'ldap') {
      ctx.body = { token: await logInWithLdap(deps, name, password, ctx.ip, apiBase(ctx, deps.config)) };
      return;
    }
    // With OAuth or SAML (routes/sso.ts) the local table still serves the accounts made here, such
    // as ADMIN_USERS, as the established server does.
    ctx.body = { token: await logIn(deps, name, password, ctx.ip, apiBase(ctx, deps.config)) };
  });

  // Sign-up and the e-mail flows are for local accounts; with another provider, accounts live there.
  const provider = deps.config.AUTH_PROVIDER;
  if (provider !== 'basic') {
    const LOCAL_ONLY: Record<string, string> = {
      '/auth/signup': 'user signup',
      '/auth/confirm/:token': 'e-mail verification',
      '/auth/forgot': 'password reset',
      '/auth/reset/:token': 'password reset',
    };
    for (const [path, what] of Object.entries(LOCAL_ONLY)) {
      router.post(path, () => {
        throw appError('local_only', what, provider);
      });
    }
  }

  /** POST /auth/signup */
  router.post('/auth/signup', async (ctx) => {
    const { config } = deps;
    if (!config.SIGNUP_ENABLED || config.AUTH_PROVIDER !== 'basic') throw appError('signup_disabled');
    const input = SignupSchema.parse(bodyObject(ctx));
    ctx.body = { token: await signUp(deps, input, apiBase(ctx, deps.config)) };
  });

  /** GET /auth/logout */
  router.get('/auth/logout', (ctx) => {
    ctx.body = loggedOut();
  });

  /** POST /auth/logout */
  router.post('/auth/logout', (ctx) => {
    ctx.body = loggedOut();
  });

  /** GET /userinfo: the claims of the caller's Bearer token. */
  router.get('/userinfo', requireScope(deps, 'read:userinfo'), (ctx) => {
    const auth = ctx.state.auth;
    if (auth?.method !== 'bearer' || !auth.claims) throw appError('bearer_required');
    ctx.body = auth.claims;
  });

  return router;
}
