import * as housekeepingDb from '../db/housekeeping.ts';
import type { Deps } from '../deps.ts';
import { appError, AppError } from '../errors.ts';
import { PluginSignal } from './plugin-hooks.ts';
import { takeHousekeepingAction, type StillDue } from './alerts.ts';
import type { Caller } from './caller.ts';

/** Alerts selected (and deleted) per statement, so a backlog never holds one long transaction. */
const BATCH = 500;
/** Alerts changed at once, leaving pool connections for requests. */
const CONCURRENCY = 4;
/** How long GET/POST /management/housekeeping waits for a run on another instance to finish. */
const LOCK_WAIT_MS = 60_000;
const LOCK_POLL_MS = 200;

/** Delete ages in seconds; 0 skips that deletion. */
interface Thresholds {
  expiredAfter: number;
  infoAfter: number;
}

interface Outcome {
  expired: string[];
  unshelve: string[];
  unack: string[];
  deleted: number;
  /** Notification delivery history entries older than NOTIFY_DELIVERY_RETENTION, deleted. */
  deliveries: number;
  /** One line per alert a plugin refused or failed on. */
  errors: string[];
}

/** GET|POST /management/housekeeping: one run now; the answer body (alert-lifecycle.md §9). */
export async function runHousekeeping(
  deps: Deps,
  params: URLSearchParams,
  caller: Caller,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const thresholds = {
    expiredAfter: hoursParam(params, 'expired') ?? deps.config.DELETE_EXPIRED_AFTER,
    infoAfter: hoursParam(params, 'info') ?? deps.config.DELETE_INFO_AFTER,
  };
  // Changes are the caller's (history `user`), but housekeeping covers every customer.
  const hooksCaller: Caller = { ...caller, customers: null };
  const run = await withRunLock(deps, LOCK_WAIT_MS, () =>
    housekeep(deps, thresholds, hooksCaller, () => false),
  );
  if (!run) {
    throw appError('housekeeping_busy', LOCK_WAIT_MS / 1000);
  }
  logOutcome(deps, run, 'endpoint');
  if (run.errors.length) throw appError('housekeeping_failed').with({ errors: run.errors });
  return {
    status: 200,
    body: {
      status: 'ok',
      expired: run.expired,
      unshelve: run.unshelve,
      unack: run.unack,
      count: run.expired.length + run.unshelve.length + run.unack.length,
    },
  };
}

/** `expired` / `info` query parameter: hours (fractions allowed) → seconds; absent → null. */
function hoursParam(params: URLSearchParams, name: string): number | null {
  const raw = params.get(name);
  if (raw === null || raw.trim() === '') return null;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) {
    throw appError('invalid_housekeeping_param', name).with({
      errors: [`${name} must be a number of hours, 0 or more (0 keeps those alerts), got '${raw}'`],
    });
  }
  return Math.round(Number(raw) * 3600);
}

/**
 * Runs `fn` while holding housekeeping's advisory lock on one pooled connection, waiting up to
 * `waitMs` for another instance to release it; null when it stayed taken. A session lock rather
 * than a transaction one: the run can outlast the pool's idle-in-transaction limit.
 */
