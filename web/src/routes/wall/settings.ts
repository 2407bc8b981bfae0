import type { LiveAlert } from '../../../../shared/alerts.ts';
import { GROUP_FIELDS, type GroupCounts, type GroupField } from '../../../../shared/events.ts';

/**
 * The wall's own URL parameters (docs/ui-wall.md): `tiles`, `columns`, `resort`, `sound`,
 * `sound-repeat`, `sound-mute`, `group-by`, `heartbeats`. They configure the screen and never reach
 * the API or the socket: they are in UI_ONLY (lib/ui-params.ts), which viewQuery strips.
 */

export type TileLayout = 'severity' | 'environment' | 'indicators';

export interface WallSettings {
  tiles: TileLayout;
  /** Columns of the alert list (1 to 4). */
  columns: number;
  /**
   * Font scale: 'auto' (the default) sizes the type by the screen, 1/54 of its height (20 px at
   * 1080 p, 40 px at 4K), so every screen shows the same rows; a number (0.5 to 4) is 20 px × it.
   */
  scale: number | 'auto';
  /** From `theme=`; null leaves it to the user's `isDark` preference (the wall defaults to dark). */
  theme: 'dark' | 'light' | null;
  /** Seconds between re-sorts of the list (at least 5). */
  resort: number;
  /** Severities that sound, from `sound=`; null when the URL leaves it to the user's preferences. */
  sound: string[] | null;
  /** Repeat an unacknowledged alert's sound every N seconds; 0 plays once. */
  soundRepeat: number;
  /** Minutes the mute button silences the screen for. */
  soundMute: number;
  /** Collapse the list into groups of this field's values (`group-by=`), or null for one row per alert. */
  groupBy: GroupField | null;
  /** The heartbeat strip (`heartbeats=off` hides it). */
  heartbeats: boolean;
  /** `filter=none`: no default filter, no hidden severities; the URL's filters only. */
  filterNone: boolean;
}

const LAYOUTS: readonly TileLayout[] = ['severity', 'environment', 'indicators'];

/** A number parameter within bounds, else the fallback (a wall with a typo still shows). */
function numberParam(
  params: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = params.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

/** The screen's settings from its URL; unknown or out-of-range values fall back to the defaults. */
export function wallSettings(search: string): WallSettings {
  const params = new URLSearchParams(search);
  const tiles = params.get('tiles') as TileLayout | null;
  const theme = params.get('theme');
  const sound = params.has('sound')
    ? params
        .getAll('sound')
        .flatMap((v) => v.split(','))
        .map((s) => s.trim())
        .filter((s) => s && s !== 'off' && s !== 'none')
    : null;
  const groupBy = params.get('group-by') as GroupField | null;
  const scale = params.get('scale');
  return {
    tiles: tiles && LAYOUTS.includes(tiles) ? tiles : 'severity',
    columns: Math.round(numberParam(params, 'columns', 1, 1, 4)),
    scale: scale === null || scale === 'auto' ? 'auto' : numberParam(params, 'scale', 0, 0.5, 4) || 'auto',
    theme: theme === 'light' || theme === 'dark' ? theme : null,
    resort: numberParam(params, 'resort', 60, 5, 3600),
    sound,
    soundRepeat: numberParam(params, 'sound-repeat', 0, 0, 3600),
    soundMute: numberParam(params, 'sound-mute', 15, 1, 24 * 60),
    groupBy: groupBy && GROUP_FIELDS.includes(groupBy) ? groupBy : null,
    heartbeats: !['off', 'none', 'false', '0'].includes(params.get('heartbeats') ?? ''),
    filterNone: params.get('filter') === 'none',
  };
}

/** The font size in px for a numeric scale; 'auto' is sized in CSS from the viewport (AUTO_FONT). */
export const FONT_PX = 20;
/** The CSS font size of `scale=auto`: 1/54 of the screen's height, or 1/96 of its width if narrower. */
export const AUTO_FONT = 'min(100vh / 54, 100vw / 96)';

/** The wall's default order: unacknowledged first (status order), then most severe, then newest. */
export const WALL_SORT = ['status', 'severity', 'lastReceiveTime'];

/** Severities a wall leaves out unless its URL names severities: nothing to act on. */
export const QUIET_SEVERITIES = ['normal', 'ok', 'cleared', 'debug', 'trace'];

/**
 * What the wall selects (docs/ui-wall.md): the URL's filters, then for every field the URL does not
 * filter on, `/config filter`'s (open and acked alerts by default), and, unless the URL names
 * severities, none of QUIET_SEVERITIES. With `filter=none` only the URL's filters apply.
 */
export function wallQuery(query: string, defaults: URLSearchParams, filterNone = false): string {
  const params = new URLSearchParams(query);
  if (filterNone) return params.toString();
  const given = new Set([...params.keys()].map((k) => k.replace(/!$/, '')));
  for (const key of new Set(defaults.keys())) {
    if (given.has(key)) continue;
    for (const v of defaults.getAll(key)) params.append(key, v);
  }
  if (!given.has('severity')) for (const s of QUIET_SEVERITIES) params.append('severity!', s);
  return params.toString();
}

/** The query with these `sort-by` keys (what it had are replaced). */
export function withSort(query: string, keys: string[]): string {
  const params = new URLSearchParams(query);
  params.delete('sort-by');
  for (const key of keys) params.append('sort-by', key);
  return params.toString();
}

/** An indicator's query as URL parameters: `[[k, v], …]`, `{k: v}` (v may be a list) or `"k=v&…"`. */
export function indicatorParams(query: unknown): URLSearchParams {
  const params = new URLSearchParams();
  const add = (k: unknown, v: unknown) => {
    if (typeof k !== 'string' || !k) return;
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== null && one !== undefined && typeof one !== 'object') params.append(k, String(one));
    }
  };
  if (typeof query === 'string') return new URLSearchParams(query.replace(/^\?/, ''));
  if (Array.isArray(query)) {
    for (const pair of query) if (Array.isArray(pair)) add(pair[0], pair[1]);
  } else if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query)) add(k, v);
  }
  return params;
}

