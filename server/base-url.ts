import type { Config } from './config.ts';
import type { RequestOrigin } from './request.ts';

/**
 * The absolute address of the API root that every href starts with: BASE_URL when set, otherwise
 * the request's own scheme and host (X-Forwarded-* honoured with USE_PROXYFIX) plus API_PREFIX.
 * The one rule for HTTP (Koa's `ctx` is a RequestOrigin) and the socket hub alike.
 */
export function apiBase(origin: RequestOrigin, config: Pick<Config, 'BASE_URL' | 'API_PREFIX'>): string {
  if (config.BASE_URL) return config.BASE_URL.replace(/\/+$/, '');
  return `${origin.protocol}://${origin.host}${config.API_PREFIX}`;
}
