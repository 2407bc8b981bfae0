import { formatTime, type Alert } from '../../shared/alerts.ts';
import type {
  AlertCount,
  AlertList,
  EnvironmentItem,
  GroupItem,
  HistoryListEntry,
  ServiceItem,
  TagItem,
  TopEntry,
} from '../../shared/queries.ts';
import * as list from '../db/alert-list.ts';
import * as query from '../db/alert-query.ts';
import * as tally from '../db/alert-tally.ts';
import * as top from '../db/top-n.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { presentAlert } from '../present.ts';
import type { Caller } from './caller.ts';
import type { Cond } from './query/conditions.ts';
import { resolveField } from './query/fields.ts';
import {
  assertPageInRange,
  integerParam,
  pageFieldsOf,
  pageSizeOf,
  paramsOf,
  parseAlertQuery,
  type AlertQuery,
} from './query/params.ts';
import { isSwitchOn } from './switches.ts';

const iso = formatTime;

/**
 * The one place a selection is made: the request's conditions plus the caller's customer
 * restriction. Every alert query and bulk operation goes through here (auth fills in customers).
 */
export function selectionFor(
  deps: Deps,
  where: Cond,
  caller: Pick<Caller, 'customers'>,
): Promise<query.Selection> {
  return query.resolveSelection(deps.db, { where, customers: caller.customers });
}

/** Parses a query string the way every alert query endpoint does. */
export function alertQueryOf(deps: Deps, search: URLSearchParams, toDateDefaultsToNow = false): AlertQuery {
  return parseAlertQuery(search, {
    defaultPageSize: deps.config.DEFAULT_PAGE_SIZE,
    defaultField: deps.config.DEFAULT_FIELD,
    now: toDateDefaultsToNow ? deps.clock.now() : undefined,
  });
}

/** Severity names most severe first and statuses in their key order: how "sort by" orders them. */
function sortOrders(deps: Deps): list.SortOrders {
  const { model } = deps;
  return {
    severity: Object.keys(model.severity).sort((a, b) => model.severityRank(a) - model.severityRank(b)),
    status: Object.keys(model.status).sort((a, b) =>
      (model.status[a] ?? '').localeCompare(model.status[b] ?? ''),
    ),
  };
}

interface Counts {
  total: number;
  severityCounts: Record<string, number>;
  statusCounts: Record<string, number>;
}

function countsOf(rows: {
  severity: readonly { name: string; n: number }[];
  status: readonly { name: string; n: number }[];
}): Counts {
  const severityCounts = Object.fromEntries(rows.severity.map((r) => [r.name, r.n]));
  const statusCounts = Object.fromEntries(rows.status.map((r) => [r.name, r.n]));
  const total = rows.severity.reduce((sum, r) => sum + r.n, 0);
  return { total, severityCounts, statusCounts };
}

/** GET /alerts: one page in the requested order, with counts over every match. */
export async function listAlerts(deps: Deps, search: URLSearchParams, caller: Caller): Promise<AlertList> {
  const now = deps.clock.now();
  const q = alertQueryOf(deps, search, true);
  const selection = await selectionFor(deps, q.where, caller);
  const page = { sort: q.sort, limit: q.pageSize, offset: (q.page - 1) * q.pageSize, rawData: q.showRawData };
  // A merged page (severity or status first) reads only the partitions the counts found matches
  // in (a partition without one would otherwise be read to its end), and sorted status first
  // only those its rows can be in.
  const reach = page.offset + page.limit;
  const merged =
    list.mergeColumn(selection, page.sort, reach) !== null ||
    list.rankedLead(selection, page.sort, reach) !== null;
  const counting = tally.countBySeverityAndStatus(deps.db, selection);
  const [rows, countRows, autoRefresh] = await Promise.all([
    merged
      ? counting.then((c) => list.listAlerts(deps.db, selection, page, sortOrders(deps), c))
      : list.listAlerts(deps.db, selection, page, sortOrders(deps)),
    counting,
    isSwitchOn(deps, 'auto-refresh-allow'),
  ]);
  const counts = countsOf(countRows);
  const paging = pageFieldsOf(q.page, q.pageSize, counts.total);
  const histories = q.showHistory
    ? await query.historiesOf(
        deps.db,
        rows.map((r) => r.id),
      )
    : null;
  const alerts: Alert[] = rows.map((r) => presentAlert(r, histories?.get(r.id) ?? [], caller.baseUrl));
  const lastTime = rows.reduce((m, r) => Math.max(m, r.lastReceiveTime), 0) || now;
  return {
    status: 'ok',
    ...(alerts.length === 0 ? { message: 'not found' } : {}),
    alerts,
    ...paging,
    severityCounts: counts.severityCounts,
    statusCounts: counts.statusCounts,
    lastTime: iso(lastTime),
    autoRefresh,
  };
}

