/**
 * Per-key combining: while one job for a key runs, later submissions for the same key wait and
 * are then handed over together, so a burst of identical work becomes one job per round. Keys
 * are independent; nothing is held once a key's queue drains.
 */
export class KeyedBatcher<T, R> {
  readonly #queues = new Map<string, { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[]>();
  readonly #run: (items: T[]) => Promise<R[]>;

  /** `run` gets one or more items for a key, in arrival order, and returns one result per item. */
  constructor(run: (items: T[]) => Promise<R[]>) {
    this.#run = run;
  }

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.#queues.set(key, []);
      void this.#drain(key, [{ item, resolve, reject }]);
    });
  }

  async #drain(key: string, first: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[]) {
    let batch = first;
    while (batch.length) {
      try {
        const results = await this.#run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
      batch = this.#queues.get(key)!.splice(0);
    }
    this.#queues.delete(key);
  }
}
