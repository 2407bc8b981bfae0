import { z } from 'zod';
import { IsoTimeSchema, isTimeInRange, MAX_LENGTH, noNul, tooLong } from './alerts.ts';

// Notification receivers and routing rules (docs/notifications.md). Real clients send null for
// "not given", so optional fields accept null.

export const RECEIVER_TYPES = [
  'slack',
  'mattermost',
  'msteams',
  'webhook',
  'email',
  'pagerduty',
  'opsgenie',
  'telegram',
] as const;
export const ReceiverTypeSchema = z.enum(RECEIVER_TYPES, {
  error: `type must be one of ${RECEIVER_TYPES.join(', ')}`,
});
export type ReceiverType = z.infer<typeof ReceiverTypeSchema>;

/** A receiver or rule name: what CLI commands, rules and history entries call it. */
const NameSchema = z
  .string({ error: 'name must be a string' })
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .regex(/^[\w.@:-]+$/, 'name may hold only letters, digits and . _ - @ :');

/** The customer that owns a receiver or rule (docs/notifications.md, "Customers"); null: global. */
const OwnerSchema = (name: string) =>
  z
    .string({ error: `${name} must be a customer name` })
    .min(1, `${name} must not be an empty string`)
    .max(MAX_LENGTH.customer, tooLong(name, MAX_LENGTH.customer))
    .refine(...noNul(name))
    .nullish();

const SECONDS = (name: string, max: number) =>
  z
    .number({ error: `${name} must be a number of seconds` })
    .int(`${name} must be a whole number of seconds`)
    .min(0, `${name} must not be negative`)
    .max(max, `${name} must be at most ${max}`);