/**
 * The page of a live view's snapshot (server/realtime/hub.ts): the alerts `listAlerts` would give
 * for the same query, without history or rawData, and without counting (the hub keeps the view's
 * counts; `total` is what it counts now, for the page-range check).
 */
export async function listViewPage(
  deps: Deps,
  search: URLSearchParams,
  caller: Caller,
  total: number,
): Promise<{ alerts: Omit<Alert, 'rawData' | 'history'>[]; page: number; pageSize: number }> {
  const q = alertQueryOf(deps, search, true);
  assertPageInRange(q.page, Math.ceil(total / q.pageSize), total);
  const selection = await selectionFor(deps, q.where, caller);
  const rows = await list.listAlerts(
    deps.db,
    selection,
    { sort: q.sort, limit: q.pageSize, offset: (q.page - 1) * q.pageSize, rawData: false },
    sortOrders(deps),
  );
  const alerts = rows.map((r) => {
    const { rawData: _r, history: _h, ...alert } = presentAlert(r, [], caller.baseUrl);
    return alert;
  });
  return { alerts, page: q.page, pageSize: q.pageSize };
}

/** GET /alerts/count */
export async function countAlerts(deps: Deps, search: URLSearchParams, caller: Caller): Promise<AlertCount> {
  const q = alertQueryOf(deps, search);
  const counts = countsOf(
    await tally.countBySeverityAndStatus(deps.db, await selectionFor(deps, q.where, caller)),
  );
  return { status: 'ok', ...counts, autoRefresh: await isSwitchOn(deps, 'auto-refresh-allow') };
}

/** GET /alerts/history: history entries of every match, newest first, paged (no 416, as Alerta). */
export async function alertHistory(
  deps: Deps,
  search: URLSearchParams,
  caller: Caller,
): Promise<HistoryListEntry[]> {
  const q = alertQueryOf(deps, search);
  const rows = await query.historyOfSelection(
    deps.db,
    await selectionFor(deps, q.where, caller),
    q.pageSize,
    (q.page - 1) * q.pageSize,
  );
  return rows.map((h) => ({
    id: h.id,
    href: `${caller.baseUrl}/alert/${h.id}`,
    resource: h.resource,
    event: h.event,
    environment: h.environment,
    ...(h.severity ? { severity: h.severity } : {}),
    ...(h.status ? { status: h.status } : {}),
    ...(h.value ? { value: h.value } : {}),
    service: h.service,
    group: h.group,
    text: h.text,
    tags: h.tags,
    attributes: h.attributes,
    origin: h.origin,
    updateTime: iso(h.updateTime),
    user: h.user,
    timeout: h.timeout,
    type: h.type,
    customer: h.customer,
  }));
}

/** Fields top-N reports may group by. */
export const TOP_GROUP_BY = [
  'resource',
  'event',
  'environment',
  'severity',
  'status',
  'service',
  'group',
  'value',
  'origin',
  'type',
  'customer',
] as const;

/**
 * How many groups a top-N answer holds: `topn` on the topn paths (`usesTopn`), else `page-size`
 * (alias `limit`) as on the established server, else 10. The answer is one page: `page` past 1 is
 * 416 `page out of range: 1-1`, as there (tests/api/top-n-size.test.ts).
 */
function topSize(params: Map<string, string[]>, page: number, usesTopn: boolean): number {
  assertPageInRange(page, 1, 1);
  const topn = usesTopn ? params.get('topn')?.at(-1)?.trim() : undefined;
  if (topn) return integerParam(params, 'topn', 10, 1, 1000);
  return pageSizeOf(params) || 10;
}

