import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import * as queue from '../db/forward-queue.ts';
import type { QueuedRow } from '../db/forward-queue.ts';
import type { Base, Deps } from '../deps.ts';
import { isForwardingOn } from '../config/destinations.ts';
import { toDestinations, type Destination } from './destinations.ts';
import { Removals } from './removals.ts';
import { agentFor, buildRequest, send, type Agent, type Attempt } from './outbound.ts';

/** How often every destination looks for due rows (other instances' events, retries coming due). */
const POLL_MS = 1000;
/** Every this many polls, rows that should head their alert's sequence and are not marked are marked. */
const MARK_EVERY = 30;
/** Rows leased at once per destination, and requests in flight per destination. */
const BATCH = 16;
/** Events sent inline (from the request that caused them) in flight at once per destination. */
const INLINE = 16;
/** Rows of one alert leased together and sent one after the other (its head and those behind it). */
const CHAIN = 32;
/** A lease outlives the request timeout by this much, so a row is never sent twice at once. */
const LEASE_MARGIN_MS = 30_000;

/** Delay before attempt `n + 1` after `n` failures: doubling from FWD_RETRY_DELAY up to FWD_RETRY_MAX_DELAY. */
export function backoffMs(failures: number, config: Pick<Config, 'FWD_RETRY_DELAY' | 'FWD_RETRY_MAX_DELAY'>) {
  const base = config.FWD_RETRY_DELAY * 1000;
  const max = config.FWD_RETRY_MAX_DELAY * 1000;
  return Math.round(Math.min(max, base * 2 ** Math.max(0, Math.min(failures - 1, 30))));
}

/** Claimed rows by alert, each alert's in queue order (the order the claim returned them in is not). */
function chainsOf(rows: readonly QueuedRow[]): Map<string, QueuedRow[]> {
  const chains = new Map<string, QueuedRow[]>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const chain = chains.get(row.alertId);
    if (chain) chain.push(row);
    else chains.set(row.alertId, [row]);
  }
  return chains;
}

/** What /management/status tells about one destination, from this instance's point of view. */
export interface DestinationState {
  /** Failed attempts in a row; while above 0 only one row at a time is tried (a probe). */
  failures: number;
  /** Epoch ms before which this instance sends the destination nothing; 0 when not waiting. */
  pausedUntil: number;
  lastError: string | null;
  lastErrorTime: number | null;
  lastDeliveryTime: number | null;
}

/**
 * Delivers one destination's queue: leases due rows, sends them (several at once, never two of one
 * alert), and on failure backs off the whole destination, so a dead one costs one probe per
 * backoff step instead of a request per event. Each destination has its own loop: a slow one never
 * holds up another, and none ever holds up alert intake.
 */
class DestinationLoop {
  readonly state: DestinationState = {
    failures: 0,
    pausedUntil: 0,
    lastError: null,
    lastErrorTime: null,
    lastDeliveryTime: null,
  };
  private running: Promise<void> | null = null;
  /** Inline deliveries in flight: sent from the request path, outside the drain loop. */
  private readonly inline = new Set<Promise<void>>();
  /** Inline deliveries still unanswered after the request stopped waiting for them. */
  private readonly overdue = new Set<Promise<void>>();
  private again = false;
  private wake: NodeJS.Timeout | null = null;
  private readonly agent: Agent;
  private readonly forwarder: Forwarder;
  readonly destination: Destination;

  constructor(forwarder: Forwarder, destination: Destination) {
    this.forwarder = forwarder;
    this.destination = destination;
    this.agent = agentFor(destination, BATCH + INLINE);
  }

