import { randomUUID } from 'node:crypto';
import {
  ActionSchema,
  AttributesChangeSchema,
  MAX_ATTRIBUTES,
  MAX_LIST,
  StatusChangeSchema,
  TagsSchema,
  type Action,
  type StatusChange,
} from '../../shared/alerts.ts';
import { formatTime } from '../../shared/alerts.ts';
import type { BulkTask } from '../../shared/queries.ts';
import { selectIds } from '../db/alert-query.ts';
import * as alertsDb from '../db/alerts.ts';
import * as tasksDb from '../db/bulk-tasks.ts';
import type { BulkType, CallerSnapshot, TaskRow } from '../db/bulk-tasks.ts';
import type { BulkRunner, Deps } from '../deps.ts';
import { appError, AppError } from '../errors.ts';
import { presentLiveAlert } from '../present.ts';
import * as alerts from './alerts.ts';
import { changeChunk, eachLimited, type SetChange } from './bulk-change.ts';
import type { Caller } from './caller.ts';
import { alertQueryOf, selectionFor } from './search.ts';

/** Alerts per progress step of a task (and per statement for the set-based operations). */
const CHUNK = 500;
/**
 * Status and action tasks record progress every 100 alerts (one set-based transaction each), so a
 * console shows it moving (tests/api/bulk-progress.test.ts).
 */
const STATUS_STEP = 100;
/** Alerts changed at once by the per-alert path, leaving pool connections for requests. */
const CONCURRENCY = 4;
const LEASE_MS = 60_000;
const SWEEP_MS = 10_000;

/** The validated body of each bulk operation. */
export type BulkBody =
  | { type: 'status'; change: StatusChange }
  | { type: 'action'; action: Action }
  | { type: 'tag' | 'untag'; tags: string[] }
  | { type: 'attributes'; attributes: Record<string, unknown> }
  | { type: 'delete' };

/** Validates a bulk request body before anything is selected (400 on a bad body). */
export function bulkBodyOf(deps: Deps, type: BulkType, body: unknown): BulkBody {
  switch (type) {
    case 'status': {
      const change = StatusChangeSchema.parse(body);
      alerts.assertSettableStatus(deps, change.status);
      return { type, change: { ...change, text: change.text || 'bulk status update' } };
    }
    case 'action': {
      const action = ActionSchema.parse(body);
      alerts.assertTakeableAction(action.action);
      return { type, action };
    }
    case 'tag':
    case 'untag':
      return { type, tags: TagsSchema.parse(body).tags };
    case 'attributes':
      return { type, attributes: AttributesChangeSchema.parse(body).attributes };
    case 'delete':
      return { type };
  }
}

export type BulkOutcome =
  { kind: 'done'; changed: string[]; errors: string[] } | { kind: 'task'; id: string; total: number };

/**
 * PUT/DELETE /_bulk/alerts*: selects with the same parameters as GET /alerts (and the caller's
 * customers), then applies the operation inline when the selection is small, or as a task.
 */
export async function startBulk(
  deps: Deps,
  body: BulkBody,
  search: URLSearchParams,
  caller: Caller,
  headers: Record<string, string>,
): Promise<BulkOutcome> {
  const { config } = deps;
  const q = alertQueryOf(deps, search);
  const ids = await selectIds(
    deps.db,
    await selectionFor(deps, q.where, caller),
    config.BULK_QUERY_LIMIT + 1,
  );
  if (ids.length > config.BULK_QUERY_LIMIT) {
    throw appError('bulk_too_many', config.BULK_QUERY_LIMIT);
  }
  if (ids.length === 0 && (body.type === 'status' || body.type === 'action')) throw appError('not_found');
  if (body.type !== 'action' && ids.length <= config.BULK_SYNC_LIMIT) {
    return { kind: 'done', ...(await applyTo(deps, body, ids, caller)) };
  }
  const snapshot: CallerSnapshot = {
    ip: caller.ip,
    user: caller.user,
    baseUrl: caller.baseUrl,
    customers: caller.customers ? [...caller.customers] : null,
    headers,
  };
  const task = await tasksDb.insertTask(deps.db, {
    id: randomUUID(),
    type: body.type,
    ids,
    body: body as unknown as Record<string, unknown>,
    caller: snapshot,
    now: deps.clock.now(),
  });
  deps.bulk.kick();
  return { kind: 'task', id: task.id, total: ids.length };
}

/** GET /_bulk/task/:id */
export async function getTask(deps: Deps, id: string): Promise<BulkTask> {
  const task = await tasksDb.findTask(deps.db, id);
  if (!task) throw appError('not_found');
  return presentTask(task);
}

function presentTask(t: TaskRow): BulkTask {
  const finished = t.status === 'success' || t.status === 'failure';
  return {
    status: t.status,
    id: t.id,
    type: t.type,
    progress: { done: t.done, total: t.ids.length },
    result: finished
      ? {
          count: t.changed.length,
          [t.type === 'delete' ? 'deleted' : 'updated']: t.changed,
          errors: t.errors,
        }
      : null,
    createTime: formatTime(t.createTime),
    updateTime: formatTime(t.updateTime),
  };
}

/**
 * Status changes and actions through each alert's own use case (setAlertStatus / takeAlertAction),
 * CONCURRENCY at a time: the path a chunk falls back to when it could not be written together, and
 * the reference tests/api/bulk-set-based.test.ts compares the set-based path with.
 */
