import type { ReceiverHealth } from './types.ts';

/** "40 s", "3 min", "2 h 13 min", "3 d 4 h": a span of time as an operator says it. */
export function span(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) {
    const m = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ''}`;
  }
  const h = Math.floor((s % 86400) / 3600);
  return `${Math.floor(s / 86400)} d${h ? ` ${h} h` : ''}`;
}

/** Seconds from `now` to an ISO time (negative: past). */
export const secondsUntil = (iso: string, now: number): number => (Date.parse(iso) - now) / 1000;

/** "3 min ago" for a past time, "in 40 s" for a future one. */
export function relative(iso: string, now: number): string {
  const s = secondsUntil(iso, now);
  return s < 0 ? `${span(-s)} ago` : `in ${span(s)}`;
}

/** The words of a health state, as its badge says them. */
export const STATE_WORD: Record<ReceiverHealth['state'], string> = {
  ok: 'OK',
  failing: 'FAILING',
  unknown: 'No attempts yet',
};

/**
 * How long past its due time a message may wait before it is said to be held back: a working
 * receiver's loop takes due messages within a second or two.
 */
export const HELD_AFTER_S = 15;

/**
 * The next attempt of a failing receiver: "next attempt in 40 s", "retrying now" once due, and
 * "held back 2 min" when it is well past due (the receiver is backed off as a whole, or rate-limited).
 */
export function nextAttempt(h: ReceiverHealth, now: number): string | null {
  if (!h.nextAttemptTime) return null;
  const s = secondsUntil(h.nextAttemptTime, now);
  return s > 0 ? `next attempt in ${span(s)}` : s > -HELD_AFTER_S ? 'retrying now' : `held back ${span(-s)}`;
}

/** "3 attempts failed" */
export const attemptsFailed = (n: number): string => `${n} ${n === 1 ? 'attempt' : 'attempts'} failed`;