  /** How long a leased row is held: the request timeout and a margin, so no one else sends it meanwhile. */
  get leaseMs(): number {
    return this.destination.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * May an event be sent inline now? Only while this instance has no failure on record for the
   * destination and no inline request to it outlasted the inline timeout (a dead or slow one must
   * not make every request wait), and a few at a time.
   */
  takesInline(): boolean {
    return (
      !this.forwarder.stopping.aborted &&
      this.state.failures === 0 &&
      this.state.pausedUntil <= Date.now() &&
      this.overdue.size === 0 &&
      this.inline.size < INLINE
    );
  }

  /** The request stopped waiting for this inline delivery: no more inline ones until it ends. */
  noteOverdue(attempt: Promise<void>): void {
    if (!this.inline.has(attempt)) return;
    this.overdue.add(attempt);
    void attempt.finally(() => this.overdue.delete(attempt));
  }

  /**
   * Sends a row the caller inserted already leased, as an attempt like any other (same counts,
   * backoff and retries); afterwards looks for rows of the same alert that were queued behind it.
   */
  deliverNow(row: QueuedRow): Promise<void> {
    const attempt: Promise<void> = this.deliverChain([row], Date.now() + this.leaseMs)
      .catch((err: unknown) =>
        this.forwarder.deps.log.error({ err, destination: this.destination.url }, 'forward.inline_failed'),
      )
      .finally(() => {
        this.inline.delete(attempt);
      });
    this.inline.add(attempt);
    return attempt;
  }

  kick(): void {
    if (this.forwarder.stopping.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: unknown) =>
        this.forwarder.deps.log.error({ err, destination: this.destination.url }, 'forward.loop_failed'),
      )
      .finally(() => {
        this.running = null;
      });
  }

  async stop(): Promise<void> {
    if (this.wake) clearTimeout(this.wake);
    await Promise.all([this.running, ...this.inline]);
    await this.agent.destroy();
  }

  private async drain(): Promise<void> {
    const { deps, owner, stopping } = this.forwarder;
    do {
      this.again = false;
      for (;;) {
        if (stopping.aborted) return;
        const waitMs = this.state.pausedUntil - Date.now();
        if (waitMs > 0) {
          this.wakeIn(waitMs);
          return;
        }
        const probing = this.state.failures > 0;
        const leasedUntil = Date.now() + this.leaseMs;
        const rows = await queue.claim(deps.db, {
          destination: this.destination.url,
          owner,
          limit: probing ? 1 : BATCH,
          chain: probing ? 1 : CHAIN,
          leaseMs: this.leaseMs,
        });
        if (rows.length === 0) break;
        await Promise.all([...chainsOf(rows).values()].map((chain) => this.deliverChain(chain, leasedUntil)));
      }
    } while (this.again);
  }

  private wakeIn(ms: number) {
    if (this.wake) clearTimeout(this.wake);
    this.wake = setTimeout(() => {
      this.wake = null;
      this.kick();
    }, ms);
    this.wake.unref();
  }

  /**
   * Sends an alert's leased rows one after the other, then has the settled ones removed. Stops
   * at the first that is to be tried again (the rest go back to the queue behind it, untouched), and
   * before a request that could outlast the lease (`leasedUntil`, epoch ms).
   */
  private async deliverChain(chain: readonly QueuedRow[], leasedUntil: number): Promise<void> {
    const { deps, owner } = this.forwarder;
    const settled: QueuedRow[] = [];
    let done = 0;
    try {
      while (done < chain.length) {
        if (done > 0 && (this.state.failures > 0 || Date.now() + this.destination.timeoutMs >= leasedUntil))
          break;
        const row = chain[done]!;
        const outcome = await this.attempt(row);
        done += 1;
        if (outcome !== 'settled') break;
        settled.push(row);
      }
    } finally {
      // Given back first, so that removing the settled rows sees them waiting and wakes a loop.
      try {
        await queue.release(
          deps.db,
          chain.slice(done).map((row) => row.id),
          owner,
        );
      } finally {
        // Also inline, the request does not wait for the removal (bookkeeping: the destination
        // has the event); the alert's next event hurries it instead (Forwarder.removedBefore).
        this.forwarder.settle(settled);
      }
    }
  }

