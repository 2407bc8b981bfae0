/**
 * The wall's own URL parameters (docs/ui-wall.md): `tiles`, `columns`, `resort`, `sound`,
 * `sound-repeat`, `sound-mute`. They configure the screen and never reach the API or the socket:
 * they are in UI_ONLY (lib/ui-params.ts), which viewQuery strips.
 */

export type TileLayout = 'severity' | 'environment' | 'indicators';

export interface WallSettings {
  tiles: TileLayout;
  /** Columns of the alert list (1 to 4). */
  columns: number;
  /** Font scale (0.5 to 4), 1 = 20 px. */
  scale: number;
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
  return {
    tiles: tiles && LAYOUTS.includes(tiles) ? tiles : 'severity',
    columns: Math.round(numberParam(params, 'columns', 1, 1, 4)),
    scale: numberParam(params, 'scale', 1, 0.5, 4) || 1,
    theme: theme === 'light' || theme === 'dark' ? theme : null,
    resort: numberParam(params, 'resort', 60, 5, 3600),
    sound,
    soundRepeat: numberParam(params, 'sound-repeat', 0, 0, 3600),
    soundMute: numberParam(params, 'sound-mute', 15, 1, 24 * 60),
  };
}

/** The wall's default order: most severe first, then newest first. */
export const WALL_SORT = ['severity', 'lastReceiveTime'];

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

/** The first of `severities` (most severe first) with a count, or null. */
export function worstSeverity(
  counts: Record<string, number> | undefined,
  severities: string[],
): string | null {
  return severities.find((s) => (counts?.[s] ?? 0) > 0) ?? null;
}
