/**
 * Canonical UUID texts (lower-case 8-4-4-4-12 hex, as PostgreSQL prints `uuid`) kept as 16 bytes
 * each under a small number, and found by text through an open-addressing table: a live view's
 * 100,000 alert ids cost about 30 bytes each this way, against about 100 as strings in a Map
 * (the strings, the Map's table and the number → id array; `scripts/bench/memory.ts`).
 * tests/unit/live-members.test.ts compares it with a Map.
 */

/** The four 32-bit words of a canonical UUID text, or null for any other text. Reused: copy it. */
const parsed = new Uint32Array(4);
/** The text `parsed` holds: a view looks one alert's id up several times in a row. */
let parsedText: string | null = null;
function parse(text: string): Uint32Array | null {
  if (text === parsedText) return parsed;
  if (text.length !== 36) return null;
  parsedText = null; // `parsed` is overwritten below, even when the text turns out not to be a UUID
  let word = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return null; // '-'
      continue;
    }
    // Lower-case only: an upper-case id is another text, kept as it is written.
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return null;
    value = ((value << 4) | d) >>> 0;
    if (++digits === 8) {
      parsed[word++] = value;
      value = 0;
      digits = 0;
    }
  }
  parsedText = text;
  return parsed;
}

const HEX = '0123456789abcdef';
function format(words: Uint32Array, at: number): string {
  let text = '';
  for (let w = 0; w < 4; w++) {
    const value = words[at + w]!;
    for (let shift = 28; shift >= 0; shift -= 4) {
      text += HEX[(value >>> shift) & 15];
      const length = text.length;
      if (length === 8 || length === 13 || length === 18 || length === 23) text += '-';
    }
  }
  return text;
}

const hash = (w: ArrayLike<number>, at: number) => {
  let h = Math.imul(w[at]! ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ w[at + 1]! ^ (h >>> 15), 0xc2b2ae35);
  h = Math.imul(h ^ w[at + 2]! ^ (h >>> 13), 0x85ebca6b);
  h = Math.imul(h ^ w[at + 3]! ^ (h >>> 16), 0xc2b2ae35);
  return (h ^ (h >>> 15)) >>> 0;
};

const EMPTY = 0;
const DELETED = -1;

/** UUID text ⇄ a number chosen by the caller (each number names at most one UUID at a time). */
export class UuidKeys {
  /** Number n's UUID at words 4n … 4n + 3 (meaningless unless n is in the table). */
  private words = new Uint32Array(4 * 1024);
  /** Open addressing, linear probing, at most 3/4 full: n + 1, EMPTY or DELETED. */
  private slots = new Int32Array(2048);
  private count = 0;
  private deleted = 0;

  /** Whether `text` is a canonical UUID (only those are kept here). */
  static isUuid(text: string): boolean {
    return parse(text) !== null;
  }

  /** The number of this UUID text, if it is here. */
  get(text: string): number | undefined {
    const w = parse(text);
    if (!w) return undefined;
    const mask = this.slots.length - 1;
    for (let i = hash(w, 0) & mask; ; i = (i + 1) & mask) {
      const slot = this.slots[i]!;
      if (slot === EMPTY) return undefined;
      if (slot !== DELETED && this.equals(slot - 1, w)) return slot - 1;
    }
  }

  /** Keeps `text` (a UUID not here yet, see isUuid) under number `n`. */
  set(text: string, n: number): void {
    const w = parse(text);
    if (!w) throw new Error(`not a canonical UUID: ${text}`);
    if (4 * n + 4 > this.words.length) {
      const grown = new Uint32Array(Math.max(4 * n + 4, 2 * this.words.length));
      grown.set(this.words);
      this.words = grown;
    }
    this.words.set(w, 4 * n);
    if (4 * (this.count + this.deleted + 1) > 3 * this.slots.length) this.rehash();
    this.place(n);
    this.count++;
  }

  /** Lets go of number `n` (which names a UUID here); gives its text. */
  delete(n: number): string {
    const mask = this.slots.length - 1;
    for (let i = hash(this.words, 4 * n) & mask; ; i = (i + 1) & mask) {
      const slot = this.slots[i]!;
      if (slot === EMPTY) throw new Error(`number ${n} names no UUID`);
      if (slot === n + 1) {
        this.slots[i] = DELETED;
        this.count--;
        this.deleted++;
        return format(this.words, 4 * n);
      }
    }
  }

  private equals(n: number, w: Uint32Array): boolean {
    const at = 4 * n;
    const words = this.words;
    return words[at] === w[0] && words[at + 1] === w[1] && words[at + 2] === w[2] && words[at + 3] === w[3];
  }

  private place(n: number) {
    const mask = this.slots.length - 1;
    let i = hash(this.words, 4 * n) & mask;
    while (this.slots[i]! > 0) i = (i + 1) & mask;
    this.slots[i] = n + 1;
  }

  /** A table at most half full again (grown when the live entries need it), without DELETED. */
  private rehash() {
    const old = this.slots;
    let size = old.length;
    while (2 * (this.count + 1) > size) size *= 2;
    this.slots = new Int32Array(size);
    this.deleted = 0;
    for (const slot of old) if (slot > 0) this.place(slot - 1);
  }
}
