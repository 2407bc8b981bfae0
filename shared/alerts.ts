import { z } from 'zod';

/** An ISO 8601 UTC time with milliseconds, as every API datetime is written. */
export const IsoTimeSchema = z.iso.datetime({ offset: false, precision: 3 });

/**
 * The instants an API datetime may hold: years 0001 to 9999 (UTC). PostgreSQL and JavaScript both
 * represent them, and ISO 8601 writes them with four digits; year 0, BC dates and later years do not.
 */
export const MIN_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const MAX_TIME_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
export const TIME_RANGE_MESSAGE = 'dates must be within the years 0001 to 9999 (UTC)';

export const isTimeInRange = (ms: number) => ms >= MIN_TIME_MS && ms <= MAX_TIME_MS;

/** A stored time brought into range: unreadable and earlier times become the first instant, later ones the last. */
export const clampTime = (ms: number) =>
  Number.isNaN(ms) ? MIN_TIME_MS : Math.min(Math.max(ms, MIN_TIME_MS), MAX_TIME_MS);

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let lastDay = NaN;
let lastDayPrefix = '';

/**
 * Epoch ms as the API writes datetimes; never throws, whatever a stored row holds. The same text
 * as `new Date(clampTime(ms)).toISOString()`, about five times faster: the date part is made by a
 * Date only when the day differs from the last call's (a receipt formats some ten times, mostly of
 * one day), the time of day from tables.
 */
export function formatTime(ms: number): string {
  const t = Math.trunc(clampTime(ms)); // a Date drops a fraction of a millisecond toward zero
  const day = Math.floor(t / DAY_MS);
  if (day !== lastDay) {
    lastDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11); // YYYY-MM-DDT
    lastDay = day;
  }
  const inDay = t - day * DAY_MS;
  const seconds = Math.floor(inDay / 1000);
  const minutes = Math.floor(seconds / 60);
  return `${lastDayPrefix}${TWO_DIGITS[Math.floor(minutes / 60)]}:${TWO_DIGITS[minutes % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[inDay % 1000]}Z`;
}

