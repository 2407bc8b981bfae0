import { z } from 'zod';
import { appError } from '../errors.ts';
import { MAX_PAGE_SIZE } from '../domain/query/params.ts';
import { listAlerts } from '../domain/search.ts';
import { htmlLink, parsePayload, queryParam } from './payload.ts';
import type { Webhook, WebhookContext } from './types.ts';

const TagsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));

const EvalMatchSchema = z.object({
  metric: z.string().min(1, 'must not be empty'),
  value: z.union([z.number(), z.string(), z.null()]),
  tags: TagsSchema.nullish(),
});

/** Grafana legacy alerting's webhook body (evalMatches, one per series). */
const NotificationSchema = z.object({
  state: z.string(),
  ruleId: z.union([z.number(), z.string()]).nullish(),
  ruleName: z.string().nullish(),
  ruleUrl: z.string().nullish(),
  imageUrl: z.string().nullish(),
  message: z.string().nullish(),
  title: z.string().nullish(),
  tags: TagsSchema.nullish(),
  evalMatches: z.array(EvalMatchSchema).nullish(),
});
type Notification = z.infer<typeof NotificationSchema>;
type EvalMatch = z.infer<typeof EvalMatchSchema>;

/** The fields tags may set; whatever tags are left over become attributes and/or tags. */
interface Routing {
  environment: string;
  severity: string;
  service: string[];
  group: string;
  customer: string | null;
  origin: string;
}

/** Match tags, then rule tags, may override the query's routing fields and append a service. */
function applyTags(routing: Routing, tags: Record<string, string>, leftover: Record<string, string>) {
  const rest = { ...tags };
  const take = (name: string) => {
    const value = rest[name];
    delete rest[name];
    return value;
  };
  routing.environment = take('environment') ?? routing.environment;
  routing.severity = take('severity') ?? routing.severity;
  const service = take('service');
  if (service !== undefined) routing.service.push(service);
  routing.group = take('group') ?? routing.group;
  routing.customer = take('customer') ?? routing.customer;
  routing.origin = take('origin') ?? routing.origin;
  Object.assign(leftover, rest);
}

/**
 * The `timeout` query parameter as an integer; anything else means the default, as the established
 * receiver reads it (`type=int`), so a notification channel with a bad value still delivers.
 */
function timeoutOf(param: string | null): number | null {
  return param !== null && /^\d+$/.test(param) ? Number(param) : null;
}

function toAlert(
  notification: Notification,
  match: EvalMatch,
  raw: unknown,
  query: URLSearchParams,
  ctx: WebhookContext,
) {
  const { config } = ctx;
  const routing: Routing = {
    environment: queryParam(query, 'environment', config.DEFAULT_ENVIRONMENT),
    severity: queryParam(query, 'severity', 'major'),
    service: query.getAll('service').length ? query.getAll('service') : ['Grafana'],
    group: queryParam(query, 'group', 'Performance'),
    customer: queryParam(query, 'customer'),
    origin: queryParam(query, 'origin', 'Grafana'),
  };
  const leftover: Record<string, string> = {};
  applyTags(routing, match.tags ?? {}, leftover);
  applyTags(routing, notification.tags ?? {}, leftover);

  const attributes: Record<string, unknown> = {};
  if (config.GRAFANA_TAGS_AS_ATTRIBUTES) {
    for (const [k, v] of Object.entries(leftover)) attributes[k.replaceAll('.', '_')] = v;
  }
  if (notification.ruleId !== null && notification.ruleId !== undefined)
    attributes.ruleId = String(notification.ruleId);
  if (notification.ruleUrl) attributes.ruleUrl = htmlLink(notification.ruleUrl, 'Rule');
  if (notification.imageUrl) attributes.imageUrl = htmlLink(notification.imageUrl, 'Image');

  return {
    resource: match.metric,
    event: notification.ruleName,
    environment: routing.environment,
    severity: routing.severity,
    service: routing.service,
    group: routing.group,
    value: match.value === null ? null : String(match.value),
    text: notification.message || notification.title || notification.state,
    tags: config.GRAFANA_TAGS_AS_TAGS ? Object.entries(leftover).map(([k, v]) => `${k}=${v}`) : [],
    attributes,
    customer: routing.customer,
    origin: routing.origin,
    type: 'grafanaAlert',
    timeout: timeoutOf(query.get('timeout')),
    rawData: JSON.stringify(raw),
  };
}

/**
 * Every stored alert of the rule, re-submitted as cleared: the receive path then closes it and
 * records the change, as if the source had sent the clear itself.
 */
async function clearedAlertsOf(ruleId: string, ctx: WebhookContext) {
  const search = new URLSearchParams({
    'attributes.ruleId': ruleId,
    'page-size': String(MAX_PAGE_SIZE),
    'show-raw-data': 'true',
  });
  const { alerts } = await listAlerts(ctx.deps, search, ctx.caller);
  return alerts.map((a) => ({
    id: a.id,
    resource: a.resource,
    event: a.event,
    environment: a.environment,
    severity: ctx.deps.model.normalSeverity,
    status: 'closed',
    correlate: a.correlate,
    service: a.service,
    group: a.group,
    value: a.value,
    text: a.text,
    tags: a.tags,
    attributes: a.attributes,
    origin: a.origin,
    type: a.type,
    timeout: a.timeout,
    rawData: a.rawData,
    customer: a.customer,
  }));
}

/** Grafana legacy alerting: `alerting` opens one alert per evalMatch, `ok` clears the rule's alerts. */
export const grafana: Webhook = {
  name: 'grafana',
  async incoming({ payload, query }, ctx) {
    const notification = parsePayload(NotificationSchema, payload, 'Grafana');
    if (notification.state === 'alerting') {
      if (!notification.ruleName) throw appError('invalid_payload', 'Grafana', 'ruleName is missing');
      return {
        alerts: (notification.evalMatches ?? []).map((m) => toAlert(notification, m, payload, query, ctx)),
      };
    }
    if (notification.state === 'ok' && notification.ruleId !== null && notification.ruleId !== undefined) {
      return { alerts: await clearedAlertsOf(String(notification.ruleId), ctx) };
    }
    throw appError('no_alerts_in_payload', 'Grafana');
  },
};
