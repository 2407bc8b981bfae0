import type { Heartbeat } from '../../shared/heartbeats.ts';
import { alertOption, strings } from '../args.ts';
import { answered, listFrom, type Command } from '../context.ts';
import { timedelta } from '../format.ts';
import {
  alertEach,
  checkSeverity,
  created,
  DELETE,
  enc,
  normalSeverity,
  origin,
  purge,
  when,
} from './admin-common.ts';
import { alertBody } from './alerts.ts';

/** alerta heartbeat, heartbeats: send heartbeats, list them, purge and alert on stale ones. */

export const heartbeat: Command = {
  name: 'heartbeat',
  summary: 'Send a heartbeat',
  options: [
    alertOption('origin', 'Origin of the heartbeat (default alerta/<hostname>)'),
    alertOption('environment', 'Environment of its alerts'),
    alertOption('severity', 'Severity of its alerts'),
    alertOption('service', 'Service of its alerts'),
    alertOption('group', 'Group of its alerts'),
    alertOption('tags', 'Tag'),
    alertOption('timeout', 'Seconds before the heartbeat is stale'),
    alertOption('customer'),
    DELETE('a heartbeat'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/heartbeat/${enc(o.delete)}`));
    if (typeof o.severity === 'string') checkSeverity(ctx, o.severity, 'heartbeat');
    // Stored in attributes: `heartbeats --alert` raises its alerts with them.
    const attributes: Record<string, unknown> = {};
    if (o.environment) attributes.environment = o.environment;
    if (o.severity) attributes.severity = o.severity;
    if (strings(o.service).length) attributes.service = strings(o.service);
    if (o.group) attributes.group = o.group;
    const r = await ctx.http.post('/heartbeat', {
      origin: o.origin ?? origin(),
      tags: strings(o.tags),
      attributes,
      timeout: o.timeout ?? null,
      createTime: new Date().toISOString(),
      customer: o.customer ?? null,
    });
    created(ctx, r, 'heartbeat');
  },
};

/** The alert `heartbeats --alert` raises for one heartbeat (as the established client does). */
function heartbeatAlert(hb: Heartbeat, severity: string, normal: string, timeout: number | null) {
  const attributes = { ...hb.attributes };
  const take = (k: string) => {
    const v = attributes[k];
    delete attributes[k];
    return v;
  };
  const environment = take('environment') ?? 'Production';
  const wanted = (take('severity') as string | undefined) ?? severity;
  const service = take('service') ?? ['Alerta'];
  const group = take('group') ?? 'System';
  const common = {
    resource: hb.origin,
    environment,
    correlate: ['HeartbeatFail', 'HeartbeatSlow', 'HeartbeatOK'],
    service,
    group,
    tags: hb.tags,
    attributes,
    origin: origin(),
    type: 'heartbeatAlert',
    timeout,
    customer: hb.customer,
  };
  if (hb.status === 'expired') {
    return alertBody({
      ...common,
      event: 'HeartbeatFail',
      severity: wanted,
      value: timedelta(hb.since),
      text: `Heartbeat not received in ${hb.timeout} seconds`,
    });
  }
  if (hb.status === 'slow') {
    return alertBody({
      ...common,
      event: 'HeartbeatSlow',
      severity: wanted,
      value: `${hb.latency}ms`,
      text: `Heartbeat took more than ${hb.maxLatency}ms to be processed`,
    });
  }
  return alertBody({ ...common, event: 'HeartbeatOK', severity: normal, value: '', text: 'Heartbeat OK' });
}

export const heartbeats: Command = {
  name: 'heartbeats',
  summary: 'List heartbeats',
  options: [
    { name: 'alert', flags: ['--alert'], type: 'flag', help: 'Alert on stale or slow heartbeats' },
    alertOption('severity', 'Severity of heartbeat alerts (major)', { default: 'major' }),
    alertOption('timeout', 'Seconds before heartbeat alerts expire'),
    { name: 'purge', flags: ['--purge'], type: 'flag', help: 'Delete all stale heartbeats' },
  ],
  async run(ctx, o) {
    const severity = String(o.severity);
    checkSeverity(ctx, severity, 'heartbeats');
    const t = when(ctx);
    const all = await listFrom<Heartbeat>(ctx, '/heartbeats', 'heartbeats', [
      { header: 'ID', value: (h) => h.id },
      { header: 'ORIGIN', value: (h) => h.origin },
      { header: 'CUSTOMER', value: (h) => h.customer },
      { header: 'TAGS', value: (h) => h.tags },
      { header: 'ATTRIBUTES', value: (h) => h.attributes },
      { header: 'CREATED', value: (h) => t(h.createTime) },
      { header: 'RECEIVED', value: (h) => t(h.receiveTime) },
      // As the established client: its age as a Python timedelta, the rest with their units.
      { header: 'SINCE', value: (h) => timedelta(h.since) },
      { header: 'TIMEOUT', value: (h) => `${h.timeout}s` },
      { header: 'LATENCY', value: (h) => `${h.latency}ms` },
      { header: 'MAX LATENCY', value: (h) => `${h.maxLatency}ms` },
      { header: 'STATUS', value: (h) => h.status },
    ]);
    let failed = 0;
    if (o.purge) {
      const stale = all.filter((h) => h.status !== 'ok');
      failed += await purge(ctx, 'heartbeats', '/heartbeat', stale, (h) => h.origin);
    }
    if (o.alert) {
      const normal = normalSeverity(ctx);
      const timeout = (o.timeout as number | undefined) ?? null;
      failed += await alertEach(
        ctx,
        'heartbeats',
        all,
        (h) => h.origin,
        (h) => heartbeatAlert(h, severity, normal, timeout),
        { announce: true },
      );
    }
    return failed ? 1 : 0;
  },
};