async function withRunLock<T>(deps: Deps, waitMs: number, fn: () => Promise<T>): Promise<T | null> {
  return deps.db.connect(async (conn) => {
    const deadline = Date.now() + waitMs;
    while (!(await housekeepingDb.tryRunLock(conn))) {
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
    try {
      return await fn();
    } finally {
      await housekeepingDb.releaseRunLock(conn);
    }
  });
}

/**
 * One run, in the reference's order (lifecycle §9): delete old closed/expired alerts, delete old
 * informational alerts, expire timed-out alerts, then unshelve and unack those whose shelve / ack
 * timeout ran out. Alerts just expired are no longer acked or shelved, so the later steps skip them.
 */
async function housekeep(
  deps: Deps,
  thresholds: Thresholds,
  caller: Caller,
  isStopping: () => boolean,
): Promise<Outcome> {
  const { config, model } = deps;
  const now = deps.clock.now();
  const outcome: Outcome = { expired: [], unshelve: [], unack: [], deleted: 0, deliveries: 0, errors: [] };

  if (thresholds.expiredAfter > 0) {
    outcome.deleted += await deleteAll(
      deps,
      { expired: true },
      now - thresholds.expiredAfter * 1000,
      isStopping,
    );
  }
  if (thresholds.infoAfter > 0) {
    outcome.deleted += await deleteAll(
      deps,
      { severity: model.informSeverity },
      now - thresholds.infoAfter * 1000,
      isStopping,
    );
  }

  const isExpiryDue: StillDue = (r) =>
    r.status !== 'expired' &&
    r.timeout !== null &&
    r.timeout > 0 &&
    r.lastReceiveTime + r.timeout * 1000 < now;
  await actOnAll(
    deps,
    (after) => housekeepingDb.findToExpire(deps.db, now, after, BATCH),
    (id) => takeHousekeepingAction(deps, id, 'expired', caller, isExpiryDue),
    'expire',
    outcome.expired,
    outcome.errors,
    isStopping,
  );

  const timeouts = [
    { status: 'shelved', entry: 'shelve', fallback: config.SHELVE_TIMEOUT, done: outcome.unshelve },
    { status: 'ack', entry: 'ack', fallback: config.ACK_TIMEOUT, done: outcome.unack },
  ];
  for (const t of timeouts) {
    const isDue: StillDue = (r, history) => {
      if (r.status !== t.status) return false;
      const entry = history.find((h) => h.type === t.entry && h.status === t.status);
      const timeout = entry ? (entry.timeout ?? t.fallback) : 0;
      return timeout > 0 && r.updateTime + timeout * 1000 < now;
    };
    await actOnAll(
      deps,
      (after) => housekeepingDb.findTimedOut(deps.db, t.status, t.entry, t.fallback, now, after, BATCH),
      (id) => takeHousekeepingAction(deps, id, 'timeout', caller, isDue),
      t.entry === 'shelve' ? 'unshelve' : 'unack',
      t.done,
      outcome.errors,
      isStopping,
    );
  }
  // Then the notification delivery history's old entries (docs/notifications.md, "Delivery history").
  if (config.NOTIFY_DELIVERY_RETENTION > 0) {
    const before = now - config.NOTIFY_DELIVERY_RETENTION * 1000;
    let gone = BATCH;
    while (gone === BATCH && !isStopping()) {
      gone = await housekeepingDb.purgeDeliveries(deps.db, before, BATCH);
      outcome.deliveries += gone;
    }
  }
  return outcome;
}

/** Deletes in batches until none are left (or the server stops); publishes `alert.deleted` for each. */
async function deleteAll(
  deps: Deps,
  kind: { expired: true } | { severity: string },
  before: number,
  isStopping: () => boolean,
): Promise<number> {
  let total = 0;
  while (!isStopping()) {
    const gone = await housekeepingDb.deleteStale(deps.db, kind, before, BATCH);
    for (const g of gone) await deps.bus.publish({ type: 'alert.deleted', id: g.id, customer: g.customer });
    total += gone.length;
    if (gone.length < BATCH) break;
  }
  return total;
}

/**
 * Pages through the selected ids and acts on each (a few at a time). Ids acted on are added to
 * `done` in id order; a plugin's refusal or failure is recorded in `errors` and the run goes on;
 * an alert deleted or changed meanwhile is skipped; anything else ends the run.
 */
async function actOnAll(
  deps: Deps,
  select: (after: string) => Promise<readonly string[]>,
  act: (id: string) => Promise<boolean>,
  verb: string,
  done: string[],
  errors: string[],
  isStopping: () => boolean,
): Promise<void> {
  let after = '';
  while (!isStopping()) {
    const ids = await select(after);
    if (ids.length === 0) break;
    const acted = new Set<string>();
    await eachLimited(ids, CONCURRENCY, async (id) => {
      try {
        if (await act(id)) acted.add(id);
      } catch (err) {
        if (err instanceof AppError && err.status === 404) return; // deleted since it was selected
        if (!(err instanceof AppError || err instanceof PluginSignal)) throw err;
        deps.log.warn({ id, action: verb, error: err.message }, 'housekeeping.refused');
        errors.push(`could not ${verb} alert ${id}: ${err.message}`);
      }
    });
    done.push(...ids.filter((id) => acted.has(id)));
    if (ids.length < BATCH) break;
    after = ids.at(-1)!;
  }
}

/** Runs `fn` on every item, at most `limit` at a time; the first failure stops the rest and is thrown. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}

function logOutcome(deps: Deps, o: Outcome, trigger: 'endpoint' | 'schedule') {
  const fields = {
    trigger,
    expired: o.expired.length,
    unshelve: o.unshelve.length,
    unack: o.unack.length,
    deleted: o.deleted,
    deliveries: o.deliveries,
    errors: o.errors.length,
  };
  if (Object.values(fields).some((v) => typeof v === 'number' && v > 0)) {
    deps.log.info(fields, 'housekeeping.ran');
  } else deps.log.debug(fields, 'housekeeping.ran');
}

/**
 * Starts the in-server scheduler: a run every HOUSEKEEPING_INTERVAL seconds (0: none), skipped
 * while another instance on the same database holds the run lock. stop() waits for a run in
 * progress, which ends at its next batch boundary.
 */
export function startHousekeeping(deps: Deps): { stop(): Promise<void> } {
  const interval = deps.config.HOUSEKEEPING_INTERVAL;
  if (deps.config.DATABASE_POOL_SIZE < 2) {
    deps.log.warn(
      { DATABASE_POOL_SIZE: deps.config.DATABASE_POOL_SIZE },
      'housekeeping.pool_too_small: a run holds one connection for its lock and needs another for its work',
    );
  }
  if (interval <= 0) return { stop: async () => {} };
  const { config } = deps;
  const caller: Caller = {
    ip: '',
    header: () => '',
    user: null,
    baseUrl: config.BASE_URL ? config.BASE_URL.replace(/\/+$/, '') : config.API_PREFIX,
    customers: null,
  };
  const thresholds = { expiredAfter: config.DELETE_EXPIRED_AFTER, infoAfter: config.DELETE_INFO_AFTER };
  let stopped = false;
  let running: Promise<void> | null = null;

  const tick = () => {
    if (stopped || running) return; // a run longer than the interval: the next tick after it ends
    running = withRunLock(deps, 0, () => housekeep(deps, thresholds, caller, () => stopped))
      .then((outcome) => {
        if (outcome) logOutcome(deps, outcome, 'schedule');
        else deps.log.debug({}, 'housekeeping.skipped: another instance is running it');
      })
      .catch((err: unknown) => deps.log.error({ err }, 'housekeeping.failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, interval * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
