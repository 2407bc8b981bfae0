import { randomUUID } from 'node:crypto';
import type { Log } from '../log.ts';

/**
 * The durable delivery queue both forwarding (forward_queue) and notifications
 * (notification_queue) run on. The rows live in PostgreSQL and are shared by every instance; this
 * module owns what each instance does with them: one lane per destination or receiver, a poll that
 * kicks lanes with work due, the drain loop (claim, deliver, again), the lease and its renewal, the
 * lane-wide backoff after a failure, and the error state /management/status shows. A kind of
 * delivery plugs in with a `Delivery`: how to claim, deliver and (optionally) renew its rows.
 */

/** What became of one attempt at sending. */
export type Attempt =
  | { outcome: 'delivered'; status: number }
  /** Worth trying again: no answer, a timeout, 5xx, 408, 429. */
  | { outcome: 'failed'; error: string }
  /** The other side answered and refused (other 3xx/4xx): trying again would be refused again. */
  | { outcome: 'rejected'; status: number; error: string }
  /** This instance is stopping; the rows go back to the queue as they were. */
  | { outcome: 'stopped' };

/**
 * How long claimed rows stay this instance's without a word from it. The queue renews the lease
 * every third of it while the rows are being delivered, so a slow send is never taken over by
 * another instance, and a crashed instance's rows come due again within one lease (and the next
 * poll): that is how long a receiver or destination may wait for an event sent again after a crash
 * (tests/api/notifications-redelivery.test.ts).
 */
export const LEASE_MS = 6_000;

/** When to try again after a failure, and when to give up. */
export interface RetryPolicy {
  /** The first delay; each further failure doubles it. */
  delayMs: number;
  maxDelayMs: number;
  /** Attempts at a row before it is given up on (expired). */
  maxAttempts: number;
}

/** A policy from the settings' form: delays in seconds (the *_RETRY_DELAY and *_RETRY_MAX_DELAY settings). */
export const retryPolicy = (
  delaySeconds: number,
  maxDelaySeconds: number,
  maxAttempts: number,
): RetryPolicy => ({
  delayMs: delaySeconds * 1000,
  maxDelayMs: maxDelaySeconds * 1000,
  maxAttempts,
});

/** Delay before attempt `n + 1` after `n` failures: doubling from `delayMs` up to `maxDelayMs`. */
export function backoffMs(failures: number, retry: Pick<RetryPolicy, 'delayMs' | 'maxDelayMs'>): number {
  return Math.round(Math.min(retry.maxDelayMs, retry.delayMs * 2 ** Math.max(0, Math.min(failures - 1, 30))));
}

/** What /management/status tells about one lane (a destination, a receiver), from this instance's point of view. */
export interface LaneState {
  /** Failed attempts in a row; while above 0 the lane probes (claims as little as it can). */
  failures: number;
  /** Epoch ms before which this instance sends the lane nothing; 0 when not waiting. */
  pausedUntil: number;
  lastError: string | null;
  lastErrorTime: number | null;
  lastDeliveryTime: number | null;
}

/**
 * What an attempt means for the rows it carried: remove them (`delivered`, `rejected`: refused,
 * not retried; `expired`: out of attempts), try them again after `delayMs` (`retry`), or give them
 * back untouched (`stopped`).
 */
export type Verdict =
  | { outcome: 'delivered' | 'rejected' | 'stopped' }
  | { outcome: 'expired'; attempts: number }
  | { outcome: 'retry'; attempts: number; delayMs: number };

/** What a claim found: work to deliver (and the row ids its lease covers), or how long to wait. */
export type Claim<W> = { work: W; ids: readonly number[] } | { waitMs: number } | null;

/** How one kind of delivery plugs into the queue. */
export interface Delivery<W> {
  /** Log lines start with it: `forward.loop_failed`, `notify.renew_failed`. */
  readonly name: string;
  /** The log field naming a lane: `destination`, `receiver`. */
  readonly laneField: string;
  readonly retry: RetryPolicy;
  /**
   * Leases a lane's due rows for LEASE_MS (few while it probes after a failure): null when none
   * are due, `waitMs` when the lane may not send yet (a rate limit).
   */
  claim(lane: Lane): Promise<Claim<W>>;
  /** Sends claimed work and settles every row of it (removed, retried later or released). */
  deliver(lane: Lane, work: W): Promise<void>;
  /** Extends this instance's lease on rows still being delivered (rows no longer its own are left alone). */
  renew(ids: readonly number[], leaseMs: number): Promise<void>;
  /** Which lanes to kick on a poll; every lane when not given. */
  due?(lanes: readonly string[]): Promise<Iterable<string>>;
}

/** What a lane reads of its queue. */
interface LaneHost {
  readonly delivery: Delivery<unknown>;
  readonly log: Log;
  readonly stopping: AbortSignal;
}

interface QueueOptions {
  log: Log;
  /** How often lanes are looked at for due rows (other instances' rows, retries, waits run out). */
  pollMs: number;
}

/**
 * One destination's or receiver's queue on this instance: drains it when kicked, one claim after
 * another, and backs the whole lane off on failure, so a dead service costs one probe per backoff
 * step instead of a request per row. Each lane has its own loop: a slow one never holds up another.
 */
export class Lane {
  readonly state: LaneState = {
    failures: 0,
    pausedUntil: 0,
    lastError: null,
    lastErrorTime: null,
    lastDeliveryTime: null,
  };
  readonly key: string;
  private running: Promise<void> | null = null;
  private again = false;
  private wake: NodeJS.Timeout | null = null;
  private readonly queue: LaneHost;

