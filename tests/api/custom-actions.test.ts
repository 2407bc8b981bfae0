/**
 * Custom actions (spec: "ack, unack, shelve, unshelve, close, plus custom actions"; alarm-model.md
 * ACT-1): PUT /alert/:id/action and PUT /_bulk/alerts/action take any action name, listed in ACTIONS
 * or not. Plugins act on it; the status stays; history records type `action` and the text
 * `<action> operator action` as the established server does. Housekeeping's `expired` and `timeout`
 * and names outside the action charset are 400.
 */
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, getAlert, put } from '../helpers/alerts.ts';
import { appSuite } from '../helpers/app.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;
// ACTIONS is empty: it only decides what the UI offers.
const custom = appSuite('custom actions', { TEST_LABEL: 'custom-actions', PLUGINS: 'escalate' });

async function expect400(res: Response, message: RegExp) {
  const body = ErrorBodySchema.parse(await res.json());
  assert.equal([res.status, body.status, body.code], [400, 'error', 400]);
  assert.match(body.message, message);
}

custom('an action not in ACTIONS is taken: status unchanged, history type action', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('ticket'), event: 'e', severity: 'minor' });
  const r = await put(api, `/alert/${a.id}/action`, { action: 'createTicket' });
  assert.equal([r.status, r.body], [200, { status: 'ok' }]);
  const s = await getAlert(api, a.id);
  assert.equal([s.status, s.severity], ['open', 'minor']);
  const entry = s.history.at(-1)!;
  assert.equal(
    [entry.type, entry.status, entry.severity, entry.text],
    ['action', 'open', 'minor', 'createTicket operator action'],
  );
  const texted = await put(api, `/alert/${a.id}/action`, { action: 'page.on-call:1', text: 'paged' });
  assert.is(texted.status, 200);
  assert.equal(
    (await getAlert(api, a.id)).history.at(-1)!.text,
    'paged',
    'the request text replaces the default',
  );
});

custom('a plugin acts on a custom action that ACTIONS does not list', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('esc'), event: 'e', severity: 'minor' });
  assert.is((await put(api, `/alert/${a.id}/action`, { action: 'escalate' })).status, 200);
  const s = await getAlert(api, a.id);
  assert.equal([s.severity, s.status, s.previousSeverity], ['major', 'open', 'minor']);
  assert.equal([s.history.at(-1)!.type, s.history.at(-1)!.text], ['action', 'alert severity escalated']);
});

custom('housekeeping actions, empty, non-string and odd names are 400 JSON errors', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('bad'), event: 'e', severity: 'minor' });
  const path = `/alert/${a.id}/action`;
  await expect400(await api.put(path, { action: 'expired' }), /invalid action 'expired'/);
  await expect400(await api.put(path, { action: 'timeout' }), /invalid action 'timeout'/);
  await expect400(await api.put(path, { action: '' }), /must supply 'action' as json data/);
  await expect400(await api.put(path, { action: 7 }), /must supply 'action' as json data/);
  await expect400(await api.put(path, { action: 'x'.repeat(65) }), /action is too long/);
  await expect400(await api.put(path, { action: 'two words' }), /action must be letters/);
  assert.is((await getAlert(api, a.id)).history.length, 1, 'nothing was recorded');
});

custom('the bulk action endpoint takes a custom action the same way', async ({ api }) => {
  const group = fresh('bulk');
  const a = await createAlert(api, { resource: fresh('b1'), event: 'e', severity: 'minor', group });
  const r = await api.put(`/_bulk/alerts/action?group=${encodeURIComponent(group)}`, {
    action: 'createTicket',
  });
  assert.is(r.status, 202, await r.clone().text());
  const { id } = (await r.json()) as { id: string };
  let task: { status: string; result: { count: number; errors: unknown[] } | null } | undefined;
  for (let i = 0; i < 200; i++) {
    task = (await (await api.get(`/_bulk/task/${id}`)).json()) as typeof task;
    if (task!.status === 'success' || task!.status === 'failure') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal([task!.status, task!.result?.count, task!.result?.errors], ['success', 1, []]);
  const entry = (await getAlert(api, a.id)).history.at(-1)!;
  assert.equal([entry.type, entry.status], ['action', 'open']);
  await expect400(
    await api.put(`/_bulk/alerts/action?group=${encodeURIComponent(group)}`, { action: 'expired' }),
    /invalid action 'expired'/,
  );
});

custom.run();
