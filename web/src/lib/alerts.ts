import type { LiveAlert } from '../../../shared/alerts.ts';

const TIME_FIELDS = new Set(['createTime', 'receiveTime', 'lastReceiveTime', 'updateTime']);
const STATUS_ORDER = ['open', 'assign', 'ack', 'shelved', 'blackout', 'closed', 'expired', 'unknown'];

/**
 * Alerts in the order of `sort-by` keys, as the API sorts them (api.md §4): severity most severe
 * first, status in its key order, times newest first, anything else ascending; `-` inverts a key.
 * The default is the console's: most severe first, then newest first.
 */
export function sortAlerts(
  alerts: Iterable<LiveAlert>,
  severities: string[],
  keys: string[] = ['severity', 'lastReceiveTime'],
): LiveAlert[] {
  return [...alerts].sort(alertOrder(severities, keys));
}

/** The comparison behind sortAlerts. */
export function alertOrder(
  severities: string[],
  keys: string[] = ['severity', 'lastReceiveTime'],
): (a: LiveAlert, b: LiveAlert) => number {
  const rank = new Map(severities.map((s, i) => [s, i]));
  const compare = keys.map((raw) => {
    const inverted = raw.startsWith('-');
    const field = inverted ? raw.slice(1) : raw;
    const sign = (TIME_FIELDS.has(field) ? -1 : 1) * (inverted ? -1 : 1);
    const value = (a: LiveAlert): string | number => {
      const v = (a as unknown as Record<string, unknown>)[field];
      if (field === 'severity') return rank.get(a.severity) ?? severities.length;
      if (field === 'status') {
        const i = STATUS_ORDER.indexOf(a.status);
        return i < 0 ? STATUS_ORDER.length : i;
      }
      return typeof v === 'number' ? v : Array.isArray(v) ? v.join(',') : String(v ?? '');
    };
    return (a: LiveAlert, b: LiveAlert) => {
      const x = value(a);
      const y = value(b);
      return sign * (x < y ? -1 : x > y ? 1 : 0);
    };
  });
  return (a, b) => {
    for (const c of compare) {
      const r = c(a, b);
      if (r) return r;
    }
    return a.id.localeCompare(b.id);
  };
}

/** "12s", "5m", "3h", "2d": how long ago. */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
