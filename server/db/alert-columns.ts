import { sql, type SqlToken } from 'slonik';
import {
  FIELD_LIST,
  HISTORY_FIELD_LIST,
  NOTIFIED_FIELDS,
  type HistoryRecord,
  type SqlType,
} from '../domain/alert-fields.ts';
import { finiteTime } from './pool.ts';

// The SQL text of the alert's and the history entry's fields, derived from their field tables
// (domain/alert-fields.ts). Each
// fragment is built once, here at load: `sql.fragment` serializes what it embeds, so a statement
// using one costs what it did when the lists were written out by hand.

type Fragment = ReturnType<typeof sql.fragment>;

const list = (items: readonly SqlToken[]) => sql.fragment`${sql.join(items, sql.fragment`, `)}`;
const column = (table: string, name: string) => sql.identifier([table, name]);

/** Every field of alerts `a` as its record key: the select (and RETURNING) list of an alert. */
export const columns = list(
  FIELD_LIST.map((f) =>
    f.column === f.name
      ? column('a', f.column)
      : sql.fragment`${column('a', f.column)} AS ${sql.identifier([f.name])}`,
  ),
);

/** How a record's value travels in the jsonb rows of `jsonb_to_recordset`: times as epoch ms. */
const RECORDSET_TYPE: Record<SqlType, Fragment> = {
  text: sql.fragment`text`,
  'text[]': sql.fragment`text[]`,
  jsonb: sql.fragment`jsonb`,
  integer: sql.fragment`integer`,
  boolean: sql.fragment`boolean`,
  timestamptz: sql.fragment`float8`,
};

/** The columns a new alert is inserted with: every field (in the order of `insertValues`). */
export const insertColumns = list(FIELD_LIST.map((f) => sql.identifier([f.column])));

/** Each field's value from `v`, a record as `jsonb_to_recordset` reads it with `recordsetTypes`. */
const recordsetValues = (fields: readonly { name: string; sqlType: SqlType }[]) =>
  list(
    fields.map((f) =>
      f.sqlType === 'timestamptz'
        ? sql.fragment`to_timestamp(${column('v', f.name)} / 1000.0)`
        : column('v', f.name),
    ),
  );

/** The column definitions of `jsonb_to_recordset` for records (camelCase keys, times in epoch ms). */
const recordsetTypes = (fields: readonly { name: string; sqlType: SqlType }[]) =>
  list(fields.map((f) => sql.fragment`${sql.identifier([f.name])} ${RECORDSET_TYPE[f.sqlType]}`));

/** Every field's value from `v`, a record as `jsonb_to_recordset` reads it with `recordsetColumns`. */
export const insertValues = recordsetValues(FIELD_LIST);

/** The column definitions of `jsonb_to_recordset` for records (camelCase keys, times in epoch ms). */
export const recordsetColumns = recordsetTypes(FIELD_LIST);

const epochMs = (name: string) => sql.fragment`(extract(epoch FROM ${column('a', name)}) * 1000)::bigint`;

/**
 * The notified copy (NotifiedAlertSchema) built in SQL from alerts `a`, to read: `json`, sent as
 * the text it is built as, where `jsonb`'s output conversion cost more than finding the alert.
 * Migration 0044's trigger builds the same object of a deleted alert (it calls this `snapshotSql`,
 * its earlier name); tests/api/alert-fields.test.ts compares the two.
 */
export const notifiedSnapshot = sql.fragment`json_build_object(${list(
  FIELD_LIST.filter((f) => (NOTIFIED_FIELDS as readonly string[]).includes(f.name)).map((f) => {
    const value =
      f.sqlType === 'timestamptz'
        ? epochMs(f.column)
        : f.sqlType === 'text[]'
          ? sql.fragment`to_jsonb(${column('a', f.column)})`
          : column('a', f.column);
    return sql.fragment`${sql.literalValue(f.name)}, ${value}`;
  }),
)})`;

/** The entry's fields of `alert_history`, qualified by `table` if given, as their record keys. */
const historySelect = (table?: string) =>
  list(
    HISTORY_FIELD_LIST.map((f) => {
      const name = table ? column(table, f.column) : sql.identifier([f.column]);
      return f.column === f.name ? name : sql.fragment`${name} AS ${sql.identifier([f.name])}`;
    }),
  );

/** The select list of a history entry from `alert_history` (unqualified). */
export const historyColumns = historySelect();
/** The select list of a history entry from `alert_history h`. */
export const historyColumnsOfH = historySelect('h');

/**
 * A history entry of `alert_history h` as a json object of its record (time in epoch ms, kept
 * within the years a Date can show): how the receive statements read the alert's prior history.
 */
export const historyJson = sql.fragment`json_build_object(${list(
  HISTORY_FIELD_LIST.map((f) => {
    const value =
      f.sqlType === 'timestamptz'
        ? sql.fragment`extract(epoch FROM ${finiteTime('h', f.column)}) * 1000`
        : column('h', f.column);
    return sql.fragment`${sql.literalValue(f.name)}, ${value}`;
  }),
)})`;

/** The columns a history entry is inserted with (in the order of `historyRow`); the caller adds `alert_id`. */
export const historyInsertColumns = list(HISTORY_FIELD_LIST.map((f) => sql.identifier([f.column])));

/** Every entry field's value from `v`, a record as `jsonb_to_recordset` reads it with `historyRecordsetColumns`. */
export const historyInsertValues = recordsetValues(HISTORY_FIELD_LIST);

/** The column definitions of `jsonb_to_recordset` for history records (times in epoch ms). */
export const historyRecordsetColumns = recordsetTypes(HISTORY_FIELD_LIST);

/**
 * One entry as a VALUES row, each value cast to its column's type. Compiled once from the table
 * into one template literal (see copierOf in domain/alert-fields.ts): the receive path builds a row
 * per entry, and this costs what the row written out did. Names are quoted by JSON.stringify; the
 * casts are the table's SqlTypes.
 */
export const historyRow = new Function(
  'sql',
  `return (e) => sql.fragment\`(${HISTORY_FIELD_LIST.map((f) => {
    const value = `e[${JSON.stringify(f.name)}]`;
    const bound = f.sqlType === 'timestamptz' ? `sql.timestamp(new Date(${value}))` : value;
    return `\${${bound}}::${f.sqlType}`;
  }).join(', ')})\`;`,
)(sql) as (e: HistoryRecord) => Fragment;
