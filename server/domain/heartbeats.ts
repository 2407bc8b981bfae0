import { hostname } from 'node:os';
import {
  HEARTBEAT_STATUSES,
  type Heartbeat,
  type HeartbeatInputBody,
  type HeartbeatStatus,
} from '../../shared/heartbeats.ts';
import * as heartbeatsDb from '../db/heartbeats.ts';
import type { HeartbeatField, HeartbeatFilter, HeartbeatSort } from '../db/heartbeats.ts';
import type { Base, Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { presentHeartbeat } from '../present.ts';
import { parseScalar } from './query/conditions.ts';
import { LIST_RESERVED, pageFieldsOf, pagingOf, paramsOf } from './query/params.ts';

const DEFAULT_ORIGIN = `alertwall/${hostname()}`;
/** /management/healthcheck: a heartbeat older than this many timeouts is stale (spec "Limits"). */
const STALE_FACTOR = 4;

/** A heartbeat as a sender submits it, defaults applied (POST /heartbeat or the heartbeat plugin). */
export interface HeartbeatInput {
  origin: string;
  tags: string[];
  attributes: Record<string, unknown>;
  /** Kept from the first receipt; default 'Heartbeat'. */
  type?: string;
  /** Sender's clock, epoch ms. */
  createTime: number;
  timeout: number;
  customer: string | null;
}

/** Who asks: the customers they may see (null = all) and the base of every href. */
export interface HeartbeatCaller {
  customers: readonly string[] | null;
  baseUrl: string;
}

const presentOptions = (deps: Base, baseUrl: string, now: number) => ({
  baseUrl,
  maxLatency: deps.config.HEARTBEAT_MAX_LATENCY,
  now,
});

/** Records that an origin is alive (one heartbeat per origin and customer), then tells live clients. */
export async function receiveHeartbeat(
  deps: Base,
  input: HeartbeatInput,
  baseUrl: string,
): Promise<Heartbeat> {
  const receiveTime = deps.clock.now();
  const row = await heartbeatsDb.upsertHeartbeat(deps.db, { ...input, receiveTime });
  const heartbeat = presentHeartbeat(row, presentOptions(deps, baseUrl, receiveTime));
  await deps.bus.publish({ type: 'heartbeat.updated', heartbeat });
  return heartbeat;
}

/** The customer a new record gets: the caller's wish when allowed, else their only customer (lifecycle §3). */
export function assignCustomer(wanted: string | null | undefined, customers: readonly string[] | null) {
  if (wanted != null) {
    if (customers === null || customers.length === 0 || customers.includes(wanted)) return wanted;
    throw appError('customer_not_allowed', wanted);
  }
  if (customers === null || customers.length === 0) return null;
  if (customers.length === 1) return customers[0]!;
  throw appError('customer_ambiguous');
}

/** POST /heartbeat: server defaults (heartbeats-blackouts.md §1), then the upsert. */
export function submitHeartbeat(
  deps: Deps,
  body: HeartbeatInputBody,
  caller: HeartbeatCaller,
): Promise<Heartbeat> {
  return receiveHeartbeat(
    deps,
    {
      origin: body.origin || DEFAULT_ORIGIN,
      tags: [...new Set(body.tags ?? [])],
      attributes: body.attributes ?? {},
      type: body.type || 'Heartbeat',
      createTime: body.createTime ?? deps.clock.now(),
      timeout: body.timeout ?? deps.config.HEARTBEAT_TIMEOUT,
      customer: assignCustomer(body.customer, caller.customers),
    },
    caller.baseUrl,
  );
}

/** GET /heartbeat/:id (id prefix). */
export async function getHeartbeat(deps: Deps, id: string, caller: HeartbeatCaller): Promise<Heartbeat> {
  const row = await heartbeatsDb.findHeartbeat(deps.db, id, caller.customers);
  if (!row) throw appError('not_found');
  return presentHeartbeat(row, presentOptions(deps, caller.baseUrl, deps.clock.now()));
}

/** DELETE /heartbeat/:id (id prefix), then tells live clients. */
export async function deleteHeartbeat(deps: Deps, id: string, caller: HeartbeatCaller): Promise<void> {
  const row = await heartbeatsDb.findHeartbeat(deps.db, id, caller.customers);
  if (!row || !(await heartbeatsDb.deleteHeartbeat(deps.db, row.id))) throw appError('not_found');
  await deps.bus.publish({ type: 'heartbeat.deleted', id: row.id, customer: row.customer });
}

/** Heartbeats not received for more than 4 × their timeout, oldest first (for the health check). */
export async function staleHeartbeats(deps: Deps): Promise<{ origin: string }[]> {
  return [...(await heartbeatsDb.staleOrigins(deps.db, deps.clock.now(), STALE_FACTOR))];
}

// ---- GET /heartbeats --------------------------------------------------------------------------

const FIELD_NAMES = ['id', 'origin', 'tag', 'type', 'createTime', 'timeout', 'receiveTime', 'customer'];
const FIELD_TYPES: Record<HeartbeatField, 'text' | 'time' | 'int'> = {
  origin: 'text',
  type: 'text',
  customer: 'text',
  createTime: 'time',
  receiveTime: 'time',
  timeout: 'int',
};
const isField = (name: string): name is HeartbeatField => Object.hasOwn(FIELD_TYPES, name);

export interface HeartbeatQuery {
  filters: HeartbeatFilter[];
  statuses: HeartbeatStatus[];
  sort: HeartbeatSort[];
  page: number;
  pageSize: number;
}

/** A filter value typed for its field, with the same checks and messages as alert filters. */
function typedValue(field: HeartbeatField, raw: string, label: string): string | number {
  const ref = { field: { name: field, column: field, type: FIELD_TYPES[field] } };
  return parseScalar(ref, raw, label) as string | number;
}

/** One `name=value…` filter: repeated values mean any of them, `~v` a substring, `name!` negation. */
function filterOf(name: string, values: string[]): HeartbeatFilter {
  const negated = name.endsWith('!');
  const fieldName = negated ? name.slice(0, -1) : name;
  const contains = values.some((v) => v.startsWith('~'));
  const texts = values.map((v) => (v.startsWith('~') ? v.slice(1) : v));
  if (fieldName === 'id' && !negated) return { kind: 'idPrefix', prefixes: values };
  if (fieldName === 'tag') return { kind: 'tag', values: texts, contains, negated };
  if (fieldName.startsWith('attributes.') && fieldName.length > 'attributes.'.length) {
    return {
      kind: 'attribute',
      key: fieldName.slice('attributes.'.length),
      values: texts,
      contains,
      negated,
    };
  }
  if (!isField(fieldName)) {
    throw appError('invalid_filter', name).with({
      errors: [`filters: ${FIELD_NAMES.join(', ')}, attributes.<key>, status (add ! to negate)`],
    });
  }
  if (contains) {
    if (FIELD_TYPES[fieldName] !== 'text') {
      throw appError('filter_not_like', name);
    }
    return { kind: 'like', field: fieldName, values: texts, negated };
  }
  return {
    kind: 'in',
    field: fieldName,
    values: values.map((v) => typedValue(fieldName, v, fieldName)),
    negated,
  };
}

function sortOf(raw: string): HeartbeatSort {
  const inverted = raw.startsWith('-');
  const name = inverted ? raw.slice(1) : raw;
  if (!isField(name)) {
    throw appError('invalid_sort', name).with({
      errors: [`sort-by: ${Object.keys(FIELD_TYPES).join(', ')} (prefix - to invert)`],
    });
  }
  const natural = FIELD_TYPES[name] === 'time'; // times newest first, as for alerts
  return { field: name, descending: inverted ? !natural : natural };
}

/** Parses the GET /heartbeats query string: filters, `status`, sort and paging. */
export function parseHeartbeatQuery(search: URLSearchParams, defaultPageSize: number): HeartbeatQuery {
  const params = paramsOf(search);
  const filters: HeartbeatFilter[] = [];
  for (const [name, values] of params) {
    // `status` is read separately (api.md §7).
    if (name !== 'status' && !LIST_RESERVED.has(name)) filters.push(filterOf(name, values));
  }
  const statuses: HeartbeatStatus[] = [];
  for (const s of (params.get('status') ?? []).flatMap((v) => v.split(','))) {
    const status = s.trim();
    if (status === '') continue;
    if (!(HEARTBEAT_STATUSES as readonly string[]).includes(status)) {
      throw appError('invalid_heartbeat_status', status).with({
        errors: [`status: ${HEARTBEAT_STATUSES.join(', ')}`],
      });
    }
    statuses.push(status as HeartbeatStatus);
  }
  const sort = (params.get('sort-by') ?? []).filter((s) => s !== '').map(sortOf);
  if (sort.length === 0) sort.push({ field: 'receiveTime', descending: true });
  const reverse = params.get('reverse')?.at(-1);
  const flip = reverse !== undefined && ['true', 't', '1', 'yes', 'y', 'on'].includes(reverse.toLowerCase());
  return {
    filters,
    statuses: [...new Set(statuses)],
    sort: flip ? sort.map((s) => ({ ...s, descending: !s.descending })) : sort,
    ...pagingOf(params, defaultPageSize),
  };
}

export interface HeartbeatPage {
  heartbeats: Heartbeat[];
  total: number;
  page: number;
  pageSize: number;
  pages: number;
  more: boolean;
}

/**
 * GET /heartbeats: one page. As in Alerta, `total` (and so `pages`) counts the heartbeats matching
 * every filter except `status` (heartbeats-blackouts.md §1).
 */
export async function listHeartbeats(
  deps: Deps,
  search: URLSearchParams,
  caller: HeartbeatCaller,
): Promise<HeartbeatPage> {
  const query = parseHeartbeatQuery(search, deps.config.DEFAULT_PAGE_SIZE);
  const now = deps.clock.now();
  const selection = { filters: query.filters, customers: caller.customers };
  const total = await heartbeatsDb.countHeartbeats(deps.db, selection);
  const paging = pageFieldsOf(query.page, query.pageSize, total);
  const rows = total
    ? await heartbeatsDb.listHeartbeats(deps.db, selection, {
        statuses: query.statuses,
        basis: { now, maxLatency: deps.config.HEARTBEAT_MAX_LATENCY },
        sort: query.sort,
        page: query.page,
        pageSize: query.pageSize,
      })
    : [];
  const options = presentOptions(deps, caller.baseUrl, now);
  return {
    heartbeats: rows.map((row) => presentHeartbeat(row, options)),
    ...paging,
  };
}
