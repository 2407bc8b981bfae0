import { Router } from '../router.ts';
import { oidcAuthUrl, type SsoSetup } from '../../auth/sso/index.ts';
import type { Deps } from '../../deps.ts';
import { apiBase } from '../../base-url.ts';

/** GET /config: what the web UI and the CLI read before anything else (clients.md §2); no credentials. */
export function configRoutes(deps: Deps, sso: SsoSetup): Router {
  const router = new Router();
  const { config, model } = deps;

  router.get('/config', (ctx) => {
    const basic = config.AUTH_PROVIDER === 'basic';
    ctx.body = {
      debug: config.DEBUG,
      endpoint: apiBase(ctx, config),
      alarm_model: {
        name: model.name,
        severity: model.severity,
        colors: model.colors,
        status: model.status,
        defaults: {
          status: model.defaultStatus,
          normal_severity: model.normalSeverity,
          previous_severity: model.previousSeverity,
        },
      },
      auth_required: config.AUTH_REQUIRED,
      allow_readonly: config.ALLOW_READONLY,
      readonly_scopes: config.READONLY_SCOPES,
      provider: config.AUTH_PROVIDER,
      customer_views: config.CUSTOMER_VIEWS,
      signup_enabled: basic && config.SIGNUP_ENABLED,
      email_verification: config.EMAIL_VERIFICATION,
      client_id: config.OAUTH2_CLIENT_ID,
      azure_tenant: config.AZURE_TENANT,
      aws_region: config.AWS_REGION,
      cognito_domain: config.COGNITO_DOMAIN,
      github_url: config.GITHUB_URL,
      gitlab_url: config.GITLAB_URL,
      keycloak_url: config.KEYCLOAK_URL,
      keycloak_realm: config.KEYCLOAK_REALM,
      oidc_auth_url: oidcAuthUrl(config, sso),
      site_logo_url: config.SITE_LOGO_URL,
      severity: model.severity,
      colors: model.colors,
      timeouts: {
        alert: config.ALERT_TIMEOUT,
        heartbeat: config.HEARTBEAT_TIMEOUT,
        ack: config.ACK_TIMEOUT,
        shelve: config.SHELVE_TIMEOUT,
      },
      blackouts: { duration: config.BLACKOUT_DURATION },
      dates: {
        shortTime: config.DATE_FORMAT_SHORT_TIME,
        mediumDate: config.DATE_FORMAT_MEDIUM_DATE,
        longDate: config.DATE_FORMAT_LONG_DATE,
      },
      font: config.DEFAULT_FONT,
      audio: { new: config.DEFAULT_AUDIO_FILE },
      columns: config.COLUMNS,
      sort_by: config.SORT_LIST_BY,
      filter: config.DEFAULT_FILTER,
      indicators: { severity: config.ASI_SEVERITY, queries: config.ASI_QUERIES },
      actions: config.ACTIONS,
      tracking_id: config.GOOGLE_TRACKING_ID,
      refresh_interval: config.AUTO_REFRESH_INTERVAL,
      environments: config.ALLOWED_ENVIRONMENTS,
      clipboard_template: config.CLIPBOARD_TEMPLATE,
    };
  });

  return router;
}
