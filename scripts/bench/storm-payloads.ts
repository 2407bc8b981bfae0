/**
 * What scripts/bench/storm.ts and storm-cost.ts send: Prometheus Alertmanager webhook payloads
 * (server/webhooks/prometheus.ts; the reference's webhook body, version 4) and the same alerts as
 * POST /alert bodies, a keep-alive HTTP poster, and the queries the wall and console subscribe with.
 */
import { Agent, request } from 'node:http';
import { prometheus } from '../../server/webhooks/prometheus.ts';
import type { WebhookContext, WebhookRequest } from '../../server/webhooks/types.ts';
import { WALL_SORT, ackedOnly, wallQuery, withSort } from '../../web/src/routes/wall/settings.ts';
import { clock } from './push-shared.ts';

/** Ten alert names, each with its severity (all shown on the wall: none of its quiet severities). */
export const EVENTS = [
  ['InstanceDown', 'critical'],
  ['HighLoad', 'major'],
  ['DiskFull', 'major'],
  ['MemoryPressure', 'minor'],
  ['HighLatency', 'warning'],
  ['ErrorRate', 'critical'],
  ['QueueBacklog', 'minor'],
  ['CertExpiry', 'warning'],
  ['PacketLoss', 'major'],
  ['ClockSkew', 'warning'],
] as const;

/** One Alertmanager alert: instance `<prefix><r>:9100`, alert name EVENTS[e]. */
export function amAlert(prefix: string, r: number, e: number) {
  const [alertname, severity] = EVENTS[e % EVENTS.length]!;
  const instance = `${prefix}${r}:9100`;
  return {
    status: 'firing',
    labels: {
      alertname,
      instance,
      job: `job${r % 20}`,
      severity,
      environment: 'Production',
      service: `svc${r % 50}`,
      monitor: 'storm',
      team: `team${r % 8}`,
    },
    annotations: {
      summary: `${alertname} on {instance}`,
      description: `{instance} of job {job}: ${alertname}`,
      value: String(r % 100),
    },
    startsAt: '2026-11-29T10:00:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: `http://prometheus:9090/graph?g0.expr=${alertname}`,
    fingerprint: `${prefix}${r}-${e}`,
  };
}