  constructor(queue: LaneHost, key: string) {
    this.queue = queue;
    this.key = key;
  }

  /** After a failure, until an attempt succeeds: claim as little as possible. */
  get isProbing(): boolean {
    return this.state.failures > 0;
  }

  /** Failing, or waiting out a backoff: nothing should be sent to it outside the drain loop. */
  get isBackingOff(): boolean {
    return this.state.failures > 0 || this.state.pausedUntil > Date.now();
  }

  /** Looks for work now (again after the current round, when one runs). */
  kick(): void {
    if (this.queue.stopping.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: unknown) =>
        this.queue.log.error(
          { err, [this.queue.delivery.laneField]: this.key },
          `${this.queue.delivery.name}.loop_failed`,
        ),
      )
      .finally(() => {
        this.running = null;
      });
  }

  /**
   * Books one attempt and says what becomes of its rows; `attempts` counts this one. Requests in
   * flight together fail together: one step of backoff for the lane, not one each.
   */
  record(attempt: Attempt, attempts: number): Verdict {
    const now = Date.now();
    switch (attempt.outcome) {
      case 'stopped':
        return { outcome: 'stopped' };
      case 'delivered':
        this.state.failures = 0;
        this.state.pausedUntil = 0;
        this.state.lastDeliveryTime = now;
        return { outcome: 'delivered' };
      case 'rejected':
        this.noteError(attempt.error, now);
        return { outcome: 'rejected' };
      case 'failed': {
        const { retry } = this.queue.delivery;
        if (this.state.pausedUntil <= now) {
          this.state.failures += 1;
          this.state.pausedUntil = now + backoffMs(this.state.failures, retry);
        }
        this.noteError(attempt.error, now);
        if (attempts >= retry.maxAttempts) return { outcome: 'expired', attempts };
        return { outcome: 'retry', attempts, delayMs: backoffMs(attempts, retry) };
      }
    }
  }

  private noteError(error: string, now: number) {
    this.state.lastError = error;
    this.state.lastErrorTime = now;
  }

  /** Waits for the round in progress; the queue's stop signal has ended it or is ending it. */
  async stop(): Promise<void> {
    if (this.wake) clearTimeout(this.wake);
    this.wake = null;
    await this.running;
  }

  private async drain(): Promise<void> {
    const { delivery, stopping } = this.queue;
    do {
      this.again = false;
      for (;;) {
        if (stopping.aborted) return;
        const pausedMs = this.state.pausedUntil - Date.now();
        if (pausedMs > 0) return this.wakeIn(pausedMs);
        const claimed = await delivery.claim(this);
        if (claimed === null) break;
        if ('waitMs' in claimed) return this.wakeIn(claimed.waitMs);
        const release = this.holdLease(claimed.ids);
        try {
          await delivery.deliver(this, claimed.work);
        } finally {
          release();
        }
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
   * Renews the lease on `ids` every third of LEASE_MS (one renewal at a time) until the returned
   * function is called: for rows delivered outside the drain loop (forwarding's inline sends).
   */
  holdLease(ids: readonly number[]): () => void {
    const { delivery, log } = this.queue;
    if (ids.length === 0) return () => {};
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      delivery
        .renew(ids, LEASE_MS)
        .catch((err: unknown) =>
          log.warn(
            { error: (err as Error).message, [delivery.laneField]: this.key },
            `${delivery.name}.renew_failed`,
          ),
        )
        .finally(() => (renewing = false));
    }, LEASE_MS / 3);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/**
 * This instance's side of one durable queue: a lane per destination or receiver, polled and
 * kicked. `owner` marks the rows this instance leases; `stopping` aborts requests in flight.
 */
export class DeliveryQueue<W> {
  readonly owner = randomUUID();
  private readonly controller = new AbortController();
  readonly stopping = this.controller.signal;
  readonly delivery: Delivery<W>;
  readonly log: Log;
  private readonly lanes = new Map<string, Lane>();
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(delivery: Delivery<W>, options: QueueOptions) {
    this.delivery = delivery;
    this.log = options.log;
    this.pollMs = options.pollMs;
  }

  /** Starts polling and kicks every lane once. */
  start(): void {
    if (this.timer || this.stopping.aborted) return;
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  lane(key: string): Lane | undefined {
    return this.lanes.get(key);
  }

  keys(): string[] {
    return [...this.lanes.keys()];
  }

  /** One lane per key: new keys get a lane, lanes of keys no longer given stop. */
  setLanes(keys: Iterable<string>): void {
    const wanted = new Set(keys);
    for (const [key, lane] of this.lanes) {
      if (!wanted.has(key)) {
        void lane.stop();
        this.lanes.delete(key);
      }
    }
    for (const key of wanted) if (!this.lanes.has(key)) this.lanes.set(key, new Lane(this, key));
  }

  /** Looks for work now: in one lane, or in all. */
  kick(key?: string): void {
    if (key !== undefined) this.lanes.get(key)?.kick();
    else for (const lane of this.lanes.values()) lane.kick();
  }

  private async poll(): Promise<void> {
    if (this.stopping.aborted) return;
    if (!this.delivery.due) return this.kick();
    try {
      for (const key of await this.delivery.due(this.keys())) this.kick(key);
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, `${this.delivery.name}.poll_failed`);
    }
  }

  /** Aborts requests in flight (their rows go back to the queue) and waits for the lanes to end. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.controller.abort();
    await Promise.all([...this.lanes.values()].map((lane) => lane.stop()));
  }
}
