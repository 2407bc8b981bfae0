import type { BulkTask } from '../../shared/queries.ts';
import { keyValues, UsageError, type OptionSpec, type Values } from '../args.ts';
import type { Command, Context } from '../context.ts';
import { ApiError, CliError, type Http } from '../http.ts';
import { Progress } from '../progress.ts';
import { idsOf, selectionOf, selectOptions, type Selection } from '../selection.ts';

/**
 * Commands that change every alert a selection matches. Unlike the established client (one
 * request per alert, only the first 50 matches), they send one `/_bulk` request with the same
 * query, follow the task it may start, and report the real count (clients.md §3.5). Servers
 * without `/_bulk` get one request per alert instead.
 */

type BulkType = 'action' | 'tag' | 'untag' | 'attributes' | 'delete';

interface Operation {
  name: string;
  summary: string;
  /** "Acking", for the progress bar and the question. */
  doing: string;
  /** "acked", for the outcome line. */
  done: string;
  type: BulkType;
  options: OptionSpec[];
  body(o: Values): Record<string, unknown>;
}

export interface BulkOutcome {
  count: number;
  ids: string[];
  errors: string[];
}

const TEXT: OptionSpec = {
  name: 'text',
  flags: ['--text'],
  metavar: 'TEXT',
  help: 'Message for the status change',
};
const TAGS: OptionSpec = {
  name: 'tags',
  flags: ['-T', '--tag'],
  multiple: true,
  metavar: 'TAG',
  help: 'Tag; repeat for more',
};
const YES: OptionSpec = {
  name: 'yes',
  flags: ['-y', '--yes'],
  type: 'flag',
  help: 'Do not ask before acting on every alert',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const action = (
  name: string,
  summary: string,
  doing: string,
  done: string,
  extra: OptionSpec[] = [],
): Operation => ({
  name,
  summary,
  doing,
  done,
  type: 'action',
  options: [TEXT, ...extra],
  body: (o) => ({ action: name, text: o.text ?? null, timeout: o.timeout ?? null }),
});

const OPERATIONS: Operation[] = [
  action('ack', 'Acknowledge alerts', 'Acking', 'acked'),
  action('unack', 'Un-acknowledge alerts', 'Unacking', 'unacked'),
  action('shelve', 'Shelve alerts', 'Shelving', 'shelved', [
    {
      name: 'timeout',
      flags: ['--timeout'],
      type: 'int',
      default: 7200,
      metavar: 'SECONDS',
      help: 'Seconds before an alert is unshelved (default 7200)',
    },
  ]),
  action('unshelve', 'Un-shelve alerts', 'Unshelving', 'unshelved'),
  action('close', 'Close alerts', 'Closing', 'closed'),
  {
    name: 'action',
    summary: 'Take a custom action on alerts',
    doing: 'Actioning',
    done: 'actioned',
    type: 'action',
    options: [
      { name: 'action', flags: ['-a', '--action'], metavar: 'ACTION', help: 'Custom action (user-defined)' },
      TEXT,
    ],
    body: (o) => {
      if (typeof o.action !== 'string' || !o.action)
        throw new UsageError('Missing option "-a" / "--action"', 'action');
      return { action: o.action, text: o.text ?? null, timeout: null };
    },
  },
  {
    name: 'tag',
    summary: 'Tag alerts',
    doing: 'Tagging',
    done: 'tagged',
    type: 'tag',
    options: [TAGS],
    body: (o) => ({ tags: requireTags(o, 'tag') }),
  },
  {
    name: 'untag',
    summary: 'Untag alerts',
    doing: 'Untagging',
    done: 'untagged',
    type: 'untag',
    options: [TAGS],
    body: (o) => ({ tags: requireTags(o, 'untag') }),
  },
  {
    name: 'update',
    summary: 'Update alert attributes',
    doing: 'Updating',
    done: 'updated',
    type: 'attributes',
    options: [
      {
        name: 'attributes',
        flags: ['-A', '--attributes'],
        multiple: true,
        metavar: 'KEY=VALUE',
        help: 'Attribute; repeat for more',
      },
    ],
    body: (o) => {
      const attributes = keyValues(o.attributes as string[] | undefined, '-A');
      if (!Object.keys(attributes).length)
        throw new UsageError('Missing option "-A" / "--attributes"', 'update');
      return { attributes };
    },
  },
  {
    name: 'delete',
    summary: 'Delete alerts',
    doing: 'Deleting',
    done: 'deleted',
    type: 'delete',
    options: [],
    body: () => ({}),
  },
];

function requireTags(o: Values, command: string): string[] {
  const tags = (o.tags as string[] | undefined) ?? [];
  if (!tags.length) throw new UsageError('Missing option "-T" / "--tag"', command);
  return tags;
}

async function countOf(http: Http, sel: Selection): Promise<number> {
  const r = await http.get<{ total?: number }>('/alerts/count', sel.params);
  return r.total ?? 0;
}

/** Waits for a bulk task, drawing its progress, and gives its result. */
async function followTask(ctx: Context, id: string, doing: string): Promise<BulkOutcome> {
  // zod loads only when a task is followed: most commands start faster without it.
  const { BulkTaskSchema } = await import('../../shared/queries.ts');
  let progress: Progress | null = null;
  for (let wait = 100; ; wait = Math.min(wait * 1.5, 1000)) {
    const answer = await ctx.http.get(`/_bulk/task/${encodeURIComponent(id)}`);
    const parsed = BulkTaskSchema.safeParse(answer);
    if (!parsed.success) throw new CliError(`unexpected answer for bulk task ${id}`);
    const task: BulkTask = parsed.data;
    progress ??= new Progress(`${doing} ${task.progress.total} alerts`, task.progress.total);
    progress.update(task.progress.done, task.progress.total);
    if (task.status === 'success' || task.status === 'failure') {
      progress.finish();
      const r = task.result ?? { count: 0, errors: [`bulk task ${id} ended with ${task.status}`] };
      return { count: r.count, ids: r.updated ?? r.deleted ?? [], errors: r.errors };
    }
    await sleep(wait);
  }
}

/** One request per alert, for servers without `/_bulk` (how the established client works). */
async function perAlert(
  ctx: Context,
  op: Operation,
  body: Record<string, unknown>,
  sel: Selection,
): Promise<BulkOutcome> {
  const ids = await idsOf(ctx.http, sel);
  const progress = new Progress(`${op.doing} ${ids.length} alerts`, ids.length);
  const outcome: BulkOutcome = { count: 0, ids: [], errors: [] };
  const path = (id: string) => `/alert/${encodeURIComponent(id)}`;
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        if (op.type === 'delete') await ctx.http.delete(path(id));
        else if (op.type === 'action') await ctx.http.put(`${path(id)}/action`, body);
        else await ctx.http.put(`${path(id)}/${op.type}`, body);
        outcome.ids.push(id);
        outcome.count++;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        outcome.errors.push(`${id}: ${err.message}`);
      }
      progress.tick();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  progress.finish();
  return outcome;
}

