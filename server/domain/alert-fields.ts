import { z } from 'zod';

/**
 * The column types of the alert's fields. A `timestamptz` is epoch milliseconds in a record (the
 * pool's type parser) and ISO 8601 text in the API (present.ts).
 */
export type SqlType = 'text' | 'text[]' | 'jsonb' | 'integer' | 'boolean' | 'timestamptz';

/** A field stored in a column: the alert's and the history entry's (both below). */
export interface ColumnSpec {
  /** The column of its table (snake_case). */
  readonly column: string;
  readonly sqlType: SqlType;
  /** The value in a stored record (db row after the pool's type parsers). */
  readonly row: z.ZodType;
}

/** A field table as a list, in its order, each spec with its name. */
function listOf<T extends Record<string, ColumnSpec>>(table: T) {
  return Object.entries(table).map(([name, spec]) => ({ ...spec, name: name as keyof T & string }));
}

/** The zod object of a field table's stored records (db rows after the pool's type parsers). */
function rowSchemaOf<T extends Record<string, ColumnSpec>>(table: T) {
  const shape = Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, spec.row]));
  return z.object(shape as { [K in keyof T]: T[K]['row'] });
}

export interface FieldSpec extends ColumnSpec {
  /** Set by the sender: part of AlertDraft, what pre-receive plugins see and what is forwarded. */
  readonly submitted?: true;
  /**
   * In the copy of the alert notifications keep and tell (NotifiedAlert). The trigger of migration
   * 0044 writes the same copy of a deleted alert: a field added here needs a migration redefining it.
   */
  readonly notified?: true;
  /** Left out of the live alert (bus and socket); only the full alert shows it. */
  readonly heavy?: true;
}

/**
 * The alert's fields, declared once (docs/architecture.md, "Adding a field to the alert"), in the
 * API's order. The row schema, the record type, the SQL column lists of db/alert-columns.ts, the
 * presenter and the query fields are derived from this table; tests/api/alert-fields.test.ts checks
 * it against the `alerts` table and the API's AlertSchema.
 */
