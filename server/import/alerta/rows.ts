/**
 * Rows of an Alerta 9.x database (read as `to_jsonb(row)`, timestamps as UTC text without a zone)
 * turned into rows of ours, or refused with a reason. Each row is checked with the schemas our API
 * checks requests with (shared/*.ts), so an imported row holds only what a request could have
 * stored: no second copy of the rules. Defaults for columns Alerta leaves NULL are the ones the
 * established server reads them as (docs/switching.md, "What the import keeps").
 * tests/api/import-alerta.test.ts covers each table and the odd rows.
 */
import type { z } from 'zod';
import { AlertInputSchema, MAX_LENGTH, isTimeInRange } from '../../../shared/alerts.ts';
import {
  AlertRowSchema,
  HistoryRowSchema,
  type AlertRecord,
  type HistoryRecord,
} from '../../domain/alert-fields.ts';
import { BlackoutInputSchema } from '../../../shared/blackouts.ts';
import { HeartbeatInputSchema } from '../../../shared/heartbeats.ts';
import { isUuid } from '../../db/rows.ts';

export type Source = Record<string, unknown>;
export type Mapped<T> = { row: T } | { refused: string };

/** Settings the mapping needs: our history limit and the heartbeat timeout a NULL one reads as. */
export interface MapSettings {
  readonly historyLimit: number;
  readonly heartbeatTimeout: number;
  /** History entries before this time (epoch ms) are left out (`--since`). */
  readonly since: number | null;
}

/** A `timestamp without time zone` from to_jsonb (UTC, up to microseconds) in epoch ms, or null. */
export function utcMs(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(ms) || !isTimeInRange(ms) ? null : Math.floor(ms);
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const list = (v: unknown): unknown => (v === null || v === undefined ? [] : v);
export const obj = (v: unknown): unknown => (v === null || v === undefined ? {} : v);

/** The first problem zod found, as `field: message`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

export function uuidOf(row: Source): string | null {
  const id = str(row.id);
  return id !== null && isUuid(id) ? id.toLowerCase() : null;
}
export const notUuid = (row: Source) => ({ refused: `id ${JSON.stringify(row.id)} is not a UUID` });

/** An alert and its history (oldest entry first, the order our `seq` keeps), as our records. */
export interface ImportedAlert {
  readonly alert: AlertRecord;
  readonly history: HistoryRecord[];
  /** Entries older than `--since`, or beyond our HISTORY_LIMIT, left out. */
  readonly historyLeftOut: number;
}

/** Alerta's history array, newest first, as entries of ours, oldest first. */
function historyOf(
  row: Source,
  alertId: string,
  event: string,
  settings: MapSettings,
): Mapped<HistoryRecord[]> {
  const raw = row.history;
  if (raw !== null && raw !== undefined && !Array.isArray(raw)) return { refused: 'history is not an array' };
  const entries = (raw ?? []) as unknown[];
  const out: HistoryRecord[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = (entries[i] ?? {}) as Source;
    const updateTime = utcMs(e.update_time);
    const where = `history entry ${i + 1}`;
    if (updateTime === null) return { refused: `${where}: update_time is missing or out of range` };
    if (settings.since !== null && updateTime < settings.since) continue;
    const checked = HistoryRowSchema.safeParse({
      id: str(e.id) ?? alertId,
      event: str(e.event) ?? event,
      severity: str(e.severity),
      status: str(e.status),
      value: str(e.value),
      text: str(e.text) ?? '',
      type: str(e.type) ?? 'severity',
      updateTime,
      user: str(e.user),
      timeout: typeof e.timeout === 'number' ? e.timeout : null,
    });
    if (!checked.success) return { refused: `${where}: ${firstIssue(checked.error)}` };
    out.push(checked.data);
  }
  return { row: out };
}

/** The fields the server keeps of an alert (not sent by its source), with their NULL defaults. */
const KeptSchema = AlertRowSchema.pick({
  duplicateCount: true,
  repeat: true,
  previousSeverity: true,
  trendIndication: true,
  lastReceiveId: true,
});

export function mapAlert(row: Source, settings: MapSettings): Mapped<ImportedAlert> {
  const createTime = utcMs(row.create_time);
  const receiveTime = utcMs(row.receive_time) ?? createTime;
  const lastReceiveTime = utcMs(row.last_receive_time) ?? receiveTime;
  const updateTime = utcMs(row.update_time) ?? lastReceiveTime;
  if (createTime === null || receiveTime === null || lastReceiveTime === null || updateTime === null) {
    return { refused: 'create_time is missing or out of range' };
  }
  const submitted = AlertInputSchema.safeParse({
    id: row.id,
    resource: row.resource,
    event: row.event,
    environment: str(row.environment) ?? '',
    severity: row.severity,
    correlate: list(row.correlate),
    status: row.status,
    service: list(row.service),
    group: row.group ?? 'Misc',
    value: row.value,
    text: row.text ?? '',
    tags: list(row.tags),
    attributes: obj(row.attributes),
    origin: row.origin ?? '',
    type: row.type ?? '',
    createTime: iso(createTime),
    timeout: row.timeout,
    rawData: row.raw_data,
    customer: row.customer,
  });
  if (!submitted.success) return { refused: firstIssue(submitted.error) };
  const a = submitted.data;
  if (!a.severity) return { refused: 'severity is missing' };
  if (!a.status) return { refused: 'status is missing' };
  const id = a.id!;
  const kept = KeptSchema.safeParse({
    duplicateCount: row.duplicate_count ?? 0,
    repeat: row.repeat ?? false,
    previousSeverity: row.previous_severity ?? 'indeterminate',
    trendIndication: row.trend_indication ?? 'noChange',
    lastReceiveId: row.last_receive_id ?? id,
  });
  if (!kept.success) return { refused: firstIssue(kept.error) };
  const k = kept.data;
  if (k.previousSeverity.length > MAX_LENGTH.severity) return { refused: 'previous_severity is too long' };
  if (k.lastReceiveId.length > MAX_LENGTH.id) return { refused: 'last_receive_id is too long' };
  const history = historyOf(row, id, a.event, settings);
  if ('refused' in history) return history;
  const entries = history.row;
  const keep = entries.slice(Math.max(0, entries.length - settings.historyLimit));
  const total = Array.isArray(row.history) ? row.history.length : 0;
  return {
    row: {
      alert: {
        id,
        resource: a.resource,
        event: a.event,
        environment: a.environment ?? '',
        severity: a.severity,
        correlate: a.correlate ?? [],
        status: a.status,
        service: a.service ?? [],
        group: a.group ?? 'Misc',
        value: a.value ?? null,
        text: a.text ?? '',
        tags: a.tags ?? [],
        attributes: a.attributes ?? {},
        origin: a.origin ?? '',
        type: a.type ?? '',
        createTime,
        timeout: a.timeout ?? null,
        rawData: a.rawData ?? null,
        customer: a.customer ?? null,
        ...k,
        receiveTime,
        lastReceiveTime,
        updateTime,
      },
      history: keep,
      historyLeftOut: total - keep.length,
    },
  };
}

export interface NoteRow {
  readonly id: string;
  readonly text: string;
  readonly user: string | null;
  readonly attributes: Record<string, unknown>;
  readonly type: string;
  readonly create_time: string;
  readonly update_time: string | null;
  readonly alert: string | null;
  readonly customer: string | null;
}

export function mapNote(row: Source): Mapped<NoteRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const createTime = utcMs(row.create_time);
  if (createTime === null) return { refused: 'create_time is missing or out of range' };
  const attributes = obj(row.attributes);
  if (typeof attributes !== 'object' || Array.isArray(attributes))
    return { refused: 'attributes is not an object' };
  return {
    row: {
      id,
      text: str(row.text) ?? '',
      user: str(row.user),
      attributes: attributes as Record<string, unknown>,
      type: str(row.type) ?? 'alert',
      create_time: iso(createTime)!,
      update_time: iso(utcMs(row.update_time)),
      alert: str(row.alert),
      customer: str(row.customer),
    },
  };
}

