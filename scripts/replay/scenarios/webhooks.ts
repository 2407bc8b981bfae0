/** The inbound webhooks of docs/webhooks.md, each with the payload its sender posts. */
import type { Scenario } from '../types.ts';
import { alert, post } from './common.ts';

const am = (
  status: 'firing' | 'resolved',
  labels: Record<string, string>,
  annotations: Record<string, string>,
) => ({
  version: '4',
  groupKey: '{}:{alertname="InstanceDown"}',
  status,
  receiver: 'alerta',
  groupLabels: { alertname: labels.alertname },
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://alertmanager:9093',
  alerts: [
    {
      status,
      labels,
      annotations,
      startsAt: '2026-03-01T10:00:00.123456789Z',
      endsAt: status === 'resolved' ? '2026-03-01T10:05:00Z' : '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=up+%3D%3D+0',
      fingerprint: 'c0ffee',
    },
  ],
});

/** A number of its own for the run (Grafana closes every alert of a rule id). */
const ruleIdOf = (run: string) => [...run].reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 1_000_000_007, 7);

export const webhooks: Scenario = {
  name: 'webhooks',
  title:
    'prometheus, grafana, cloudwatch, pingdom, pagerduty, newrelic, graylog, riemann, serverdensity, stackdriver, slack, telegram, msteams',
  steps: (run) => {
    const labels = {
      alertname: 'InstanceDown',
      instance: `${run}-node:9100`,
      job: 'node',
      severity: 'critical',
      environment: 'Production',
      service: 'Database,Web',
      monitor: 'codelab',
      team: 'dba',
    };
    const annotations = {
      summary: 'Instance {instance} down',
      description: '{instance} of job {job} has been down for more than 5 minutes.',
      value: '0',
    };
    const ruleId = ruleIdOf(run);
    const grafana = (state: string) => ({
      title: `[${state}] High CPU`,
      ruleId,
      ruleName: 'High CPU',
      ruleUrl: 'http://grafana:3000/d/abc?panelId=2',
      state,
      message: 'CPU above 90%',
      tags: { service: 'Compute' },
      evalMatches:
        state === 'alerting' ? [{ value: 97.5, metric: `${run}-cpu`, tags: { group: 'Hosts' } }] : [],
    });
    const topic = `arn:aws:sns:eu-west-1:123456789012:${run}`;
    const cloudwatch = {
      Type: 'Notification',
      MessageId: 'b4a3a1f2',
      TopicArn: topic,
      Subject: 'ALARM: "HighCPU" in EU (Ireland)',
      Message: JSON.stringify({
        AlarmName: 'HighCPU',
        AlarmDescription: 'CPU above 80% for 5 minutes',
        AWSAccountId: '123456789012',
        NewStateValue: 'ALARM',
        NewStateReason: 'Threshold Crossed',
        StateChangeTime: '2026-03-01T12:00:00.000+0000',
        Region: 'EU (Ireland)',
        OldStateValue: 'OK',
        Trigger: {
          MetricName: 'CPUUtilization',
          Namespace: 'AWS/EC2',
          Dimensions: [{ name: 'InstanceId', value: `${run}-i` }],
          Threshold: 80,
        },
      }),
      Timestamp: '2026-03-01T12:00:01.456Z',
    };
    const pingdom = (current: string) => ({
      check_id: 12345,
      check_name: `${run}-www`,
      check_type: 'HTTP',
      tags: ['web'],
      previous_state: current === 'UP' ? 'DOWN' : 'UP',
      current_state: current,
      importance_level: 'HIGH',
      description: current === 'UP' ? 'OK' : 'Timeout (> 30s)',
      long_description: current === 'UP' ? 'Check is up' : 'Timeout (> 30s) on www',
    });
    const pagerduty = (type: string) => ({
      messages: [
        {
          id: 'bb8b8fe0-e8d5-11e2-9c1e-22000afd16cf',
          type,
          created_on: '2026-03-01T12:00:00Z',
          data: {
            incident: {
              id: 'PIJ90N7',
              incident_number: 42,
              html_url: 'https://acme.pagerduty.com/incidents/PIJ90N7',
              incident_key: '{target}',
              status: 'acknowledged',
              assigned_to_user: { id: 'P553OPV', name: 'Laura Haley', email: 'laura@example.com' },
            },
          },
        },
      ],
    });
    const newrelic = {
      account_id: '1234',
      account_name: 'Acme Production',
      condition_name: 'Error rate high',
      current_state: 'open',
      details: 'Error percentage > 5.0% for at least 5 minutes',
      event_type: 'INCIDENT',
      incident_id: 9,
      incident_url: 'https://alerts.newrelic.com/accounts/1234/incidents/9',
      runbook_url: 'https://wiki.example.com/runbooks/error-rate',
      severity: 'CRITICAL',
      targets: [
        { id: '5678', name: `${run}-app`, labels: { env: 'prod' }, product: 'APM', type: 'Application' },
      ],
      timestamp: 1772366400000,
      version: '1.0',
    };
    const slack = new URLSearchParams({
      payload: JSON.stringify({
        type: 'interactive_message',
        actions: [{ name: 'ack', type: 'button', value: 'ack' }],
        callback_id: '{target}',
        user: { id: 'U1', name: 'jane' },
        original_message: {
          text: 'DB down',
          attachments: [
            {
              title: 'db01',
              callback_id: '{target}',
              actions: [{ name: 'ack', text: 'Ack', type: 'button', value: 'ack' }],
            },
          ],
        },
      }),
    })
      .toString()
      .replace(/%7Btarget%7D/g, '{target}');
    const telegram = (command: string) => ({
      update_id: 10000,
      callback_query: {
        id: '4382bfdwdsb323b2d9',
        from: { id: 1111111, is_bot: false, first_name: 'Test', last_name: 'User', username: 'testuser' },
        message: { message_id: 1365, chat: { id: -1001, type: 'group' }, date: 1772366400, text: 'alert' },
        chat_instance: '-1234',
        data: `/${command} {target}`,
      },
    });
    return [
      post('prometheus', '/webhooks/prometheus', am('firing', labels, annotations)),
      post('prometheus-again', '/webhooks/prometheus', am('firing', labels, annotations)),
      post('prometheus-resolved', '/webhooks/prometheus', am('resolved', labels, annotations)),
      post('prometheus-empty', '/webhooks/prometheus', { receiver: 'x' }),
      post('grafana', '/webhooks/grafana?environment=Development&service=Infra', grafana('alerting')),
      post('grafana-ok', '/webhooks/grafana', grafana('ok')),
      post('grafana-no-data', '/webhooks/grafana', grafana('no_data')),
      post('cloudwatch', '/webhooks/cloudwatch', undefined, {
        raw: { text: JSON.stringify(cloudwatch), type: 'text/plain; charset=UTF-8' },
      }),
      post('cloudwatch-not-sns', '/webhooks/cloudwatch', { Message: 'x' }),
      post('pingdom-down', '/webhooks/pingdom', pingdom('DOWN')),
      post('pingdom-up', '/webhooks/pingdom', pingdom('UP')),
      post('target', '/alert', alert(run, { resource: `${run}-paged`, event: 'Paged' }), {
        save: { target: 'id' },
      }),
      post('pagerduty-ack', '/webhooks/pagerduty', pagerduty('incident.acknowledge')),
      post('pagerduty-resolve', '/webhooks/pagerduty', pagerduty('incident.resolve')),
      post('newrelic', '/webhooks/newrelic', newrelic),
      post('graylog', '/webhooks/graylog?event=AuthFailures&service=Security&severity=major', {
        check_result: {
          result_description: 'Stream had 12 messages in the last 5 minutes.',
          triggered_condition: { id: 'cond-1', type: 'message_count', title: 'too many failures' },
          triggered_at: '2026-03-01T12:00:00.000Z',
        },
        stream: { id: 'stream-1', title: `${run}-auth`, description: 'SSH auth' },
      }),
      post('riemann', '/webhooks/riemann', {
        host: `${run}-host`,
        service: 'cpu',
        state: 'major',
        description: 'CPU 95%',
        metric: 0.95,
        tags: ['linux'],
      }),
      post('serverdensity', '/webhooks/serverdensity', {
        alert_id: '5a1b2c',
        alert_type: 'Load average',
        alert_section: 'System',
        configured_trigger_value: 4,
        current_value: 7.2,
        fixed: false,
        item_cloud: true,
        item_id: 'd2f3',
        item_name: `${run}-sd`,
        item_type: 'device',
      }),
      post('stackdriver', '/webhooks/stackdriver', {
        incident: {
          incident_id: '0.kmttg2it8kr0',
          resource_id: '1234567890',
          resource_name: `${run}-vm`,
          state: 'open',
          started_at: 1772366400,
          ended_at: null,
          policy_name: 'VM health',
          condition_name: 'CPU utilization high',
          url: 'https://console.cloud.google.com/monitoring/alerting/incidents/0.kmttg2it8kr0',
          summary: 'CPU utilization is above the threshold.',
          documentation: { content: '{"severity": "major", "group": "Compute"}', mime_type: 'text/markdown' },
        },
        version: '1.2',
      }),
      post(
        'reopen',
        '/alert',
        alert(run, { resource: `${run}-paged`, event: 'Paged', severity: 'critical' }),
      ),
      post('slack', '/webhooks/slack', undefined, {
        raw: { text: slack, type: 'application/x-www-form-urlencoded' },
      }),
      post('telegram-open', '/webhooks/telegram', telegram('open')),
      post('telegram-watch', '/webhooks/telegram', telegram('watch')),
      post('telegram-none', '/webhooks/telegram', { update_id: 1, message: { text: 'hi' } }),
      post('msteams', '/webhooks/msteams', { action: 'close', alert_id: '{target}' }),
      post('unknown', '/webhooks/nagios', { x: 1 }),
    ];
  },
};
