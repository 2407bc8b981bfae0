import { api } from './api.ts';

/** What the UI reads from GET /config (clients.md §2). */
export interface ClientConfig {
  endpoint: string;
  auth_required: boolean;
  allow_readonly: boolean;
  /** What anonymous users may do when allow_readonly is on. */
  readonly_scopes: string[];
  provider: string;
  customer_views: boolean;
  signup_enabled: boolean;
  email_verification: boolean;
  /** OAUTH2_CLIENT_ID; may list several, comma-separated (GitHub: the web UI's comes first). */
  client_id: string;
  /** The OpenID Connect authorisation endpoint (OIDC_AUTH_URL or discovered); null without one. */
  oidc_auth_url: string | null;
  /** Where the established web UI sends azure, google and cognito sign-ins without oidc_auth_url. */
  azure_tenant: string;
  aws_region: string;
  cognito_domain: string | null;
  keycloak_url: string | null;
  keycloak_realm: string | null;
  gitlab_url: string;
  github_url: string;
  columns: string[];
  sort_by: string[] | string;
  /** Initial filter: keys environment, text, status, customer, service, group, dateRange. */
  filter: Record<string, unknown>;
  colors: { severity?: Record<string, string>; status?: Record<string, string>; text?: string };
  alarm_model: {
    severity: Record<string, number>;
    status: Record<string, string>;
    defaults?: { status: string; normal_severity: string; previous_severity: string };
  };
  environments: string[];
  site_logo_url: string;
  /** Default action timeouts, seconds. */
  timeouts: { alert: number; heartbeat: number; ack: number; shelve: number };
  blackouts: { duration: number };
  /** moment.js formats (formatTime in preferences.ts). */
  dates: { shortTime: string; mediumDate: string; longDate: string };
  font: { 'font-family'?: string; 'font-size'?: string; 'font-weight'?: number | string };
  audio: { new: string | null };
  /** Tiles: `query` is `[[k, v], …]`, `{k: v}` or `"k=v&…"` (clients.md §2). */
  indicators: { severity: string[]; queries: { text: string; query: unknown }[] };
  /** Custom action names for the row, detail and bulk menus. */
  actions: string[];
}

let loaded: Promise<ClientConfig> | null = null;

/** The server's client configuration, fetched once per page load. */
export function clientConfig(): Promise<ClientConfig> {
  loaded ??= api<ClientConfig>('GET', '/config');
  return loaded;
}

/** Severity names in the model's order, most severe first. */
export function severityOrder(config: ClientConfig): string[] {
  return Object.entries(config.alarm_model.severity)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

/** `sort_by` as a list (the setting may be one string). */
export const defaultSort = (config: ClientConfig): string[] =>
  Array.isArray(config.sort_by) ? config.sort_by : [config.sort_by];
