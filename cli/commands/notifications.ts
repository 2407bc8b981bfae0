import type { Receiver, Rule, TestResult } from '../../shared/notifications.ts';
import { UsageError } from '../args.ts';
import { answered, listFrom, type Command } from '../context.ts';
import type { Column } from '../format.ts';
import { CliError } from '../http.ts';
import { DELETE, enc } from './admin-common.ts';

/** Notification receivers and routing rules (docs/notifications.md, docs/cli.md): list, test, delete. */

/** A rule's conditions in one cell: `environment=Production minSeverity=major`. */
function conditions(r: Rule): string {
  const parts: string[] = [];
  for (const key of [
    'environment',
    'service',
    'group',
    'event',
    'resource',
    'customer',
    'minSeverity',
  ] as const) {
    if (r[key] !== null) parts.push(`${key}=${r[key]}`);
  }
  if (r.severity.length) parts.push(`severity=${r.severity.join('|')}`);
  if (r.tags.length) parts.push(`tags=${r.tags.join(',')}`);
  return parts.join(' ') || 'everything';
}

/** `receivers`, `rules`: list what /notifications/<key> holds, or with -D delete one of them. */
function listOrDelete<T>(
  key: 'receivers' | 'rules',
  summary: string,
  what: string,
  columns: readonly Column<T>[],
): Command {
  const path = `/notifications/${key}`;
  return {
    name: key,
    summary,
    options: [DELETE(what, 'by id or name')],
    async run(ctx, o) {
      if (typeof o.delete === 'string')
        return answered(ctx, await ctx.http.delete(`${path}/${enc(o.delete)}`));
      await listFrom(ctx, path, key, columns);
    },
  };
}

const receivers = listOrDelete<Receiver>('receivers', 'List notification receivers', 'a receiver', [
  { header: 'ID', value: (x) => x.id },
  { header: 'NAME', value: (x) => x.name },
  { header: 'TYPE', value: (x) => x.type },
  { header: 'ENABLED', value: (x) => x.enabled },
  { header: 'RATE LIMIT', value: (x) => (x.rateLimit === null ? '' : `${x.rateLimit}/min`) },
  { header: 'RESOLVED', value: (x) => x.sendResolved },
  { header: 'SOURCE', value: (x) => x.source },
  {
    header: 'SETTINGS',
    value: (x) =>
      Object.entries(x.settings)
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
        .join(' '),
  },
]);

const rules = listOrDelete<Rule>(
  'rules',
  'List notification routing rules, in the order they are tried',
  'a rule',
  [
    { header: 'ID', value: (x) => x.id },
    { header: 'PRIORITY', value: (x) => x.priority },
    { header: 'NAME', value: (x) => x.name },
    { header: 'ENABLED', value: (x) => x.enabled },
    { header: 'MATCH', value: conditions },
    { header: 'RECEIVERS', value: (x) => x.receivers.join(', ') },
    { header: 'CONTINUE', value: (x) => x.continue },
    { header: 'GROUP WAIT', value: (x) => `${x.groupWait}s` },
    { header: 'REPEAT', value: (x) => (x.repeatInterval ? `${x.repeatInterval}s` : '') },
    {
      header: 'ESCALATION',
      value: (x) => x.escalations.map((e) => `${e.after}s: ${e.receivers.join(', ')}`).join('; '),
    },
  ],
);

const testReceiver: Command = {
  name: 'test-receiver',
  summary: 'Send a test message to a notification receiver',
  description: 'Send a test message to a notification receiver now, and say whether the service took it.',
  args: [{ name: 'receiver', help: 'Receiver id or name', required: true }],
  options: [],
  async run(ctx, _o, args) {
    const name = args[0];
    if (!name) throw new UsageError('Missing argument "RECEIVER".', 'test-receiver');
    const r = await ctx.http.post<TestResult>(`/notifications/receivers/${enc(name)}/test`, {});
    if (ctx.isMachine) ctx.json(r);
    if (r.outcome !== 'sent')
      throw new CliError(`receiver ${r.receiver}: ${r.outcome} (${r.detail ?? 'no detail'})`, 1);
    if (!ctx.isMachine) ctx.print(`receiver ${r.receiver}: test message sent`);
  },
};

export const notificationCommands: Command[] = [receivers, rules, testReceiver];
