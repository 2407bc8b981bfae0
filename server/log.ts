import { pino, type DestinationStream, type Logger } from 'pino';
import { MASK, isSecretName, withoutUrlPasswords } from './secrets.ts';

export type Log = Logger;

const LEVELS: Record<string, string> = {
  debug: 'debug',
  info: 'info',
  warning: 'warn',
  warn: 'warn',
  error: 'error',
  critical: 'fatal',
  fatal: 'fatal',
  silent: 'silent',
};

/**
 * A value the log prints although its field is named like a secret: only the admin API key made at
 * start, which operators read from the log once (docs/keys-perms-customers.md).
 */
export class ShownOnce {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toJSON(): string {
    return this.value;
  }
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** A log line's fields with secrets masked by name and passwords taken out of URLs. */
function masked(value: unknown, name: string, depth: number): unknown {
  if (value instanceof ShownOnce) return value.value;
  if (typeof value === 'string') {
    if (value !== '' && isSecretName(name) && !/^(true|false)$/i.test(value)) return MASK;
    return value.includes('://') ? withoutUrlPasswords(value) : value;
  }
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (isSecretName(name)) return MASK;
  if (Array.isArray(value)) return value.map((v) => masked(v, name, depth + 1));
  if (!isPlain(value)) return value; // errors and the like go through pino's own serializers
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k, depth + 1)]));
}

/** One JSON line per event on stdout; never keys, tokens, passwords or raw alert bodies. */
export function createLog(level: string, debug = false, destination?: DestinationStream): Log {
  const options = {
    level: debug ? 'debug' : (LEVELS[level] ?? 'info'),
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: (fields: Record<string, unknown>) => masked(fields, '', 0) as Record<string, unknown>,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
