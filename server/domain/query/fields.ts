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

export const FIELDS: readonly Field[] = [
  { name: 'id', column: 'id', type: 'text' },
  { name: 'resource', column: 'resource', type: 'text' },
  { name: 'event', column: 'event', type: 'text' },
  { name: 'environment', column: 'environment', type: 'text' },
  { name: 'severity', column: 'severity', type: 'text' },
  { name: 'correlate', column: 'correlate', type: 'list' },
  { name: 'status', column: 'status', type: 'text' },
  { name: 'service', column: 'service', type: 'list' },
  { name: 'group', column: 'group', type: 'text' },
  { name: 'value', column: 'value', type: 'text' },
  { name: 'text', column: 'text', type: 'text' },
  { name: 'tags', column: 'tags', type: 'list' },
  { name: 'attributes', column: 'attributes', type: 'json' },
  { name: 'origin', column: 'origin', type: 'text' },
  { name: 'type', column: 'type', type: 'text' },
  { name: 'createTime', column: 'create_time', type: 'time', descending: true },
  { name: 'timeout', column: 'timeout', type: 'int' },
  { name: 'rawData', column: 'raw_data', type: 'text' },
  { name: 'customer', column: 'customer', type: 'text' },
  { name: 'duplicateCount', column: 'duplicate_count', type: 'int' },
  { name: 'repeat', column: 'repeat', type: 'bool' },
  { name: 'previousSeverity', column: 'previous_severity', type: 'text' },
  { name: 'trendIndication', column: 'trend_indication', type: 'text' },
  { name: 'receiveTime', column: 'receive_time', type: 'time', descending: true },
  { name: 'lastReceiveId', column: 'last_receive_id', type: 'text' },
  { name: 'lastReceiveTime', column: 'last_receive_time', type: 'time', descending: true },
  { name: 'updateTime', column: 'update_time', type: 'time', descending: true },
];

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
