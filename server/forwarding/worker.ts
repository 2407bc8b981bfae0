import type { Config } from '../config.ts';
import * as queue from '../db/forward-queue.ts';
import type { QueuedRow } from '../db/forward-queue.ts';
import type { Base } from '../deps.ts';
import {
  DeliveryQueue,
  LEASE_MS,
  type Claim,
  type Lane,
  type LaneState,
  retryPolicy,
  type RetryPolicy,
} from '../delivery/queue.ts';
import type { Forwarder as ForwarderService } from '../delivery/services.ts';
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

/** FWD_RETRY_DELAY, FWD_RETRY_MAX_DELAY and FWD_MAX_ATTEMPTS as the delivery queue takes them. */
export const forwardRetry = (
  config: Pick<Config, 'FWD_RETRY_DELAY' | 'FWD_RETRY_MAX_DELAY' | 'FWD_MAX_ATTEMPTS'>,
): RetryPolicy => retryPolicy(config.FWD_RETRY_DELAY, config.FWD_RETRY_MAX_DELAY, config.FWD_MAX_ATTEMPTS);

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

/** What forwarding keeps per destination beside its lane: the connections and the inline sends. */
interface Outlet {
  destination: Destination;
  agent: Agent;
  /** Inline deliveries in flight: sent from the request path, outside the drain loop. */
  inline: Set<Promise<void>>;
  /** Inline deliveries still unanswered after the request stopped waiting for them. */
  overdue: Set<Promise<void>>;
}

/**
 * The delivery side of forwarding for one instance, on the durable delivery queue: a lane per
 * destination that leases due rows and sends them (several at once, never two of one alert), and
 * events sent inline from the request that caused them. None ever holds up alert intake.
 */
export class Forwarder implements ForwarderService {
  private readonly deps: Base;
  private readonly queue: DeliveryQueue<readonly QueuedRow[]>;
  private readonly outlets: ReadonlyMap<string, Outlet>;
  /** Settled rows, removed in batches; the lanes of destinations with a new head are kicked. */
  private readonly removals: Removals<QueuedRow>;
  /** Per alert id, how many of its settled rows are not removed yet. */
  private readonly unremoved = new Map<string, number>();
  private polls = 0;
  /** Inline deliveries running (deliverInline): stop() waits for them to hand back unsent rows. */
  private readonly sequences = new Set<Promise<void>>();
  /** Each destination's place in FWD_DESTINATIONS: inline deliveries go in that order. */
  private readonly rank: ReadonlyMap<string, number>;

  constructor(deps: Base, destinations: readonly Destination[]) {
    this.deps = deps;
    this.rank = new Map(destinations.map((d, i) => [d.url, i]));
    this.outlets = new Map(
      destinations.map((d) => [
        d.url,
        { destination: d, agent: agentFor(d, BATCH + INLINE), inline: new Set(), overdue: new Set() },
      ]),
    );
    this.queue = new DeliveryQueue<readonly QueuedRow[]>(
      {
        name: 'forward',
        laneField: 'destination',
        retry: forwardRetry(deps.config),
        claim: (lane) => this.claim(lane),
        deliver: (lane, rows) => this.deliver(lane, rows),
        renew: (ids, leaseMs) => queue.renewLease(deps.db, { ids, owner: this.owner, leaseMs }),
        due: async (lanes) => {
          if (++this.polls % MARK_EVERY === 0) this.markHeads();
          return lanes;
        },
      },
      { log: deps.log, pollMs: POLL_MS },
    );
    this.queue.setLanes(this.outlets.keys());
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
  }

  get owner(): string {
    return this.queue.owner;
  }

  /**
   * Deletes the rows left for destinations no longer configured (and logs them), since nothing
   * would ever send them; marks missing heads, then starts polling and kicks every destination.
   */
  async start(): Promise<void> {
    const gone = await queue.removeOthers(this.deps.db, [...this.outlets.keys()]);
    for (const { destination, n } of gone) {
      this.deps.log.warn(
        { destination, events: n },
        'forward.dropped: queued events of a destination no longer configured',
      );
    }
    this.markHeads();
    this.queue.start();
  }

  stateOf(destination: string): LaneState | undefined {
    return this.queue.lane(destination)?.state;
  }

  kick(destination?: string): void {
    this.queue.kick(destination);
  }

  /** The safety net of `queue.markHeads`: run at start and every MARK_EVERY polls. */
  private markHeads(): void {
    queue.markHeads(this.deps.db).then(
      (marked) => {
        for (const destination of marked) this.kick(destination);
      },
      (err: unknown) => this.deps.log.error({ err }, 'forward.mark_heads_failed'),
    );
  }

  settle(rows: readonly QueuedRow[]): void {
    for (const row of rows) this.unremoved.set(row.alertId, (this.unremoved.get(row.alertId) ?? 0) + 1);
    this.removals.add(rows);
  }