/** The error of a receiver's or rule's body: its unknown fields by name, else that it is no object. */
const objectError = (issue: { code: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' && issue.keys?.length
    ? `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
    : 'expected a JSON object';

/**
 * POST /notifications/receivers. `settings` depend on the type and are checked by the server. An
 * unknown field is a 400, as an unknown setting is (tests/api/notifications.test.ts).
 */
export const ReceiverInputSchema = z.strictObject(
  {
    name: NameSchema,
    type: ReceiverTypeSchema,
    enabled: z.boolean({ error: 'enabled must be true or false' }).nullish(),
    /** Messages (requests) per minute at most; null: no limit. */
    rateLimit: z
      .number({ error: 'rateLimit must be a number' })
      .int('rateLimit must be a whole number')
      .min(1, 'rateLimit must be at least 1')
      .max(100_000)
      .nullish(),
    sendResolved: z.boolean({ error: 'sendResolved must be true or false' }).nullish(),
    settings: z.record(z.string(), z.unknown(), { error: 'settings must be an object' }).nullish(),
    /** The owning customer: a customer's user gets its own; only admins make global ones. */
    customer: OwnerSchema('customer'),
  },
  { error: objectError },
);
export type ReceiverInput = z.infer<typeof ReceiverInputSchema>;

/** PUT /notifications/receivers/:id: any subset; `settings` are merged key by key (null removes a key). */
export const ReceiverUpdateSchema = ReceiverInputSchema.partial();
export type ReceiverUpdate = z.infer<typeof ReceiverUpdateSchema>;

/**
 * Where a receiver or rule comes from: `api` (managed here) or `settings` (from the server's
 * settings, read-only).
 */
const SourceShape = {
  source: z.enum(['api', 'settings']),
  createTime: IsoTimeSchema.nullable(),
  updateTime: IsoTimeSchema.nullable(),
};

/**
 * How a receiver is doing, from every instance's attempts (kept in the database): `unknown` until
 * something was attempted, `failing` from a failed attempt until the next success.
 */
export const ReceiverHealthSchema = z.object({
  state: z.enum(['ok', 'failing', 'unknown']),
  /** A PagerDuty or Opsgenie receiver, or one a rule with `paging` names. */
  paging: z.boolean(),
  lastSuccessTime: IsoTimeSchema.nullable(),
  lastErrorTime: IsoTimeSchema.nullable(),
  lastError: z.string().nullable(),
  /** The first failure after the last success, while failing. */
  failingSince: IsoTimeSchema.nullable(),
  /** Attempts failed since the last success. */
  failedAttempts: z.number(),
  /** Messages waiting for this receiver (every instance's). */
  queued: z.number(),
  /** When the next queued message is due. */
  nextAttemptTime: IsoTimeSchema.nullable(),
});
export type ReceiverHealth = z.infer<typeof ReceiverHealthSchema>;

/** A receiver as the API shows it: secrets in `settings` masked. */
export const ReceiverSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: ReceiverTypeSchema,
  enabled: z.boolean(),
  rateLimit: z.number().nullable(),
  sendResolved: z.boolean(),
  settings: z.record(z.string(), z.unknown()),
  /** The owning customer; null: global. */
  customer: z.string().nullable(),
  /**
   * Secret settings stored under a key that is no longer configured (SECRETS_KEYS): sending fails
   * until they are entered again. Empty when all is well.
   */
  unreadableSecrets: z.array(z.string()),
  health: ReceiverHealthSchema,
  ...SourceShape,
});
export type Receiver = z.infer<typeof ReceiverSchema>;

const pattern = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .min(1, `${name} must not be empty`)
    .max(500)
    .refine(...noNul(name))
    .refine((p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    }, `${name} must be a valid regular expression`);

const patterns = (name: string) => z.array(pattern(name), { error: `${name} must be a list of strings` });

export const EscalationSchema = z.object({
  /** Seconds after the first notification, while the alert stays unacknowledged. */
  after: SECONDS('escalations[].after', 30 * 86_400).min(1, 'escalations[].after must be at least 1'),
  receivers: z.array(NameSchema).min(1, 'escalations[].receivers must name at least one receiver'),
});
export type Escalation = z.infer<typeof EscalationSchema>;

/**
 * The fields of a rule. Matching fields are regular expressions that must match the whole value
 * (a plain name matches itself); an absent one matches everything.
 */
const ruleFields = {
  name: NameSchema,
  /** Rules are tried in ascending priority (then name). */
  priority: z.number({ error: 'priority must be a number' }).int().min(-1_000_000).max(1_000_000).nullish(),
  enabled: z.boolean({ error: 'enabled must be true or false' }).nullish(),
  environment: pattern('environment').nullish(),
  /** Exactly one of these severities. */
  severity: z.array(z.string().min(1), { error: 'severity must be a list of severities' }).nullish(),
  /** At least this severe. */
  minSeverity: z.string({ error: 'minSeverity must be a severity' }).min(1).nullish(),
  service: pattern('service').nullish(),
  group: pattern('group').nullish(),
  event: pattern('event').nullish(),
  resource: pattern('resource').nullish(),
  /** Every pattern must match one of the alert's tags. */
  tags: patterns('tags').nullish(),
  customer: pattern('customer').nullish(),
  receivers: z.array(NameSchema, { error: 'receivers must be a list of receiver names' }),
  /** Keep trying the rules after this one when it matched. */
  continue: z.boolean({ error: 'continue must be true or false' }).nullish(),
  /** Seconds to gather alerts into one message. */
  groupWait: SECONDS('groupWait', 86_400).nullish(),
  /** Seconds between reminders while an alert stays open and unacknowledged; 0 or null: none. */
  repeatInterval: SECONDS('repeatInterval', 30 * 86_400).nullish(),
  escalations: z.array(EscalationSchema, { error: 'escalations must be a list' }).max(10).nullish(),
  /** The rule's receivers (and escalation receivers) are paging ones: the wall shows when they fail. */
  paging: z.boolean({ error: 'paging must be true or false' }).nullish(),
  /**
   * Tell the rule's receivers when a blackout it matches starts and ends (docs/notifications.md,
   * "Blackout notices").
   */
  blackoutNotices: z.boolean({ error: 'blackoutNotices must be true or false' }).nullish(),
  /**
   * The customer that owns the rule: it matches only that customer's alerts and names only that
   * customer's receivers. A customer's user gets its own; only admins make global ones (null).
   */
  owner: OwnerSchema('owner'),
};

/**
 * POST /notifications/rules. An unknown field is a 400: a misspelt matching field left out would
 * make the rule match everything (tests/api/notifications.test.ts).
 */
export const RuleInputSchema = z.strictObject(ruleFields, { error: objectError });
export type RuleInput = z.infer<typeof RuleInputSchema>;

/** PUT /notifications/rules/:id: any subset; null clears a matching field. */
export const RuleUpdateSchema = RuleInputSchema.partial();
export type RuleUpdate = z.infer<typeof RuleUpdateSchema>;

export const RuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  priority: z.number(),
  enabled: z.boolean(),
  environment: z.string().nullable(),
  severity: z.array(z.string()),
  minSeverity: z.string().nullable(),
  service: z.string().nullable(),
  group: z.string().nullable(),
  event: z.string().nullable(),
  resource: z.string().nullable(),
  tags: z.array(z.string()),
  customer: z.string().nullable(),
  receivers: z.array(z.string()),
  continue: z.boolean(),
  groupWait: z.number(),
  repeatInterval: z.number(),
  escalations: z.array(EscalationSchema),
  paging: z.boolean(),
  blackoutNotices: z.boolean(),
  owner: z.string().nullable(),
  ...SourceShape,
});
export type Rule = z.infer<typeof RuleSchema>;

/** The kinds of message a receiver gets when a blackout window starts or ends (a rule's blackoutNotices). */
export const NOTICE_KINDS = ['blackoutStart', 'blackoutEnd'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The kinds of message a receiver gets about an alert. */
export const NOTIFICATION_KINDS = ['trigger', 'repeat', 'escalate', 'ack', 'resolve', 'test'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** POST /notifications/receivers/:id/test answers with what happened. */
export const TestResultSchema = z.object({
  status: z.literal('ok'),
  receiver: z.string(),
  outcome: z.enum(['sent', 'failed', 'rejected']),
  detail: z.string().nullable(),
});
export type TestResult = z.infer<typeof TestResultSchema>;

/** One notification waiting for an alert (GET /alert/:id/notifications). */
export const QueuedNotificationSchema = z.object({
  receiver: z.string(),
  type: z.string(),
  kind: z.string(),
  /** `waiting`: the first attempt is not due yet; `retrying`: at least one attempt failed. */
  state: z.enum(['waiting', 'retrying']),
  /** The next attempt. */
  dueTime: IsoTimeSchema,
  /** Attempts failed so far. */
  attempts: z.number(),
  lastError: z.string().nullable(),
});
export type QueuedNotification = z.infer<typeof QueuedNotificationSchema>;

/** GET /notifications/health and the live `notifications:health` event: what the wall's badge shows. */
export const NotificationHealthSchema = z.object({
  status: z.literal('ok'),
  receivers: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: ReceiverTypeSchema,
      paging: z.boolean(),
      state: ReceiverHealthSchema.shape.state,
      failingSince: IsoTimeSchema.nullable(),
      lastError: z.string().nullable(),
    }),
  ),
  /** Paging receivers failing now. */
  pagingFailing: z.number(),
});
export type NotificationHealth = z.infer<typeof NotificationHealthSchema>;

/** What a delivery was about, as the delivery history names it. */
export const DELIVERY_KINDS = [
  'alert',
  'ack',
  'resolve',
  'reminder',
  'escalation',
  'test',
  'blackoutStart',
  'blackoutEnd',
] as const;
export const DELIVERY_OUTCOMES = ['sent', 'failed', 'rejected', 'expired', 'suppressed'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** One entry of the delivery history: one attempt's outcome for one alert (or a test message). */
export const DeliverySchema = z.object({
  id: z.string(),
  time: IsoTimeSchema,
  receiver: z.object({ id: z.string(), name: z.string(), type: z.string() }),
  rule: z.object({ id: z.string(), name: z.string() }).nullable(),
  alertId: z.string().nullable(),
  /** The blackout a notice (kind blackoutStart or blackoutEnd) was about; null otherwise. */
  blackoutId: z.string().nullable(),
  resource: z.string().nullable(),
  event: z.string().nullable(),
  kind: z.enum(DELIVERY_KINDS),
  outcome: z.enum(DELIVERY_OUTCOMES),
  /** Which attempt this was (1 for the first); 0 for a message suppressed before any. */
  attempt: z.number(),
  error: z.string().nullable(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

const isoParam = (name: string) =>
  z
    .string()
    .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && isTimeInRange(Date.parse(v)), {
      error: `${name} must be an ISO 8601 time from the years 0001 to 9999, e.g. 2026-01-31T12:00:00Z`,
    })
    .transform((v) => Date.parse(v));
const keyParam = (name: string) =>
  z
    .string()
    .min(1, `${name} must not be empty`)
    .max(100, `${name} must be at most 100 characters`)
    .regex(/^[\w.@:-]+$/, `${name} must be an id or a name`);
const intParam = (name: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number from 1 to ${max}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be a whole number from 1 to ${max}`);

/**
 * GET /notifications/deliveries's query: filters (receiver and rule by id or name), paging. An
 * unknown parameter is a 400, so a misspelt filter is not quietly ignored.
 */
export const DeliveriesQuerySchema = z.strictObject(
  {
    receiver: keyParam('receiver').optional(),
    rule: keyParam('rule').optional(),
    alert: z
      .string()
      .min(1, 'alert must not be empty')
      .max(100, 'alert must be at most 100 characters')
      .refine(...noNul('alert'))
      .optional(),
    outcome: z
      .enum(DELIVERY_OUTCOMES, { error: `outcome must be one of ${DELIVERY_OUTCOMES.join(', ')}` })
      .optional(),
    from: isoParam('from').optional(),
    to: isoParam('to').optional(),
    page: intParam('page', 1_000_000).optional(),
    'page-size': intParam('page-size', 1000).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown parameter${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
        : undefined,
  },
);
export type DeliveriesQuery = z.infer<typeof DeliveriesQuerySchema>;

/** GET /notifications/deliveries: a page of the history, newest first. */
export const DeliveriesPageSchema = z.object({
  status: z.literal('ok'),
  deliveries: z.array(DeliverySchema),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  pages: z.number(),
  more: z.boolean(),
});
export type DeliveriesPage = z.infer<typeof DeliveriesPageSchema>;
