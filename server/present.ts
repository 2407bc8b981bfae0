import { formatTime, type Alert, type HistoryEntry, type LiveAlert, type Note } from '../shared/alerts.ts';
import { heartbeatStatus, type Heartbeat } from '../shared/heartbeats.ts';
import type { HeartbeatRow } from './db/heartbeats.ts';
import type { NoteRecord } from './db/notes.ts';
import {
  FIELD_LIST,
  HISTORY_FIELD_LIST,
  type AlertField,
  type ColumnSpec,
  type HistoryField,
  type LiveField,
} from './domain/alert-fields.ts';
import type { AlertRecord, HistoryRecord } from './domain/alert-types.ts';

// Stored rows may hold times outside 0001–9999 (written before validation, or by hand): never throw on them.
const iso = formatTime;

/**
 * A presenter of `fields` of a record made once from its field table: one object literal, times as
 * ISO text (see copierOf in domain/alert-fields.ts for why it is compiled rather than looped).
 * `withHref` adds the alert's href (an entry's id is its receipt's, which the same href finds).
 */
function presenterOf<R>(fields: readonly (ColumnSpec & { readonly name: string })[], withHref: boolean) {
  const value = (f: ColumnSpec & { readonly name: string }) =>
    f.sqlType === 'timestamptz' ? `iso(a[${JSON.stringify(f.name)}])` : `a[${JSON.stringify(f.name)}]`;
  const entries = fields.map((f) => `${JSON.stringify(f.name)}: ${value(f)}`);
  // href comes right after id, as the API has always written it.
  if (withHref) entries.splice(1, 0, 'href: `${baseUrl}/alert/${a.id}`');
  return new Function('a', 'baseUrl', 'iso', `return { ${entries.join(', ')} };`) as (
    a: R,
    baseUrl: string,
    format: typeof iso,
  ) => Record<string, unknown>;
}
const presentLive = presenterOf<AlertRecord>(
  FIELD_LIST.filter((f) => !f.heavy),
  true,
);
const presentHeavy = presenterOf<AlertRecord>(
  FIELD_LIST.filter((f) => f.heavy),
  false,
);
const presentEntry = presenterOf<HistoryRecord>(HISTORY_FIELD_LIST, true);

// The API's alert and history entry have exactly their table's fields besides href (and the
// alert's history): adding a field to one and not the other fails the typecheck here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _apiHasTheFields: Same<keyof Alert, AlertField | 'href' | 'history'> = true;
const _liveHasTheLiveFields: Same<keyof LiveAlert, LiveField | 'href'> = true;
const _entryHasTheFields: Same<keyof HistoryEntry, HistoryField | 'href'> = true;

/** A history entry as the API shows it. */
export function presentHistoryEntry(h: HistoryRecord, baseUrl: string): HistoryEntry {
  return presentEntry(h, baseUrl, iso) as HistoryEntry;
}

/** An alert without its heavy fields (rawData) and history: what live clients receive. */
export function presentLiveAlert(a: AlertRecord, baseUrl: string): LiveAlert {
  return presentLive(a, baseUrl, iso) as LiveAlert;
}

/**
 * The API's alert. `history` is given newest first (as stored) and shown oldest first by
 * updateTime, as the established server does (lifecycle §6).
 */
export function presentAlert(a: AlertRecord, history: readonly HistoryRecord[], baseUrl: string): Alert {
  const ordered = history
    .map((h, i) => ({ h, i }))
    .sort((x, y) => x.h.updateTime - y.h.updateTime || y.i - x.i)
    .map(({ h }) => presentHistoryEntry(h, baseUrl));
  return { ...presentLiveAlert(a, baseUrl), ...presentHeavy(a, baseUrl, iso), history: ordered } as Alert;
}

/** A note as the API shows it (api.md §5). */
export function presentNote(n: NoteRecord, baseUrl: string): Note {
  return {
    id: n.id,
    href: `${baseUrl}/note/${n.id}`,
    text: n.text,
    user: n.user,
    attributes: n.attributes,
    type: n.type,
    createTime: iso(n.createTime),
    updateTime: n.updateTime === null ? null : iso(n.updateTime),
    related: { alert: n.alert ?? '' },
    _links: { alert: `${baseUrl}/alert/${n.alert ?? ''}` },
    customer: n.customer,
  };
}

export interface HeartbeatPresentOptions {
  baseUrl: string;
  /** HEARTBEAT_MAX_LATENCY, in ms. */
  maxLatency: number;
  /** Epoch ms to measure `since` from. */
  now: number;
}

/** The API shape: latency, since and status are worked out at read time (heartbeats-blackouts.md §1). */
export function presentHeartbeat(
  row: HeartbeatRow,
  { baseUrl, maxLatency, now }: HeartbeatPresentOptions,
): Heartbeat {
  const latency = Math.round(row.receiveTime - row.createTime); // negative when the sender's clock is ahead
  const ageMs = now - row.receiveTime;
  const since = Math.max(0, Math.floor(ageMs / 1000));
  const status = heartbeatStatus({ ageMs, timeout: row.timeout, latency, maxLatency });
  return {
    id: row.id,
    href: `${baseUrl}/heartbeat/${row.id}`,
    origin: row.origin,
    tags: row.tags,
    attributes: row.attributes,
    type: row.type,
    createTime: iso(row.createTime),
    timeout: row.timeout,
    customer: row.customer,
    receiveTime: iso(row.receiveTime),
    latency,
    maxLatency,
    since,
    status,
  };
}