export async function applyPerAlert(
  deps: Deps,
  body: SetChange,
  ids: readonly string[],
  caller: Caller,
): Promise<{ changed: string[]; errors: string[] }> {
  const changed: string[] = [];
  const errors: string[] = [];
  await eachLimited(ids, CONCURRENCY, async (id) => {
    try {
      if (body.type === 'status') await alerts.setAlertStatus(deps, id, body.change, caller);
      else await alerts.takeAlertAction(deps, id, body.action, caller);
      changed.push(id);
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error({ err, id }, 'bulk.alert_failed');
      errors.push(`${id}: ${err instanceof AppError ? err.message : 'internal error'}`);
    }
  });
  const order = new Map(ids.map((id, i) => [id, i]));
  const byOrder = (a: string, b: string) => order.get(a)! - order.get(b)!;
  changed.sort(byOrder);
  errors.sort((a, b) => byOrder(a.slice(0, a.indexOf(': ')), b.slice(0, b.indexOf(': '))));
  return { changed, errors };
}

/**
 * Applies an operation to the given alerts. Status changes and actions are set-based per chunk
 * (domain/bulk-change.ts: the same plugins, state machine, history and events as each alert's use
 * case); tag, untag, attributes and delete change the rows in one statement per chunk. Each changed
 * alert is published.
 */
export async function applyTo(
  deps: Deps,
  body: BulkBody,
  ids: readonly string[],
  caller: Caller,
): Promise<{ changed: string[]; errors: string[] }> {
  const changed: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    if (body.type === 'status' || body.type === 'action') {
      const r =
        (await changeChunk(deps, body, chunk, caller)) ?? (await applyPerAlert(deps, body, chunk, caller));
      changed.push(...r.changed);
      errors.push(...r.errors);
      continue;
    }
    if (body.type === 'delete') {
      const gone = await alertsDb.deleteMany(deps.db, chunk, caller.customers);
      for (const g of gone) {
        changed.push(g.id);
        await deps.bus.publish({ type: 'alert.deleted', id: g.id, customer: g.customer });
      }
      continue;
    }
    const { rows, refused } =
      body.type === 'attributes'
        ? await alertsDb.updateAttributesMany(deps.db, chunk, body.attributes, caller.customers)
        : body.type === 'tag'
          ? await alertsDb.tagMany(deps.db, chunk, body.tags, caller.customers)
          : await alertsDb.untagMany(deps.db, chunk, body.tags, caller.customers);
    // An alert the change would take over a limit is left untouched and reported, as a status
    // change an alert refuses is (docs/alerts.md, "Field limits"); tests/api/stored-limits.test.ts.
    for (const id of refused) errors.push(`${id}: ${overLimit(body.type)}`);
    for (const row of [...rows].sort((a, b) => a.id.localeCompare(b.id))) {
      changed.push(row.id);
      await deps.bus.publish({ type: 'alert.updated', alert: presentLiveAlert(row, caller.baseUrl) });
    }
  }
  return { changed, errors };
}

/** Why a bulk tag or attributes change left an alert untouched. */
const overLimit = (type: 'tag' | 'untag' | 'attributes') =>
  type === 'attributes'
    ? `the alert's attributes would be over their limits (at most ${MAX_ATTRIBUTES.count} keys, ${MAX_ATTRIBUTES.storedBytes} bytes as stored JSON)`
    : `the alert's tags would be over their limits (at most ${MAX_LIST.tags.items} tags, ${MAX_LIST.tags.total} characters in total)`;

/**
 * This instance's task runner (deps.bulk). Tasks run the alert use cases, which take the whole
 * Deps, so boot.ts makes the runner, puts it in Deps, then starts it with them.
 */
export const createBulkRunner = () => new TaskRunner();

class TaskRunner implements BulkRunner {
  readonly owner = randomUUID();
  private deps: Deps | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  /** Takes pending tasks and resumes abandoned ones, now and every SWEEP_MS. */
  start(deps: Deps): void {
    this.deps = deps;
    this.timer = setInterval(() => this.kick(), SWEEP_MS);
    this.timer.unref();
    this.kick();
  }

  kick(): void {
    const { deps } = this;
    if (!deps || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain(deps)
      .catch((err: unknown) => deps.log.error({ err }, 'bulk.runner_failed'))
      .finally(() => {
        this.running = null;
      });
  }

  private async drain(deps: Deps): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        if (this.stopped) return;
        const task = await tasksDb.claimTask(deps.db, this.owner, LEASE_MS);
        if (!task) break;
        await this.run(deps, task);
      }
    } while (this.again);
  }

  private async run(deps: Deps, task: TaskRow): Promise<void> {
    const snapshot = task.caller;
    const caller: Caller = {
      ip: snapshot.ip,
      user: snapshot.user,
      baseUrl: snapshot.baseUrl,
      customers: snapshot.customers,
      header: (name) => snapshot.headers[name.toLowerCase()] ?? '',
    };
    const body = task.body as unknown as BulkBody;
    let done = task.done;
    try {
      while (done < task.ids.length) {
        if (this.stopped) return; // left started: its lease runs out and a runner resumes it
        const step = body.type === 'status' || body.type === 'action' ? STATUS_STEP : CHUNK;
        const chunk = task.ids.slice(done, done + step);
        const r = await applyTo(deps, body, chunk, caller);
        done += chunk.length;
        const kept = await tasksDb.recordProgress(deps.db, {
          id: task.id,
          owner: this.owner,
          done,
          changed: r.changed,
          errors: r.errors,
          leaseMs: LEASE_MS,
          now: deps.clock.now(),
        });
        if (!kept) return;
      }
      await tasksDb.finishTask(deps.db, {
        id: task.id,
        owner: this.owner,
        status: 'success',
        errors: [],
        now: deps.clock.now(),
      });
    } catch (err) {
      deps.log.error({ err, task: task.id }, 'bulk.task_failed');
      await tasksDb.finishTask(deps.db, {
        id: task.id,
        owner: this.owner,
        status: 'failure',
        errors: ['the task stopped on an internal error'],
        now: deps.clock.now(),
      });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
