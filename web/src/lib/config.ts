import { api } from './api.ts';

/** What the UI reads from GET /config (clients.md §2). */
export interface ClientConfig {
  endpoint: string;
  columns: string[];
  sort_by: string[];
  colors: { severity?: Record<string, string>; text?: string };
  alarm_model: { severity: Record<string, number>; status: Record<string, string> };
  environments: string[];
  site_logo_url: string;
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
