import { clientConfig } from './config.ts';
import { formatTime, loadPreferences } from './preferences.ts';

/** Formats an API time with one of `/config dates` in the user's zone preference; '' for none. */
export type TimeFormat = (iso: unknown, format?: 'shortTime' | 'mediumDate' | 'longDate') => string;

/**
 * The time format of this page: `/config dates` and the user's `timezone` preference (local or UTC);
 * a time in another year shows its year.
 */
export async function loadTimeFormat(): Promise<TimeFormat> {
  const [config, prefs] = await Promise.all([clientConfig(), loadPreferences()]);
  return (iso, format = 'mediumDate') =>
    typeof iso === 'string' && iso
      ? formatTime(iso, config.dates[format], prefs.timezone ?? 'local', Date.now())
      : '';
}

/** A stand-in until the real format has loaded: the ISO time as it came. */
export const rawTime: TimeFormat = (iso) => (typeof iso === 'string' ? iso : '');

/** "45s", "12m 5s", "3h 20m", "2d 4h": a duration in seconds, in its two largest units. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}
