import { UuidKeys } from './uuid-keys.ts';

// How live views hold their members compactly (`scripts/bench/memory.ts`): with 100,000 alerts
// in several views, a Map from id string to member per view cost about 100 bytes a member.

/**
 * The alert ids that some live view holds, numbered once for the whole process: every view refers
 * to an alert by its number, so each id is kept once however many views hold it, and a UUID (every
 * id the server makes) as 16 bytes (uuid-keys.ts). A number is taken back (and reused) when the
 * last view lets go of its alert.
 */
export class AlertNumbers {
  private readonly uuids = new UuidKeys();
  /** Ids that are not canonical UUIDs (an alert may name its own id): id → number and back. */
  private readonly others = new Map<string, number>();
  private readonly otherIds = new Map<number, string>();
  /** Number → how many views hold it (0: free). */
  private refs = new Uint32Array(1024);
  private readonly free: number[] = [];
  private next = 0;
  private held = 0;

  /** The number of an id some view holds, if one does. */
  numberOf(id: string): number | undefined {
    return this.uuids.get(id) ?? this.others.get(id);
  }

  /** How many ids are numbered now. */
  get size(): number {
    return this.held;
  }

  /** One more than the highest number given out so far (free numbers included). */
  get range(): number {
    return this.next;
  }

  /** One more view holds this alert: its number (a new one for an id no view held). */
  hold(id: string): number {
    let n = this.numberOf(id);
    if (n === undefined) {
      n = this.free.pop() ?? this.next++;
      if (UuidKeys.isUuid(id)) this.uuids.set(id, n);
      else {
        this.others.set(id, n);
        this.otherIds.set(n, id);
      }
      this.held++;
      if (n >= this.refs.length) {
        const grown = new Uint32Array(this.refs.length * 2);
        grown.set(this.refs);
        this.refs = grown;
      }
    }
    this.refs[n]! += 1;
    return n;
  }

  /** A view let go of this alert; the last one to do so frees its number. */
  release(n: number): void {
    if (!(n < this.next) || this.refs[n] === 0) throw new Error(`alert number ${n} is not held`);
    this.refs[n]! -= 1;
    if (this.refs[n] !== 0) return;
    const other = this.otherIds.get(n);
    if (other === undefined) this.uuids.delete(n);
    else {
      this.others.delete(other);
      this.otherIds.delete(n);
    }
    this.held--;
    this.free.push(n);
  }
}

/**
 * One view's members: alert number → a non-zero code. A Map while the view holds few of the
 * numbered alerts; once it holds more than one in DENSE_SHARE of them, an array indexed by number
 * (about 40 bytes a member instead), of bytes while every code fits in one (a handful of states
 * or group lists), wider only once a code needs it (tests/unit/live-members.test.ts).
 */
export class Membership {
  private sparse: Map<number, number> | null = new Map();
  private dense: Codes | null = null;
  /** The highest code set so far. */
  private top = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The member's code, 0 when the alert is not a member. */
  get(n: number): number {
    if (this.sparse) return this.sparse.get(n) ?? 0;
    return n < this.dense!.length ? this.dense![n]! : 0;
  }

  /** Sets a member's code (not 0); `range` is how many numbers exist (AlertNumbers' highest + 1). */
  set(n: number, code: number, range: number): void {
    if (code === 0) throw new Error('a member code is never 0');
    if (this.get(n) === 0) this.count += 1;
    this.top = Math.max(this.top, code);
    if (this.sparse) {
      this.sparse.set(n, code);
      if (this.count * DENSE_SHARE > range) this.toDense(Math.max(range, n + 1));
      return;
    }
    const dense = this.dense!;
    if (n >= dense.length || code > maxCode(dense)) {
      const grown = codesFor(this.top, n >= dense.length ? Math.max(n + 1, dense.length * 2) : dense.length);
      grown.set(dense);
      this.dense = grown;
    }
    this.dense![n] = code;
  }

  /** Removes a member; false when it was not one. */
  delete(n: number): boolean {
    if (this.get(n) === 0) return false;
    this.count -= 1;
    if (this.sparse) this.sparse.delete(n);
    else this.dense![n] = 0;
    return true;
  }

  /** Every member's number. */
  *numbers(): Generator<number> {
    if (this.sparse) {
      yield* this.sparse.keys();
      return;
    }
    const dense = this.dense!;
    for (let n = 0; n < dense.length; n++) if (dense[n] !== 0) yield n;
  }

  private toDense(length: number) {
    const dense = codesFor(this.top, length);
    for (const [n, code] of this.sparse!) dense[n] = code;
    this.dense = dense;
    this.sparse = null;
  }
}

type Codes = Uint8Array | Uint16Array | Uint32Array;
/** An array of `length` zeroes whose elements hold codes up to `top`. */
const codesFor = (top: number, length: number): Codes =>
  top < 2 ** 8 ? new Uint8Array(length) : top < 2 ** 16 ? new Uint16Array(length) : new Uint32Array(length);
const maxCode = (codes: Codes) => 2 ** (8 * codes.BYTES_PER_ELEMENT) - 1;

/** A view switches to an array once it holds more than 1 in DENSE_SHARE of the numbered alerts. */
const DENSE_SHARE = 10;
