import type { LiveAlert } from '../../../shared/alerts.ts';

/** Most severe first, then newest first: the console's and the wall's default order. */
export function sortAlerts(alerts: Iterable<LiveAlert>, severities: string[]): LiveAlert[] {
  const rank = new Map(severities.map((s, i) => [s, i]));
  return [...alerts].sort(
    (a, b) =>
      (rank.get(a.severity) ?? severities.length) - (rank.get(b.severity) ?? severities.length) ||
      b.lastReceiveTime.localeCompare(a.lastReceiveTime) ||
      a.id.localeCompare(b.id),
  );
}

/** "12s", "5m", "3h", "2d": how long ago. */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
