import * as assert from 'uvu/assert';
import { createAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/**
 * The standing and flapping reports count history entries typed `severity`, as the established
 * server's top-N queries do (`UNNEST(history) … WHERE type = 'severity'`): a new alert's first
 * entry, typed `new` there and here, is not one, so an alert received once and never changed is in
 * neither report (migration 0054). Standing ranks by the rows' summed lifetime, flapping by count.
 */

const entries = appSuite('top-N counts severity entries', { TEST_LABEL: 'sevent', PLUGINS: 'remote_ip' });

interface Entry {
  count: number;
  resources: { resource: string }[];
  [group: string]: unknown;
}

async function report(api: Api, variant: string, query: string) {
  const res = await api.get(`/alerts/topn/${variant}?group=standing-test&topn=20${query}`);
  assert.is(res.status, 200);
  return ((await res.json()) as { top10: Entry[] }).top10;
}

const summary = (top10: Entry[], by: string) => top10.map((e) => [e[by], e.count]);

entries.before(async ({ api }) => {
  const send = (resource: string, event: string, severity: string, createTime: string, service = ['web']) =>
    createAlert(api, { resource, event, severity, group: 'standing-test', createTime, service });
  // Received once: only its `new` entry.
  await send('once', 'Quiet', 'major', '2019-01-01T00:00:00.000Z');
  await send('once-too', 'Quiet', 'minor', '2019-01-01T00:00:00.000Z', ['web', 'db']);
  // One change, created first of those that changed: the longest standing.
  for (const severity of ['minor', 'major'])
    await send('old', 'Changed', severity, '2020-01-01T00:00:00.000Z');
  // Two changes, newer.
  for (const severity of ['minor', 'major', 'minor'])
    await send('twice', 'Flap', severity, '2024-01-01T00:00:00.000Z');
  // Repeats and actions write no `severity` entry.
  const repeated = await send('repeated', 'Quiet', 'warning', '2018-01-01T00:00:00.000Z');
  await send('repeated', 'Quiet', 'warning', '2018-01-01T00:00:00.000Z');
  const acked = await api.put(`/alert/${repeated.id}/action`, { action: 'ack' });
  assert.is(acked.status, 200);
});

entries(
  'standing: only alerts with severity entries, counted per entry, longest standing first',
  async ({ api }) => {
    const byResource = await report(api, 'standing', '&group-by=resource');
    assert.equal(summary(byResource, 'resource'), [
      ['old', 1],
      ['twice', 2],
    ]);
    // The same data by event: `Quiet` (three alerts, the oldest, none changed) is not a group.
    assert.equal(summary(await report(api, 'standing', ''), 'event'), [
      ['Changed', 1],
      ['Flap', 2],
    ]);
  },
);

entries('flapping: severity entries that changed the severity; never a first entry', async ({ api }) => {
  assert.equal(summary(await report(api, 'flapping', '&group-by=resource'), 'resource'), [
    ['twice', 2],
    ['old', 1],
  ]);
});

entries(
  'a first entry typed severity (stored before `new` existed) counts, as any severity entry',
  async (ctx) => {
    // The history trigger (migration 0041) recounts the alert with 0054's definition.
    await queryDb(
      ctx.db.url,
      `UPDATE alert_history SET type = 'severity' WHERE type = 'new' AND alert_id IN
       (SELECT id FROM alerts WHERE resource = 'once' AND "group" = 'standing-test')`,
    );
    const byResource = await report(ctx.api, 'standing', '&group-by=resource');
    assert.equal(summary(byResource, 'resource'), [
      ['once', 1],
      ['old', 1],
      ['twice', 2],
    ]);
    // It changed nothing, so it does not flap.
    assert.equal(
      (await report(ctx.api, 'flapping', '&group-by=resource')).map((e) => e.resource),
      ['twice', 'old'],
    );
  },
);

entries.run();
