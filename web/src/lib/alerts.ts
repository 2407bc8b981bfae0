import type { LiveAlert } from '../../../shared/alerts.ts';

export const TIME_FIELDS: ReadonlySet<string> = new Set([
  'createTime',
  'receiveTime',
  'lastReceiveTime',
  'updateTime',
]);
const STATUS_ORDER = ['open', 'assign', 'ack', 'shelved', 'blackout', 'closed', 'expired', 'unknown'];

/**
 * Alerts in the order of `sort-by` keys, as the API sorts them (api.md §4): severity most severe
 * first, status in its key order, times newest first, anything else ascending; `-` inverts a key.
 * The default is the console's: most severe first, then newest first.
 */
export function sortAlerts(
  alerts: Iterable<LiveAlert>,
  severities: string[],
  keys: string[] = ['severity', 'lastReceiveTime'],
): LiveAlert[] {
  return [...alerts].sort(alertOrder(severities, keys));
}

/** The comparison behind sortAlerts. */
export function alertOrder(
  severities: string[],
  keys: string[] = ['severity', 'lastReceiveTime'],
): (a: LiveAlert, b: LiveAlert) => number {
  const rank = new Map(severities.map((s, i) => [s, i]));
  const compare = keys.map((raw) => {
    const inverted = raw.startsWith('-');
    const field = inverted ? raw.slice(1) : raw;
    const sign = (TIME_FIELDS.has(field) ? -1 : 1) * (inverted ? -1 : 1);
    const value = (a: LiveAlert): string | number => {
      const v = fieldValue(a, field);
      if (field === 'severity') return rank.get(a.severity) ?? severities.length;
      if (field === 'status') {
        const i = STATUS_ORDER.indexOf(a.status);
        return i < 0 ? STATUS_ORDER.length : i;
      }
      return typeof v === 'number' ? v : Array.isArray(v) ? v.join(',') : textOf(v);
    };
    return (a: LiveAlert, b: LiveAlert) => {
      const x = value(a);
      const y = value(b);
      return sign * (x < y ? -1 : x > y ? 1 : 0);
    };
  });
  return (a, b) => {
    for (const c of compare) {
      const r = c(a, b);
      if (r) return r;
    }
    return a.id.localeCompare(b.id);
  };
}

/** "12s", "5m", "3h", "2d": how long ago. */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A field of an alert by its API name, `attributes.<key>` included (`tag` is `tags`). */
export function fieldValue(a: LiveAlert, field: string): unknown {
  if (field.startsWith('attributes.')) return a.attributes[field.slice('attributes.'.length)];
  return (a as unknown as Record<string, unknown>)[field === 'tag' ? 'tags' : field];
}

/** Any value as plain text: lists joined with commas, objects as JSON, nothing as ''. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(textOf).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * When the current ack or shelve of an alert ends (epoch ms; null: never), from its history: the
 * newest `ack` / `shelve` entry with that status (else the newest entry with that status, a PUT
 * /status), its time plus its timeout, or `fallback` (`/config timeouts`) when it has none — the
 * rule housekeeping applies. Undefined for other statuses, or without such an entry.
 */
export function statusEnds(
  status: string,
  history: readonly { type: string; status: string | null; updateTime: string; timeout?: number | null }[],
  fallback: { ack: number; shelve: number },
): number | null | undefined {
  if (status !== 'ack' && status !== 'shelved') return undefined;
  const type = status === 'ack' ? 'ack' : 'shelve';
  const newest = (pred: (h: (typeof history)[number]) => boolean) =>
    history.reduce<(typeof history)[number] | undefined>(
      (best, h) => (pred(h) && (!best || h.updateTime >= best.updateTime) ? h : best),
      undefined,
    );
  const entry = newest((h) => h.type === type && h.status === status) ?? newest((h) => h.status === status);
  if (!entry) return undefined;
  const timeout = entry.timeout ?? (status === 'ack' ? fallback.ack : fallback.shelve);
  return timeout > 0 ? Date.parse(entry.updateTime) + timeout * 1000 : null;
}

/**
 * Seconds until an alert times out. An acked or shelved alert ends its ack or shelve at
 * `statusEnd` (statusEnds; null: never, undefined: not known yet, shown as nothing rather than a
 * wrong figure); any other alert times out `timeout` seconds after its last receipt. Null when it
 * never times out (or, acked or shelved, while its end is not known).
 */
export function timeoutLeft(a: LiveAlert, now: number, statusEnd?: number | null): number | null {
  if (a.status === 'ack' || a.status === 'shelved') {
    return typeof statusEnd === 'number' ? Math.max(0, Math.floor((statusEnd - now) / 1000)) : null;
  }
  if (!a.timeout) return null;
  return Math.max(0, Math.floor((Date.parse(a.lastReceiveTime) + a.timeout * 1000 - now) / 1000));
}

/** "0:04:05", "1d 02:03:04": a timeout left. */
export function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return d ? `${d}d ${two(h)}:${two(m)}:${two(s)}` : `${h}:${two(m)}:${two(s)}`;
}