export interface BlackoutRow {
  readonly id: string;
  readonly priority: number;
  readonly environment: string;
  readonly service: string[];
  readonly resource: string | null;
  readonly event: string | null;
  readonly group: string | null;
  readonly origin: string | null;
  readonly tags: string[];
  readonly customer: string | null;
  readonly start_time: string;
  readonly end_time: string;
  readonly duration: number | null;
  readonly user: string | null;
  readonly create_time: string;
  readonly text: string;
}

export function mapBlackout(row: Source): Mapped<BlackoutRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const start = utcMs(row.start_time);
  const end = utcMs(row.end_time);
  if (start === null || end === null) return { refused: 'start_time or end_time is missing or out of range' };
  const checked = BlackoutInputSchema.safeParse({
    environment: row.environment,
    service: list(row.service),
    resource: row.resource,
    event: row.event,
    group: row.group,
    tags: list(row.tags),
    origin: row.origin,
    customer: row.customer,
    startTime: iso(start),
    endTime: iso(end),
    duration: row.duration,
    text: row.text ?? '',
    user: row.user,
  });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  const b = checked.data;
  const priority = typeof row.priority === 'number' ? row.priority : 1;
  return {
    row: {
      id,
      priority,
      environment: b.environment,
      service: b.service ?? [],
      resource: b.resource ?? null,
      event: b.event ?? null,
      group: b.group ?? null,
      origin: b.origin ?? null,
      tags: b.tags ?? [],
      customer: b.customer ?? null,
      start_time: iso(start)!,
      end_time: iso(end)!,
      duration: b.duration ?? null,
      user: b.user ?? null,
      create_time: iso(utcMs(row.create_time) ?? start)!,
      text: b.text ?? '',
    },
  };
}

export interface HeartbeatRow {
  readonly id: string;
  readonly origin: string;
  readonly tags: string[];
  readonly attributes: Record<string, unknown>;
  readonly type: string;
  readonly create_time: string;
  readonly receive_time: string;
  readonly timeout: number;
  readonly customer: string | null;
}

export function mapHeartbeat(row: Source, settings: MapSettings): Mapped<HeartbeatRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const createTime = utcMs(row.create_time) ?? utcMs(row.receive_time);
  const receiveTime = utcMs(row.receive_time) ?? createTime;
  if (createTime === null || receiveTime === null)
    return { refused: 'create_time is missing or out of range' };
  const checked = HeartbeatInputSchema.safeParse({
    origin: row.origin,
    tags: list(row.tags),
    attributes: obj(row.attributes),
    type: row.type ?? 'Heartbeat',
    createTime: iso(createTime),
    timeout: row.timeout ?? settings.heartbeatTimeout,
    customer: row.customer,
  });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  const h = checked.data;
  if (!h.origin) return { refused: 'origin is missing' };
  return {
    row: {
      id,
      origin: h.origin,
      tags: h.tags ?? [],
      attributes: h.attributes ?? {},
      type: h.type ?? 'Heartbeat',
      create_time: iso(createTime)!,
      receive_time: iso(receiveTime)!,
      timeout: h.timeout ?? settings.heartbeatTimeout,
      customer: h.customer ?? null,
    },
  };
}
