import type { LiveAlert } from '../../../../shared/alerts.ts';

/** Who asked for sound on this screen, and for which severities (wall-display.md §4). */
export interface SoundPlan {
  severities: Set<string>;
  /** 'url': the screen's `sound=`; 'prefs': the user's `soundSeverities`; 'none': off. */
  source: 'url' | 'prefs' | 'none';
  /** Starts muted: the user's `isMute` (a screen's URL overrides it). */
  muted: boolean;
}

/**
 * Sound is opt-in: the URL decides for the screen when it names `sound` (also `sound=off`), else the
 * user's preferences do, and their `isMute` silences it.
 */
export function soundPlan(
  fromUrl: string[] | null,
  prefs: { soundSeverities?: string[]; isMute?: boolean },
): SoundPlan {
  if (fromUrl !== null) {
    return { severities: new Set(fromUrl), source: fromUrl.length ? 'url' : 'none', muted: false };
  }
  const chosen = Array.isArray(prefs.soundSeverities)
    ? prefs.soundSeverities.filter((s) => typeof s === 'string')
    : [];
  if (!chosen.length) return { severities: new Set(), source: 'none', muted: false };
  return { severities: new Set(chosen), source: 'prefs', muted: prefs.isMute === true };
}

const CLOSED = new Set(['closed', 'expired']);

/**
 * Whether a pushed alert deserves a sound: it is open and either new to the view (`previous`
 * undefined) or re-opened (it was closed or expired). Updates, duplicates and acks never sound.
 * `viewComplete` is false when the view holds more alerts than the page loaded: an unknown alert
 * may then be an old one outside the page, so only a first occurrence (no duplicates) counts.
 */
export function deservesSound(
  alert: LiveAlert,
  previous: LiveAlert | undefined,
  viewComplete: boolean,
): boolean {
  if (alert.status !== 'open') return false;
  if (previous) return CLOSED.has(previous.status);
  return viewComplete || alert.duplicateCount === 0;
}

/** Whether a sounding alert still calls for its repeat: present in the view, open, and still loud. */
export function stillCalling(alert: LiveAlert | undefined, severities: Set<string>): boolean {
  return alert !== undefined && alert.status === 'open' && severities.has(alert.severity);
}
