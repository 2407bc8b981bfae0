/**
 * Turns one server's answer into what can be compared with the other's: a generated id a step saves
 * becomes `<name>` (the name it is saved under), any other `<id:N>` by order of first appearance in
 * the scenario, so one extra id on one side renumbers only the unnamed ones after it; API key values
 * become `<key:N>` (or their saved name; a masked key `<masked key>`), times `<time>`; the server's
 * own base URL disappears from links, and the fields that describe the instance rather than the
 * behaviour keep only their type (tests/unit/replay-compare.test.ts).
 */
import type { RawAnswer } from './http.ts';
import type { Answer } from './types.ts';

/**
 * Fields whose values belong to the instance or the moment, never to the behaviour being compared:
 * only their type is kept (`<number>`, `<string>`).
 */
export const INSTANCE_FIELDS: Record<string, string> = {
  requestId: 'a fresh id per request',
  latency: 'heartbeat: milliseconds between the sender and the receipt',
  since: 'heartbeat: seconds since the receipt, at the moment of the request',
  remaining: 'blackout: seconds left, at the moment of the request',
  uptime: 'management status: the process uptime',
  time: 'the moment of the request (epoch ms in /management/status)',
  token: 'a signed token: its signature and times differ',
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g;
const IS_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHORT_ID = /\b[0-9a-f]{8}\b/g;
/** An API key value as servers generate them (Alerta: 40 characters of base64url). */
const KEY_VALUE = /^[\w-]{20,128}$/;

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export class Normaliser {
  private readonly ids = new Map<string, string>();
  private readonly shortIds = new Map<string, string>();
  private readonly keys = new Map<string, string>();
  private numberedIds = 0;
  private numberedKeys = 0;
  private readonly base: string;
  private readonly origin: string;

  /** `base`: the API base this side was asked at (`http://host:port/api`). */
  constructor(base: string) {
    this.base = base;
    this.origin = new URL(base).origin;
  }

  /** Names a value a step saved (an id or a key value) `<name>`, unless it was seen before. */
  name(value: string, name: string): void {
    if (IS_UUID.test(value) && !this.ids.has(value.toLowerCase())) {
      this.ids.set(value.toLowerCase(), `<${name}>`);
      this.shortIds.set(value.slice(0, 8).toLowerCase(), `<${name}>`);
    } else if (KEY_VALUE.test(value) && !this.keys.has(value)) this.keys.set(value, `<${name}>`);
  }

  answer(raw: RawAnswer): Answer {
    this.findKeys(raw.body);
    const out: Answer = { status: raw.status, type: raw.type, body: this.value(raw.body, '') };
    if (raw.location !== undefined) out.location = this.text(raw.location, 'location');
    return out;
  }

  /** Numbers every API key value in a `key` field first, so a link naming it reads the same wherever it is. */
  private findKeys(v: unknown): void {
    if (Array.isArray(v)) v.forEach((x) => this.findKeys(x));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (
          k === 'key' &&
          typeof x === 'string' &&
          KEY_VALUE.test(x) &&
          !IS_UUID.test(x) &&
          !this.keys.has(x)
        )
          this.keys.set(x, `<key:${++this.numberedKeys}>`);
        else this.findKeys(x);
      }
  }

  /** Objects are walked in key order, so ids are numbered the same whatever order a server writes keys in. */
  private value(v: unknown, name: string): unknown {
    if (name in INSTANCE_FIELDS && v !== null && v !== undefined) return `<${typeName(v)}>`;
    if (typeof v === 'string') return this.text(v, name);
    if (Array.isArray(v)) return v.map((x) => this.value(x, ''));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, this.value(o[k], k)]),
      );
    }
    return v;
  }

  private text(s: string, name: string): string {
    if (name === 'key' && s.endsWith('…')) return '<masked key>';
    let t = s;
    for (const [value, token] of this.keys) t = t.split(value).join(token);
    t = t.split(this.base).join('').split(this.origin).join('<origin>');
    t = t.replace(UUID, (id) => this.id(id));
    t = t.replace(SHORT_ID, (short) => this.shortIds.get(short) ?? short);
    return t.replace(TIME, '<time>');
  }

  private id(raw: string): string {
    const id = raw.toLowerCase();
    let token = this.ids.get(id);
    if (!token) {
      token = `<id:${++this.numberedIds}>`;
      this.ids.set(id, token);
      this.shortIds.set(id.slice(0, 8), token);
    }
    return token;
  }
}
