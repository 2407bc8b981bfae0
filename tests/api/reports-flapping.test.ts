import * as assert from 'uvu/assert';
import { createAlert } from '../helpers/alerts.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/**
 * GET /alerts/topn/flapping counts real flaps (issue #19 item 11): severity changes after an
 * alert's first entry, whether that entry's type is `severity` (the seed) or `new` (Alerta 9).
 */

const flapping = appSuite('top-N flapping', { TEST_LABEL: 'flapping', PLUGINS: 'remote_ip' });

flapping('counts severity changes back and forth, never a first entry or a repeat', async (ctx) => {
  const group = `flap${Date.now()}`;
  const send = (resource: string, severity: string) =>
    createAlert(ctx.api, { resource, event: 'Flap', severity, group, service: ['web'] });
  for (const severity of ['minor', 'major', 'minor', 'major']) await send('back-and-forth', severity);
  await send('once', 'critical');
  await send('repeated', 'warning');
  await send('repeated', 'warning');
  // An alert whose first entry is typed `new`, as Alerta 9 writes it, then one change.
  const modern = await send('modern', 'minor');
  await queryDb(ctx.db.url, `UPDATE alert_history SET type = 'new' WHERE alert_id = $1`, [modern.id]);
  await send('modern', 'critical');

  const res = await ctx.api.get(`/alerts/topn/flapping?group=${group}&group-by=resource`);
  assert.is(res.status, 200);
  const body = (await res.json()) as { top10: { resource: string; count: number }[] };
  assert.equal(
    body.top10.map((e) => [e.resource, e.count]),
    [
      ['back-and-forth', 3],
      ['modern', 1],
    ],
  );
});

flapping.run();
