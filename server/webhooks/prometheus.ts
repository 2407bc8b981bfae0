import { z } from 'zod';
import { appError } from '../errors.ts';
import { htmlLink, isoDate, parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

const NOT_SET = '0001-01-01T00:00:00Z';

const PrometheusAlertSchema = z.object({
  status: z.string().nullish(),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()).nullish(),
  startsAt: z.string().nullish(),
  endsAt: z.string().nullish(),
  generatorURL: z.string().nullish(),
});
type PrometheusAlert = z.infer<typeof PrometheusAlertSchema>;

/** Alertmanager's webhook body (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). */
const NotificationSchema = z.object({
  alerts: z.array(PrometheusAlertSchema),
  externalURL: z.string().nullish(),
});

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown) => v === undefined || v === null || typeof v === 'string';
/** A record of strings as NotificationSchema's would parse it to the same keys (it drops `__proto__`). */
const isStrings = (v: unknown) =>
  isRecord(v) && !Object.hasOwn(v, '__proto__') && Object.values(v).every((s) => typeof s === 'string');

/**
 * Whether NotificationSchema would accept `payload` and give back the same fields this receiver
 * reads, checked without building its copy (a storm posts thousands of alerts a second); anything
 * else goes through the schema, which names what is wrong (tests/api/webhooks.test.ts).
 */
function isWellFormed(payload: Record<string, unknown>): payload is z.infer<typeof NotificationSchema> {
  const { alerts } = payload;
  return (
    isText(payload.externalURL) &&
    Array.isArray(alerts) &&
    alerts.every(
      (a: unknown) =>
        isRecord(a) &&
        isText(a.status) &&
        isStrings(a.labels) &&
        (a.annotations === undefined || a.annotations === null || isStrings(a.annotations)) &&
        isText(a.startsAt) &&
        isText(a.endsAt) &&
        isText(a.generatorURL),
    )
  );
}

/**
 * Python's `str.format(**labels)` with named fields only: `{name}` is replaced, `{{` and `}}` are
 * literal braces; any other field (unknown name, format spec) leaves the whole text unchanged.
 */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  // Most label values and many annotations hold no braces: nothing to fill (a storm maps thousands).
  if (!text.includes('{') && !text.includes('}')) return text;
  let failed = false;
  const filled = text.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (match, name: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (name !== undefined && Object.hasOwn(values, name)) return values[name]!;
    failed = true;
    return match;
  });
  return failed ? text : filled;
}

/** Every value of `record` filled from `values`, in a new object. */
function fillAll(record: Readonly<Record<string, string>>, values: Readonly<Record<string, string>>) {
  const filled = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(record)) filled[key] = fillPlaceholders(record[key]!, values);
  return filled;
}

/** The integer a `timeout` label holds; 0, negative or not a number means "the default". */
function timeoutOf(label: string | undefined): number | null {
  if (label === undefined || !/^\s*\+?\d+\s*$/.test(label)) return null;
  return Number(label) || null;
}

function toAlert(
  element: PrometheusAlert,
  raw: unknown,
  externalUrl: string | null,
  env: string,
  normal: string,
) {
  const status = element.status ?? 'firing';
  const labels = fillAll(element.labels, element.labels);
  const annotations = fillAll(element.annotations ?? {}, labels);
  // Each label used for a field is taken out; whatever is left becomes a tag.
  const take = (from: Record<string, string>, name: string): string | undefined => {
    const value = from[name];
    delete from[name];
    return value;
  };

  const severityLabel = take(labels, 'severity');
  const severity =
    status === 'firing' ? severityLabel || 'warning' : status === 'resolved' ? normal : 'unknown';
  const resource = take(labels, 'exported_instance') || take(labels, 'instance') || 'n/a';
  const annotatedName = take(annotations, 'alertname');
  const event = take(labels, 'event') || annotatedName || take(labels, 'alertname');
  if (!event) throw appError('invalid_payload', 'Prometheus', 'labels.alertname is missing');
  const environment = take(labels, 'environment') || env;
  const customer = take(labels, 'customer') ?? null;
  const correlate = labels.correlate === undefined ? null : take(labels, 'correlate')!.split(',');
  const service = (take(labels, 'service') ?? '').split(',');
  const group = take(labels, 'group') || take(labels, 'job') || 'Prometheus';
  const origin = `prometheus/${take(labels, 'monitor') ?? '-'}`;
  const timeout = timeoutOf(take(labels, 'timeout'));

  const value = take(annotations, 'value') ?? null;
  const summary = take(annotations, 'summary');
  const description = take(annotations, 'description');
  const attributes: Record<string, unknown> = {
    startsAt: isoDate(element.startsAt) ?? element.startsAt ?? null,
    endsAt:
      !element.endsAt || element.endsAt === NOT_SET ? null : (isoDate(element.endsAt) ?? element.endsAt),
    ...annotations,
  };
  if (externalUrl) attributes.externalUrl = externalUrl;
  if (element.generatorURL) attributes.moreInfo = htmlLink(element.generatorURL, 'Prometheus Graph');

  return {
    resource,
    event,
    environment,
    severity,
    correlate,
    service,
    group,
    value,
    text: description || summary || `${severity.toUpperCase()}: ${resource} is ${event}`,
    tags: Object.entries(labels).map(([k, v]) => `${k}=${v}`),
    attributes,
    origin,
    type: 'prometheusAlert',
    timeout,
    customer,
    rawData: JSON.stringify(raw),
  };
}

/** Prometheus Alertmanager: one alert per element of `alerts`, firing or resolved (reference §4). */
export const prometheus: Webhook = {
  name: 'prometheus',
  incoming({ payload }, { config, deps }) {
    if (payload === null || typeof payload !== 'object' || !('alerts' in payload))
      throw appError('no_alerts_in_payload', 'Prometheus');
    const notification = isWellFormed(payload as Record<string, unknown>)
      ? (payload as z.infer<typeof NotificationSchema>)
      : parsePayload(NotificationSchema, payload, 'Prometheus');
    const raws = (payload as { alerts: unknown[] }).alerts;
    return {
      alerts: notification.alerts.map((element, i) =>
        toAlert(
          element,
          raws[i],
          notification.externalURL ?? null,
          config.DEFAULT_ENVIRONMENT,
          deps.model.normalSeverity,
        ),
      ),
    };
  },
};
