import type { Log } from '../log.ts';

/** How long settled rows wait to be removed together (the request that caused them does not wait). */
const GATHER_MS = 10;
/** After a removal failed (the database is away), when to try again. */
const RETRY_MS = 1000;

/**
 * Delivered (or given up) forward rows, removed in batches: each removal is a statement and a
 * round trip, and at a few hundred deliveries a second one per row cost as much as the receipts'
 * own statements (tests/unit/forward-removals.test.ts: rows settled close together go in one
 * statement). Rows stay leased by this instance until removed,
 * so nobody sends them again meanwhile; a removal that fails is tried again, and if this instance
 * dies first the lease runs out and they are sent again (delivery is at least once). `T` is what
 * the remover is given per row (its id, or the row).
 */
export class Removals<T = number> {
  readonly #remove: (rows: T[]) => Promise<void>;
  readonly #log: Log;
  #pending: T[] = [];
  /** Callers of `hurry` waiting for the removal that takes what was pending when they called. */
  #waiting: (() => void)[] = [];
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(remove: (rows: T[]) => Promise<void>, log: Log) {
    this.#remove = remove;
    this.#log = log;
  }

  /** Rows to remove soon: gathered with others for up to GATHER_MS. */
  add(rows: readonly T[]): void {
    if (rows.length === 0) return;
    this.#pending.push(...rows);
    if (!this.#running) this.#schedule(GATHER_MS);
  }

  /** Rows to remove now, waiting for it (`add` then `hurry`). */
  now(rows: readonly T[]): Promise<void> {
    this.add(rows);
    return this.hurry();
  }

  /**
   * Removes what is pending now instead of after the gathering, and resolves when that removal
   * ran (also if it failed: then it is tried again later, as for `add`): at once when none runs,
   * else right after the running one. For an event about to be queued behind a delivered row that
   * is not removed yet: it is sent inline only if nothing of its alert is left queued before it.
   */
  hurry(): Promise<void> {
    if (this.#pending.length === 0) return this.#running ?? Promise.resolve();
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
    const rows = this.#pending;
    const waiting = this.#waiting;
    this.#pending = [];
    this.#waiting = [];
    this.#running = this.#remove(rows)
      .catch((err: unknown) => {
        this.#log.error({ err, rows: rows.length }, 'forward.remove_failed: will try again');
        if (!final) {
          this.#pending.unshift(...rows);
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
