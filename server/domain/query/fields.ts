import { FIELD_LIST, type SqlType } from '../alert-fields.ts';

/** The alert fields a query may name, with their column and how values compare (api.md §4). */
export type FieldType = 'text' | 'list' | 'json' | 'int' | 'time' | 'bool';

export interface Field {
  /** The JSON name, as the API writes it. */
  readonly name: string;
  /** The database column. */
  readonly column: string;
  readonly type: FieldType;
  /** Natural sort direction (api.md §4): times newest first, everything else ascending. */
  readonly descending?: boolean;
}

/** How a column's values compare. */
const TYPE_OF: Record<SqlType, FieldType> = {
  text: 'text',
  'text[]': 'list',
  jsonb: 'json',
  integer: 'int',
  boolean: 'bool',
  timestamptz: 'time',
};

/** Every field of the alert (domain/alert-fields.ts), in its order. */
export const FIELDS: readonly Field[] = FIELD_LIST.map(({ name, column, sqlType }) =>
  sqlType === 'timestamptz'
    ? { name, column, type: TYPE_OF[sqlType], descending: true }
    : { name, column, type: TYPE_OF[sqlType] },
);

const byName = new Map<string, Field>();
for (const f of FIELDS) {
  byName.set(f.name, f);
  byName.set(f.column, f);
}
byName.set('tag', byName.get('tags')!);

/** A field by its JSON name or column name (`tag` is `tags`). */
export function fieldNamed(name: string): Field | undefined {
  return byName.get(name);
}

/** The JSON names, for error messages. */
export const FIELD_NAMES = FIELDS.map((f) => f.name);

/** A field, or one key of the attributes object (`attributes.<key>`, `_.<key>`). */
export interface FieldRef {
  readonly field: Field;
  readonly key?: string;
}

/** Resolves `name`, `attributes.key` and `_.key`; undefined when unknown. */
export function resolveField(name: string): FieldRef | undefined {
  const dot = name.indexOf('.');
  if (dot > 0) {
    const head = name.slice(0, dot);
    const key = name.slice(dot + 1);
    if ((head === 'attributes' || head === '_') && key) return { field: byName.get('attributes')!, key };
    return undefined;
  }
  const field = byName.get(name);
  return field ? { field } : undefined;
}

/** How a ref's values compare: an attribute key compares as text. */
export const typeOf = (ref: FieldRef): FieldType => (ref.key !== undefined ? 'text' : ref.field.type);