/** The Alertmanager notification carrying `alerts` (one group of one alert name). */
export const amPayload = (alerts: ReturnType<typeof amAlert>[]) =>
  JSON.stringify({
    version: '4',
    groupKey: `{}:{alertname="${alerts[0]?.labels.alertname ?? ''}"}`,
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'alertwall',
    groupLabels: { alertname: alerts[0]?.labels.alertname ?? '' },
    commonLabels: { monitor: 'storm', environment: 'Production' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    alerts,
  });

/** What the Prometheus receiver reads of its context, as the server's defaults give it. */
const receiverContext = {
  config: { DEFAULT_ENVIRONMENT: 'Production' },
  deps: { model: { normalSeverity: 'normal' } },
} as unknown as WebhookContext;

/**
 * The alerts of Alertmanager payloads as POST /alert bodies: exactly what the server's Prometheus
 * receiver makes of them (rawData included), so both ways store the same alerts.
 */
export const singleBodies = (payloads: string[]) =>
  payloads.flatMap((p) => {
    const mapped = prometheus.incoming({ payload: JSON.parse(p) } as WebhookRequest, receiverContext);
    return (mapped as { alerts: unknown[] }).alerts.map((a) => JSON.stringify(a));
  });

/**
 * The storm: `resources` × EVENTS alerts in payloads of `size` alerts of one name (Alertmanager
 * groups by alertname), payload p holding resources of block ⌊p / 10⌋ for name p mod 10; then
 * `resends` of them again (Alertmanager's group_interval re-notification), spread evenly among
 * the others. `expected` is each alert's duplicateCount after all of it.
 */
export function stormPayloads(prefix: string, resources: number, size: number, resends: number) {
  const names = EVENTS.length;
  const blocks = Math.ceil(resources / size);
  const fresh: string[] = [];
  const members: [number, number][][] = [];
  for (let p = 0; p < blocks * names; p++) {
    const e = p % names;
    const block = Math.floor(p / names);
    const rs = Array.from({ length: size }, (_, k) => block * size + k).filter((r) => r < resources);
    members.push(rs.map((r) => [r, e]));
    fresh.push(amPayload(rs.map((r) => amAlert(prefix, r, e))));
  }
  const expected = new Map<string, number>();
  for (const m of members) for (const [r, e] of m) expected.set(`${prefix}${r}:9100|${EVENTS[e]![0]}`, 0);
  // After every (fresh.length / resends) payloads, one sent at least 20 payloads (a second) before goes again.
  const order: string[] = [];
  const every = resends > 0 ? fresh.length / resends : Infinity;
  let next = every;
  let resent = 0;
  for (let p = 0; p < fresh.length; p++) {
    order.push(fresh[p]!);
    if (p + 1 >= next && resent < resends) {
      const again = (p * 7919) % Math.max(1, p - 20);
      order.push(fresh[again]!);
      for (const [r, e] of members[again]!) {
        const key = `${prefix}${r}:9100|${EVENTS[e]![0]}`;
        expected.set(key, expected.get(key)! + 1);
      }
      resent++;
      next += every;
    }
  }
  return { payloads: order, expected, alerts: expected.size };
}

export interface Answer {
  status: number;
  sentAt: number;
  answeredAt: number;
}

/** POSTs JSON bodies over a pool of keep-alive connections. */
export function createPoster(origin: string, maxSockets = 64) {
  const url = new URL(origin);
  const agent = new Agent({ keepAlive: true, maxSockets });
  const post = (path: string, body: string): Promise<Answer> =>
    new Promise((ok) => {
      const sentAt = clock();
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => ok({ status: res.statusCode ?? 0, sentAt, answeredAt: clock() }));
        },
      );
      req.on('error', () => ok({ status: 0, sentAt, answeredAt: clock() }));
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Sends `bodies` to `path` evenly over `seconds` (open loop: each at its time, whatever is in flight). */
export async function paced(
  post: (path: string, body: string) => Promise<Answer>,
  path: string,
  bodies: string[],
  seconds: number,
): Promise<Answer[]> {
  const start = clock();
  const gap = (seconds * 1000) / bodies.length;
  const answers: Promise<Answer>[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const due = start + i * gap;
    const wait = due - clock();
    if (wait > 1) await new Promise((ok) => setTimeout(ok, wait));
    answers.push(post(path, bodies[i]!));
  }
  return Promise.all(answers);
}

/** `/config filter` as query parameters, as the console (routes/alerts/view.ts configFilterParams) makes them. */
function filterParams(filter: Record<string, unknown>): URLSearchParams {
  const p = new URLSearchParams();
  const list = (v: unknown) =>
    (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [])
      .map((x) => String(x).trim())
      .filter(Boolean);
  if (typeof filter.environment === 'string' && filter.environment) p.set('environment', filter.environment);
  if (typeof filter.text === 'string' && filter.text) p.set('q', filter.text);
  for (const key of ['status', 'customer', 'service', 'group'])
    for (const v of list(filter[key])) p.append(key, v);
  return p;
}

/** The views the default wall (/wall) and console (/alerts) subscribe to, from the server's /config. */
export async function screenQueries(api: string) {
  const config = (await (await fetch(`${api}/config`)).json()) as {
    filter: Record<string, unknown>;
    sort_by: string | string[];
  };
  const filter = filterParams(config.filter);
  const wall = wallQuery('', filter);
  const console = new URLSearchParams(filter);
  for (const k of Array.isArray(config.sort_by) ? config.sort_by : [config.sort_by])
    console.append('sort-by', k);
  const acked = new URLSearchParams(ackedOnly(wall) ?? '');
  acked.set('page-size', '1');
  return {
    /** The wall's list: its view, in its order, with patches (web/src/routes/wall/+page.svelte). */
    wall: withSort(wall, WALL_SORT),
    /** The severity tiles' "· N acked" (LiveCounts: a one-alert page, counts only, no patches). */
    wallAcked: acked.toString(),
    /** The console with no filter in its URL: `/config filter`, `sort_by`, no page size (ConsoleView.query). */
    console: console.toString(),
  };
}
