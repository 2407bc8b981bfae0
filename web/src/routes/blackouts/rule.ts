/**
 * The blackouts form's rule builder (docs/ui-pages.md, Blackouts): the common repeats as choices,
 * turned into the RFC 5545 rule the server expands, and a stored rule back into those choices when
 * it is exactly one of them (else it is shown as the raw rule). The server checks and expands every
 * rule; nothing here computes an occurrence.
 */
export type Repeat = 'once' | 'daily' | 'weekdays' | 'weekly' | 'monthly' | 'custom';

export const REPEATS: [Repeat, string][] = [
  ['once', 'Does not repeat'],
  ['daily', 'Every day'],
  ['weekdays', 'Every weekday (Mon–Fri)'],
  ['weekly', 'Weekly on chosen days'],
  ['monthly', 'Monthly on the Nth weekday'],
  ['custom', 'Custom rule (RRULE)'],
];

export const DAYS: [string, string][] = [
  ['MO', 'Mon'],
  ['TU', 'Tue'],
  ['WE', 'Wed'],
  ['TH', 'Thu'],
  ['FR', 'Fri'],
  ['SA', 'Sat'],
  ['SU', 'Sun'],
];
const DAY_NAMES: Record<string, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
export const dayName = (code: string) => DAY_NAMES[code] ?? code;

export const NTHS: [string, string][] = [
  ['1', 'first'],
  ['2', 'second'],
  ['3', 'third'],
  ['4', 'fourth'],
  ['-1', 'last'],
];

const WEEKDAYS = 'MO,TU,WE,TH,FR';

/** What the builder holds (the form's values under these names). */
export interface RuleForm {
  repeat: Repeat;
  /** Time of day the window starts, 24-hour "HH:mm", in the window's zone. */
  at: string;
  /** Weekly: the chosen days (MO…SU). */
  days: string[];
  /** Monthly: which one of the month's `weekday`s (1 to 4, or -1 for the last). */
  nth: string;
  weekday: string;
  /** Custom: the RRULE as typed. */
  rrule: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** The builder's part of the form's values (kept there under these names). */
export const ruleForm = (v: Record<string, unknown>): RuleForm => ({
  repeat: (text(v.repeat) || 'once') as Repeat,
  at: text(v.at),
  days: Array.isArray(v.days) ? v.days.map(String) : [],
  nth: text(v.nth) || '1',
  weekday: text(v.weekday) || 'MO',
  rrule: text(v.rrule),
});

export type Built =
  | { rule: string | null; error?: undefined; field?: undefined }
  | { rule?: undefined; error: string; field: 'at' | 'days' | 'rrule' };

/** The RRULE the choices make (null: does not repeat), or what to fix and in which field. */
export function buildRule(f: RuleForm): Built {
  if (f.repeat === 'once') return { rule: null };
  if (f.repeat === 'custom') {
    const rule = f.rrule.trim();
    return rule
      ? { rule }
      : { error: 'Write an RFC 5545 rule, e.g. FREQ=WEEKLY;BYDAY=SA;BYHOUR=2;BYMINUTE=0', field: 'rrule' };
  }
  const hm = /^(\d{1,2}):(\d{2})$/.exec(f.at.trim());
  if (!hm || Number(hm[1]) > 23 || Number(hm[2]) > 59)
    return { error: 'A time of day, 24-hour, e.g. 18:00', field: 'at' };
  const at = `BYHOUR=${Number(hm[1])};BYMINUTE=${Number(hm[2])}`;
  switch (f.repeat) {
    case 'daily':
      return { rule: `FREQ=DAILY;${at}` };
    case 'weekdays':
      return { rule: `FREQ=WEEKLY;BYDAY=${WEEKDAYS};${at}` };
    case 'weekly': {
      const days = DAYS.map(([d]) => d).filter((d) => f.days.includes(d));
      return days.length
        ? { rule: `FREQ=WEEKLY;BYDAY=${days.join(',')};${at}` }
        : { error: 'Choose at least one day', field: 'days' };
    }
    case 'monthly':
      return { rule: `FREQ=MONTHLY;BYDAY=${f.nth}${f.weekday};${at}` };
  }
}

/** The builder's choices for a stored rule: the one that builds exactly this rule, else the raw rule. */
export function formOfRule(rrule: string, defaults: RuleForm): RuleForm {
  const parts = new Map(rrule.split(';').map((p) => p.split('=', 2) as [string, string]));
  const hour = parts.get('BYHOUR') ?? '';
  const minute = parts.get('BYMINUTE') ?? '';
  const at = `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
  const byday = parts.get('BYDAY') ?? '';
  const monthly = /^(-1|[1-4])(MO|TU|WE|TH|FR|SA|SU)$/.exec(byday);
  const candidates: RuleForm[] = [
    { ...defaults, repeat: 'daily', at },
    { ...defaults, repeat: 'weekdays', at },
    { ...defaults, repeat: 'weekly', at, days: byday.split(',') },
    ...(monthly
      ? [{ ...defaults, repeat: 'monthly' as const, at, nth: monthly[1]!, weekday: monthly[2]! }]
      : []),
  ];
  return candidates.find((c) => buildRule(c).rule === rrule) ?? { ...defaults, repeat: 'custom', rrule };
}
