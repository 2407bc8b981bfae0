import { formatTime, MAX_TIME_MS } from '../../shared/alerts.ts';
import type { BlackoutPreview, BlackoutPreviewInput } from '../../shared/blackouts.ts';
import type { Base } from '../deps.ts';
import { appError } from '../errors.ts';
import { checkRule, checkTimezone, defaultStart, describe, occurrences } from './recurrence.ts';

const PREVIEW_COUNT = 5;

/**
 * POST /blackouts/preview (docs/blackouts.md): the occurrences a recurring blackout with these fields
 * would have, checked and defaulted exactly as POST /blackout does, from the one in force now (if
 * any) on, each cut to the series' [startTime, endTime). Nothing is stored
 * (tests/api/blackouts-preview.test.ts).
 */
export function previewBlackout(
  deps: Pick<Base, 'config' | 'clock'>,
  input: BlackoutPreviewInput,
): BlackoutPreview {
  const now = deps.clock.now();
  const rrule = checkRule(input.rrule);
  const timezone = checkTimezone(input.timezone ?? 'UTC');
  const duration = input.duration ?? deps.config.BLACKOUT_DURATION;
  if (duration < 1) {
    const text = 'duration: each occurrence of a recurring blackout must last at least 1 second';
    throw appError('invalid_request', text).with({ errors: [text] });
  }
  const startTime = input.startTime ?? defaultStart(timezone, now, duration);
  const endTime = input.endTime ?? MAX_TIME_MS;
  if (endTime < startTime)
    throw appError('blackout_end_before_start').with({
      errors: [`startTime: ${formatTime(startTime)}`, `endTime: ${formatTime(endTime)}`],
    });
  const series = { rrule, timezone, startTime, endTime, duration };
  // An occurrence that began less than `duration` ago is still in force: it comes first.
  const after = Math.max(startTime, now - duration * 1000 + 1);
  const starts = occurrences(series, after, input.count ?? PREVIEW_COUNT);
  return {
    status: 'ok',
    rrule,
    timezone,
    duration,
    description: describe(series),
    occurrences: starts.map((start) => ({
      startTime: formatTime(Math.max(start, startTime)),
      endTime: formatTime(Math.min(start + duration * 1000, endTime)),
    })),
  };
}