/**
 * The same selection narrowed to open alerts, for the colour of a tile's title (the worst **open**
 * severity, wall-display.md §2); null when the selection's own status filter excludes open.
 */
export function openOnly(params: URLSearchParams): URLSearchParams | null {
  const open = new URLSearchParams(params);
  if (open.has('status') && !open.getAll('status').includes('open')) return null;
  open.set('status', 'open');
  return open;
}

/** Statuses of alerts someone has taken on: a tile counts them apart from those still waiting. */
export const ACKED_STATUSES = ['ack', 'shelved'];

/**
 * The same selection narrowed to acked and shelved alerts (page, page size and order dropped), for
 * the "· 12 acked" of the severity tiles; null when the selection's own status filter excludes both.
 */
export function ackedOnly(query: string): string | null {
  const params = new URLSearchParams(query);
  for (const name of ['page', 'page-size', 'sort-by']) params.delete(name);
  const asked = params.getAll('status');
  const statuses = asked.length ? ACKED_STATUSES.filter((s) => asked.includes(s)) : ACKED_STATUSES;
  if (!statuses.length) return null;
  params.delete('status');
  for (const s of statuses) params.append('status', s);
  return params.toString();
}

/** The first of `severities` (most severe first) with a count, or null. */
export function worstSeverity(
  counts: Record<string, number> | undefined,
  severities: string[],
): string | null {
  return severities.find((s) => (counts?.[s] ?? 0) > 0) ?? null;
}

/**
 * Alerts in groups as the server orders them (shared/events.ts ViewCountsSchema): groups with an
 * alert neither acked nor shelved first, then by their most severe alert, then the larger first.
 * The wall uses the server's groups; this counts the alerts it holds when there are none (the REST
 * fallback).
 */
export function groupAlerts(
  alerts: Iterable<LiveAlert>,
  by: GroupField,
  severities: string[],
): GroupCounts[] {
  const groups = new Map<string, GroupCounts>();
  for (const a of alerts) {
    const keys = by === 'service' ? (a.service.length ? [...new Set(a.service)] : ['']) : [a[by]];
    for (const key of keys) {
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { key, total: 0, severityCounts: {}, statusCounts: {} }));
      g.total++;
      g.severityCounts[a.severity] = (g.severityCounts[a.severity] ?? 0) + 1;
      g.statusCounts[a.status] = (g.statusCounts[a.status] ?? 0) + 1;
    }
  }
  const rank = (g: GroupCounts) => {
    const i = severities.findIndex((s) => g.severityCounts[s]);
    return i < 0 ? severities.length : i;
  };
  return [...groups.values()].sort(
    (a, b) =>
      Number(!isWaiting(a)) - Number(!isWaiting(b)) ||
      rank(a) - rank(b) ||
      b.total - a.total ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** Whether a group holds an alert nobody has acked or shelved. */
export const isWaiting = (g: GroupCounts): boolean =>
  g.total - (g.statusCounts.ack ?? 0) - (g.statusCounts.shelved ?? 0) > 0;
