import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';

/**
 * The client's settings: built-in defaults ← `[DEFAULT]` ← `[profile NAME]` of the INI file ←
 * environment ← command-line flags, with the precedence of the established `alerta` client
 * (clients.md §3.1). The server's `/config` is merged in later, *under* these.
 */
export interface Settings {
  configFile: string;
  profile: string | null;
  endpoint: string;
  key: string;
  secret: string | null;
  username: string | null;
  password: string | null;
  clientId: string | null;
  timezone: string;
  /** HTTP timeout in seconds. */
  timeout: number;
  sslverify: boolean;
  sslcert: string | null;
  sslkey: string | null;
  output: string;
  color: boolean;
  debug: boolean;
}

/** The keys a config file may set, with their defaults (as the established client names them). */
const DEFAULTS = {
  endpoint: 'http://localhost:8080',
  key: '',
  secret: null,
  username: null,
  password: null,
  client_id: null,
  timezone: 'Europe/London',
  timeout: '5.0',
  sslverify: 'true',
  sslcert: null,
  sslkey: null,
  output: 'simple',
  color: 'true',
  debug: 'false',
} as const satisfies Record<string, string | null>;

export type Ini = Map<string, Map<string, string>>;

/**
 * Parses INI text as Python's RawConfigParser does: `[section]` headers, `key = value` or
 * `key: value`, keys case-insensitive, full-line `#`/`;` comments, indented continuation lines.
 * Values are kept raw (no interpolation, no inline comments), as the established client reads them.
 */
export function parseIni(text: string, source = 'config file'): Ini {
  const sections: Ini = new Map([['DEFAULT', new Map()]]);
  let section: Map<string, string> | null = null;
  let lastKey: string | null = null;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trimEnd();
    if (!line.trim() || /^\s*[#;]/.test(line)) {
      lastKey = null;
      return;
    }
    if (/^\s/.test(line) && section && lastKey !== null) {
      section.set(lastKey, `${section.get(lastKey)}\n${line.trim()}`);
      return;
    }
    const header = /^\[([^\]]+)\]\s*$/.exec(line.trim());
    if (header) {
      const name = header[1]!.trim();
      if (!sections.has(name)) sections.set(name, new Map());
      section = sections.get(name)!;
      lastKey = null;
      return;
    }
    const pair = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line.trim());
    if (!section || !pair) {
      const why = section ? 'expected "key = value"' : 'a setting before any [section]';
      throw new Error(`${source} line ${i + 1}: ${why}`);
    }
    lastKey = pair[1]!.toLowerCase();
    section.set(lastKey, pair[2]!);
  });
  return sections;
}

const TRUE = new Set(['1', 'yes', 'true', 'on']);
const FALSE = new Set(['0', 'no', 'false', 'off']);

/** A boolean as configparser and click read one: yes/no, on/off, true/false, 1/0. */
export function parseBool(value: string, what: string): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new Error(`${what}: "${value}" is not a boolean (use yes/no, on/off, true/false or 1/0)`);
}

/** What the command line said about the settings (undefined = not given). */
export interface GlobalFlags {
  configFile?: string;
  profile?: string;
  endpointUrl?: string;
  output?: string;
  color?: boolean;
  debug?: boolean;
}

const expandHome = (path: string) => (path.startsWith('~') ? homedir() + path.slice(1) : path);
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/**
 * Resolves the settings. `warn` hears about recoverable problems (an unknown profile), which the
 * established client keeps silent about.
 */
export function loadSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Settings {
  const configFile = expandHome(
    flags.configFile ??
      nonEmpty(env.ALERTA_CONFIG_FILE) ??
      nonEmpty(env.ALERTA_CONF_FILE) ??
      '~/.alerta.conf',
  );
  let ini: Ini = new Map([['DEFAULT', new Map()]]);
  let text: string | null = null;
  try {
    text = readFileSync(resolve(configFile), 'utf8');
  } catch (err) {
    // A missing file is normal (defaults apply); an unreadable one is worth a word.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      warn(`cannot read ${configFile}: ${(err as Error).message}`);
    }
  }
  if (text !== null) ini = parseIni(text, configFile);

  const defaults = ini.get('DEFAULT')!;
  const profile =
    flags.profile ??
    nonEmpty(env.ALERTA_PROFILE) ??
    nonEmpty(env.ALERTA_DEFAULT_PROFILE) ??
    nonEmpty(defaults.get('profile')) ??
    null;
  let section = defaults;
  if (profile) {
    const chosen = ini.get(`profile ${profile}`);
    if (chosen) section = chosen;
    else warn(`profile "${profile}" is not in ${configFile}; using [DEFAULT]`);
  }
  /** A file setting: the profile's value, else [DEFAULT]'s, else the built-in default. */
  const file = (key: keyof typeof DEFAULTS): string | null => {
    // The sample config spells it "colour"; the established client ignores that spelling, we accept both.
    const alias = key === 'color' ? 'colour' : null;
    for (const s of section === defaults ? [defaults] : [section, defaults]) {
      if (s.has(key)) return s.get(key)!;
      if (alias && s.has(alias)) return s.get(alias)!;
    }
    return DEFAULTS[key];
  };
  const fileBool = (key: 'sslverify' | 'color' | 'debug') =>
    parseBool(file(key) ?? 'false', `${configFile}: ${key}`);

  const timeout = Number(file('timeout'));
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new Error(`${configFile}: timeout: "${file('timeout')}" is not a positive number of seconds`);
  }
  const envFlag = (v: string | undefined) => (v === undefined || v === '' ? undefined : true);
  const envBool = (name: string) => {
    const v = nonEmpty(env[name]);
    return v === undefined ? undefined : parseBool(v, name);
  };
  return {
    configFile,
    profile,
    endpoint: (
      flags.endpointUrl ??
      nonEmpty(env.ALERTA_ENDPOINT_URL) ??
      nonEmpty(env.ALERTA_ENDPOINT) ??
      file('endpoint') ??
      DEFAULTS.endpoint
    ).replace(/\/+$/, ''),
    key: nonEmpty(env.ALERTA_API_KEY) ?? file('key') ?? '',
    secret: file('secret'),
    username: file('username'),
    password: file('password'),
    clientId: file('client_id'),
    timezone: file('timezone') ?? DEFAULTS.timezone,
    timeout,
    sslverify: fileBool('sslverify'),
    sslcert: file('sslcert'),
    sslkey: file('sslkey'),
    output: flags.output ?? nonEmpty(env.ALERTA_OUTPUT) ?? file('output') ?? DEFAULTS.output,
    color: flags.color ?? envFlag(env.CLICOLOR) ?? fileBool('color'),
    debug: flags.debug ?? envBool('ALERTA_DEBUG') ?? envFlag(env.DEBUG) ?? fileBool('debug'),
  };
}

/** Keys whose values are secrets: shown with only their last four characters. */
const SECRET_KEY = /(^|_)(key|secret|password|token)$/i;

/** Hides all but the last four characters of a secret (clients.md §3.5). */
export function redact(value: string): string {
  if (!value) return value;
  return value.length <= 8 ? '*'.repeat(value.length) : `${'*'.repeat(8)}${value.slice(-4)}`;
}

/** A copy of a settings-like object with every secret redacted, at any depth. */
export function redactSecrets(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return SECRET_KEY.test(key) ? redact(value) : value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, k)]));
  }
  return value;
}
