import { pino, type Logger } from 'pino';

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

/** One JSON line per event on stdout; never keys, tokens, passwords or raw alert bodies. */
export function createLog(level: string, debug = false): Log {
  return pino({
    level: debug ? 'debug' : (LEVELS[level] ?? 'info'),
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['password', '*.password', 'key', '*.key', 'token', '*.token'], censor: '[redacted]' },
  });
}
