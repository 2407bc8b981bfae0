import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { createAlert, getAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { type AppContext, appSuite, startApp, stopApp } from '../helpers/app.ts';

let n = 0;
/** A name no other test uses, so tests stay independent inside the suite. */
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

interface Answer {
  status: number;
  headers: Headers;
  body: {
    status: string;
    id?: string;
    ids?: string[];
    alert?: Alert;
    message?: string;
    code?: number;
    errors?: string[] | null;
    [k: string]: unknown;
  };
}

/** POSTs a webhook body: an object as JSON, a string as it is (text/plain unless told otherwise). */
async function hook(
  api: Api,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res =
    typeof body === 'string'
      ? await api.post(`/webhooks/${path}`, undefined, {
          raw: body,
          headers: { 'Content-Type': 'text/plain; charset=UTF-8', ...headers },
        })
      : await api.post(`/webhooks/${path}`, body, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

function assertError(r: Answer, status: number, message: string | RegExp) {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.is(r.body.status, 'error');
  assert.is(r.body.code, status);
  if (typeof message === 'string') assert.is(r.body.message, message);
  else assert.match(r.body.message ?? '', message);
}

async function alertsWhere(api: Api, query: string): Promise<Alert[]> {
  const res = await api.get(`/alerts?${query}`);
  assert.is(res.status, 200);
  return ((await res.json()) as { alerts: Alert[] }).alerts;
}

// ---------------------------------------------------------------------------------------------

const telegramCalls: { path: string; body: Record<string, unknown> }[] = [];
let telegramApi: Server;

const hooks = suite<AppContext>('built-in webhooks', {} as AppContext);
hooks.before(async (ctx) => {
  telegramApi = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      telegramCalls.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((ok) => telegramApi.listen(0, '127.0.0.1', ok));
  await startApp(ctx, {
    TEST_LABEL: 'webhooks',
    PLUGINS: 'remote_ip,reject,heartbeat,blackout',
    ALLOWED_ENVIRONMENTS: 'Production,Development',
    TELEGRAM_TOKEN: '123:abc',
    TELEGRAM_CHAT_ID: '-1001',
    DASHBOARD_URL: 'https://alerts.example.com/',
    TELEGRAM_API_URL: `http://127.0.0.1:${(telegramApi.address() as AddressInfo).port}`,
  });
});
hooks.after(async (ctx) => {
  await stopApp(ctx);
  await new Promise((ok) => telegramApi.close(ok));
});

// ---- prometheus -------------------------------------------------------------------------------

const amAlert = (
  status: 'firing' | 'resolved',
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
) => ({
  status,
  labels,
  annotations,
  startsAt: '2026-03-01T10:00:00.123456789Z',
  endsAt: status === 'resolved' ? '2026-03-01T10:05:00Z' : '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus:9090/graph?g0.expr=up+%3D%3D+0',
  fingerprint: 'c0ffee',
});
const amGroup = (status: 'firing' | 'resolved', alerts: unknown[]) => ({
  version: '4',
  groupKey: '{}:{alertname="InstanceDown"}',
  status,
  receiver: 'alerta',
  groupLabels: { alertname: 'InstanceDown' },
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://alertmanager:9093',
  alerts,
});

hooks(
  'prometheus: a firing group makes one alert per element, mapped as the reference says',
  async ({ api }) => {
    const host = fresh('db');
    const r = await hook(
      api,
      'prometheus',
      amGroup('firing', [
        amAlert(
          'firing',
          {
            alertname: 'InstanceDown',
            instance: `${host}:9100`,
            job: 'node',
            severity: 'critical',
            environment: 'Production',
            service: 'Database,Web',
            monitor: 'codelab',
            timeout: '600',
            team: 'dba',
          },
          {
            summary: 'Instance {instance} down',
            description: '{instance} of job {job} has been down for more than 5 minutes.',
            value: '0',
            runbook: 'https://wiki/{alertname}',
          },
        ),
        amAlert('firing', {
          alertname: 'DiskFull',
          exported_instance: `${host}-disk`,
          instance: 'exporter:9100',
        }),
      ]),
    );
    assert.is(r.status, 201, JSON.stringify(r.body));
    assert.is(r.body.ids?.length, 2);

    const a = await getAlert(api, r.body.ids![0]!);
    assert.is(a.resource, `${host}:9100`);
    assert.is(a.event, 'InstanceDown');
    assert.is(a.environment, 'Production');
    assert.is(a.severity, 'critical');
    assert.is(a.status, 'open');
    assert.equal(a.service, ['Database', 'Web']);
    assert.is(a.group, 'node');
    assert.is(a.origin, 'prometheus/codelab');
    assert.is(a.type, 'prometheusAlert');
    assert.is(a.timeout, 600);
    assert.is(a.value, '0');
    assert.is(a.text, `${host}:9100 of job node has been down for more than 5 minutes.`);
    assert.equal(a.tags, ['team=dba']);
    assert.is(a.attributes.startsAt, '2026-03-01T10:00:00.123Z');
    assert.is(a.attributes.endsAt, null);
    assert.is(a.attributes.externalUrl, 'http://alertmanager:9093');
    assert.is(
      a.attributes.moreInfo,
      '<a href="http://prometheus:9090/graph?g0.expr=up+%3D%3D+0" target="_blank">Prometheus Graph</a>',
    );
    assert.is(a.attributes.runbook, 'https://wiki/InstanceDown');
    assert.is(JSON.parse(a.rawData!).fingerprint, 'c0ffee');

    // Defaults: exported_instance wins (instance stays a tag), severity warning, group Prometheus,
    // origin prometheus/-, service [""], DEFAULT_ENVIRONMENT, generated text.
    const b = await getAlert(api, r.body.ids![1]!);
    assert.is(b.resource, `${host}-disk`);
    assert.is(b.severity, 'warning');
    assert.is(b.group, 'Prometheus');
    assert.is(b.origin, 'prometheus/-');
    assert.equal(b.service, ['']);
    assert.is(b.environment, 'Production');
    assert.is(b.text, `WARNING: ${host}-disk is DiskFull`);
    assert.equal(b.tags, ['instance=exporter:9100']);
    assert.is(b.timeout, 86400);
  },
);

hooks(
  'prometheus: the resolved group closes the alert it fired (de-duplication, live events)',
  async ({ api, running }) => {
    const labels = { alertname: 'HighLoad', instance: fresh('web'), severity: 'major' };
    const events: string[] = [];
    const stop = running.deps.bus.subscribe((e) => {
      if ((e.type === 'alert.received' || e.type === 'alert.updated') && e.alert.resource === labels.instance)
        events.push(`${e.type} ${e.alert.status}`);
    });
    const fired = await hook(api, 'prometheus', amGroup('firing', [amAlert('firing', labels)]));
    assert.is(fired.status, 201);
    assert.is(fired.body.alert?.status, 'open');
    const id = fired.body.id!;

    const again = await hook(api, 'prometheus', amGroup('firing', [amAlert('firing', labels)]));
    assert.is(again.body.id, id);
    assert.is(again.body.alert?.duplicateCount, 1);

    const resolved = await hook(api, 'prometheus', amGroup('resolved', [amAlert('resolved', labels)]));
    assert.is(resolved.status, 201);
    assert.is(resolved.body.id, id);
    const a = await getAlert(api, id);
    assert.is(a.severity, 'normal');
    assert.is(a.status, 'closed');
    assert.is(a.attributes.endsAt, '2026-03-01T10:05:00.000Z');
    assert.ok(a.history.some((h) => h.status === 'closed'));
    for (let i = 0; i < 50 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    stop();
    assert.equal(events, ['alert.received open', 'alert.updated open', 'alert.updated closed']);
  },
);

hooks(
  'prometheus: plugins apply (reject 403, blackout 202) and a customer label is kept',
  async ({ api }) => {
    const rejected = await hook(
      api,
      'prometheus',
      amGroup('firing', [
        amAlert('firing', { alertname: 'X', instance: fresh('i'), environment: 'Staging' }),
      ]),
    );
    assertError(rejected, 403, /^\[POLICY\] Alert environment does not match one of Production, Development/);

    const resource = fresh('maint');
    const blackout = await api.post('/blackout', { environment: 'Production', resource });
    assert.is(blackout.status, 201);
    const suppressed = await hook(
      api,
      'prometheus',
      amGroup('firing', [amAlert('firing', { alertname: 'X', instance: resource })]),
    );
    assert.is(suppressed.status, 202);
    assert.is(suppressed.body.message, 'Suppressed alert during blackout period');
    assert.equal(await alertsWhere(api, `resource=${resource}`), []);

    const owned = await hook(
      api,
      'prometheus',
      amGroup('firing', [amAlert('firing', { alertname: 'X', instance: fresh('c'), customer: 'acme' })]),
    );
    assert.is(owned.body.alert?.customer, 'acme');
    assert.not.ok(owned.body.alert?.tags.some((t) => t.startsWith('customer=')));
  },
);

hooks(
  'prometheus: bad payloads are 400 naming what is wrong; nothing is stored half-done',
  async ({ api }) => {
    assertError(
      await hook(api, 'prometheus', { receiver: 'x' }),
      400,
      'no alerts in Prometheus notification payload',
    );
    assertError(await hook(api, 'prometheus', []), 400, 'no alerts in Prometheus notification payload');
    assertError(
      await hook(api, 'prometheus', { alerts: 'many' }),
      400,
      /alerts must be a list, not a string/,
    );
    const instance = fresh('half');
    const r = await hook(
      api,
      'prometheus',
      amGroup('firing', [
        amAlert('firing', { alertname: 'Good', instance }),
        { status: 'firing', annotations: {} },
      ]),
    );
    assertError(r, 400, /alerts\[1\]\.labels is missing/);
    assert.equal(await alertsWhere(api, `resource=${instance}`), []);
    assertError(
      await hook(api, 'prometheus', amGroup('firing', [{ labels: { alertname: 7 } }])),
      400,
      /alerts\[0\]\.labels\.alertname must be a string, not a number/,
    );
    assertError(
      await hook(api, 'prometheus', amGroup('firing', [{ labels: { instance: 'x' } }])),
      400,
      /labels\.alertname is missing/,
    );
    assertError(
      await hook(
        api,
        'prometheus',
        amGroup('firing', [{ labels: { alertname: 'A', severity: 'apocalyptic' } }]),
      ),
      400,
      /apocalyptic/,
    );
  },
);

// ---- body handling, names, routes ----------------------------------------------------------------

hooks(
  'any content type is taken; invalid JSON, huge bodies and non-objects are clean 4xx',
  async ({ api }) => {
    const labels = { alertname: 'Text', instance: fresh('txt') };
    const asText = await hook(
      api,
      'prometheus',
      JSON.stringify(amGroup('firing', [amAlert('firing', labels)])),
    );
    assert.is(asText.status, 201, JSON.stringify(asText.body));

    const bad = await api.post('/webhooks/prometheus', undefined, {
      raw: '{"alerts": [',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.is(bad.status, 400);
    assert.is(((await bad.json()) as { message: string }).message, 'request body is not valid JSON');

    assertError(
      await hook(api, 'prometheus', 'just some words'),
      400,
      'no alerts in Prometheus notification payload',
    );
    assertError(
      await hook(api, 'riemann', 'just some words'),
      400,
      /payload must be an object, not a string/,
    );

    const huge = await api.post('/webhooks/prometheus', undefined, {
      raw: JSON.stringify({ alerts: [], pad: 'x'.repeat(3 * 1024 * 1024) }),
      headers: { 'Content-Type': 'application/json' },
    });
    assert.is(huge.status, 413);
    assert.is(((await huge.json()) as { status: string }).status, 'error');

    const nul = await hook(api, 'prometheus', '{"alerts":[{"labels":{"alertname":"a\\u0000b"}}]}');
    assertError(nul, 400, 'strings must not contain NUL bytes');
  },
);

hooks('unknown names are 404; GET and sub-paths reach the receiver', async ({ api }) => {
  const missing = await hook(api, 'nagios', { x: 1 });
  assertError(missing, 404, "Custom webhook 'nagios' not found.");
  const get = await api.get('/webhooks/prometheus');
  assert.is(get.status, 400);
  assert.is(
    ((await get.json()) as { message: string }).message,
    'no alerts in Prometheus notification payload',
  );
  const sub = await hook(
    api,
    'prometheus/cluster/eu',
    amGroup('firing', [amAlert('firing', { alertname: 'Sub', instance: fresh('sub') })]),
  );
  assert.is(sub.status, 201);
});

// ---- grafana ------------------------------------------------------------------------------------

hooks(
  'grafana: alerting makes one alert per evalMatch; ok closes every alert of the rule',
  async ({ api }) => {
    const ruleId = 9000 + n++;
    const metric = fresh('cpu');
    const notification = {
      title: '[Alerting] High CPU',
      ruleId,
      ruleName: 'High CPU',
      ruleUrl: 'http://grafana:3000/d/abc?panelId=2',
      state: 'alerting',
      imageUrl: 'http://grafana:3000/render/abc.png',
      message: 'CPU above 90%',
      tags: { 'dc.name': 'eu-1', service: 'Compute' },
      evalMatches: [
        { value: 97.5, metric: `${metric}-a`, tags: { group: 'Hosts', 'host.role': 'db' } },
        { value: 91, metric: `${metric}-b`, tags: null },
      ],
    };
    const r = await hook(api, 'grafana?environment=Development&service=Infra&timeout=300', notification);
    assert.is(r.status, 201, JSON.stringify(r.body));
    assert.is(r.body.ids?.length, 2);
    const a = await getAlert(api, r.body.ids![0]!);
    assert.is(a.resource, `${metric}-a`);
    assert.is(a.event, 'High CPU');
    assert.is(a.environment, 'Development');
    assert.is(a.severity, 'major');
    assert.equal(a.service, ['Infra', 'Compute']);
    assert.is(a.group, 'Hosts');
    assert.is(a.value, '97.5');
    assert.is(a.text, 'CPU above 90%');
    assert.is(a.origin, 'Grafana');
    assert.is(a.type, 'grafanaAlert');
    assert.is(a.timeout, 300);
    assert.equal(a.tags, []);
    assert.is(a.attributes.ruleId, String(ruleId));
    assert.is(a.attributes.ruleUrl, '<a href="http://grafana:3000/d/abc?panelId=2" target="_blank">Rule</a>');
    assert.is(
      a.attributes.imageUrl,
      '<a href="http://grafana:3000/render/abc.png" target="_blank">Image</a>',
    );
    assert.is(a.attributes.host_role, 'db');
    assert.is(a.attributes.dc_name, 'eu-1');
    assert.is(JSON.parse(a.rawData!).ruleName, 'High CPU');
    const b = await getAlert(api, r.body.ids![1]!);
    assert.is(b.group, 'Performance');
    assert.is(b.text, 'CPU above 90%');

    const ok = await hook(api, 'grafana', { ruleId, ruleName: 'High CPU', state: 'ok', evalMatches: [] });
    assert.is(ok.status, 201, JSON.stringify(ok.body));
    assert.equal([...ok.body.ids!].sort(), [...r.body.ids!].sort());
    for (const id of r.body.ids!) {
      const closed = await getAlert(api, id);
      assert.equal([closed.status, closed.severity], ['closed', 'normal']);
    }

    assertError(
      await hook(api, 'grafana', { ruleId, ruleName: 'High CPU', state: 'no_data' }),
      400,
      'no alerts in Grafana notification payload',
    );
    assertError(await hook(api, 'grafana', { ruleName: 'x' }), 400, /state is missing/);
    assertError(
      await hook(api, 'grafana', { ...notification, evalMatches: [{ value: 1 }] }),
      400,
      /evalMatches\[0\]\.metric is missing/,
    );
  },
);

// ---- cloudwatch ---------------------------------------------------------------------------------

const topic = 'arn:aws:sns:eu-west-1:123456789012:alerta-test';

hooks('cloudwatch: the SNS subscription confirmation becomes an informational alert', async ({ api }) => {
  const confirmation = {
    Type: 'SubscriptionConfirmation',
    MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
    Token: '2336412f37',
    TopicArn: `${topic}-${n++}`,
    Message:
      'You have chosen to subscribe to the topic. To confirm the subscription, visit the SubscribeURL.',
    SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=2336412f37',
    Timestamp: '2026-03-01T12:00:00.123Z',
    SignatureVersion: '1',
  };
  const r = await hook(api, 'cloudwatch', JSON.stringify(confirmation));
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.is(a.resource, confirmation.TopicArn);
  assert.is(a.event, 'SubscriptionConfirmation');
  assert.is(a.severity, 'informational');
  assert.equal(a.service, ['Unknown']);
  assert.is(a.group, 'AWS/CloudWatch');
  assert.is(a.origin, confirmation.TopicArn);
  assert.is(a.createTime, '2026-03-01T12:00:00.123Z');
  assert.is(
    a.text,
    `${confirmation.Message} <a href="${confirmation.SubscribeURL}" target="_blank">SubscribeURL</a>`,
  );
});

hooks('cloudwatch: an alarm notification maps state, dimension, account and trigger', async ({ api }) => {
  const instance = fresh('i-0abc');
  const alarm = (state: string) => ({
    AlarmName: 'HighCPU',
    AlarmDescription: 'CPU above 80% for 5 minutes',
    AWSAccountId: '123456789012',
    NewStateValue: state,
    NewStateReason: 'Threshold Crossed',
    StateChangeTime: '2026-03-01T12:00:00.000+0000',
    Region: 'EU (Ireland)',
    OldStateValue: 'OK',
    Trigger: {
      MetricName: 'CPUUtilization',
      Namespace: 'AWS/EC2',
      Statistic: 'AVERAGE',
      Dimensions: [{ name: 'InstanceId', value: instance }],
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 80,
    },
  });
  const sns = (state: string) => ({
    Type: 'Notification',
    MessageId: 'b4a3a1f2',
    TopicArn: topic,
    Subject: `ALARM: "HighCPU" in EU (Ireland)`,
    Message: JSON.stringify(alarm(state)),
    Timestamp: '2026-03-01T12:00:01.456Z',
  });
  const r = await hook(api, 'cloudwatch', JSON.stringify(sns('ALARM')));
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.is(a.resource, `InstanceId:${instance}`);
  assert.is(a.event, 'HighCPU');
  assert.is(a.environment, 'Production');
  assert.is(a.severity, 'major');
  assert.equal(a.service, ['123456789012']);
  assert.is(a.group, 'AWS/EC2');
  assert.is(a.value, 'ALARM');
  assert.is(a.text, 'CPU above 80% for 5 minutes');
  assert.equal(a.tags, ['EU (Ireland)']);
  assert.is(a.attributes.incidentKey, 'HighCPU');
  assert.equal((a.attributes.thresholdInfo as { Threshold: number }).Threshold, 80);
  assert.is(a.origin, topic);
  assert.is(a.type, 'cloudwatchAlarm');
  assert.is(a.createTime, '2026-03-01T12:00:01.456Z');

  const ok = await hook(api, 'cloudwatch', sns('OK'));
  assert.is(ok.body.id, a.id);
  assert.equal([ok.body.alert?.severity, ok.body.alert?.status], ['normal', 'closed']);
  assert.is((await hook(api, 'cloudwatch', sns('INSUFFICIENT_DATA'))).body.alert?.severity, 'warning');

  assertError(
    await hook(api, 'cloudwatch', { Type: 'UnsubscribeConfirmation', TopicArn: topic }),
    400,
    'No SNS notification in payload',
  );
  assertError(await hook(api, 'cloudwatch', { Message: 'x' }), 400, 'No SNS notification in payload');
  assertError(
    await hook(api, 'cloudwatch', { ...sns('ALARM'), Message: JSON.stringify({ AlarmName: 'x' }) }),
    400,
    'SNS message is not a Cloudwatch notification',
  );
  assertError(
    await hook(api, 'cloudwatch', { ...sns('ALARM'), TopicArn: 5 }),
    400,
    /TopicArn must be a string/,
  );
});

// ---- pingdom ------------------------------------------------------------------------------------

hooks('pingdom: DOWN raises by importance, UP clears through correlate', async ({ api }) => {
  const check = fresh('www.example.com');
  const state = (current: string, importance: string) => ({
    check_id: 12345,
    check_name: check,
    check_type: 'HTTP',
    check_params: { hostname: 'www.example.com', url: '/' },
    tags: ['web', 'frontend'],
    previous_state: current === 'UP' ? 'DOWN' : 'UP',
    current_state: current,
    importance_level: importance,
    state_changed_timestamp: 1772366400,
    description: current === 'UP' ? 'OK' : 'Timeout (> 30s)',
    long_description: current === 'UP' ? 'Check is up' : 'Timeout (> 30s) on www.example.com',
  });
  const down = await hook(api, 'pingdom', state('DOWN', 'HIGH'));
  assert.is(down.status, 201, JSON.stringify(down.body));
  const a = down.body.alert!;
  assert.is(a.resource, check);
  assert.is(a.event, 'DOWN');
  assert.equal(a.correlate, ['UP', 'DOWN']);
  assert.is(a.severity, 'critical');
  assert.equal(a.service, ['HTTP']);
  assert.is(a.group, 'Network');
  assert.is(a.value, 'Timeout (> 30s)');
  assert.is(a.text, 'HIGH: Timeout (> 30s) on www.example.com');
  assert.equal(a.tags, ['web', 'frontend']);
  assert.is(a.attributes.checkId, 12345);
  assert.is(a.origin, 'Pingdom');
  assert.is(a.type, 'availabilityAlert');
  assert.is(a.environment, 'Production');

  const up = await hook(api, 'pingdom', state('UP', 'HIGH'));
  assert.is(up.body.id, a.id);
  assert.equal(
    [up.body.alert?.event, up.body.alert?.severity, up.body.alert?.status],
    ['UP', 'normal', 'closed'],
  );
  assert.is((await hook(api, 'pingdom', state('DOWN', 'LOW'))).body.alert?.severity, 'warning');
  assertError(
    await hook(api, 'pingdom', { ...state('DOWN', 'HIGH'), check_name: undefined }),
    400,
    /check_name is missing/,
  );
});

// ---- pagerduty ----------------------------------------------------------------------------------

hooks('pagerduty: incident events set the status of the alert named by incident_key', async ({ api }) => {
  const alert = await createAlert(api, { resource: fresh('pd'), event: 'Paged', severity: 'major' });
  const message = (type: string, extra: Record<string, unknown> = {}) => ({
    id: 'bb8b8fe0-e8d5-11e2-9c1e-22000afd16cf',
    type,
    created_on: '2026-03-01T12:00:00Z',
    data: {
      incident: {
        id: 'PIJ90N7',
        incident_number: 42,
        html_url: 'https://acme.pagerduty.com/incidents/PIJ90N7',
        incident_key: alert.id,
        status: 'acknowledged',
        assigned_to_user: { id: 'P553OPV', name: 'Laura Haley', email: 'laura@example.com' },
        resolved_by_user: null,
        ...extra,
      },
    },
  });
  const ack = await hook(api, 'pagerduty', { messages: [message('incident.acknowledge')] });
  assert.is(ack.status, 200, JSON.stringify(ack.body));
  assert.equal(ack.body, { status: 'ok' });
  let a = await getAlert(api, alert.id);
  assert.is(a.status, 'ack');
  const last = a.history.at(-1)!;
  assert.equal(
    [last.type, last.status, last.text],
    [
      'status',
      'ack',
      'Incident <a href="https://acme.pagerduty.com/incidents/PIJ90N7">#42</a> acknowledged by Laura Haley',
    ],
  );

  await hook(api, 'pagerduty', { messages: [message('incident.resolve')] });
  a = await getAlert(api, alert.id);
  assert.is(a.status, 'closed');
  assert.match(a.history.at(-1)!.text, /resolved by n\/a$/);

  const missing = await hook(api, 'pagerduty', {
    messages: [
      message('incident.trigger'),
      message('incident.assign', { incident_key: crypto.randomUUID() }),
    ],
  });
  assertError(missing, 404, 'not found');
  assert.is((await getAlert(api, alert.id)).status, 'closed'); // the first message was not applied either
  assertError(await hook(api, 'pagerduty', { foo: [] }), 400, 'no messages in PagerDuty data payload');
  assertError(
    await hook(api, 'pagerduty', { messages: [{ type: 'incident.trigger', data: {} }] }),
    400,
    /messages\[0\]\.data\.incident is missing/,
  );
});

// ---- newrelic -----------------------------------------------------------------------------------

hooks('newrelic: open, acknowledged and closed incidents; legacy payloads refused', async ({ api }) => {
  const host = fresh('app-host');
  const incident = (state: string, severity = 'CRITICAL') => ({
    account_id: '1234',
    account_name: 'Acme Production',
    closed_violations_count: { critical: 0, warning: 0 },
    condition_family_id: 5,
    condition_id: 77,
    condition_name: 'Error rate high',
    current_state: state,
    details: 'Error percentage > 5.0% for at least 5 minutes',
    event_type: 'INCIDENT',
    incident_acknowledge_url: 'https://alerts.newrelic.com/accounts/1234/incidents/9/acknowledge',
    incident_id: 9,
    incident_url: 'https://alerts.newrelic.com/accounts/1234/incidents/9',
    owner: '',
    policy_name: 'Web',
    policy_url: 'https://alerts.newrelic.com/accounts/1234/policies/5',
    runbook_url: 'https://wiki.example.com/runbooks/error-rate',
    severity,
    targets: [
      {
        id: '5678',
        name: host,
        link: 'https://rpm.newrelic.com/accounts/1234/applications/5678',
        labels: { env: 'prod', team: 'web' },
        product: 'APM',
        type: 'Application',
      },
    ],
    timestamp: 1772366400000,
    version: '1.0',
  });
  const open = await hook(api, 'newrelic', incident('open'));
  assert.is(open.status, 201, JSON.stringify(open.body));
  const a = open.body.alert!;
  assert.is(a.resource, host);
  assert.is(a.event, 'Error rate high');
  assert.is(a.severity, 'critical');
  assert.is(a.status, 'open');
  assert.equal(a.service, ['Acme Production']);
  assert.is(a.group, 'Application');
  assert.is(a.text, 'Error percentage > 5.0% for at least 5 minutes');
  assert.equal(a.tags, ['env:prod', 'team:web']);
  assert.is(a.attributes.incident_url, 'https://alerts.newrelic.com/accounts/1234/incidents/9');
  assert.is(a.attributes.runbook_url, 'https://wiki.example.com/runbooks/error-rate');
  assert.is(a.origin, 'New Relic/v1.0');
  assert.is(a.type, 'incident');
  assert.is(a.environment, 'Production');

  const acked = await hook(api, 'newrelic', incident('acknowledged'));
  assert.equal([acked.body.id, acked.body.alert?.status], [a.id, 'ack']);
  const closed = await hook(api, 'newrelic', incident('closed'));
  assert.equal([closed.body.alert?.severity, closed.body.alert?.status], ['ok', 'closed']);
  const info = await hook(api, 'newrelic', { ...incident('open', 'INFO'), condition_name: fresh('info') });
  assert.is(info.body.alert?.severity, 'informational');
  const odd = await hook(api, 'newrelic', { ...incident('open', 'SEVERE'), condition_name: fresh('odd') });
  assert.is(odd.body.alert?.severity, 'unknown');
  const bare = await hook(api, 'newrelic', { ...incident('open'), targets: [], condition_name: null });
  assert.equal([bare.body.alert?.resource, bare.body.alert?.event], ['unknown', 'unknown']);

  const { version: _, ...legacy } = incident('open');
  assertError(await hook(api, 'newrelic', legacy), 400, 'New Relic Legacy Alerting is not supported');
  assertError(
    await hook(api, 'newrelic', { ...incident('open'), severity: 3 }),
    400,
    /severity must be a string/,
  );
});

// ---- graylog, riemann, serverdensity --------------------------------------------------------------

hooks('graylog: the stream is the resource; routing comes from the query string', async ({ api }) => {
  const stream = fresh('auth-failures');
  const body = {
    check_result: {
      result_description:
        'Stream had 12 messages in the last 5 minutes with trigger condition more than 10 messages.',
      triggered_condition: { id: 'cond-1', type: 'message_count', title: 'too many failures' },
      triggered_at: '2026-03-01T12:00:00.000Z',
      triggered: true,
      matching_messages: [],
    },
    stream: { id: 'stream-1', title: stream, description: 'SSH auth' },
  };
  const r = await hook(
    api,
    'graylog?event=AuthFailures&service=Security,SSH&severity=major&event_type=securityAlert',
    body,
  );
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.equal(
    [a.resource, a.event, a.environment, a.severity, a.value, a.origin, a.type],
    [stream, 'AuthFailures', 'Production', 'major', 'n/a', 'Graylog', 'securityAlert'],
  );
  assert.equal(a.service, ['Security', 'SSH']);
  assert.is(a.text, body.check_result.result_description);
  assert.is(a.attributes.checkId, 'cond-1');

  const plain = await hook(api, 'graylog', { ...body, stream: { title: fresh('plain') } });
  const p = plain.body.alert!;
  assert.equal([p.event, p.severity, p.type], ['Alert', 'critical', 'performanceAlert']);
  assert.equal(p.service, ['test']);
  assertError(await hook(api, 'graylog', { check_result: {} }), 400, /stream is missing/);
});

hooks('riemann: host and service make the resource, state the severity', async ({ api }) => {
  const host = fresh('riemann-host');
  const r = await hook(api, 'riemann', {
    host,
    service: 'cpu',
    state: 'major',
    description: 'CPU 95%',
    metric: 0.95,
    tags: ['linux'],
    time: 1772366400,
    ttl: 60,
  });
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.equal(
    [a.resource, a.event, a.environment, a.severity, a.group, a.text, a.value, a.origin],
    [`${host}-cpu`, 'cpu', 'Production', 'major', 'Performance', 'CPU 95%', '0.95', 'Riemann'],
  );
  assert.equal(a.service, ['cpu']);
  assert.equal(a.tags, ['linux']);
  const custom = await hook(api, 'riemann', {
    host,
    service: 'disk',
    event: 'DiskFull',
    environment: 'Development',
    group: 'Storage',
  });
  assert.equal(
    [
      custom.body.alert?.event,
      custom.body.alert?.environment,
      custom.body.alert?.severity,
      custom.body.alert?.group,
    ],
    ['DiskFull', 'Development', 'unknown', 'Storage'],
  );
  assertError(await hook(api, 'riemann', { host }), 400, /service is missing/);
});

hooks('serverdensity: critical until fixed', async ({ api }) => {
  const item = fresh('web01');
  const body = (fixed: boolean) => ({
    alert_id: '5a1b2c',
    alert_type: 'Load average',
    alert_section: 'System',
    configured_trigger_value: 4,
    current_value: 7.2,
    fixed,
    item_cloud: true,
    item_id: 'd2f3',
    item_name: item,
    item_type: 'device',
  });
  const r = await hook(api, 'serverdensity', body(false));
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.equal(
    [a.resource, a.event, a.severity, a.group, a.value, a.text, a.origin, a.type, a.environment],
    [
      item,
      'Load average',
      'critical',
      'System',
      '4',
      `Alert created for device:${item}`,
      'ServerDensity',
      'serverDensityAlert',
      'Production',
    ],
  );
  assert.equal(a.service, ['device']);
  assert.equal(a.tags, ['cloud']);
  assert.equal([a.attributes.alertId, a.attributes.itemId], ['5a1b2c', 'd2f3']);
  const fixed = await hook(api, 'serverdensity', body(true));
  assert.equal([fixed.body.id, fixed.body.alert?.severity, fixed.body.alert?.status], [a.id, 'ok', 'closed']);
  assertError(
    await hook(api, 'serverdensity', { ...body(false), fixed: 'yes' }),
    400,
    /fixed must be true or false/,
  );
});

// ---- stackdriver --------------------------------------------------------------------------------

hooks('stackdriver: open, acknowledged and closed incidents; documentation JSON merged', async ({ api }) => {
  const resourceName = fresh('vm-instance');
  const incident = (state: string, extra: Record<string, unknown> = {}) => ({
    incident: {
      incident_id: '0.kmttg2it8kr0',
      resource_id: '1234567890',
      resource_name: resourceName,
      resource: { type: 'gce_instance', labels: { instance_id: '1234567890', zone: 'europe-west1-b' } },
      state,
      started_at: 1772366400,
      ended_at: state === 'closed' ? 1772366700 : null,
      policy_name: 'VM health',
      condition_name: 'CPU utilization high',
      url: 'https://console.cloud.google.com/monitoring/alerting/incidents/0.kmttg2it8kr0',
      summary: 'CPU utilization for vm-instance is above the threshold of 0.8 with a value of 0.93.',
      ...extra,
    },
    version: '1.2',
  });
  const r = await hook(
    api,
    'stackdriver',
    incident('open', {
      documentation: {
        content:
          '{"severity": "major", "environment": "Development", "group": "Compute", "customer": "acme"}',
        mime_type: 'text/markdown',
      },
    }),
  );
  assert.is(r.status, 201, JSON.stringify(r.body));
  const a = r.body.alert!;
  assert.equal(
    [a.resource, a.event, a.environment, a.severity, a.group, a.customer, a.origin, a.type],
    [
      resourceName,
      'CPU utilization high',
      'Development',
      'major',
      'Compute',
      'acme',
      'Stackdriver',
      'stackdriverAlert',
    ],
  );
  assert.equal(a.service, ['VM health']);
  assert.is(a.text, 'CPU utilization for vm-instance is above the threshold of 0.8 with a value of 0.93.');
  assert.equal([a.attributes.incidentId, a.attributes.resourceId], ['0.kmttg2it8kr0', '1234567890']);
  assert.is(
    a.attributes.moreInfo,
    '<a href="https://console.cloud.google.com/monitoring/alerting/incidents/0.kmttg2it8kr0" target="_blank">Stackdriver Console</a>',
  );
  assert.equal([a.attributes.startedAt, a.attributes.endedAt], ['2026-03-01T12:00:00.000Z', null]);

  const plain = await hook(
    api,
    'stackdriver',
    incident('open', { documentation: { content: 'Page the on-call.' } }),
  );
  assert.equal(
    [plain.body.alert?.severity, plain.body.alert?.environment, plain.body.alert?.group],
    ['critical', 'Production', 'Cloud'],
  );
  const acked = await hook(api, 'stackdriver', incident('acknowledged'));
  assert.equal([acked.body.id, acked.body.alert?.status], [plain.body.id, 'ack']);
  const closed = await hook(api, 'stackdriver', incident('closed'));
  assert.equal([closed.body.alert?.severity, closed.body.alert?.status], ['ok', 'closed']);
  assert.is(closed.body.alert?.attributes.endedAt, '2026-03-01T12:05:00.000Z');
  assertError(await hook(api, 'stackdriver', { version: '1.2' }), 400, /incident is missing/);
});

// ---- slack --------------------------------------------------------------------------------------

const slackForm = (alertId: string, action: string, user = 'jane') =>
  new URLSearchParams({
    payload: JSON.stringify({
      type: 'interactive_message',
      actions: [{ name: action, type: 'button', value: action }],
      callback_id: alertId,
      team: { id: 'T1', domain: 'acme' },
      channel: { id: 'C1', name: 'alerts' },
      user: { id: 'U1', name: user },
      action_ts: '1772366400.000',
      message_ts: '1772366300.000',
      original_message: {
        text: 'DB down',
        attachments: [
          {
            title: 'db01 DiskFull',
            callback_id: alertId,
            actions: [
              { name: 'ack', text: 'Ack', type: 'button', value: 'ack' },
              { name: 'watch', text: 'Watch', type: 'button', value: 'watch' },
            ],
          },
        ],
      },
    }),
  }).toString();

async function slackPress(api: Api, alertId: string, action: string): Promise<Answer> {
  const res = await api.post('/webhooks/slack', undefined, {
    raw: slackForm(alertId, action),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

hooks(
  'slack: buttons ack and watch the alert and answer with the updated message',
  async ({ api, origin }) => {
    const alert = await createAlert(api, { resource: fresh('slack'), event: 'DiskFull', severity: 'major' });
    const short = alert.id.slice(0, 8);
    const ack = await slackPress(api, alert.id, 'ack');
    assert.is(ack.status, 201, JSON.stringify(ack.body));
    const attachments = ack.body.attachments as Record<string, unknown>[];
    assert.is(attachments.length, 2);
    assert.is(attachments[0]!.actions, undefined);
    assert.equal(attachments[1], {
      fallback: `The status of alert ${short} is Ack now!`,
      pretext: 'Action done!',
      color: '#808080',
      title: `The status of alert ${short} is Ack now!`,
      title_link: `${origin}/api/alert/${alert.id}`,
    });
    let a = await getAlert(api, alert.id);
    assert.is(a.status, 'ack');
    assert.is(a.history.at(-1)!.text, 'status change via #slack by jane');

    const watch = await slackPress(api, alert.id, 'watch');
    assert.is(watch.status, 201);
    const buttons = (watch.body.attachments as { actions: { value: string; text: string }[] }[])[0]!.actions;
    assert.equal(
      buttons.map((b) => [b.value, b.text]),
      [
        ['ack', 'Ack'],
        ['unwatch', 'Unwatch'],
      ],
    );
    a = await getAlert(api, alert.id);
    assert.ok(a.tags.includes('watch:jane'));
    await slackPress(api, alert.id, 'unwatch');
    assert.not.ok((await getAlert(api, alert.id)).tags.includes('watch:jane'));

    assertError(await slackPress(api, alert.id, 'dance'), 400, 'Unsupported #slack action');
    assertError(await slackPress(api, crypto.randomUUID(), 'ack'), 404, 'alert not found for #slack message');
    assertError(await hook(api, 'slack', { nothing: 1 }), 400, /form field payload is missing/);
    const noUser = await api.post('/webhooks/slack', undefined, {
      raw: new URLSearchParams({
        payload: JSON.stringify({ callback_id: alert.id, actions: [{ value: 'ack' }] }),
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.is(noUser.status, 400);
    assert.match(((await noUser.json()) as { message: string }).message, /user is missing/);
  },
);

// ---- telegram -----------------------------------------------------------------------------------

const callback = (data: string, text = 'alert\nline one\nline two') => ({
  update_id: 10000,
  callback_query: {
    id: '4382bfdwdsb323b2d9',
    from: { id: 1111111, is_bot: false, first_name: 'Test', last_name: 'Lastname', username: 'Testuser' },
    message: { message_id: 1365, chat: { id: -1001, type: 'group' }, date: 1772366400, text },
    chat_instance: '-1234',
    data,
  },
});

hooks('telegram: commands act on the alert and the bot message is edited', async ({ api }) => {
  const alert = await createAlert(api, { resource: fresh('tg'), event: 'NodeDown', severity: 'critical' });
  telegramCalls.length = 0;
  const ack = await hook(api, 'telegram', callback(`/ack ${alert.id}`));
  assert.is(ack.status, 200, JSON.stringify(ack.body));
  assert.equal(ack.body, { status: 'ok' });
  const a = await getAlert(api, alert.id);
  assert.is(a.status, 'ack');
  assert.is(a.history.at(-1)!.text, 'status change via Telegram');
  assert.is(telegramCalls.length, 1);
  assert.is(telegramCalls[0]!.path, '/bot123:abc/editMessageText');
  const sent = telegramCalls[0]!.body;
  assert.equal([sent.chat_id, sent.message_id, sent.parse_mode], ['-1001', 1365, 'Markdown']);
  assert.is(
    sent.text,
    `[${alert.id.slice(0, 8)}](https://alerts.example.com/alert/${alert.id}) *Critical - NodeDown on ${alert.resource}*\n` +
      `line one\nline two\nThe status of alert ${alert.id.slice(0, 8)} is *ack* now!`,
  );

  await hook(api, 'telegram', callback(`/watch ${alert.id}`));
  assert.ok((await getAlert(api, alert.id)).tags.includes('watch:Test Lastname'));
  const keyboard = (telegramCalls[1]!.body.reply_markup as { inline_keyboard: { callback_data: string }[][] })
    .inline_keyboard;
  assert.is(keyboard[0]![0]!.callback_data, `/unwatch ${alert.id}`);

  const blackout = await hook(api, 'telegram', callback(`/blackout ${alert.id}`));
  assert.is(blackout.status, 200);
  const blackouts = (
    (await (await api.get(`/blackouts?resource=${alert.resource}`)).json()) as {
      blackouts: { environment: string; resource: string; event: string; duration: number }[];
    }
  ).blackouts;
  assert.equal(
    blackouts.map((b) => [b.environment, b.resource, b.event, b.duration]),
    [['Production', alert.resource, 'NodeDown', 3600]],
  );

  assert.equal((await hook(api, 'telegram', { update_id: 1, message: { text: 'hi' } })).body, {
    status: 'ok',
    message: 'no callback_query in Telegram message',
  });
  // As the established receiver: an unknown alert is a 200 answer with an error status.
  const unknown = await hook(api, 'telegram', callback(`/ack ${crypto.randomUUID()}`));
  assert.is(unknown.status, 200, JSON.stringify(unknown.body));
  assert.equal(unknown.body, { status: 'error', message: 'alert not found for Telegram message' });
  assertError(
    await hook(api, 'telegram', callback('ack')),
    400,
    /callback_query\.data: must be '\/<command> <alert id>'/,
  );
  assertError(
    await hook(api, 'telegram', callback(`/dance ${alert.id}`)),
    400,
    "Unsupported Telegram command '/dance'",
  );
});

// ---- fields the established receivers do not read ---------------------------------------------------

hooks(
  'pagerduty: "null" users are accepted (n/a); a key naming no alert is 404; read fields stay 400',
  async ({ api }) => {
    const alert = await createAlert(api, { resource: fresh('pd-null'), event: 'Paged', severity: 'major' });
    // A v2 webhook as PagerDuty sends it, with the fields nobody reads and the string "null" users.
    const message = (type: string, incident: Record<string, unknown> = {}) => ({
      id: crypto.randomUUID(),
      type,
      created_on: '2026-03-01T12:00:00Z',
      data: {
        incident: {
          id: 'PT4KHLK',
          incident_number: 1234,
          created_on: '2026-03-01T11:58:00Z',
          status: type === 'incident.resolve' ? 'resolved' : 'acknowledged',
          html_url: 'https://acme.pagerduty.com/incidents/PT4KHLK',
          incident_key: alert.id,
          service: { id: 'PIJ90N7', name: 'Alerta', html_url: 'https://acme.pagerduty.com/services/PIJ90N7' },
          escalation_policy: { id: 'PT20YPA', name: 'Default', deleted_at: null },
          assigned_to_user: 'null',
          trigger_summary_data: { subject: 'db01 DiskFull', description: null },
          trigger_details_html_url: 'https://acme.pagerduty.com/incidents/PT4KHLK/log_entries/Q1',
          trigger_type: 'trigger_svc_event',
          last_status_change_on: '2026-03-01T12:00:00Z',
          last_status_change_by: null,
          number_of_escalations: 0,
          assigned_to: [],
          resolved_by_user: 'null',
          acknowledgers: [{ at: '2026-03-01T12:00:00Z', object: { id: 'P553OPV', type: 'user' } }],
          urgency: 'high',
          ...incident,
        },
      },
    });
    const ack = await hook(api, 'pagerduty', { messages: [message('incident.acknowledge')] });
    assert.is(ack.status, 200, JSON.stringify(ack.body));
    let a = await getAlert(api, alert.id);
    assert.equal(
      [a.status, a.history.at(-1)!.text],
      [
        'ack',
        'Incident <a href="https://acme.pagerduty.com/incidents/PT4KHLK">#1234</a> acknowledged by n/a',
      ],
    );
    const resolve = await hook(api, 'pagerduty', { messages: [message('incident.resolve')] });
    assert.is(resolve.status, 200, JSON.stringify(resolve.body));
    a = await getAlert(api, alert.id);
    assert.equal([a.status, a.history.at(-1)!.text.endsWith('resolved by n/a')], ['closed', true]);
    const trigger = await hook(api, 'pagerduty', {
      messages: [message('incident.trigger', { assigned_to_user: null })],
    });
    assert.is(trigger.status, 200, JSON.stringify(trigger.body));
    assert.match((await getAlert(api, alert.id)).history.at(-1)!.text, /assigned to n\/a$/);
    const unack = await hook(api, 'pagerduty', {
      messages: [
        message('incident.unacknowledge', { assigned_to_user: undefined, resolved_by_user: undefined }),
      ],
    });
    assert.is(unack.status, 200, JSON.stringify(unack.body));

    // An incident opened by another integration: its key names no alert.
    assertError(
      await hook(api, 'pagerduty', {
        messages: [message('incident.resolve', { incident_key: 'srv01/HTTP check' })],
      }),
      404,
      'not found',
    );
    assertError(
      await hook(api, 'pagerduty', { messages: [message('incident.resolve', { incident_key: undefined })] }),
      400,
      /messages\[0\]\.data\.incident\.incident_key is missing/,
    );
    assertError(
      await hook(api, 'pagerduty', { messages: [message('incident.resolve', { html_url: 7 })] }),
      400,
      /messages\[0\]\.data\.incident\.html_url must be a string, not a number/,
    );
  },
);

hooks(
  'telegram: presses on inline or captioned messages act; the message shape is not checked',
  async ({ api }) => {
    const alert = await createAlert(api, { resource: fresh('tg-odd'), event: 'NodeDown', severity: 'major' });
    telegramCalls.length = 0;
    // A button under an inline-mode message: no `message`, an `inline_message_id` instead; no last name.
    const inline = await hook(api, 'telegram', {
      update_id: 10001,
      callback_query: {
        id: '4382bfdwdsb323b2d9',
        from: { id: 1111111, is_bot: false, first_name: 'Ops', language_code: 'en' },
        inline_message_id: 'AAAAAKmO-gUAAAAA',
        chat_instance: '-1234',
        data: `/ack ${alert.id}`,
      },
    });
    assert.is(inline.status, 200, JSON.stringify(inline.body));
    assert.equal(inline.body, { status: 'ok' });
    assert.is((await getAlert(api, alert.id)).status, 'ack');
    assert.is(telegramCalls.length, 0, 'nothing to edit without a message id');

    // A photo with a caption (no text), and a sender Telegram describes oddly.
    const photo = await hook(api, 'telegram', {
      update_id: 10002,
      callback_query: {
        id: '4382bfdwdsb323b2e0',
        from: { id: 2222222, first_name: 42, username: 'oncall' },
        message: {
          message_id: 1366,
          chat: { id: -1001, type: 'supergroup', title: 'Alerts' },
          date: 1772366400,
          photo: [{ file_id: 'x', width: 90, height: 90 }],
          caption: 'graph',
          reply_markup: { inline_keyboard: [[{ text: 'Watch', callback_data: `/watch ${alert.id}` }]] },
        },
        chat_instance: '-1234',
        data: `/watch ${alert.id}`,
      },
    });
    assert.is(photo.status, 200, JSON.stringify(photo.body));
    assert.ok((await getAlert(api, alert.id)).tags.includes('watch:oncall'));
    assert.is(telegramCalls.length, 1);
    assert.is(telegramCalls[0]!.body.message_id, 1366);
  },
);

hooks(
  'newrelic, cloudwatch, slack: only the first target, dimension and action are read',
  async ({ api }) => {
    const host = fresh('nr-host');
    const nr = await hook(api, 'newrelic', {
      version: '1.0',
      account_name: 'Acme',
      current_state: 'open',
      severity: 'WARNING',
      condition_name: 'Apdex low',
      details: 'Apdex < 0.7',
      event_type: 'INCIDENT',
      incident_id: 10,
      targets: [
        { id: '1', name: host, type: 'Application', labels: { env: 'prod' }, product: 'APM' },
        { id: 2, name: 3, type: null, labels: { nested: { deep: true } }, product: 'Browser' },
      ],
    });
    assert.is(nr.status, 201, JSON.stringify(nr.body));
    assert.equal([nr.body.alert?.resource, nr.body.alert?.tags], [host, ['env:prod']]);
    assertError(
      await hook(api, 'newrelic', {
        version: '1.0',
        account_name: 'Acme',
        current_state: 'open',
        severity: 'WARNING',
        event_type: 'INCIDENT',
        targets: [{ name: 3 }],
      }),
      400,
      /targets\[0\]\.name must be a string, not a number/,
    );

    const instance = fresh('i-0def');
    const cw = await hook(
      api,
      'cloudwatch',
      JSON.stringify({
        Type: 'Notification',
        MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
        TopicArn: topic,
        Subject: null,
        Message: JSON.stringify({
          AlarmName: 'Latency',
          AlarmDescription: null,
          AWSAccountId: '123456789012',
          AlarmConfigurationUpdatedTimestamp: '2026-02-01T00:00:00.000+0000',
          NewStateValue: 'ALARM',
          NewStateReason: 'Threshold Crossed',
          StateChangeTime: '2026-03-01T12:00:00.000+0000',
          Region: 'US East (N. Virginia)',
          AlarmArn: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:Latency',
          OldStateValue: 'OK',
          OKActions: [],
          AlarmActions: [topic],
          InsufficientDataActions: [],
          Trigger: {
            MetricName: 'Latency',
            Namespace: 'AWS/ELB',
            StatisticType: 'Statistic',
            Statistic: 'AVERAGE',
            Unit: null,
            Dimensions: [
              { value: instance, name: 'LoadBalancerName' },
              { value: 7, name: 'AvailabilityZoneCount' },
            ],
            Period: 60,
            EvaluationPeriods: 3,
            DatapointsToAlarm: 3,
            ComparisonOperator: 'GreaterThanThreshold',
            Threshold: 1.5,
            TreatMissingData: 'missing',
            EvaluateLowSampleCountPercentile: '',
          },
        }),
        Timestamp: '2026-03-01T12:00:01.000Z',
        SignatureVersion: '1',
        Signature: 'c2lnbmF0dXJl',
        SigningCertURL: 'https://sns.us-east-1.amazonaws.com/cert.pem',
        UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
      }),
    );
    assert.is(cw.status, 201, JSON.stringify(cw.body));
    assert.equal([cw.body.alert?.resource, cw.body.alert?.text], [`LoadBalancerName:${instance}`, '']);

    const alert = await createAlert(api, {
      resource: fresh('slack-odd'),
      event: 'DiskFull',
      severity: 'major',
    });
    const press = (callbackId: string, actions: unknown[]) =>
      api.post('/webhooks/slack', undefined, {
        raw: new URLSearchParams({
          payload: JSON.stringify({
            type: 'interactive_message',
            actions,
            callback_id: callbackId,
            user: { id: 'U1', name: 'jane' },
            original_message: { text: 'db01', attachments: [{ title: 'db01', actions: [] }] },
          }),
        }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    const ack = await press(alert.id, [
      { name: 'ack', type: 'button', value: 'ack' },
      { selected_options: 5 },
    ]);
    assert.is(ack.status, 201, await ack.clone().text());
    assert.is((await getAlert(api, alert.id)).status, 'ack');
    const other = await press('db01:DiskFull', [{ value: 'ack' }]);
    assert.equal(
      [other.status, ((await other.json()) as { message: string }).message],
      [404, 'alert not found for #slack message'],
    );
    const none = await press(alert.id, []);
    assert.equal(
      [none.status, ((await none.json()) as { message: string }).message],
      [400, 'invalid Slack payload: actions: must not be empty'],
    );
  },
);

hooks(
  'grafana: a timeout parameter that is not an integer means the default timeout',
  async ({ api, running }) => {
    const metric = fresh('mem');
    const r = await hook(api, 'grafana?timeout=1h', {
      dashboardId: 1,
      evalMatches: [{ value: 93, metric, tags: {} }],
      orgId: 1,
      panelId: 4,
      ruleId: 77,
      ruleName: 'Memory',
      ruleUrl: 'http://grafana:3000/d/mem',
      state: 'alerting',
      tags: {},
      title: '[Alerting] Memory',
    });
    assert.is(r.status, 201, JSON.stringify(r.body));
    assert.is(r.body.alert?.timeout, running.deps.config.ALERT_TIMEOUT);
    assert.is(
      (
        await hook(api, 'grafana?timeout=120', {
          state: 'alerting',
          ruleName: 'Memory',
          evalMatches: [{ value: 1, metric }],
        })
      ).body.alert?.timeout,
      120,
    );
  },
);

// ---- msteams: the generic action + alert_id receiver -------------------------------------------------

hooks(
  'msteams: ack and close an alert by alert_id; blackout by environment, resource and event',
  async ({ api }) => {
    const alert = await createAlert(api, { resource: fresh('teams'), event: 'Teams', severity: 'major' });
    const ack = await hook(api, 'msteams', { action: 'ack', alert_id: alert.id });
    assert.is(ack.status, 200, JSON.stringify(ack.body));
    assert.equal(ack.body, { status: 'ok', message: 'status changed' });
    assert.is(ack.headers.get('card-action-status'), 'Alert Acked');
    let a = await getAlert(api, alert.id);
    assert.is(a.status, 'ack');
    assert.equal(
      [a.history.at(-1)!.type, a.history.at(-1)!.text],
      ['ack', 'status changed via MS Teams webhook'],
    );

    const again = await hook(api, 'msteams', { action: 'ack', alert_id: alert.id });
    assert.is(again.status, 409); // the state machine of PUT /action still applies
    const close = await hook(api, 'msteams', { action: 'close', alert_id: alert.id });
    assert.is(close.headers.get('card-action-status'), 'Alert Closed');
    a = await getAlert(api, alert.id);
    assert.is(a.status, 'closed');

    const resource = fresh('teams-bo');
    const bo = await hook(api, 'msteams', {
      action: 'blackout',
      environment: 'Production',
      resource,
      event: 'Teams',
      duration: 5400,
    });
    assert.is(bo.status, 201, JSON.stringify(bo.body));
    assert.equal(bo.body, { status: 'ok', message: 'blackout created' });
    assert.is(bo.headers.get('card-action-status'), 'Blackout created for 1.5 hours');
    const dflt = await hook(api, 'msteams', {
      action: 'blackout',
      environment: 'Production',
      resource,
      event: 'Other',
    });
    assert.is(dflt.headers.get('card-action-status'), 'Blackout created for 1.0 hours');

    assertError(await hook(api, 'msteams', { action: 'dance', alert_id: alert.id }), 400, 'Invalid action');
    assertError(await hook(api, 'msteams', { alert_id: alert.id }), 400, 'Invalid action');
    assertError(await hook(api, 'msteams', ['ack']), 400, 'Invalid action');
    assertError(await hook(api, 'msteams', { action: 'ack' }), 400, 'Missing/invalid alert_id');
    assertError(
      await hook(api, 'msteams', { action: 'ack', alert_id: 'not-a-uuid' }),
      400,
      'Missing/invalid alert_id',
    );
    assertError(
      await hook(api, 'msteams', { action: 'close', alert_id: crypto.randomUUID() }),
      400,
      'Missing/invalid alert_id',
    );
    assertError(
      await hook(api, 'msteams', { action: 'blackout', environment: 'Production' }),
      412,
      'Missing blackout params',
    );
  },
);

hooks.run();

// ---------------------------------------------------------------------------------------------

const KEY = 'webhook-writer-key-000000000000000000000';
const READ_KEY = 'webhook-reader-key-000000000000000000000';
const secured = appSuite('webhooks with AUTH_REQUIRED', {
  TEST_LABEL: 'webhooks_auth',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'webhooks-secret',
  PLUGINS: 'remote_ip',
});
secured.before(async (ctx) => {
  const { insertKeys } = await import('../helpers/db.ts');
  for (const [key, scopes] of [
    [KEY, ['write:webhooks']],
    [READ_KEY, ['read']],
  ] as const) {
    await insertKeys(ctx.db.url, [{ key, user: 'hooks@example.com', scopes }]);
  }
});

secured('an API key in ?api-key= with write:webhooks is enough; others are 401/403', async ({ api }) => {
  const body = amGroup('firing', [amAlert('firing', { alertname: 'Auth', instance: fresh('auth') })]);
  const ok = await hook(api, `prometheus?api-key=${KEY}`, body);
  assert.is(ok.status, 201, JSON.stringify(ok.body));
  assertError(await hook(api, 'prometheus', body), 401, /Missing authorization/);
  assertError(
    await hook(api, `prometheus?api-key=${READ_KEY}`, body),
    403,
    'Missing required scope: write:webhooks',
  );
  assertError(
    await hook(api, `nagios?api-key=${READ_KEY}`, body),
    403,
    'Missing required scope: write:webhooks',
  );
});

secured.run();
