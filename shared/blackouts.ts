import { z } from 'zod';
import {
  CustomerNameSchema,
  IsoInputTimeSchema,
  IsoTimeSchema,
  limitedList,
  MAX_INT32,
  MAX_LENGTH,
  noNul,
  tooLong,
  type LimitedList,
} from './alerts.ts';
import { PagedListShape } from './paging.ts';

const MAX_RULE = 500;

// Real clients send null for "not given" (the CLI sends every field), so optional fields accept null.

/**
 * A string field; `""` is refused the way the established server words it (heartbeats-blackouts.md
 * §2). Fields an alert also has take the alert's length limit (`environment` is indexed).
 */
const nonEmpty = (name: string, max?: number) => {
  const s = z.string({ error: `${name} must be a string` }).min(1, `${name} can not be an empty string`);
  return (max === undefined ? s : s.max(max, tooLong(name, max))).refine(...noNul(name));
};

/** The alert's list limits (MAX_LIST): a blackout's lists are compared with alerts'. */
const stringList = (name: LimitedList) =>
  limitedList(name, z.string({ error: `${name} must be a list of strings` }).refine(...noNul(name)));

/** An RRULE value as typed; the server checks the rule itself (server/domain/recurrence.ts). */
const RuleTextSchema = z
  .string({
    error: (i) => (i.input == null ? 'Missing mandatory value for "rrule"' : 'rrule must be a string'),
  })
  .min(1, 'rrule can not be an empty string')
  .max(MAX_RULE, tooLong('rrule', MAX_RULE))
  .refine(...noNul('rrule'));

/** Every field a blackout body may carry; presence matters on PUT (absent = unchanged, null = cleared). */
const fields = {
  environment: nonEmpty('environment', MAX_LENGTH.environment).nullish(),
  service: stringList('service').nullish(),
  resource: nonEmpty('resource', MAX_LENGTH.resource).nullish(),
  event: nonEmpty('event', MAX_LENGTH.event).nullish(),
  group: nonEmpty('group').nullish(),
  tags: stringList('tags').nullish(),
  origin: nonEmpty('origin', MAX_LENGTH.origin).nullish(),
  customer: CustomerNameSchema.refine(...noNul('customer')).nullish(),
  startTime: IsoInputTimeSchema.nullish(),
  endTime: IsoInputTimeSchema.nullish(),
  duration: z
    .number({ error: 'duration must be an integer' })
    .int('duration must be an integer')
    .min(0, 'duration must not be negative')
    .max(MAX_INT32, `duration must be at most ${MAX_INT32}`)
    .nullish(),
  text: z
    .string({ error: 'text must be a string' })
    .refine(...noNul('text'))
    .nullish(),
  user: z
    .string({ error: 'user must be a string' })
    .refine(...noNul('user'))
    .nullish(),
  /**
   * An RFC 5545 RRULE value (`FREQ=WEEKLY;BYDAY=MO;BYHOUR=18`): the blackout recurs, `duration`
   * is each occurrence's length, startTime/endTime bound the series. The server checks the rule.
   */
  rrule: RuleTextSchema.nullish(),
  /** IANA zone the rule's local times are in (default UTC). */
  timezone: z
    .string({ error: 'timezone must be a string' })
    .min(1, 'timezone can not be an empty string')
    .max(64, tooLong('timezone', 64))
    .refine(...noNul('timezone'))
    .nullish(),
};

/** PUT /blackout/:id: any subset of the fields. */
export const BlackoutUpdateSchema = z.object(fields, { error: 'expected a JSON object' });
export type BlackoutUpdate = z.infer<typeof BlackoutUpdateSchema>;

/** POST /blackout: environment is mandatory (api.md §6). Unknown and server-owned fields are ignored. */
export const BlackoutInputSchema = z.object(
  {
    ...fields,
    environment: z
      .string({
        error: (i) =>
          i.input == null ? 'Missing mandatory value for "environment"' : 'environment must be a string',
      })
      .min(1, 'Missing mandatory value for "environment"')
      .max(MAX_LENGTH.environment, tooLong('environment', MAX_LENGTH.environment))
      .refine(...noNul('environment')),
  },
  { error: 'expected a JSON object' },
);
export type BlackoutInput = z.infer<typeof BlackoutInputSchema>;

