import { sql } from 'slonik';
import * as assert from 'uvu/assert';
import { HistoryEntrySchema } from '../../shared/alerts.ts';
import { historiesOf, historyOfSelection } from '../../server/db/alert-query.ts';
import { insertNew } from '../../server/db/alert-receive.ts';
import { applyPatch, historyOf } from '../../server/db/alerts.ts';
import {
  HISTORY_FIELD_LIST,
  HISTORY_INTERNAL_COLUMNS,
  type AlertRecord,
  type HistoryRecord,
} from '../../server/domain/alert-fields.ts';
import { presentAlert, presentHistoryEntry } from '../../server/present.ts';
import { appSuite } from '../helpers/app.ts';
import { assertMatchesCatalogue } from '../helpers/field-table.ts';

/**
 * The history entry's fields are declared once, as HISTORY_FIELDS in server/domain/alert-fields.ts
 * (docs/architecture.md, "Adding a field to the alert"): the table must match the `alert_history`
 * table of the migrations and the API's HistoryEntrySchema, and every field must survive the
 * write, each read and the presenter.
 */

const fields = appSuite('history fields', { TEST_LABEL: 'histfields', PLUGINS: 'remote_ip' });

const alert: AlertRecord = {
  id: 'f1e1d000-0000-4000-8000-0000000000a1',
  resource: 'histfields-host',
  event: 'HistFieldsEvent',
  environment: 'HistFields',
  severity: 'major',
  correlate: [],
  status: 'open',
  service: ['Svc'],
  group: 'HistFieldsGroup',
  value: 'v1',
  text: 'the alert',
  tags: ['t'],
  attributes: { k: 'v' },
  origin: 'histfields-origin',
  type: 'exceptionAlert',
  createTime: 1_700_000_000_000,
  timeout: 600,
  rawData: null,
  customer: null,
  duplicateCount: 0,
  repeat: false,
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  receiveTime: 1_700_000_000_000,
  lastReceiveId: 'f1e1d000-0000-4000-8000-0000000000a2',
  lastReceiveTime: 1_700_000_000_000,
  updateTime: 1_700_000_000_000,
};

/** An entry whose every field differs from the alert's and from every other field, none null. */
const entry: HistoryRecord = {
  id: alert.lastReceiveId,
  event: 'HistFieldsOther',
  severity: 'minor',
  status: 'ack',
  value: 'v2',
  text: 'the entry',
  type: 'severity',
  updateTime: 1_700_000_004_321,
  user: 'someone',
  timeout: 1234,
};

fields('every column of alert_history is a field of the table, with its type, or listed as internal', (ctx) =>
  assertMatchesCatalogue(ctx.db.url, 'alert_history', HISTORY_FIELD_LIST, HISTORY_INTERNAL_COLUMNS),
);

fields('the presenter writes every key of the API schema, and the table has no other', () => {
  const presented = presentHistoryEntry(entry, 'http://x');
  assert.equal(Object.keys(presented).sort(), Object.keys(HistoryEntrySchema.shape).sort());
  assert.equal(HistoryEntrySchema.parse(presented), presented);
  assert.equal(
    [...HISTORY_FIELD_LIST.map((f) => f.name), 'href'].sort(),
    Object.keys(HistoryEntrySchema.shape).sort(),
  );
  assert.equal(presented, {
    id: entry.id,
    href: `http://x/alert/${entry.id}`,
    event: entry.event,
    severity: entry.severity,
    status: entry.status,
    value: entry.value,
    text: entry.text,
    type: entry.type,
    updateTime: '2023-11-14T22:13:24.321Z',
    user: entry.user,
    timeout: entry.timeout,
  });
});

fields('an entry written and read back keeps every field, by every read and in the API', async (ctx) => {
  const { db } = ctx.running.deps;
  const [written] = await insertNew(db, [{ alert, entry }]);
  assert.ok(written, 'inserted');
  assert.equal(await historyOf(db, alert.id), [entry], 'historyOf');
  assert.equal((await historiesOf(db, [alert.id])).get(alert.id), [entry], 'historiesOf');
  const selected = await historyOfSelection(db, { where: { kind: 'all' }, customers: null }, 10, 0);
  const { resource, environment, service, group, tags, attributes, origin, customer } = alert;
  assert.equal(
    selected.find((h) => h.id === entry.id),
    { ...entry, resource, environment, service, group, tags, attributes, origin, customer },
    'historyOfSelection',
  );
  // The receive and operation statements read the history as it was before their write (json).
  const patched = await db.transaction((tx) => applyPatch(tx, alert.id, {}, [], 10));
  assert.equal(patched.history, [entry], 'priorHistory');

  const res = await ctx.api.get(`/alert/${alert.id}`);
  assert.is(res.status, 200);
  const body = (await res.json()) as { alert: { href: string } };
  const baseUrl = body.alert.href.slice(0, -`/alert/${alert.id}`.length);
  assert.equal(body.alert, presentAlert(alert, [entry], baseUrl));
  const count = await db.oneFirst(
    sql.unsafe`SELECT count(*) FROM alert_history WHERE alert_id = ${alert.id}`,
  );
  assert.is(Number(count), 1);
});

fields.run();
