import type { Blackout, Recurrence } from '../../shared/blackouts.ts';
import { alertOption, strings, UsageError } from '../args.ts';
import { answered, listing, type Command } from '../context.ts';
import type { Column } from '../format.ts';
import { created, DELETE, enc, purge, when } from './admin-common.ts';

/** alerta blackout, blackouts: create, list and delete blackout periods. */

/** "every weekday 18:00–08:00 Europe/Berlin; on now until <end>" or "…; next <start>". */
function recurrenceText(r: Recurrence, t: (iso: string) => string): string {
  if (!r.occurrence) return `${r.description}; none left`;
  return r.activeNow
    ? `${r.description}; on now until ${t(r.occurrence.endTime)}`
    : `${r.description}; next ${t(r.occurrence.startTime)}`;
}

export const blackout: Command = {
  name: 'blackout',
  summary: 'Suppress alerts',
  options: [
    alertOption('environment'),
    alertOption('service'),
    alertOption('resource', 'Resource'),
    alertOption('event'),
    alertOption('group', 'Group'),
    alertOption('tags', 'Tag'),
    alertOption('origin', 'Origin'),
    alertOption('customer', 'Customer (admin only)'),
    {
      name: 'start',
      flags: ['--start'],
      metavar: 'DATETIME',
      help: 'Start time, ISO 8601, e.g. 2024-02-01T12:00:00.000Z',
    },
    {
      name: 'duration',
      flags: ['--duration'],
      type: 'int',
      metavar: 'SECONDS',
      help: 'Blackout period in seconds',
    },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Reason for the blackout' },
    {
      name: 'rrule',
      flags: ['--rrule'],
      metavar: 'RULE',
      help: 'Recur: an RFC 5545 rule, e.g. FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0 (--duration is then each occurrence)',
    },
    {
      name: 'timezone',
      flags: ['--timezone'],
      metavar: 'ZONE',
      help: "IANA time zone of the rule's local times, e.g. Europe/Berlin (default UTC)",
    },
    {
      name: 'end',
      flags: ['--end'],
      metavar: 'DATETIME',
      help: 'End time, ISO 8601; with --rrule the end of the series (default: none)',
    },
    DELETE('a blackout'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/blackout/${enc(o.delete)}`));
    if (!o.environment) throw new UsageError('Missing option "-E" / "--environment"', 'blackout');
    const time = (name: 'start' | 'end') => {
      const raw = o[name];
      if (typeof raw !== 'string') return null;
      const t = Date.parse(raw);
      if (Number.isNaN(t))
        throw new UsageError(`Invalid value for "--${name}": "${raw}" is not an ISO 8601 time`, 'blackout');
      return new Date(t).toISOString();
    };
    const startTime = time('start');
    const endTime = time('end');
    // Our options: sent only when given, so the body stays the established client's otherwise.
    const recurrence = {
      ...(typeof o.rrule === 'string' ? { rrule: o.rrule } : {}),
      ...(typeof o.timezone === 'string' ? { timezone: o.timezone } : {}),
      ...(endTime ? { endTime } : {}),
    };
    const r = await ctx.http.post('/blackout', {
      environment: o.environment,
      service: strings(o.service),
      resource: o.resource ?? null,
      event: o.event ?? null,
      group: o.group ?? null,
      tags: strings(o.tags),
      origin: o.origin ?? null,
      customer: o.customer ?? null,
      startTime,
      duration: o.duration ?? null,
      text: o.text ?? null,
      ...recurrence,
    });
    created(ctx, r, 'blackout');
  },
};

export const blackouts: Command = {
  name: 'blackouts',
  summary: 'List alert suppressions',
  options: [{ name: 'purge', flags: ['--purge'], type: 'flag', help: 'Delete all expired blackouts' }],
  async run(ctx, o) {
    const t = when(ctx);
    const all = (await ctx.http.get<{ blackouts: Blackout[] }>('/blackouts')).blackouts;
    // Recurring blackouts add a column (ours); a list without one prints the established table.
    const recurrence: Column<Blackout>[] = all.some((b) => b.recurrence)
      ? [{ header: 'RECURRENCE', value: (b) => (b.recurrence ? recurrenceText(b.recurrence, t) : '') }]
      : [];
    listing(ctx, all, [
      { header: 'ID', value: (b) => b.id },
      { header: 'P', value: (b) => b.priority },
      { header: 'ENVIRONMENT', value: (b) => b.environment },
      { header: 'SERVICE', value: (b) => b.service },
      { header: 'RESOURCE', value: (b) => b.resource },
      { header: 'EVENT', value: (b) => b.event },
      { header: 'GROUP', value: (b) => b.group },
      { header: 'TAGS', value: (b) => b.tags },
      { header: 'ORIGIN', value: (b) => b.origin },
      { header: 'CUSTOMER', value: (b) => b.customer },
      { header: 'START', value: (b) => t(b.startTime) },
      { header: 'END', value: (b) => t(b.endTime) },
      { header: 'DURATION', value: (b) => `${b.duration}s` },
      { header: 'USER', value: (b) => b.user },
      { header: 'CREATED', value: (b) => t(b.createTime) },
      { header: 'COMMENT', value: (b) => b.text },
      { header: 'STATUS', value: (b) => b.status },
      { header: 'REMAINING', value: (b) => `${b.remaining}s` },
      ...recurrence,
    ]);
    if (!o.purge) return;
    const expired = all.filter((b) => b.status === 'expired');
    return (await purge(ctx, 'blackouts', '/blackout', expired, (b) => b.id)) ? 1 : 0;
  },
};
