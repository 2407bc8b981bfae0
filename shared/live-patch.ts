import type { LiveAlert } from './alerts.ts';

/**
 * A change to an alert a client already holds (docs/live.md, "Patches"): its id and the fields
 * whose values differ from the state the client was last sent; every other field is unchanged.
 */
export type AlertPatch = Partial<LiveAlert> & { id: string };

/** Arrays and objects (tags, service, correlate, attributes) compare by their JSON text. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The patch that turns `base` into `next` (two states of one alert). */
export function diffAlert(base: LiveAlert, next: LiveAlert): AlertPatch {
  const patch: Record<string, unknown> = { id: next.id };
  const before = base as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(next)) {
    if (!sameValue(before[key], value)) patch[key] = value;
  }
  return patch as AlertPatch;
}

/** The state `patch` describes, applied to the state the client holds (a new object). */
export const applyPatch = (base: LiveAlert, patch: AlertPatch): LiveAlert => ({ ...base, ...patch });