export const HistoryEntrySchema = z.object({
  id: z.string(),
  href: z.string().optional(),
  event: z.string(),
  severity: z.string().nullable(),
  status: z.string().nullable(),
  value: z.string().nullable(),
  text: z.string(),
  type: z.string(),
  updateTime: IsoTimeSchema,
  user: z.string().nullable().optional(),
  timeout: z.number().int().nullable().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** An alert as the API returns it. */
export const AlertSchema = z.object({
  id: z.string(),
  href: z.string(),
  resource: z.string(),
  event: z.string(),
  environment: z.string(),
  severity: z.string(),
  correlate: z.array(z.string()),
  status: z.string(),
  service: z.array(z.string()),
  group: z.string(),
  value: z.string().nullable(),
  text: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  origin: z.string(),
  type: z.string(),
  createTime: IsoTimeSchema,
  timeout: z.number().int().nullable(),
  rawData: z.string().nullable(),
  customer: z.string().nullable(),
  duplicateCount: z.number().int(),
  repeat: z.boolean(),
  previousSeverity: z.string(),
  trendIndication: z.string(),
  receiveTime: IsoTimeSchema,
  lastReceiveId: z.string(),
  lastReceiveTime: IsoTimeSchema,
  updateTime: IsoTimeSchema,
  history: z.array(HistoryEntrySchema),
});
export type Alert = z.infer<typeof AlertSchema>;

/** What travels on the bus and the socket: small, without rawData and history. */
export const LiveAlertSchema = AlertSchema.omit({ rawData: true, history: true });
export type LiveAlert = z.infer<typeof LiveAlertSchema>;

// ---- request bodies ------------------------------------------------------------------------
// Real clients send null for "not given": every optional field accepts null and treats it as absent.

const ISO_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{1,6}Z$/;
const DATE_MESSAGE = 'dates must be ISO 8601 date format YYYY-MM-DDThh:mm:ss.sssZ';
export const MAX_INT32 = 2 ** 31 - 1;

/**
 * Length limits of the fields PostgreSQL indexes (docs/alerts.md, "Field limits"), in characters as
 * JavaScript counts them (UTF-16 units: at most 3 bytes each in UTF-8, and incompressible at worst).
 * A btree index row holds at most 2,704 bytes, and the limits are chosen so that the largest value
 * every limit allows, in all columns of any btree index at once, fits: the widest is the event
 * index (event, service, environment, resource, id, customer and five numbers and times: about
 * 2,540 bytes at these limits), then the alert de-duplication key (environment, resource, event,
 * customer) and the tallies' keys (event, environment, status, severity, service).
 * tests/api/index-limits.test.ts reads every btree index from the catalogue and writes these
 * maxima into all its columns at once; it fails for an index column it cannot fill. Blackouts use
 * the same limits for the same fields; a longer value could never match an alert anyway.
 */
export const MAX_LENGTH = {
  id: 128,
  environment: 64,
  resource: 256,
  event: 200,
  customer: 64,
  severity: 64,
  status: 64,
  origin: 512,
  /** Each element of tags, service and correlate. */
  listItem: 256,
} as const;

/**
 * How many elements the list fields may hold, and how many characters all their elements together.
 * `service` is stored whole in btree indexes (the event index and the tallies' keys), so its total
 * shares their 2,704 bytes (tests/api/index-limits.test.ts); `tags` and `correlate` are only in GIN
 * indexes or none, and are capped so that one alert cannot make every tag list megabytes long.
 */
export const MAX_LIST = {
  service: { items: 16, total: 200 },
  tags: { items: 500, total: 16_384 },
  correlate: { items: 100, total: 8_192 },
} as const;
export type LimitedList = keyof typeof MAX_LIST;

/**
 * Attributes: how many keys, how long a key, and how long the whole object as JSON text. Their
 * GIN index (`jsonb_path_ops`) stores hashes, so these keep rows and answers small, not indexes.
 * `storedBytes` bounds what an alert holds after merges (`attributesOverLimit`): PostgreSQL's JSON
 * text in UTF-8 bytes, where `jsonLength` characters of a request take at most three bytes each.
 */
export const MAX_ATTRIBUTES = {
  count: 256,
  keyLength: 256,
  jsonLength: 65_536,
  storedBytes: 262_144,
} as const;

export const tooLong = (name: string, max: number) => `${name} must be at most ${max} characters`;
/** The refinement that refuses NUL characters in the string field `name`: `.refine(...noNul(name))`. */
export const noNul = (name: string) =>
  [(s: string) => !s.includes('\0'), `${name} must not contain NUL characters`] as const;
export const itemTooLong = (name: string, max: number) => `each of ${name} must be at most ${max} characters`;
export const tooManyItems = (name: string, max: number) => `${name} must have at most ${max} items`;
export const listTooLong = (name: string, max: number) =>
  `${name} must be at most ${max} characters in total`;

/** UTF-8 bytes of a string (each UTF-16 unit is 1 to 3 bytes; a surrogate pair is 4). */
function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * A number as PostgreSQL's jsonb writes it: JavaScript's text of it (what was sent) read as a
 * numeric keeps its digits and writes no exponent (1e+21 is 22 digits, 1.5e-7 is 0.00000015).
 */
function numberText(x: number): string {
  const s = JSON.stringify(x);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const sign = s.startsWith('-') ? '-' : '';
  const mantissa = s.slice(sign.length, e);
  const point = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const at = (point < 0 ? mantissa.length : point) + Number(s.slice(e + 1));
  if (at >= digits.length) return sign + digits + '0'.repeat(at - digits.length);
  if (at <= 0) return `${sign}0.${'0'.repeat(-at)}${digits}`;
  return `${sign}${digits.slice(0, at)}.${digits.slice(at)}`;
}

/**
 * The size in UTF-8 bytes of `value` as PostgreSQL writes a jsonb as text (`octet_length(x::text)`):
 * a space after each `,` and `:`, numbers without exponent. The stored attributes' size limit
 * (MAX_ATTRIBUTES.storedBytes) is measured so in SQL and in JavaScript alike.
 */
export function storedJsonBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === 'string') return utf8Bytes(JSON.stringify(value));
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value).length : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return 2 + items.reduce<number>((n, v, i) => n + storedJsonBytes(v) + (i ? 2 : 0), 0);
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return (
      2 +
      entries.reduce(
        (n, [k, v], i) => n + utf8Bytes(JSON.stringify(k)) + 2 + storedJsonBytes(v) + (i ? 2 : 0),
        0,
      )
    );
  }
  return 4;
}

/**
 * Why an alert's stored tags would be over MAX_LIST.tags (items, or characters together as
 * JavaScript counts them), or null when they are within it. The receive statements decide the same
 * in SQL (server/db/alerts.ts, `tagsWithin`); tests/api/stored-limits.test.ts guards both.
 */
export function tagsOverLimit(tags: readonly string[]): string | null {
  const { items, total } = MAX_LIST.tags;
  if (tags.length > items) return `the alert would have ${tags.length} tags; ${tooManyItems('tags', items)}`;
  const chars = tags.reduce((n, t) => n + t.length, 0);
  if (chars > total) return `the alert's tags would be ${chars} characters; ${listTooLong('tags', total)}`;
  return null;
}

