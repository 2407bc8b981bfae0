/**
 * The attributes the server adds to alerts (spec; alert-lifecycle.md §7), set only by receipts
 * (POST /alert), never by actions, status changes or the other writes:
 * - `notify`: on every receipt, `false` when the status the receipt leaves is quiet (shelved or the
 *   blackout status), else `true`; a sender's own `notify` is overwritten.
 * - `flapping`: `false` on a new alert; on a receipt that changes severity or event, `true` when the
 *   alert has at least two `new`/`severity` history entries from the last 30 minutes before it
 *   (so the new entry makes more than two); a duplicate leaves it as it was.
 */
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { createAlert, getAlert, postAlert, put } from '../helpers/alerts.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;
const attrs = appSuite('server-added attributes', { TEST_LABEL: 'server-attrs' });

const received = async (api: Parameters<typeof postAlert>[0], fields: Record<string, unknown>) => {
  const r = await postAlert(api, fields);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body.alert;
};
const pair = (a: Alert) => [a.attributes.notify, a.attributes.flapping];

attrs(
  'notify follows the status each receipt leaves; actions and status changes keep it',
  async ({ api }) => {
    const resource = fresh('notify');
    const a = await createAlert(api, { resource, event: 'e', severity: 'minor' });
    assert.equal(pair(a), [true, false]);
    const own = await received(api, {
      resource,
      event: 'e',
      severity: 'minor',
      attributes: { notify: false },
    });
    assert.is(own.attributes.notify, true, "the sender's notify is overwritten");

    assert.is((await put(api, `/alert/${a.id}/action`, { action: 'shelve' })).status, 200);
    const shelved = await getAlert(api, a.id);
    assert.equal([shelved.status, shelved.attributes.notify], ['shelved', true], 'an action leaves notify');
    const quiet = await received(api, { resource, event: 'e', severity: 'minor' });
    assert.equal([quiet.status, quiet.attributes.notify], ['shelved', false]);

    assert.is((await put(api, `/alert/${a.id}/status`, { status: 'open' })).status, 200);
    assert.is((await getAlert(api, a.id)).attributes.notify, false, 'a status change leaves notify');
    assert.is((await received(api, { resource, event: 'e', severity: 'minor' })).attributes.notify, true);
  },
);

attrs(
  'flapping: set by receipts that change severity, from the last 30 minutes; duplicates keep it',
  async (ctx) => {
    const { api } = ctx;
    const resource = fresh('flap');
    const a = await createAlert(api, { resource, event: 'e', severity: 'minor' });
    assert.is(a.attributes.flapping, false);
    // new + this change: two entries, not more than two.
    assert.is((await received(api, { resource, event: 'e', severity: 'major' })).attributes.flapping, false);
    assert.is((await received(api, { resource, event: 'e', severity: 'major' })).attributes.flapping, false);
    assert.is((await received(api, { resource, event: 'e', severity: 'warning' })).attributes.flapping, true);
    assert.is(
      (await received(api, { resource, event: 'e', severity: 'warning' })).attributes.flapping,
      true,
      'a duplicate keeps it',
    );
    assert.is((await put(api, `/alert/${a.id}/action`, { action: 'ack' })).status, 200);
    assert.is((await getAlert(api, a.id)).attributes.flapping, true, 'an action keeps it');

    // Entries older than 30 minutes do not count: the next change is not flapping.
    await queryDb(
      ctx.db.url,
      `UPDATE alert_history SET update_time = now() - interval '31 minutes' WHERE alert_id = $1`,
      [a.id],
    );
    assert.is(
      (await received(api, { resource, event: 'e', severity: 'critical' })).attributes.flapping,
      false,
    );
  },
);

attrs.run();