/** GET /alerts/top10/:variant and /alerts/topn/:variant (`usesTopn` on topn: top10 ignores it). */
export async function topAlerts(
  deps: Deps,
  variant: top.TopVariant,
  search: URLSearchParams,
  caller: Caller,
  usesTopn: boolean,
): Promise<TopEntry[]> {
  const q = alertQueryOf(deps, search);
  const params = paramsOf(search);
  const groupBy = params.get('group-by')?.at(-1) || 'event';
  const ref = (TOP_GROUP_BY as readonly string[]).includes(groupBy) ? resolveField(groupBy) : undefined;
  if (!ref)
    throw appError('invalid_group_by', groupBy).with({ errors: [`group-by: ${TOP_GROUP_BY.join(', ')}`] });
  const size = topSize(params, q.page, usesTopn);
  const rows = await top.topN(deps.db, await selectionFor(deps, q.where, caller), variant, ref, size);
  return rows.map((r) => ({
    count: r.count,
    duplicateCount: r.duplicateCount,
    environments: r.environments,
    services: r.services,
    resources: r.resources.map((x) => ({
      id: x.id,
      resource: x.resource,
      href: `${caller.baseUrl}/alert/${x.id}`,
    })),
    firstCreateTime: new Date(r.firstCreateTime).toISOString(),
    [groupBy]: r.grp,
  }));
}

/** Pages a derived list with the request's page and page-size (416 past the end, as /alerts). */
function pageOf<T>(items: T[], q: AlertQuery) {
  const paging = pageFieldsOf(q.page, q.pageSize, items.length);
  return { items: items.slice((q.page - 1) * q.pageSize, q.page * q.pageSize), ...paging };
}

function addCounts(item: Counts, r: { severity: string; status: string; n: number }) {
  item.total += r.n;
  item.severityCounts[r.severity] = (item.severityCounts[r.severity] ?? 0) + r.n;
  item.statusCounts[r.status] = (item.statusCounts[r.status] ?? 0) + r.n;
}

const noCounts = (): Counts => ({ total: 0, severityCounts: {}, statusCounts: {} });

/**
 * GET /environments: every environment of the caller's alerts with the counts of those matching the
 * filters, 0 where none do (as the established server lists them, e.g. with `status=shelved`).
 */
export async function environments(deps: Deps, search: URLSearchParams, caller: Caller) {
  const q = alertQueryOf(deps, search);
  const selection = await selectionFor(deps, q.where, caller);
  const { counts: rows, known } = await tally.environmentCounts(deps.db, selection);
  const byEnv = new Map<string, Counts>(known.map((e) => [e, noCounts()]));
  for (const r of rows) {
    let c = byEnv.get(r.environment);
    if (!c) byEnv.set(r.environment, (c = noCounts()));
    addCounts(c, r);
  }
  const items: EnvironmentItem[] = [...byEnv.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([environment, c]) => ({
      environment,
      count: c.total,
      severityCounts: c.severityCounts,
      statusCounts: c.statusCounts,
    }));
  return pageOf(items, q);
}

/** GET /services: every (environment, service) pair of the caller's alerts, counted as /environments. */
export async function services(deps: Deps, search: URLSearchParams, caller: Caller) {
  const q = alertQueryOf(deps, search);
  const selection = await selectionFor(deps, q.where, caller);
  const byPair = new Map<string, Counts & { environment: string; service: string }>();
  for (const r of await tally.serviceCounts(deps.db, selection)) {
    const key = JSON.stringify([r.environment, r.service]);
    let c = byPair.get(key);
    if (!c) byPair.set(key, (c = { environment: r.environment, service: r.service, ...noCounts() }));
    if (r.n > 0) addCounts(c, r);
  }
  const items: ServiceItem[] = [...byPair.values()]
    .sort((a, b) => a.environment.localeCompare(b.environment) || a.service.localeCompare(b.service))
    .map((c) => ({
      environment: c.environment,
      service: c.service,
      count: c.total,
      severityCounts: c.severityCounts,
      statusCounts: c.statusCounts,
    }));
  return pageOf(items, q);
}

/** GET /alerts/groups */
export async function groups(deps: Deps, search: URLSearchParams, caller: Caller): Promise<GroupItem[]> {
  const q = alertQueryOf(deps, search);
  const rows = await query.countByGroup(deps.db, await selectionFor(deps, q.where, caller));
  return rows.map((r) => ({ environment: r.environment, group: r.name, count: r.count }));
}

/** GET /tags and /alerts/tags */
export async function tags(deps: Deps, search: URLSearchParams, caller: Caller): Promise<TagItem[]> {
  const q = alertQueryOf(deps, search);
  const rows = await query.countByTag(deps.db, await selectionFor(deps, q.where, caller));
  return rows.map((r) => ({ environment: r.environment, tag: r.name, count: r.count }));
}