/**
 * Attributes the server sets on every alert (lifecycle §7): they come on top of the senders' keys,
 * so the stored key limit does not count them.
 */
export const SERVER_ATTRIBUTES: readonly string[] = ['notify', 'flapping'];

/**
 * Why an alert's stored attributes (null values already removed) would be over MAX_ATTRIBUTES, or
 * null. The server's own keys (SERVER_ATTRIBUTES) are not counted. Stored, the size is counted as PostgreSQL's JSON text in bytes (`storedJsonBytes`), up to
 * `storedBytes`: the most that a request's `jsonLength` characters can take there. Keys are each
 * checked when they come in. The SQL twin is `attributesWithin` in server/db/alerts.ts.
 */
export function attributesOverLimit(attributes: Record<string, unknown>): string | null {
  const keys = Object.keys(attributes).filter((k) => !SERVER_ATTRIBUTES.includes(k)).length;
  if (keys > MAX_ATTRIBUTES.count) {
    return `the alert would have ${keys} attribute keys; attributes must have at most ${MAX_ATTRIBUTES.count} keys`;
  }
  const bytes = storedJsonBytes(attributes);
  if (bytes > MAX_ATTRIBUTES.storedBytes) {
    return `the alert's attributes would be ${bytes} bytes as stored JSON; attributes must be at most ${MAX_ATTRIBUTES.storedBytes} bytes as stored JSON`;
  }
  return null;
}

/**
 * A list of strings within its field's limits: each element `listItem` characters, the list
 * MAX_LIST's items and total. `item` refines each element (emptiness, NUL characters).
 */
export function limitedList(name: LimitedList, item: z.ZodString, listError = `${name} must be a list`) {
  const { items, total } = MAX_LIST[name];
  return z
    .array(item.max(MAX_LENGTH.listItem, itemTooLong(name, MAX_LENGTH.listItem)), { error: listError })
    .max(items, tooManyItems(name, items))
    .refine((xs) => xs.reduce((n, x) => n + x.length, 0) <= total, listTooLong(name, total));
}

const required = (name: string, max: number) =>
  z
    .string({
      error: (i) => (i.input == null ? `Missing mandatory value for "${name}"` : `${name} must be a string`),
    })
    .min(1, `Missing mandatory value for "${name}"`)
    .max(max, tooLong(name, max));
const optionalString = (name: string, max?: number) => {
  const s = z.string({ error: `${name} must be a string` });
  return (max === undefined ? s : s.max(max, tooLong(name, max))).nullish();
};
const stringList = (name: LimitedList) =>
  limitedList(name, z.string({ error: `${name} must be a list of strings` })).nullish();

/**
 * An input datetime: ISO 8601 with a fraction and Z, as the established server demands; parsed to
 * epoch ms. Days that do not exist (Feb 30) and years outside 0001–9999 are refused.
 */
export const IsoInputTimeSchema = z
  .string({ error: DATE_MESSAGE })
  .regex(ISO_INPUT, DATE_MESSAGE)
  .transform((s, ctx) => {
    const ms = Date.parse(s.replace(/(\.\d{3})\d+Z$/, '$1Z'));
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== s.slice(0, 10)) {
      ctx.addIssue({ code: 'custom', message: DATE_MESSAGE });
      return z.NEVER;
    }
    if (!isTimeInRange(ms)) {
      ctx.addIssue({ code: 'custom', message: TIME_RANGE_MESSAGE });
      return z.NEVER;
    }
    return ms;
  });

export const TimeoutSchema = z
  .number({ error: 'timeout must be an integer' })
  .int('timeout must be an integer')
  .refine((n) => n >= 0, { error: (i) => `Invalid negative 'timeout' value (${String(i.input)})` })
  .refine((n) => n <= MAX_INT32, `timeout must be at most ${MAX_INT32}`);

/**
 * Attribute keys may not hold "." or "$" (the established server breaks on them later); the object
 * stays within MAX_ATTRIBUTES.
 */
export const AttributesSchema = z
  .record(z.string(), z.unknown(), { error: 'attributes must be a JSON object' })
  .refine((a) => Object.keys(a).every((k) => !/[.$]/.test(k)), 'Attribute keys must not contain "." or "$"')
  .refine(
    (a) => Object.keys(a).length <= MAX_ATTRIBUTES.count,
    `attributes must have at most ${MAX_ATTRIBUTES.count} keys`,
  )
  .refine(
    (a) => Object.keys(a).every((k) => k.length <= MAX_ATTRIBUTES.keyLength),
    `each attribute key must be at most ${MAX_ATTRIBUTES.keyLength} characters`,
  )
  .refine(
    (a) => JSON.stringify(a).length <= MAX_ATTRIBUTES.jsonLength,
    `attributes must be at most ${MAX_ATTRIBUTES.jsonLength} characters as JSON`,
  );

