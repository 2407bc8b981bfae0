import type { Context } from 'koa';
import type { Config } from './config.ts';

/**
 * The absolute address of the API root that every href starts with: BASE_URL when set, otherwise
 * the request's own scheme and host (X-Forwarded-* honoured with USE_PROXYFIX) plus API_PREFIX.
 */
export function apiBase(ctx: Context, config: Config): string {
  if (config.BASE_URL) return config.BASE_URL.replace(/\/+$/, '');
  return `${ctx.protocol}://${ctx.host}${config.API_PREFIX}`;
}