  /** One attempt at one row: 'settled' when it is to be removed (delivered, refused, given up on). */
  private async attempt(row: QueuedRow): Promise<'settled' | 'retry' | 'stopped'> {
    const { deps, owner, stopping } = this.forwarder;
    const { metrics, log, db, config } = deps;
    const destination = this.destination.url;
    const count = (outcome: string) => metrics.forwardEvents.inc({ destination, kind: row.kind, outcome });
    const endTimer = metrics.forwardDuration.startTimer({ destination });
    let attempt: Attempt;
    try {
      attempt = await send(buildRequest(this.destination, row), {
        agent: this.agent,
        timeoutMs: this.destination.timeoutMs,
        stop: stopping,
      });
    } catch (err) {
      // Only a credential a header cannot carry fails here, and start-up refuses those: be safe anyway.
      attempt = { outcome: 'rejected', status: 0, error: (err as Error).message };
    }
    if (attempt.outcome === 'stopped') {
      await queue.release(db, [row.id], owner);
      return 'stopped';
    }
    endTimer();
    const now = Date.now();
    const facts = () => ({ destination, kind: row.kind, alertId: row.alertId, requestId: row.requestId });
    switch (attempt.outcome) {
      case 'delivered':
        count('delivered');
        this.state.failures = 0;
        this.state.pausedUntil = 0;
        this.state.lastDeliveryTime = now;
        if (log.isLevelEnabled('debug'))
          log.debug({ ...facts(), status: attempt.status }, 'forward.delivered');
        return 'settled';
      case 'rejected':
        count('rejected');
        this.noteError(`${attempt.error} (refused, not retried)`, now);
        log.warn(
          { ...facts(), status: attempt.status },
          'forward.rejected: the destination refused the event',
        );
        return 'settled';
      case 'failed': {
        const attempts = row.attempts + 1;
        // Requests that were in flight together fail together: one step of backoff, not one each.
        if (this.state.pausedUntil <= now) {
          this.state.failures += 1;
          this.state.pausedUntil = now + backoffMs(this.state.failures, config);
        }
        this.noteError(attempt.error, now);
        if (attempts >= config.FWD_MAX_ATTEMPTS) {
          count('expired');
          log.warn(
            { ...facts(), attempts, error: attempt.error },
            'forward.expired: gave up after FWD_MAX_ATTEMPTS',
          );
          return 'settled';
        }
        await queue.retryLater(db, {
          id: row.id,
          owner,
          delayMs: backoffMs(attempts, config),
          error: attempt.error,
        });
        count('failed');
        log.info({ ...facts(), attempts, error: attempt.error }, 'forward.failed: will retry');
        return 'retry';
      }
    }
  }

  private noteError(error: string, now: number) {
    this.state.lastError = error;
    this.state.lastErrorTime = now;
  }
}

/** The delivery side of forwarding for one instance: a loop per destination, polled and kicked. */
export class Forwarder {
  readonly owner = randomUUID();
  private readonly controller = new AbortController();
  readonly stopping = this.controller.signal;
  readonly loops: ReadonlyMap<string, DestinationLoop>;
  private readonly timer: NodeJS.Timeout;
  readonly deps: Deps;

  constructor(deps: Deps, destinations: readonly Destination[]) {
    this.deps = deps;
    this.removals = new Removals<QueuedRow>(async (rows) => {
      const heads = await queue.settle(
        deps.db,
        rows.map((row) => row.id),
        this.owner,
      );
      for (const row of rows) {
        const left = (this.unremoved.get(row.alertId) ?? 1) - 1;
        if (left > 0) this.unremoved.set(row.alertId, left);
        else this.unremoved.delete(row.alertId);
      }
      for (const destination of heads) this.kick(destination);
    }, deps.log);
    this.loops = new Map(destinations.map((d) => [d.url, new DestinationLoop(this, d)]));
    let polls = 0;
    this.timer = setInterval(() => {
      if (++polls % MARK_EVERY === 0) this.markHeads();
      this.kick();
    }, POLL_MS);
    this.timer.unref();
  }