/** Applies one operation to a selection through `/_bulk`; null when nothing matched. */
async function applyBulk(
  ctx: Context,
  op: Operation,
  body: Record<string, unknown>,
  sel: Selection,
): Promise<BulkOutcome | null> {
  const path = op.type === 'delete' ? '/_bulk/alerts' : `/_bulk/alerts/${op.type}`;
  const answer = await ctx.http.send(op.type === 'delete' ? 'DELETE' : 'PUT', path, {
    query: sel.params,
    body: op.type === 'delete' ? undefined : body,
  });
  if (answer.status === 404) {
    // Either nothing matched, or this server has no /_bulk: the count tells which.
    if ((await countOf(ctx.http, sel)) === 0) return null;
    return perAlert(ctx, op, body, sel);
  }
  if (answer.status >= 400) throw ctx.http.errorFor(answer);
  const r = answer.body as {
    id?: string;
    updated?: string[];
    deleted?: string[];
    count?: number;
    errors?: string[];
  };
  if (answer.status === 202 && r.id) return followTask(ctx, r.id, op.doing);
  const ids = r.updated ?? r.deleted ?? [];
  return { count: r.count ?? ids.length, ids, errors: r.errors ?? [] };
}

function bulkCommand(op: Operation): Command {
  return {
    name: op.name,
    summary: op.summary,
    description:
      `${op.summary} matched by -i, -q or -f (all of them, through one /_bulk request).\n` +
      'With no selection every alert is affected: on a terminal you are asked first.',
    options: [...selectOptions(), ...op.options, YES],
    async run(ctx, o) {
      const sel = selectionOf(o);
      const body = op.body(o);
      if (!sel.given && !o.yes) {
        if (ctx.interactive) {
          const total = await countOf(ctx.http, sel);
          if (!(await ctx.confirm(`${op.doing} all ${total} alerts. Do you want to continue?`))) {
            throw new CliError('Aborted!');
          }
        } else if (op.type === 'delete') {
          // The established client asks here too, and aborts when nobody can answer.
          throw new UsageError(
            'refusing to delete every alert without a selection; add --yes to confirm',
            op.name,
          );
        }
      }
      const outcome = await applyBulk(ctx, op, body, sel);
      if (!outcome) {
        if (sel.byIds) throw new CliError(`no alert matches ${sel.params.map(([, v]) => v).join(', ')}`);
        if (ctx.isMachine)
          ctx.json({ count: 0, [op.type === 'delete' ? 'deleted' : 'updated']: [], errors: [] });
        else ctx.warn('No alerts matched.');
        return 0;
      }
      for (const e of outcome.errors) ctx.warn(`ERROR: ${e}`);
      if (ctx.isMachine) {
        ctx.json({
          count: outcome.count,
          [op.type === 'delete' ? 'deleted' : 'updated']: outcome.ids,
          errors: outcome.errors,
        });
      } else {
        ctx.print(`${outcome.count} alert${outcome.count === 1 ? '' : 's'} ${op.done}`);
      }
      if (sel.byIds && outcome.count === 0 && !outcome.errors.length) {
        throw new CliError(`no alert matches ${sel.params.map(([, v]) => v).join(', ')}`);
      }
      return outcome.errors.length ? 1 : 0;
    },
  };
}

export const bulkCommands: Command[] = OPERATIONS.map(bulkCommand);
