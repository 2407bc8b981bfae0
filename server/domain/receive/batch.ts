import { appError } from '../../errors.ts';
import { receiveDirect, rememberWritten } from './direct.ts';
import type { Receipt, Received, ReceiveState } from './state.ts';
import { applyToExisting, createNew, foldableDuplicates, writeDuplicates } from './write.ts';

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

/** Handles a leading run of receipts (at least one) with one read and one write, retrying on a concurrent change. */
async function receiveSome(state: ReceiveState, items: Receipt[]): Promise<Received[]> {
  const first = items[0]!;
  const direct = await receiveDirect(state, first.key, items);
  if (direct) return direct;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const candidate = await state.reads.submit('read', first.draft);
    if (!candidate) {
      const written = await createNew(state, first);
      if (written !== 'conflict') return [{ ...written, created: true }];
      continue;
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