  /** The safety net of `queue.markHeads`: run at start and every MARK_EVERY polls. */
  markHeads(): void {
    queue.markHeads(this.deps.db).then(
      (marked) => {
        for (const destination of marked) this.kick(destination);
      },
      (err: unknown) => this.deps.log.error({ err }, 'forward.mark_heads_failed'),
    );
  }

  /** Settled rows, removed in batches; the loops of destinations with a new head are woken. */
  private readonly removals: Removals<QueuedRow>;
  /** Per alert id, how many of its settled rows are not removed yet. */
  private readonly unremoved = new Map<string, number>();

  settle(rows: readonly QueuedRow[]): void {
    for (const row of rows) this.unremoved.set(row.alertId, (this.unremoved.get(row.alertId) ?? 0) + 1);
    this.removals.add(rows);
  }

  /**
   * Before an event of `alertId` is queued: when a settled row of that alert is still waiting to
   * be removed (an inline delivery's, usually the previous request's), removes it now and gives
   * the promise to wait for, so that the new event finds nothing queued before it and is sent
   * inline too instead of after the gathered removal. Undefined (nothing to wait for) otherwise.
   */
  removedBefore(alertId: string): Promise<void> | undefined {
    return this.unremoved.has(alertId) ? this.removals.hurry() : undefined;
  }

  /** Looks for work now: for one destination, or for all. */
  kick(destination?: string): void {
    if (destination !== undefined) this.loops.get(destination)?.kick();
    else for (const loop of this.loops.values()) loop.kick();
  }

  /** How long to lease a new event of `destination` to send it inline; 0 when it should just be queued. */
  inlineLeaseMs(destination: string): number {
    if (this.deps.config.FWD_INLINE_TIMEOUT <= 0) return 0;
    const loop = this.loops.get(destination);
    return loop?.takesInline() ? loop.leaseMs : 0;
  }

  /**
   * Sends rows enqueued leased by this instance and waits for them, at most FWD_INLINE_TIMEOUT:
   * a request that waits longer returns anyway, and its attempt goes on (up to the destination's
   * timeout) with the usual outcome — delivered, or back in the queue with its backoff.
   */
  async deliverInline(rows: readonly QueuedRow[]): Promise<void> {
    const sent = rows.flatMap((row) => {
      const loop = this.loops.get(row.destination);
      return loop ? [{ loop, attempt: loop.deliverNow(row) }] : [];
    });
    if (sent.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.deps.config.FWD_INLINE_TIMEOUT * 1000);
    });
    const ended = await Promise.race([Promise.all(sent.map((s) => s.attempt)), timeUp]);
    clearTimeout(timer);
    if (ended === 'late') for (const { loop, attempt } of sent) loop.noteOverdue(attempt);
  }

  /** Aborts requests in flight (their rows go back to the queue) and waits for the loops to end. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.controller.abort();
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
    await this.removals.flush();
  }
}

const running = new WeakMap<Base, Forwarder>();

/** This instance's forwarder, if forwarding is on. */
export const forwarderOf = (deps: Base): Forwarder | undefined => running.get(deps);

/**
 * Starts delivery when forwarding is on. Rows left for destinations no longer configured are
 * deleted (and logged), since nothing would ever send them.
 */
export async function startForwarding(deps: Deps): Promise<{ stop(): Promise<void> }> {
  if (!isForwardingOn(deps.config)) return { stop: async () => {} };
  const destinations = toDestinations(deps.config.FWD_DESTINATIONS);
  const gone = await queue.removeOthers(
    deps.db,
    destinations.map((d) => d.url),
  );
  for (const { destination, n } of gone) {
    deps.log.warn(
      { destination, events: n },
      'forward.dropped: queued events of a destination no longer configured',
    );
  }
  const forwarder = new Forwarder(deps, destinations);
  running.set(deps, forwarder);
  forwarder.markHeads();
  forwarder.kick();
  return {
    stop: async () => {
      running.delete(deps);
      await forwarder.stop();
    },
  };
}
