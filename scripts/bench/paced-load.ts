/** The background alert load of the UI benches (scripts/bench/ui.ts, ui-push.ts). */
export interface PacedLoad {
  origin: string;
  /** POSTs a second. */
  rate: number;
  /** Seeded alerts: each POST picks alert `i` in 1..count at random. */
  count: number;
  /** Checked between batches: true ends the load. */
  done: () => boolean;
  /** The body of POST number `sent`, for alert `i`. */
  alert: (i: number, sent: number) => Record<string, unknown>;
  /** A failed POST is counted here; without it, it fails the load. */
  onError?: () => void;
}

/**
 * POSTs to /api/alert at `rate` a second until `done()`: every 10 ms it sends what is due since
 * the start, so a slow batch is caught up instead of lowering the rate. Returns how many it sent.
 */
export async function postAtRate(load: PacedLoad): Promise<number> {
  const started = Date.now();
  let sent = 0;
  while (!load.done()) {
    const due = Math.floor(((Date.now() - started) / 1000) * load.rate);
    const batch: Promise<unknown>[] = [];
    for (; sent < due; sent++) {
      const i = 1 + Math.floor(Math.random() * load.count);
      const post = fetch(`${load.origin}/api/alert`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(load.alert(i, sent)),
      }).then((r) => r.arrayBuffer());
      batch.push(load.onError ? post.catch(load.onError) : post);
    }
    await Promise.all(batch);
    await new Promise((r) => setTimeout(r, 10));
  }
  return sent;
}
