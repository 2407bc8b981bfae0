import type { Blackout } from '../../shared/blackouts.ts';
import { alertOption, strings, UsageError } from '../args.ts';
import { answered, listFrom, type Command } from '../context.ts';
import { created, DELETE, enc, purge, when } from './admin-common.ts';

/** alerta blackout, blackouts: create, list and delete blackout periods. */

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
    DELETE('a blackout'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/blackout/${enc(o.delete)}`));
    if (!o.environment) throw new UsageError('Missing option "-E" / "--environment"', 'blackout');
    let startTime: string | null = null;
    if (typeof o.start === 'string') {
      const t = Date.parse(o.start);
      if (Number.isNaN(t))
        throw new UsageError(`Invalid value for "--start": "${o.start}" is not an ISO 8601 time`, 'blackout');
      startTime = new Date(t).toISOString();
    }
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
    const all = await listFrom<Blackout>(ctx, '/blackouts', 'blackouts', [
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
    ]);
    if (!o.purge) return;
    const expired = all.filter((b) => b.status === 'expired');
    return (await purge(ctx, 'blackouts', '/blackout', expired, (b) => b.id)) ? 1 : 0;
  },
};
