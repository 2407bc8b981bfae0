import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from './config.ts';

/**
 * Receiver secrets at rest (docs/operations.md, "Rotating the secrets key"): each secret value is
 * stored as `{"$enc": "v1:<key id>:<iv>:<ciphertext>:<tag>"}`, AES-256-GCM under a key derived from
 * the text of a setting, bound to where it is stored (receiver id and field), so a sealed value
 * copied to another receiver or field does not open. The first key seals; every key opens.
 */

/** A sealed value as it sits in a receiver's settings (jsonb). */
export interface Sealed {
  $enc: string;
}

/** What opening gives: the text, or why there is none. */
export type Opened = { ok: true; value: string } | { ok: false; reason: string };

interface Key {
  id: string;
  key: Buffer;
}

const VERSION = 'v1';
const b64 = (b: Buffer) => b.toString('base64url');

/** A 32-byte key from a setting's text, and a short id that names it without giving it away. */
export function deriveKey(text: string): Key {
  const key = Buffer.from(hkdfSync('sha256', text, 'alertwall', 'receiver secrets aes-256-gcm v1', 32));
  const id = createHmac('sha256', key).update('key id').digest('base64url').slice(0, 8);
  return { id, key };
}

export const isSealed = (v: unknown): v is Sealed =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as Sealed).$enc === 'string';

export class SecretBox {
  readonly #keys: Key[];

  /** `texts`: the keys' texts, the one that seals first. */
  constructor(texts: readonly string[]) {
    if (texts.length === 0) throw new Error('a secret box needs at least one key');
    const keys = texts.map(deriveKey);
    this.#keys = keys.filter((k, i) => keys.findIndex((o) => o.id === k.id) === i);
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.#keys[0]!.id;
  }

  seal(plain: string, context: string): Sealed {
    const { id, key } = this.#keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { $enc: [VERSION, id, b64(iv), b64(ct), b64(cipher.getAuthTag())].join(':') };
  }

  /** Never throws: a value that does not open says why (without any of its content). */
  open(sealed: Sealed, context: string): Opened {
    const parts = sealed.$enc.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) return { ok: false, reason: 'not a sealed value' };
    const [, id, iv, ct, tag] = parts as [string, string, string, string, string];
    const key = this.#keys.find((k) => k.id === id);
    if (!key) return { ok: false, reason: `sealed with key ${id}, which is not among the configured keys` };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
      return { ok: true, value: plain.toString('utf8') };
    } catch {
      return { ok: false, reason: `does not open with key ${id} (altered, or moved from another receiver)` };
    }
  }

  /** Whether a sealed value should be sealed again under the current key (after a rotation). */
  isStale(sealed: Sealed): boolean {
    return sealed.$enc.split(':')[1] !== this.currentKeyId;
  }
}

/**
 * The box the settings make: SECRETS_KEYS (the first seals), and SECRET_KEY after them, so values
 * sealed before SECRETS_KEYS was set still open and are sealed again under it at start. Without
 * SECRETS_KEYS, SECRET_KEY alone. `defaultKey` says the sealing key is a published default.
 */
export function secretBoxFrom(config: Pick<Config, 'SECRETS_KEYS' | 'SECRET_KEY'>): {
  box: SecretBox;
  defaultKey: boolean;
} {
  const texts = [...config.SECRETS_KEYS, config.SECRET_KEY];
  const defaultKey = config.SECRETS_KEYS.length === 0 && ['', 'changeme'].includes(config.SECRET_KEY);
  return { box: new SecretBox(texts), defaultKey };
}
