import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, getAlert, postAlert, put } from '../helpers/alerts.ts';
import { appSuite } from '../helpers/app.ts';

const isa = appSuite('ALARM_MODEL = ISA_18_2 through the API', {
  TEST_LABEL: 'isa',
  ALARM_MODEL: 'ISA_18_2',
  PLUGINS: '',
});

isa('severities, statuses and actions follow the ISA table', async ({ api }) => {
  const a = await createAlert(api, { resource: 'pump1', event: 'Pressure', severity: 'High' });
  assert.equal([a.status, a.previousSeverity, a.trendIndication], ['UNACK', 'OK', 'moreSevere']);
  assert.is((await put(api, `/alert/${a.id}/action`, { action: 'ack' })).status, 200);
  assert.is((await getAlert(api, a.id)).status, 'ACKED');
  const worse = (await postAlert(api, { resource: 'pump1', event: 'Pressure', severity: 'Critical' })).body
    .alert;
  assert.is(worse.status, 'UNACK', 'more severe than before re-raises an acked alarm');
  const ok = (await postAlert(api, { resource: 'pump1', event: 'Pressure', severity: 'OK' })).body.alert;
  assert.is(ok.status, 'RTNUN');
  const fresh = await createAlert(api, { resource: 'pump2', event: 'Flow' });
  assert.equal([fresh.severity, fresh.status], ['OK', 'NORM']);
  const res = await api.post('/alert', { resource: 'pump3', event: 'e', severity: 'major' });
  assert.is(res.status, 400);
  assert.match(
    ErrorBodySchema.parse(await res.json()).message,
    /^Severity \(major\) is not one of Critical, High, Medium, Low, Advisory, OK$/,
  );
});

isa.run();

const custom = appSuite('SEVERITY_MAP and DEFAULT_NORMAL_SEVERITY', {
  TEST_LABEL: 'sevmap',
  PLUGINS: '',
  SEVERITY_MAP: "{'fatal': 1, 'error': 2, 'notice': 5, 'fine': 7, 'indeterminate': 6}",
  DEFAULT_NORMAL_SEVERITY: 'fine',
});

custom('a custom severity map decides validity, trend and the normal (closing) level', async ({ api }) => {
  const a = await createAlert(api, { resource: 'svc', event: 'e', severity: 'error' });
  assert.equal([a.status, a.trendIndication], ['open', 'moreSevere']);
  const worse = (await postAlert(api, { resource: 'svc', event: 'e', severity: 'fatal' })).body.alert;
  assert.equal([worse.previousSeverity, worse.trendIndication], ['error', 'moreSevere']);
  const cleared = (await postAlert(api, { resource: 'svc', event: 'e' })).body.alert;
  assert.equal([cleared.severity, cleared.status], ['fine', 'closed']);
  const res = await api.post('/alert', { resource: 'svc', event: 'e', severity: 'critical' });
  assert.is(res.status, 400);
});

custom.run();
