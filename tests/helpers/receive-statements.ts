/**
 * The receive path's statements captured rather than run, and the alerts their plan tests read
 * (tests/api/receive-plans*.test.ts): `router<k>`, event `node_down`, Production, major, open.
 */
import type { CommonQueryMethods } from 'slonik';
import type { Test } from 'uvu';
import type * as receiveDb from '../../server/db/alert-receive.ts';
import type { AlertDraft } from '../../server/domain/alert-types.ts';
import { appSuite, type AppContext } from './app.ts';
import { queryDb } from './db.ts';

export interface Captured {
  sql: string;
  values: readonly unknown[];
}

/** A stand-in for the pool that keeps the statement it is given and answers no rows. */
export function capturing() {
  const seen: Captured[] = [];
  const keep = (q: Captured) => {
    seen.push({ sql: q.sql, values: q.values });
    return Promise.resolve([]);
  };
  const db = {
    any: keep,
    query: keep,
    maybeOne: (q: Captured) => keep(q).then(() => null),
    // A transaction's statements are captured in order, as the function runs them.
    transaction: (work: (tx: unknown) => Promise<unknown>) => work(db),
  };
  return { db: db as unknown as CommonQueryMethods, seen };
}

/** A captured statement's text with slonik's placeholders numbered for PostgreSQL. */
export const numbered = (q: Captured) => q.sql.replace(/\$slonik_(\d+)/g, '$$$1');

/**
 * A suite whose tests share the product on a database of its own holding alerts
 * `alert-1`..`alert-<count>`, with autovacuum off for `alerts` so that no ANALYZE the test did not
 * ask for changes the plans.
 */
export function routerAlertsSuite(name: string, count: number): Test<AppContext> {
  const test = appSuite(name);
  test.before(async (ctx) => {
    await queryDb(ctx.db.url, `ALTER TABLE alerts SET (autovacuum_enabled = false)`);
    await insertRouterAlerts(ctx.db.url, 1, count);
  });
  return test;
}

/** Alerts `alert-<k>` for k in from..to, written straight in SQL (no history, nothing else). */
export function insertRouterAlerts(url: string, from: number, to: number) {
  return queryDb(
    url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, "group", text, tags, attributes,
       origin, type, create_time, timeout, previous_severity, trend_indication, receive_time, last_receive_id,
       last_receive_time, update_time)
     SELECT 'alert-' || k, 'router' || k, 'node_down', 'Production', 'major', 'open', '{network}', 'Misc', '', '{}',
       '{}', 'test', 'exceptionAlert', now(), 86400, 'indeterminate', 'moreSevere', now(), 'receipt-' || k, now(),
       now()
     FROM generate_series(${from}, ${to}) k`,
  );
}

/** What a receipt of alert k looks for. */
export const routerDraft = (k: number) =>
  ({ environment: 'Production', resource: `router${k}`, event: 'node_down', customer: null }) as AlertDraft;

/** Alert k as a plain duplicate's update expects it. */
export const expectedRouter = (k: number) => ({
  id: `alert-${k}`,
  status: 'open',
  severity: 'major',
  event: 'node_down',
});

/** A plain duplicate's update of alert k. */
export const plainUpdate = (k: number): receiveDb.ReceiveUpdate => ({
  event: 'node_down',
  severity: 'major',
  status: 'open',
  service: ['network'],
  value: null,
  text: '',
  timeout: 86400,
  rawData: null,
  tags: [],
  attributes: { notify: true },
  duplicate: 1,
  createTime: Date.now(),
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  lastReceiveId: `receipt-${k}-2`,
  now: Date.now(),
  statusChanged: false,
});

/** A plain duplicate of alert k written without a read: the fields of `plainUpdate`, a later receipt. */
export const directDuplicate = (k: number): receiveDb.DirectDuplicate => {
  const { service, value, text, timeout, rawData, tags, duplicate, now } = plainUpdate(k);
  return {
    id: expectedRouter(k).id,
    identity: routerDraft(k),
    severity: 'major',
    statuses: ['open', 'ack'],
    quiet: ['blackout', 'shelved'],
    sameValue: true,
    update: {
      service,
      value,
      text,
      timeout,
      rawData,
      tags,
      attributes: {},
      duplicate,
      lastReceiveId: `receipt-${k}-3`,
      now,
    },
  };
};