/** Blackout ids appear in URLs; a prefix of the id is enough to name one. */
export const BlackoutIdSchema = z
  .string({ error: 'id must be a string' })
  .regex(/^[A-Za-z0-9._~:@-]{1,128}$/, 'id must be 1 to 128 letters, digits or ._~:@-');

export const BlackoutStatusSchema = z.enum(['pending', 'active', 'expired']);
export type BlackoutStatus = z.infer<typeof BlackoutStatusSchema>;

/** A recurring blackout's occurrence now in force, or else its next one. */
export const OccurrenceSchema = z.object({ startTime: IsoTimeSchema, endTime: IsoTimeSchema });

/** What GET answers about a recurring blackout beyond the established fields (docs/blackouts.md). */
export const RecurrenceSchema = z.object({
  /** The rule in words: "every weekday 18:00–08:00 Europe/Berlin". */
  description: z.string(),
  /** Whether an occurrence covers now (status says whether the series is in force). */
  activeNow: z.boolean(),
  /** The current occurrence when activeNow, else the next; null when none is left. */
  occurrence: OccurrenceSchema.nullable(),
  /** Seconds until `occurrence` ends, counted from its start when it is still ahead; 0 without one. */
  remaining: z.number().int(),
});
export type Recurrence = z.infer<typeof RecurrenceSchema>;

/**
 * A blackout as the API returns it (api.md §6). `rrule`, `timezone` and `recurrence` are ours and
 * present only on a recurring blackout, so a one-off one has exactly the established shape.
 */
export const BlackoutSchema = z.object({
  id: z.string(),
  href: z.string(),
  priority: z.number().int(),
  environment: z.string(),
  service: z.array(z.string()),
  resource: z.string().nullable(),
  event: z.string().nullable(),
  group: z.string().nullable(),
  tags: z.array(z.string()),
  origin: z.string().nullable(),
  customer: z.string().nullable(),
  startTime: IsoTimeSchema,
  endTime: IsoTimeSchema,
  duration: z.number().int(),
  status: BlackoutStatusSchema,
  remaining: z.number().int(),
  user: z.string().nullable(),
  createTime: IsoTimeSchema,
  text: z.string(),
  rrule: z.string().optional(),
  timezone: z.string().optional(),
  recurrence: RecurrenceSchema.optional(),
});
export type Blackout = z.infer<typeof BlackoutSchema>;

/** GET /blackouts */
export const BlackoutListSchema = z.object({ ...PagedListShape, blackouts: z.array(BlackoutSchema) });
export type BlackoutList = z.infer<typeof BlackoutListSchema>;

/**
 * POST /blackouts/preview (ours, docs/blackouts.md): the occurrences a recurring blackout with these
 * fields would have, before it is saved. The fields mean what they mean on POST /blackout.
 */
export const BlackoutPreviewInputSchema = z.object(
  {
    rrule: RuleTextSchema,
    timezone: fields.timezone,
    duration: fields.duration,
    startTime: fields.startTime,
    endTime: fields.endTime,
    /** How many occurrences (default 5). */
    count: z
      .number({ error: 'count must be an integer' })
      .int('count must be an integer')
      .min(1, 'count must be at least 1')
      .max(50, 'count must be at most 50')
      .nullish(),
  },
  { error: 'expected a JSON object' },
);
export type BlackoutPreviewInput = z.infer<typeof BlackoutPreviewInputSchema>;

/** The answer: the rule as stored, its words, and the occurrences in force now or next, in order. */
export const BlackoutPreviewSchema = z.object({
  status: z.literal('ok'),
  rrule: z.string(),
  timezone: z.string(),
  duration: z.number().int(),
  description: z.string(),
  occurrences: z.array(OccurrenceSchema),
});
export type BlackoutPreview = z.infer<typeof BlackoutPreviewSchema>;
