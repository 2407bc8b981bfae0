import type { Log } from '../log.ts';

/** How long settled rows wait to be removed together (the request that caused them does not wait). */
const GATHER_MS = 10;
/** After a removal failed (the database is away), when to try again. */
const RETRY_MS = 1000;

/**
 * Delivered (or given up) forward rows, removed in batches: each removal is a statement and a
 * round trip, and at a few hundred deliveries a second one per row cost as much as the receipts'
 * own statements (docs/benchmarks.md, 2026-11-27). Rows stay leased by this instance until removed,
 * so nobody sends them again meanwhile; a removal that fails is tried again, and if this instance
 * dies first the lease runs out and they are sent again (delivery is at least once).
 */
export class Removals {
  readonly #remove: (ids: number[]) => Promise<void>;
  readonly #log: Log;
  #pending: number[] = [];
  /** Callers of `now` waiting for the removal that takes their rows. */
  #waiting: (() => void)[] = [];
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(remove: (ids: number[]) => Promise<void>, log: Log) {
    this.#remove = remove;
    this.#log = log;
  }

  /** Rows to remove soon: gathered with others for up to GATHER_MS. */
  add(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.#pending.push(...ids);
    if (!this.#running) this.#schedule(GATHER_MS);
  }

  /**
   * Rows to remove now, waiting for it: at once when no removal runs, else in the next one, right
   * after it. For an inline delivery: the alert's next event, often queued by the very next request
   * (an ack right after the receipt), is sent inline only if nothing of the alert is left queued.
   * Resolves when the removal ran, also if it failed (then it is tried again later, as for `add`).
   */
  now(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    this.#pending.push(...ids);
    const done = new Promise<void>((ok) => this.#waiting.push(ok));
    if (!this.#running) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      this.#start(false);
    }
    return done;
  }

  /** Removes everything added so far, now (the instance is stopping). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.#running || this.#pending.length) {
      if (!this.#running) this.#start(true);
      await this.#running;
    }
  }

  #schedule(ms: number) {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#start(false);
    }, ms);
  }

  #start(final: boolean) {
    if (this.#running || this.#pending.length === 0) return;
    const ids = this.#pending;
    const waiting = this.#waiting;
    this.#pending = [];
    this.#waiting = [];
    this.#running = this.#remove(ids)
      .catch((err: unknown) => {
        this.#log.error({ err, rows: ids.length }, 'forward.remove_failed: will try again');
        if (!final) {
          this.#pending.unshift(...ids);
          this.#schedule(RETRY_MS);
        }
      })
      .finally(() => {
        this.#running = null;
        for (const ok of waiting) ok();
        if (this.#waiting.length) {
          if (this.#timer) clearTimeout(this.#timer);
          this.#timer = null;
          this.#start(false);
        } else if (this.#pending.length && !this.#timer) this.#schedule(GATHER_MS);
      });
  }
}
