import type { Config } from '../../config.ts';
import { AZURE_MULTI_TENANTS } from '../../config/checks.ts';

// Which OpenID Connect issuer AUTH_PROVIDER signs in with, and which issuers its discovery document
// and ID tokens may name (docs/auth-sso.md, "Providers"). Pure: no I/O.

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Microsoft's sign-in service; AZURE_TENANT picks the directory under it. */
export const MICROSOFT_LOGIN = 'https://login.microsoftonline.com';

/**
 * The issuer whose discovery document AUTH_PROVIDER uses, null for providers that are not OpenID
 * Connect. The established server's provider issuers: the tenant's v2.0 endpoint for azure, Google's,
 * the user pool for cognito (auth.md §12). OIDC_ISSUER_URL, when set, is the issuer of the aliases
 * (and how tests point them at a local provider). GITLAB_URL for gitlab and the realm under
 * KEYCLOAK_URL for keycloak (the /auth/realms layout the established web UI also uses).
 */
export function issuerOf(config: Config): string | null {
  const explicit = config.OIDC_ISSUER_URL || null;
  switch (config.AUTH_PROVIDER) {
    case 'openid':
      return explicit;
    case 'azure':
      return explicit ?? `${MICROSOFT_LOGIN}/${config.AZURE_TENANT}/v2.0`;
    case 'google':
      return explicit ?? 'https://accounts.google.com';
    case 'cognito':
      return (
        explicit ?? `https://cognito-idp.${config.AWS_REGION}.amazonaws.com/${config.COGNITO_USER_POOL_ID}`
      );
    case 'gitlab':
      return trimSlash(config.GITLAB_URL);
    case 'keycloak':
      return `${trimSlash(config.KEYCLOAK_URL ?? '')}/auth/realms/${config.KEYCLOAK_REALM}`;
    default:
      return null;
  }
}

/** `<origin>/<tenant>/v2.0` with a tenant that stands for many directories (common and the like). */
const MULTI_TENANT = new RegExp(`^(https?://[^/]+)/(${AZURE_MULTI_TENANTS.join('|')})/v2\\.0$`);
/** A directory's own id (Microsoft's `tid` claim): a GUID. */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Microsoft's placeholder for the signed-in person's tenant in a multi-tenant issuer. */
const PLACEHOLDER = '{tenantid}';

/**
 * Whether a discovery document fetched for `asked` may name `discovered` as its issuer (OIDC
 * Discovery §4.3: the same, a trailing slash aside). With `tenants` (AUTH_PROVIDER azure), a
 * multi-tenant endpoint's document names the tenant-specific form instead: the template
 * `<origin>/{tenantid}/v2.0` (common, organizations), or one fixed tenant id (consumers, whose
 * personal accounts all live in one directory).
 */
export function isIssuerOf(discovered: string, asked: string, tenants: boolean): boolean {
  if (trimSlash(discovered) === trimSlash(asked)) return true;
  const multi = tenants ? MULTI_TENANT.exec(trimSlash(asked)) : null;
  if (!multi) return false;
  const [, origin] = multi;
  const prefix = `${origin}/`;
  const rest = trimSlash(discovered);
  if (!rest.startsWith(prefix) || !rest.endsWith('/v2.0')) return false;
  const tenant = rest.slice(prefix.length, -'/v2.0'.length);
  return tenant === PLACEHOLDER || TENANT_ID.test(tenant);
}

/** Whether ID tokens of this issuer each name their own tenant (`{tenantid}` in the template). */
export const isTenantTemplate = (issuer: string): boolean => issuer.includes(PLACEHOLDER);

/**
 * The issuer an ID token of a multi-tenant endpoint must carry: the template with the token's own
 * `tid` (a GUID); null when the token names none, so that no issuer can match.
 */
export function tenantIssuer(template: string, tid: unknown): string | null {
  return typeof tid === 'string' && TENANT_ID.test(tid) ? template.replace(PLACEHOLDER, tid) : null;
}
