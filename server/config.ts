import { existsSync, readFileSync } from 'node:fs';
import { crossChecks, describe } from './config/checks.ts';
import { parsePySettings, PyLiteralError, type PyValue } from './config/py-literal.ts';
import {
  SETTINGS,
  type Config,
  type Kind,
  type Setting,
  type SettingName,
  type Values,
} from './config/settings.ts';
import { isSecretName } from './secrets.ts';

// Loading: defaults ← settings files ← environment, merged, parsed and checked. What each setting
// is lives in config/settings.ts, the checks across settings in config/checks.ts.

export { SETTINGS, type Config, type SettingName };

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

const TRUE = new Set(['yes', 'on', 'true', 't', '1', 'y']);
const FALSE = new Set(['no', 'off', 'false', 'f', '0', 'n', '']);

/** Turns an environment variable's text into the value its setting expects, or throws a message. */
function fromEnv(kind: Kind, raw: string): unknown {
  const text = raw.trim();
  switch (kind) {
    case 'bool':
      if (TRUE.has(text.toLowerCase())) return true;
      if (FALSE.has(text.toLowerCase())) return false;
      if (text === 'None') return null;
      throw new Error(`expected True or False, got '${raw}'`);
    case 'int':
    case 'float':
      if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
        throw new Error(`expected ${kind === 'int' ? 'an integer' : 'a number'}, got '${raw}'`);
      }
      return Number(text);
    case 'string':
      return text === 'None' ? null : raw;
    case 'list':
      if (text.startsWith('[') || text.startsWith('(')) return parseValue(text);
      return text === '' ? [] : text.split(',').map((s) => s.trim());
    case 'value':
      if (/^[[{('"0-9TFN-]/.test(text)) return parseValue(text);
      return raw;
  }
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const [first] = parsePySettings(`V = ${text}`);
    return first?.value;
  }
}

/** What a start-up error says instead of a secret's value (it would end up in the log). */
const NOT_SHOWN = 'got a value that is not shown (the setting holds a secret)';

export interface LoadOptions {
  /** Defaults to /etc/alertad.conf when it exists. */
  systemFile?: string | null;
}

/** Reads defaults ← settings files ← environment into one frozen, validated object. */
export function loadConfig(env: Record<string, string | undefined>, options: LoadOptions = {}): Config {
  const problems: string[] = [];
  const raw = new Map<string, { value: unknown; source: string }>();
  const extra: Record<string, PyValue> = {};

  const systemFile =
    options.systemFile === undefined
      ? existsSync('/etc/alertad.conf')
        ? '/etc/alertad.conf'
        : null
      : options.systemFile;
  for (const file of [systemFile, env.ALERTA_SVR_CONF_FILE || null]) {
    if (!file) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(
        `ALERTA_SVR_CONF_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
      continue;
    }
    try {
      for (const { name, value, line } of parsePySettings(text)) {
        if (name in SETTINGS) raw.set(name, { value, source: `${file}:${line}` });
        else extra[name] = value;
      }
    } catch (err) {
      if (!(err instanceof PyLiteralError)) throw err;
      problems.push(`${file}:${err.line}:${err.column}: ${err.message}`);
    }
  }

  applyLegacyEnv(env, raw, problems);
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const text = env[name];
    if (text === undefined) continue;
    try {
      raw.set(name, { value: fromEnv(def.kind, text), source: 'env' });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      problems.push(`${name} (environment): ${isSecretName(name) ? NOT_SHOWN : message}`);
    }
  }

  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const given = raw.get(name);
    const parsed = def.schema.safeParse(given ? given.value : def.default);
    sources[name] = given?.source ?? 'default';
    if (parsed.success) values[name] = parsed.data;
    else {
      const where = given?.source === 'env' ? 'environment' : (given?.source ?? 'default');
      // Settings checked in depth (FWD_DESTINATIONS) explain each problem themselves.
      const custom = parsed.error.issues.filter((i) => i.code === 'custom').map((i) => i.message);
      if (custom.length) problems.push(...custom.map((m) => `${name} (${where}): ${m}`));
      else {
        const got = isSecretName(name) ? NOT_SHOWN : `got ${describe(given?.value)}`;
        problems.push(`${name} (${where}): expected ${def.expected}, ${got}`);
      }
    }
  }
  const warnings: string[] = [];
  if (problems.length === 0) {
    const checked = crossChecks(values as Values);
    problems.push(...checked.problems);
    warnings.push(...checked.warnings);
  }
  if (problems.length) throw new ConfigError(problems);

  return deepFreeze({ ...values, sources, extra, warnings }) as unknown as Config;
}

/** Alerta's older names for the same settings, read only when the new name is not set. */
function applyLegacyEnv(
  env: Record<string, string | undefined>,
  raw: Map<string, { value: unknown; source: string }>,
  problems: string[],
) {
  if (!env.DATABASE_URL) {
    const legacy = env.POSTGRES_URI;
    if (legacy) raw.set('DATABASE_URL', { value: legacy, source: 'env' });
  }
  const hours: [string, SettingName][] = [
    ['HK_EXPIRED_DELETE_HRS', 'DELETE_EXPIRED_AFTER'],
    ['DEFAULT_EXPIRED_DELETE_HRS', 'DELETE_EXPIRED_AFTER'],
    ['HK_INFO_DELETE_HRS', 'DELETE_INFO_AFTER'],
    ['DEFAULT_INFO_DELETE_HRS', 'DELETE_INFO_AFTER'],
  ];
  for (const [name, target] of hours) {
    const text = env[name];
    if (text === undefined || raw.get(target)?.source === 'env') continue;
    if (!/^\d+$/.test(text.trim())) problems.push(`${name} (environment): expected a whole number of hours`);
    else raw.set(target, { value: Number(text) * 3600, source: 'env' });
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** A password-free rendering of the database URL for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
