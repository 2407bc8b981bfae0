import { UI_ONLY } from '../../lib/live/alerts.svelte.ts';

/**
 * The console's view lives in its URL (wall-display.md §5, docs/ui-console.md): filters as the
 * API's own parameters, sort and paging as GET /alerts takes them, and a few UI-only parameters.
 */

/** API parameters that order or page the view rather than select alerts. */
const ORDER_AND_PAGING = new Set(['sort-by', 'reverse', 'page', 'page-size']);

/** A parameter that selects alerts (status, environment, q, from-date, attributes.x …). */
export const isFilterKey = (key: string): boolean => !UI_ONLY.has(key) && !ORDER_AND_PAGING.has(key);

/** Whether the parameters select anything (else the console applies `/config filter`). */
export const hasFilter = (params: Pick<URLSearchParams, 'keys'>): boolean =>
  [...params.keys()].some(isFilterKey);

/** A `dateRange` bound as alerta-webui keeps it: epoch seconds, or (negative) seconds before now. */
function rangeBound(value: unknown, now: number): string | null {
  const n = Number(value);
  if (!value || !Number.isFinite(n) || n === 0) return null;
  return new Date(n > 0 ? n * 1000 : now + n * 1000).toISOString();
}

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [])
    .map((x) => String(x).trim())
    .filter(Boolean);

/**
 * `/config filter` (keys environment, text, status, customer, service, group, dateRange) as API
 * parameters: the view of a URL that selects nothing, and what "Reset" returns to.
 */
export function configFilterParams(filter: Record<string, unknown>, now: number): URLSearchParams {
  const p = new URLSearchParams();
  if (typeof filter.environment === 'string' && filter.environment) p.set('environment', filter.environment);
  if (typeof filter.text === 'string' && filter.text) p.set('q', filter.text);
  for (const key of ['status', 'customer', 'service', 'group'])
    for (const v of list(filter[key])) p.append(key, v);
  const range = Array.isArray(filter.dateRange) ? filter.dateRange : [];
  const from = rangeBound(range[0], now);
  const to = rangeBound(range[1], now);
  if (from) p.set('from-date', from);
  if (to) p.set('to-date', to);
  return p;
}

/**
 * An old alerta-webui link's hash (`#environment:Prod;status:open,ack;sb:severity;sd:0;asi:1`) as
 * our parameters, or null when the hash is not one. `sb`/`sd` become `sort-by` (with `-` when
 * descending); `asi` (its indicator panel) has no equivalent and is dropped.
 */
export function fromAlertaHash(hash: string, now: number): URLSearchParams | null {
  let text: string;
  try {
    text = decodeURI(hash.replace(/^#/, ''));
  } catch {
    return null;
  }
  if (!/^[A-Za-z]+:/.test(text)) return null;
  const entries = new Map<string, string>();
  for (const part of text.split(';')) {
    const i = part.indexOf(':');
    if (i > 0) entries.set(part.slice(0, i), part.slice(i + 1));
  }
  const filter: Record<string, unknown> = {};
  for (const key of ['environment', 'text', 'status', 'customer', 'service', 'group']) {
    const v = entries.get(key);
    if (v) filter[key] = key === 'environment' || key === 'text' ? v : v.split(',');
  }
  const range = entries.get('dateRange');
  if (range) filter.dateRange = range.split(',');
  const p = configFilterParams(filter, now);
  const sortBy = entries.get('sb');
  if (sortBy && sortBy !== 'default') p.set('sort-by', `${entries.get('sd') === '1' ? '-' : ''}${sortBy}`);
  return p;
}

/**
 * The URL an old alerta-webui link should become (read once, then replaced), or null when the
 * URL has no such hash. Parameters already in the query string win over the hash's.
 */
export function rewriteLegacyLink(url: URL, now: number): string | null {
  if (!url.hash) return null;
  const fromHash = fromAlertaHash(url.hash, now);
  if (!fromHash) return null;
  const next = new URLSearchParams(url.search);
  for (const key of new Set(fromHash.keys())) {
    if (next.has(key)) continue;
    for (const v of fromHash.getAll(key)) next.append(key, v);
  }
  const search = next.toString();
  return `${url.pathname}${search ? `?${search}` : ''}`;
}