/** A customer name as a body may set it (alerts, heartbeats, blackouts, keys, customer lookups). */
export const CustomerNameSchema = z
  .string({ error: 'customer must be a string' })
  .min(1, 'customer must not be an empty string')
  .max(MAX_LENGTH.customer, tooLong('customer', MAX_LENGTH.customer));

/** Alert ids appear in URLs: letters, digits and a few safe marks. */
export const AlertIdSchema = z
  .string({ error: 'id must be a string' })
  .regex(/^[A-Za-z0-9._~:@-]{1,128}$/, 'id must be 1 to 128 letters, digits or ._~:@-');

/** POST /alert, before server defaults (lifecycle §2). Unknown and server-owned fields are ignored. */
export const AlertInputSchema = z.object(
  {
    id: AlertIdSchema.nullish(),
    resource: required('resource', MAX_LENGTH.resource),
    event: required('event', MAX_LENGTH.event),
    environment: optionalString('environment', MAX_LENGTH.environment),
    severity: optionalString('severity', MAX_LENGTH.severity),
    correlate: stringList('correlate'),
    status: optionalString('status', MAX_LENGTH.status),
    service: stringList('service'),
    group: optionalString('group'),
    value: z
      .union([z.string(), z.number(), z.boolean()], { error: 'value must be a string' })
      .nullish()
      .transform((v) => (v == null ? v : String(v))),
    text: optionalString('text'),
    tags: stringList('tags'),
    attributes: AttributesSchema.nullish(),
    origin: optionalString('origin', MAX_LENGTH.origin),
    type: optionalString('type'),
    createTime: IsoInputTimeSchema.nullish(),
    timeout: TimeoutSchema.nullish(),
    rawData: z
      .unknown()
      .transform((v) => (v == null ? null : typeof v === 'string' ? v : JSON.stringify(v)))
      .optional(),
    customer: CustomerNameSchema.nullish(),
  },
  { error: 'expected a JSON object' },
);
export type AlertInput = z.infer<typeof AlertInputSchema>;

/**
 * An action name: an operator action or any custom one, and what a forwarding filter can name
 * (server/config/destinations.ts). Custom actions need no setting (tests/api/custom-actions.test.ts).
 */
export const ACTION_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * A status change or an action (PUT /alert/:id/status, /action and their bulk forms): the mandatory
 * `field`, an optional note and timeout.
 */
const changeSchema = <F extends 'status' | 'action'>(field: F) => {
  const missing = `must supply '${field}' as json data`;
  const text = z.string({ error: missing }).min(1, missing).max(64, `${field} is too long`);
  const value =
    field === 'action'
      ? text.refine((v) => !/[^A-Za-z0-9_.:-]/.test(v), 'action must be letters, digits, _ . : or -')
      : text;
  const rest = {
    text: z.string({ error: 'text must be a string' }).nullish(),
    timeout: TimeoutSchema.nullish(),
  };
  return z.object({ [field]: value, ...rest } as Record<F, typeof value> & typeof rest, { error: missing });
};

export const StatusChangeSchema = changeSchema('status');
export type StatusChange = z.infer<typeof StatusChangeSchema>;

export const ActionSchema = changeSchema('action');
export type Action = z.infer<typeof ActionSchema>;

export const TagsSchema = z.object(
  {
    tags: limitedList(
      'tags',
      z.string({ error: 'tags must be a list of strings' }).min(1, 'tags must not be empty strings'),
      "must supply 'tags' as json list",
    ).min(1, "must supply 'tags' as json list"),
  },
  { error: "must supply 'tags' as json list" },
);

export const AttributesChangeSchema = z.object(
  {
    attributes: AttributesSchema.refine(
      (a) => Object.keys(a).length > 0,
      "must supply 'attributes' as json data",
    ),
  },
  { error: "must supply 'attributes' as json data" },
);

/** PUT /alert/:id/note and /note/:note_id accept `text` or `note`. */
export const NoteInputSchema = z
  .object(
    {
      text: z.string({ error: 'text must be a string' }).nullish(),
      note: z.string({ error: 'note must be a string' }).nullish(),
    },
    { error: "must supply 'note' text" },
  )
  .transform((b) => b.text ?? b.note ?? '')
  .refine((t) => t.length > 0, "must supply 'note' text");

export const NoteSchema = z.object({
  id: z.string(),
  href: z.string(),
  text: z.string(),
  user: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: IsoTimeSchema,
  updateTime: IsoTimeSchema.nullable(),
  related: z.object({ alert: z.string() }),
  _links: z.object({ alert: z.string() }),
  customer: z.string().nullable(),
});
export type Note = z.infer<typeof NoteSchema>;