/** "30 min", "4 h", "2 d": an action timeout for menus. 0 is the server's own default. */
export function durationLabel(seconds: number): string {
  if (seconds <= 0) return 'no timeout';
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Column names alerta-webui knows (`/config columns`), with their headings; any other name is an attribute. */
export const COLUMN_LABELS: Readonly<Record<string, string>> = {
  id: 'Alert ID',
  resource: 'Resource',
  event: 'Event',
  environment: 'Environment',
  severity: 'Severity',
  correlate: 'Correlate',
  status: 'Status',
  service: 'Service',
  group: 'Group',
  value: 'Value',
  text: 'Description',
  tags: 'Tags',
  origin: 'Origin',
  type: 'Type',
  createTime: 'Create time',
  timeout: 'Timeout',
  timeoutLeft: 'Timeout left',
  customer: 'Customer',
  duplicateCount: 'Dupl.',
  repeat: 'Repeat',
  previousSeverity: 'Previous severity',
  trendIndication: 'Trend',
  receiveTime: 'Receive time',
  lastReceiveId: 'Last receive ID',
  lastReceiveTime: 'Last receive',
  updateTime: 'Update time',
};

/**
 * Column widths in em of the table's font, for a fixed table layout (columns never move while the
 * list scrolls, docs/ui-console.md). Absent: resource, event, text and the like share what is left,
 * at least FLEX_MIN each; an attribute column is ATTRIBUTE_WIDTH.
 */
export const COLUMN_WIDTHS: Readonly<Record<string, number>> = {
  severity: 7,
  status: 6,
  lastReceiveTime: 10.5,
  createTime: 10.5,
  receiveTime: 10.5,
  updateTime: 10.5,
  timeoutLeft: 8,
  duplicateCount: 3.5,
  timeout: 5,
  customer: 8,
  environment: 8.5,
  service: 8,
  group: 8,
  origin: 9,
  type: 8,
  value: 6,
  trendIndication: 6.5,
  previousSeverity: 6.5,
  repeat: 4,
  id: 7,
  lastReceiveId: 7,
  tags: 8,
  correlate: 8,
};
const FLEXIBLE: ReadonlySet<string> = new Set(['resource', 'event', 'text']);
export const FLEX_MIN = 9;
export const ATTRIBUTE_WIDTH = 8;

/** A column's fixed width in em, or null for one that takes a share of the rest. */
export function columnWidth(name: string): number | null {
  if (FLEXIBLE.has(name)) return null;
  return COLUMN_WIDTHS[name] ?? ATTRIBUTE_WIDTH;
}

/** The heading of a column; an unknown name is the attribute of that name. */
export const columnLabel = (name: string): string => COLUMN_LABELS[name] ?? name;

/** The sort key a column header sets (null: the column cannot be sorted by the API). */
export function columnSortKey(name: string): string | null {
  if (name === 'timeoutLeft') return null;
  return name in COLUMN_LABELS ? name : `attributes.${name}`;
}

/**
 * The text of one cell: times through `time` (the /config dates format and the user's zone),
 * timeoutLeft counted down from `now` (to `statusEnd` when acked or shelved), unknown names from
 * `attributes.<name>` as plain text.
 */
export function cellText(
  a: LiveAlert,
  name: string,
  now: number,
  time: (iso: string) => string,
  statusEnd?: number | null,
): string {
  if (name === 'timeoutLeft') {
    const left = timeoutLeft(a, now, statusEnd);
    return left === null ? '' : formatDuration(left);
  }
  if (TIME_FIELDS.has(name)) return time(fieldValue(a, name) as string);
  if (name === 'service' || name === 'tags' || name === 'correlate')
    return (fieldValue(a, name) as string[]).join(', ');
  return textOf(name in COLUMN_LABELS ? fieldValue(a, name) : a.attributes[name]);
}

/** The fields of an alert summary in the API's order: the CSV's columns before the attributes. */
export const CSV_FIELDS = [
  'id',
  'resource',
  'event',
  'environment',
  'severity',
  'correlate',
  'status',
  'service',
  'group',
  'value',
  'text',
  'tags',
  'origin',
  'type',
  'createTime',
  'timeout',
  'customer',
  'duplicateCount',
  'repeat',
  'previousSeverity',
  'trendIndication',
  'receiveTime',
  'lastReceiveId',
  'lastReceiveTime',
  'updateTime',
] as const;

/**
 * Alerts as CSV (wall-display.md §5): the summary fields, lists joined with commas, then one
 * `attributes.<key>` column per attribute key found; UTF-8 with a byte-order mark for spreadsheets.
 */
export function alertsCsv(alerts: readonly LiveAlert[]): string {
  const keys = [...new Set(alerts.flatMap((a) => Object.keys(a.attributes)))].sort();
  const header = [...CSV_FIELDS, ...keys.map((k) => `attributes.${k}`)];
  const cell = (v: unknown) => {
    const t = textOf(v);
    return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  const lines = alerts.map((a) =>
    [...CSV_FIELDS.map((f) => cell(fieldValue(a, f))), ...keys.map((k) => cell(a.attributes[k]))].join(','),
  );
  return `\uFEFF${[header.join(','), ...lines].join('\r\n')}\r\n`;
}
