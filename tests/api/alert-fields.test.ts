import { sql } from 'slonik';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { AlertInputSchema, AlertSchema, LiveAlertSchema } from '../../shared/alerts.ts';
import { notifiedSnapshot } from '../../server/db/alert-columns.ts';
import { findById } from '../../server/db/alerts.ts';
import { insertNew } from '../../server/db/alert-receive.ts';
import {
  ALERT_FIELDS,
  FIELD_LIST,
  INTERNAL_COLUMNS,
  NotifiedAlertSchema,
  notifiedAlert,
  type AlertRecord,
} from '../../server/domain/alert-fields.ts';
import { FIELDS } from '../../server/domain/query/fields.ts';
import { forwardedAlert } from '../../server/forwarding/enqueue.ts';
import { presentAlert, presentLiveAlert } from '../../server/present.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { assertMatchesCatalogue } from '../helpers/field-table.ts';

/**
 * The alert's fields are declared once, in server/domain/alert-fields.ts (docs/architecture.md,
 * "Adding a field to the alert"): the table must match the `alerts` table of the migrations and
 * the API's AlertSchema, and every field must survive the write, the read and the presenter.
 */

const fields = appSuite('alert fields', { TEST_LABEL: 'alertfields', PLUGINS: 'remote_ip' });

/** A record whose every field differs from the columns' defaults and from every other field. */
const record: AlertRecord = {
  id: 'f1e1d000-0000-4000-8000-000000000001',
  resource: 'fields-host',
  event: 'FieldsEvent',
  environment: 'Fields',
  severity: 'major',
  correlate: ['FieldsEvent', 'FieldsOther'],
  status: 'ack',
  service: ['Svc1', 'Svc2'],
  group: 'FieldsGroup',
  value: 'v42',
  text: 'fields text',
  tags: ['a', 'b'],
  attributes: { region: 'eu', n: 3, nested: { ok: true } },
  origin: 'fields-origin',
  type: 'fieldsType',
  createTime: 1_700_000_000_123,
  timeout: 1234,
  rawData: 'raw fields',
  customer: 'FieldsCo',
  duplicateCount: 7,
  repeat: true,
  previousSeverity: 'minor',
  trendIndication: 'moreSevere',
  receiveTime: 1_700_000_001_456,
  lastReceiveId: 'f1e1d000-0000-4000-8000-000000000002',
  lastReceiveTime: 1_700_000_002_789,
  updateTime: 1_700_000_003_012,
};

fields('every column of alerts is a field of the table, with its type, or listed as internal', (ctx) =>
  assertMatchesCatalogue(ctx.db.url, 'alerts', FIELD_LIST, INTERNAL_COLUMNS),
);

fields('the presenter writes every key of the API schema, and forwarding every key of a submission', () => {
  const presented = presentAlert(record, [], 'http://x');
  assert.equal(Object.keys(presented).sort(), Object.keys(AlertSchema.shape).sort());
  assert.equal(
    Object.keys(presentLiveAlert(record, 'http://x')).sort(),
    Object.keys(LiveAlertSchema.shape).sort(),
  );
  AlertSchema.parse(presented);
  const fromTable = [...FIELD_LIST.map((f) => f.name), 'href', 'history'].sort();
  assert.equal(Object.keys(AlertSchema.shape).sort(), fromTable);
  assert.equal(
    FIELDS.map((f) => f.name),
    Object.keys(ALERT_FIELDS),
    'every field can be queried',
  );
  assert.equal(
    Object.keys(forwardedAlert(record, 0)).sort(),
    Object.keys(AlertInputSchema.shape)
      .filter((k) => k !== 'status')
      .sort(),
    'a forwarded alert carries what a sender may send, but its status',
  );
});

fields('a record written and read back keeps every field, and so does its API answer', async (ctx) => {
  const { db } = ctx.running.deps;
  const entry = {
    id: record.lastReceiveId,
    event: record.event,
    severity: record.severity,
    status: record.status,
    value: record.value,
    text: record.text,
    type: 'new',
    updateTime: record.updateTime,
    user: null,
    timeout: record.timeout,
  };
  const [written] = await insertNew(db, [{ alert: record, entry }]);
  assert.ok(written, 'inserted');
  const { history: _history, ...returned } = written;
  assert.equal(returned, record, 'RETURNING the columns');
  assert.equal(await findById(db, record.id), record, 'read by id');

  const res = await ctx.api.get(`/alert/${record.id}`);
  assert.is(res.status, 200);
  const { alert } = (await res.json()) as { alert: { href: string } };
  const baseUrl = alert.href.slice(0, -`/alert/${record.id}`.length);
  assert.equal(alert, presentAlert(record, [entry], baseUrl));
});

fields('the notified copy is the same from a record, from SQL and from a deleted alert', async (ctx) => {
  const { db } = ctx.running.deps;
  const fromRecord = notifiedAlert(record);
  const fromSql = await db.oneFirst(sql.type(z.object({ alert: NotifiedAlertSchema }))`
    SELECT ${notifiedSnapshot} AS alert FROM alerts a WHERE a.id = ${record.id}`);
  assert.equal(fromSql, fromRecord);
  // Migration 0044's trigger writes the copy of a deleted alert into its rule states.
  await queryDb(
    ctx.db.url,
    `INSERT INTO notification_state (rule_id, alert_id, phase, severity, receivers)
     VALUES ('fields-rule', $1, 'firing', 'major', '{}')`,
    [record.id],
  );
  await queryDb(ctx.db.url, `DELETE FROM alerts WHERE id = $1`, [record.id]);
  const [state] = await queryDb<{ alert: unknown }>(
    ctx.db.url,
    `SELECT alert FROM notification_state WHERE alert_id = $1`,
    [record.id],
  );
  assert.equal(NotifiedAlertSchema.parse(state!.alert), fromRecord);
});

fields.run();