  removedBefore(alertId: string): Promise<void> | undefined {
    return this.unremoved.has(alertId) ? this.removals.hurry() : undefined;
  }

  inlineLeaseMs(destination: string): number {
    if (this.deps.config.FWD_INLINE_TIMEOUT <= 0) return 0;
    const outlet = this.outlets.get(destination);
    const lane = this.queue.lane(destination);
    return outlet && lane && this.takesInline(outlet, lane) ? LEASE_MS : 0;
  }

  /**
   * Sends the rows one after the other in the order of FWD_DESTINATIONS, each once the one before
   * answered (or failed), as the established server's forwarder does; waits at most
   * FWD_INLINE_TIMEOUT for all of them together. When the time is up, the attempt in flight goes on
   * (noted overdue) and the rows not yet sent go back to the queue, whose loops send them at once,
   * so a slow destination holds up only itself (tests/api/forward-inline-order.test.ts).
   */
  async deliverInline(rows: readonly QueuedRow[]): Promise<void> {
    const run = this.sendInOrder(rows);
    this.sequences.add(run);
    try {
      await run;
    } finally {
      this.sequences.delete(run);
    }
  }

  private async sendInOrder(rows: readonly QueuedRow[]): Promise<void> {
    const waiting = this.inOrder(rows).map((row) => ({
      row,
      outlet: this.outlets.get(row.destination)!,
      lane: this.queue.lane(row.destination)!,
      // Renewed while it waits its turn, as while it is sent: FWD_INLINE_TIMEOUT may outlast a lease.
      release: this.queue.lane(row.destination)!.holdLease([row.id]),
    }));
    if (waiting.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.deps.config.FWD_INLINE_TIMEOUT * 1000);
    });
    let next = 0;
    try {
      while (next < waiting.length && !this.queue.stopping.aborted) {
        const { row, outlet, lane, release } = waiting[next++]!;
        const attempt = this.deliverNow(outlet, lane, row, release);
        if ((await Promise.race([attempt, timeUp])) === 'late') {
          noteOverdue(outlet, attempt);
          break;
        }
      }
    } finally {
      clearTimeout(timer);
    }
    const left = waiting.slice(next);
    if (left.length === 0) return;
    for (const w of left) w.release();
    await this.handBack(left.map((w) => w.row));
  }

  /** The rows this instance has destinations for, in the order of FWD_DESTINATIONS. */
  private inOrder(rows: readonly QueuedRow[]): QueuedRow[] {
    const known = rows.filter((row) => this.outlets.has(row.destination) && this.queue.lane(row.destination));
    if (known.length < 2) return known;
    return known.sort((a, b) => this.rank.get(a.destination)! - this.rank.get(b.destination)!);
  }

  /** Rows leased for inline delivery and not sent: released for the loops, which are woken. */
  private async handBack(rows: readonly QueuedRow[]): Promise<void> {
    try {
      await queue.release(
        this.deps.db,
        rows.map((row) => row.id),
        this.owner,
      );
    } catch (err) {
      // The leases run out within LEASE_MS and a loop takes the rows then.
      this.deps.log.error({ err }, 'forward.hand_back_failed');
    }
    for (const row of rows) this.kick(row.destination);
  }

  /** Aborts requests in flight (their rows go back to the queue) and waits for every send to end. */
  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.sequences);
    await Promise.all(
      [...this.outlets.values()].map(async (o) => {
        await Promise.all(o.inline);
        await o.agent.destroy();
      }),
    );
    await this.removals.flush();
  }

  private outlet(destination: string): Outlet {
    const outlet = this.outlets.get(destination);
    if (!outlet) throw new Error(`no forwarding destination ${destination}`);
    return outlet;
  }

  /**
   * May an event be sent inline now? Only while this instance has no failure on record for the
   * destination and no inline request to it outlasted the inline timeout (a dead or slow one must
   * not make every request wait), and a few at a time.
   */
  private takesInline(outlet: Outlet, lane: Lane): boolean {
    return (
      !this.queue.stopping.aborted &&
      !lane.isBackingOff &&
      outlet.overdue.size === 0 &&
      outlet.inline.size < INLINE
    );
  }

  /**
   * Sends a row the caller inserted already leased (its lease held by `release`'s renewal), as an
   * attempt like any other (same counts, backoff and retries).
   */
  private deliverNow(outlet: Outlet, lane: Lane, row: QueuedRow, release: () => void): Promise<void> {
    const attempt: Promise<void> = this.deliverChain(lane, [row])
      .catch((err: unknown) => this.deps.log.error({ err, destination: lane.key }, 'forward.inline_failed'))
      .finally(() => {
        release();
        outlet.inline.delete(attempt);
      });
    outlet.inline.add(attempt);
    return attempt;
  }

  private async claim(lane: Lane): Promise<Claim<readonly QueuedRow[]>> {
    const rows = await queue.claim(this.deps.db, {
      destination: lane.key,
      owner: this.owner,
      limit: lane.isProbing ? 1 : BATCH,
      chain: lane.isProbing ? 1 : CHAIN,
      leaseMs: LEASE_MS,
    });
    return rows.length ? { work: rows, ids: rows.map((r) => r.id) } : null;
  }

  private async deliver(lane: Lane, rows: readonly QueuedRow[]): Promise<void> {
    await Promise.all([...chainsOf(rows).values()].map((chain) => this.deliverChain(lane, chain)));
  }

  /**
   * Sends an alert's leased rows one after the other, then has the settled ones removed. Stops
   * at the first that is to be tried again (the rest go back to the queue behind it, untouched), and
   * after a failure elsewhere in the destination (it probes now). The lease is renewed meanwhile.
   */
  private async deliverChain(lane: Lane, chain: readonly QueuedRow[]): Promise<void> {
    const settled: QueuedRow[] = [];
    let done = 0;
    try {
      while (done < chain.length) {
        if (done > 0 && lane.isProbing) break;
        const row = chain[done]!;
        const outcome = await this.attempt(lane, row);
        done += 1;
        if (outcome !== 'settled') break;
        settled.push(row);
      }
    } finally {
      // Given back first, so that removing the settled rows sees them waiting and wakes a loop.
      try {
        await queue.release(
          this.deps.db,
          chain.slice(done).map((row) => row.id),
          this.owner,
        );
      } finally {
        // Also inline, the request does not wait for the removal (bookkeeping: the destination
        // has the event); the alert's next event hurries it instead (removedBefore).
        this.settle(settled);
      }
    }
  }

  /** One attempt at one row: 'settled' when it is to be removed (delivered, refused, given up on). */
  private async attempt(lane: Lane, row: QueuedRow): Promise<'settled' | 'retry' | 'stopped'> {
    const { metrics, log, db } = this.deps;
    const outlet = this.outlet(lane.key);
    const destination = lane.key;
    const count = (outcome: string) => metrics.forwardEvents.inc({ destination, kind: row.kind, outcome });
    const endTimer = metrics.forwardDuration.startTimer({ destination });
    let attempt: Attempt;
    try {
      attempt = await send(buildRequest(outlet.destination, row), {
        agent: outlet.agent,
        timeoutMs: outlet.destination.timeoutMs,
        stop: this.queue.stopping,
      });
    } catch (err) {
      // Only a credential a header cannot carry fails here, and start-up refuses those: be safe anyway.
      attempt = { outcome: 'rejected', status: 0, error: (err as Error).message };
    }
    if (attempt.outcome !== 'stopped') endTimer();
    const status = 'status' in attempt ? attempt.status : undefined;
    const error = 'error' in attempt ? attempt.error : '';
    // Shown as the destination's last error: a refusal is not tried again.
    const noted =
      attempt.outcome === 'rejected' ? { ...attempt, error: `${error} (refused, not retried)` } : attempt;
    const verdict = lane.record(noted, row.attempts + 1);
    const facts = () => ({ destination, kind: row.kind, alertId: row.alertId, requestId: row.requestId });
    switch (verdict.outcome) {
      case 'stopped':
        await queue.release(db, [row.id], this.owner);
        return 'stopped';
      case 'delivered':
        count('delivered');
        if (log.isLevelEnabled('debug')) log.debug({ ...facts(), status }, 'forward.delivered');
        return 'settled';
      case 'rejected':
        count('rejected');
        log.warn({ ...facts(), status }, 'forward.rejected: the destination refused the event');
        return 'settled';
      case 'expired':
        count('expired');
        log.warn(
          { ...facts(), attempts: verdict.attempts, error },
          'forward.expired: gave up after FWD_MAX_ATTEMPTS',
        );
        return 'settled';
      case 'retry':
        await queue.retryLater(db, { id: row.id, owner: this.owner, delayMs: verdict.delayMs, error });
        count('failed');
        log.info({ ...facts(), attempts: verdict.attempts, error }, 'forward.failed: will retry');
        return 'retry';
    }
  }
}

/** The request stopped waiting for this inline delivery: no more inline ones until it ends. */
function noteOverdue(outlet: Outlet, attempt: Promise<void>): void {
  if (!outlet.inline.has(attempt)) return;
  outlet.overdue.add(attempt);
  void attempt.finally(() => outlet.overdue.delete(attempt));
}

/** The forwarder when forwarding is on, else null; it sends nothing before `start()`. */
export function createForwarder(deps: Base): Forwarder | null {
  if (!isForwardingOn(deps.config)) return null;
  return new Forwarder(deps, toDestinations(deps.config.FWD_DESTINATIONS));
}
