import { appError } from '../../errors.ts';
import { receiveDirect, rememberWritten } from './direct.ts';
import type { Receipt, Received, ReceiveState } from './state.ts';
import { applyToExisting, createNew, createOrFind, foldableDuplicates, writeDuplicates } from './write.ts';

// One batch key's waiting receipts written in order (state.receipts runs this): each leading run
// first without the read when it can (direct.ts), else read, then written (write.ts).

const MAX_ATTEMPTS = 8;

/**
 * Receipts that may touch the same alerts are combined per instance: while one is written, the
 * next ones wait and are then written in order (a leading run of duplicates of one alert as one
 * write), so a storm of duplicates costs one read and one write per round instead of a row-lock
 * queue in the database.
 */
export async function receiveBatch(state: ReceiveState, items: Receipt[]): Promise<Received[]> {
  const results: Received[] = [];
  let rest = items;
  while (rest.length) {
    const done = await receiveSome(state, rest);
    // The identity's next receipt of this severity is most likely a plain duplicate: it may skip the read.
    rememberWritten(state, rest[0]!.key, done.at(-1)!.record);
    results.push(...done);
    rest = rest.slice(done.length);
  }
  return results;
}

const CREATED = { outcome: 'created' } as const;
const FOUND = { outcome: 'found' } as const;
const AGAIN = { outcome: 'again' } as const;

/** How much one decision moves `newShare`: about the last 50 decisions count. */
const SHARE_STEP = 1 / 50;

/**
 * Whether a receipt of `key` is most likely a new alert: this instance has not written the identity
 * lately (direct.ts's hints), and most receipts lately decided after a read were new. It is then
 * created in the statement that would have read for it (write.ts createOrFind): one round trip
 * instead of two. A source repeating more alerts than the hints hold sees mostly duplicates there,
 * and keeps the plain read.
 */
function isLikelyNew(state: ReceiveState, key: string): boolean {
  return state.newShare >= 0.5 && !state.hints.has(key);
}

function noteDecided(state: ReceiveState, created: boolean) {
  state.newShare += ((created ? 1 : 0) - state.newShare) * SHARE_STEP;
}

/** Handles a leading run of receipts (at least one) with one read and one write, retrying on a concurrent change. */
async function receiveSome(state: ReceiveState, items: Receipt[]): Promise<Received[]> {
  const first = items[0]!;
  const direct = await receiveDirect(state, first.key, items);
  if (direct) return direct;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    let candidate;
    if (attempt === 1 && isLikelyNew(state, first.key)) {
      const tried = await createOrFind(state, first);
      const outcome = tried === 'conflict' ? AGAIN : 'created' in tried ? CREATED : FOUND;
      state.metrics.receiveCreateOrFind.inc(outcome);
      if (tried === 'conflict') continue;
      noteDecided(state, 'created' in tried);
      if ('created' in tried) return [{ ...tried.created, created: true }];
      candidate = tried.found;
    } else {
      candidate = await state.reads.submit('read', first.draft);
      noteDecided(state, !candidate);
      if (!candidate) {
        const written = await createNew(state, first);
        if (written !== 'conflict') return [{ ...written, created: true }];
        continue;
      }
    }
    const run = foldableDuplicates(state, candidate, items);
    if (run > 1) {
      const folded = await writeDuplicates(state, candidate, items.slice(0, run));
      if (folded) return folded;
      continue;
    }
    const written = await applyToExisting(state, first, candidate);
    if (written !== 'conflict') return [{ ...written, created: false }];
  }
  throw appError('alert_contended');
}