export const ALERT_FIELDS = {
  id: { column: 'id', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  resource: { column: 'resource', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  event: { column: 'event', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  environment: { column: 'environment', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  severity: { column: 'severity', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  correlate: { column: 'correlate', sqlType: 'text[]', row: z.array(z.string()), submitted: true },
  status: { column: 'status', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  service: {
    column: 'service',
    sqlType: 'text[]',
    row: z.array(z.string()),
    submitted: true,
    notified: true,
  },
  group: { column: 'group', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  value: { column: 'value', sqlType: 'text', row: z.string().nullable(), submitted: true, notified: true },
  text: { column: 'text', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  tags: { column: 'tags', sqlType: 'text[]', row: z.array(z.string()), submitted: true, notified: true },
  attributes: {
    column: 'attributes',
    sqlType: 'jsonb',
    row: z.record(z.string(), z.unknown()),
    submitted: true,
    notified: true,
  },
  origin: { column: 'origin', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  type: { column: 'type', sqlType: 'text', row: z.string(), submitted: true, notified: true },
  createTime: {
    column: 'create_time',
    sqlType: 'timestamptz',
    row: z.number(),
    submitted: true,
    notified: true,
  },
  timeout: { column: 'timeout', sqlType: 'integer', row: z.number().nullable(), submitted: true },
  rawData: { column: 'raw_data', sqlType: 'text', row: z.string().nullable(), submitted: true, heavy: true },
  customer: {
    column: 'customer',
    sqlType: 'text',
    row: z.string().nullable(),
    submitted: true,
    notified: true,
  },
  duplicateCount: { column: 'duplicate_count', sqlType: 'integer', row: z.number(), notified: true },
  repeat: { column: 'repeat', sqlType: 'boolean', row: z.boolean() },
  previousSeverity: { column: 'previous_severity', sqlType: 'text', row: z.string() },
  trendIndication: { column: 'trend_indication', sqlType: 'text', row: z.string() },
  receiveTime: { column: 'receive_time', sqlType: 'timestamptz', row: z.number() },
  lastReceiveId: { column: 'last_receive_id', sqlType: 'text', row: z.string() },
  lastReceiveTime: { column: 'last_receive_time', sqlType: 'timestamptz', row: z.number(), notified: true },
  updateTime: { column: 'update_time', sqlType: 'timestamptz', row: z.number() },
} as const satisfies Record<string, FieldSpec>;

/**
 * Columns of `alerts` that are not fields of the alert, and why: the receive and history
 * statements keep them; no record, API answer or query shows them.
 */
export const INTERNAL_COLUMNS: Readonly<Record<string, string>> = {
  severity_entries: 'history entries of type severity (migrations 0041, 0054), for the reports',
  flaps: 'severity entries that changed the severity (migration 0041), for the reports',
};

type Fields = typeof ALERT_FIELDS;
export type AlertField = keyof Fields;
type FieldsWhere<P extends 'submitted' | 'notified' | 'heavy'> = {
  [K in AlertField]: Fields[K] extends Record<P, true> ? K : never;
}[AlertField];

/** A stored alert (times in epoch milliseconds); history is loaded separately. */
export type AlertRecord = { [K in AlertField]: z.infer<Fields[K]['row']> };
export type SubmittedField = FieldsWhere<'submitted'>;
export type NotifiedField = FieldsWhere<'notified'>;
/** The fields of the live alert: all but the heavy ones. */
export type LiveField = Exclude<AlertField, FieldsWhere<'heavy'>>;

/** The table as a list, in its order. */
export const FIELD_LIST: readonly (FieldSpec & { readonly name: AlertField })[] = listOf(ALERT_FIELDS);

const namesWhere = <K extends AlertField>(test: (f: (typeof FIELD_LIST)[number]) => boolean) =>
  FIELD_LIST.filter(test).map((f) => f.name as K);

export const NOTIFIED_FIELDS: readonly NotifiedField[] = namesWhere<NotifiedField>((f) => !!f.notified);
export const SUBMITTED_FIELDS: readonly SubmittedField[] = namesWhere<SubmittedField>((f) => !!f.submitted);

/** The keys of a forwarded alert: what the sender sets but `status`, which the remote decides itself. */
export type ForwardedField = Exclude<SubmittedField, 'status'>;
export const FORWARDED_FIELDS: readonly ForwardedField[] = namesWhere<ForwardedField>(
  (f) => !!f.submitted && f.name !== 'status',
);

/** A stored alert as the `columns` of db/alert-columns.ts read it. */
export const AlertRowSchema = rowSchemaOf(ALERT_FIELDS) satisfies z.ZodType<AlertRecord>;

/** The copy of an alert notifications keep and tell (a copy, so it can still be told after a deletion). */
export const NotifiedAlertSchema = AlertRowSchema.pick(
  Object.fromEntries(NOTIFIED_FIELDS.map((k) => [k, true])) as { [K in NotifiedField]: true },
);
export type NotifiedAlert = z.infer<typeof NotifiedAlertSchema>;

/**
 * A function copying `keys` of a record into a new object, made once: its body is one object
 * literal, so every copy has the same shape and costs what a literal written out does (a loop
 * adding the keys one by one took about four times as long). The keys come from the table above,
 * quoted by JSON.stringify.
 */
export function copierOf<K extends AlertField>(keys: readonly K[]): (a: AlertRecord) => Pick<AlertRecord, K> {
  const body = keys.map((k) => `${JSON.stringify(k)}: a[${JSON.stringify(k)}]`).join(', ');
  return new Function('a', `return { ${body} };`) as (a: AlertRecord) => Pick<AlertRecord, K>;
}

/** The notified copy of a stored record. */
export const notifiedAlert: (a: AlertRecord) => NotifiedAlert = copierOf(NOTIFIED_FIELDS);

/**
 * The history entry's fields, declared once (docs/architecture.md, "Adding a field to the alert"),
 * in the API's order. The row schema, the record type, the SQL of db/alert-columns.ts (select
 * lists, the json of the receive statements, the insert's columns and row) and the presenter are
 * derived from this table; tests/api/history-fields.test.ts checks it against the `alert_history`
 * table and the API's HistoryEntrySchema.
 */
export const HISTORY_FIELDS = {
  id: { column: 'id', sqlType: 'text', row: z.string() },
  event: { column: 'event', sqlType: 'text', row: z.string() },
  severity: { column: 'severity', sqlType: 'text', row: z.string().nullable() },
  status: { column: 'status', sqlType: 'text', row: z.string().nullable() },
  value: { column: 'value', sqlType: 'text', row: z.string().nullable() },
  text: { column: 'text', sqlType: 'text', row: z.string() },
  type: { column: 'type', sqlType: 'text', row: z.string() },
  updateTime: { column: 'update_time', sqlType: 'timestamptz', row: z.number() },
  user: { column: 'user', sqlType: 'text', row: z.string().nullable() },
  timeout: { column: 'timeout', sqlType: 'integer', row: z.number().nullable() },
} as const satisfies Record<string, ColumnSpec>;

/** Columns of `alert_history` that are not fields of the entry, and why. */
export const HISTORY_INTERNAL_COLUMNS: Readonly<Record<string, string>> = {
  seq: 'the order of the entries (newest is greatest), which every read sorts by',
  alert_id: 'the alert the entry belongs to, which every read selects by',
};

type HistoryFields = typeof HISTORY_FIELDS;
export type HistoryField = keyof HistoryFields;

/** A stored history entry (its time in epoch milliseconds). */
export type HistoryRecord = { [K in HistoryField]: z.infer<HistoryFields[K]['row']> };

/** The table as a list, in its order. */
export const HISTORY_FIELD_LIST: readonly (ColumnSpec & { readonly name: HistoryField })[] =
  listOf(HISTORY_FIELDS);

/** A stored entry as the select lists of db/alert-columns.ts read it. */
export const HistoryRowSchema = rowSchemaOf(HISTORY_FIELDS) satisfies z.ZodType<HistoryRecord>;
