import type { SettingsOf } from '../receivers.ts';
import { headline, labelOf, postJson, type HttpRequest, type Item, type Links } from './common.ts';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
export const OPSGENIE_API_URL = 'https://api.opsgenie.com';

const PD_SEVERITY: Record<string, string> = {
  security: 'critical',
  critical: 'critical',
  major: 'error',
  minor: 'warning',
  warning: 'warning',
};

const details = (item: Item) => {
  const a = item.alert;
  return {
    environment: a.environment,
    service: a.service.join(', '),
    status: a.status,
    severity: a.severity,
    text: a.text,
    value: a.value,
    tags: a.tags,
    customer: a.customer,
    origin: a.origin,
    duplicateCount: a.duplicateCount,
  };
};

/**
 * PagerDuty Events API v2: trigger (also for reminders and escalations), acknowledge or resolve,
 * with the alert id as dedup key so PagerDuty keeps one incident per alert.
 */
export function pagerdutyRequest(item: Item, s: SettingsOf<'pagerduty'>, links: Links): HttpRequest {
  const a = item.alert;
  const action = item.kind === 'ack' ? 'acknowledge' : item.kind === 'resolve' ? 'resolve' : 'trigger';
  const link = links.alert(a.id);
  const body: Record<string, unknown> = { routing_key: s.routingKey, event_action: action, dedup_key: a.id };
  if (action === 'trigger') {
    Object.assign(body, {
      payload: {
        summary: `${headline(a)}${a.text ? ` - ${a.text}` : ''}`.slice(0, 1024),
        source: a.resource,
        severity: PD_SEVERITY[a.severity] ?? 'info',
        timestamp: new Date(a.lastReceiveTime).toISOString(),
        component: a.resource,
        group: a.group,
        class: a.event,
        custom_details: details(item),
      },
      client: 'alertwall',
      ...(link ? { client_url: link, links: [{ href: link, text: 'Alert in alertwall' }] } : {}),
    });
  }
  return postJson(s.url ?? PAGERDUTY_EVENTS_URL, body);
}

const PRIORITY: Record<string, string> = {
  security: 'P1',
  critical: 'P1',
  major: 'P2',
  minor: 'P3',
  warning: 'P4',
};

/**
 * Opsgenie Alert API: create (alias = alert id, which Opsgenie de-duplicates on), acknowledge or
 * close by alias.
 */
export function opsgenieRequest(item: Item, s: SettingsOf<'opsgenie'>, links: Links): HttpRequest {
  const a = item.alert;
  const base = `${(s.url ?? OPSGENIE_API_URL).replace(/\/+$/, '')}/v2/alerts`;
  const auth = { Authorization: `GenieKey ${s.apiKey}` };
  const alias = encodeURIComponent(a.id);
  if (item.kind === 'ack' || item.kind === 'resolve') {
    const verb = item.kind === 'ack' ? 'acknowledge' : 'close';
    return postJson(
      `${base}/${alias}/${verb}?identifierType=alias`,
      { source: 'alertwall', note: `${labelOf(item.kind)} in alertwall` },
      auth,
    );
  }
  const link = links.alert(a.id);
  const body = {
    message: headline(a).slice(0, 130),
    alias: a.id,
    description: [a.text, link].filter(Boolean).join('\n\n').slice(0, 15_000),
    tags: [a.environment, a.severity, ...a.tags].slice(0, 20),
    // Opsgenie takes string values only.
    details: Object.fromEntries(
      Object.entries({ ...details(item), tags: a.tags.join(', '), ...(link ? { url: link } : {}) }).map(
        ([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)],
      ),
    ),
    entity: a.resource,
    source: 'alertwall',
    priority: PRIORITY[a.severity] ?? 'P5',
    ...(s.teams?.length ? { responders: s.teams.map((name) => ({ name, type: 'team' })) } : {}),
  };
  return postJson(base, body, auth);
}
