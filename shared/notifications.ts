import { z } from 'zod';
import { IsoTimeSchema, MAX_LENGTH, noNul, tooLong } from './alerts.ts';

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
  owner: z.string().nullable(),
  ...SourceShape,
});
export type Rule = z.infer<typeof RuleSchema>;

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
  dueTime: IsoTimeSchema,
  attempts: z.number(),
  lastError: z.string().nullable(),
});
export type QueuedNotification = z.infer<typeof QueuedNotificationSchema>;
