import { parseBool } from './config.ts';

/**
 * A command-line option, declared the way the established client (click) declares it so the
 * same flags, repeats and environment variables work: `name` is click's parameter name, which
 * also names the variable `ALERTA_<COMMAND>_<NAME>`.
 */
export interface OptionSpec {
  name: string;
  /** Spellings, e.g. `['-r', '--resource']`. */
  flags: string[];
  /** `flag`: present = true (or `value`); `bool`: `flags` set true, `off` set false. Default `string`. */
  type?: 'string' | 'int' | 'number' | 'flag' | 'bool';
  /** For `bool`: the spellings that set false, e.g. `['--no-color']`. */
  off?: string[];
  /** Repeatable; the values are collected in a list. */
  multiple?: boolean;
  /** Values taken by each occurrence (click's nargs), e.g. 2 for `note -D ALERT_ID NOTE_ID`. */
  nargs?: number;
  /** For a `flag` sharing its `name` with others: the value it stores (click's flag_value). */
  value?: string;
  /** The option may appear without a value (`user --password` then prompts). */
  optionalValue?: boolean;
  default?: unknown;
  metavar?: string;
  help: string;
}

/**
 * The options that name an alert attribute, spelled as the established client spells them; the help
 * is `alert send`'s, which blackout, heartbeat(s) and keys replace with their own (`alertOption`).
 */
const ALERT_OPTIONS = {
  resource: { flags: ['-r', '--resource'], metavar: 'RESOURCE', help: 'Resource under alarm' },
  event: { flags: ['-e', '--event'], metavar: 'EVENT', help: 'Event name' },
  environment: {
    flags: ['-E', '--environment'],
    metavar: 'ENVIRONMENT',
    help: 'Environment, e.g. Production',
  },
  severity: {
    flags: ['-s', '--severity'],
    metavar: 'SEVERITY',
    help: 'Severity, e.g. critical, major, minor',
  },
  service: { flags: ['-S', '--service'], multiple: true, metavar: 'SERVICE', help: 'Affected service' },
  group: { flags: ['-g', '--group'], metavar: 'GROUP', help: 'Group, e.g. OS, Performance' },
  tags: { flags: ['-T', '--tag'], multiple: true, metavar: 'TAG', help: 'Tag, e.g. London, os:linux' },
  origin: { flags: ['-O', '--origin'], metavar: 'ORIGIN', help: 'Origin of the alert, app/host' },
  timeout: {
    flags: ['--timeout'],
    type: 'int',
    metavar: 'SECONDS',
    help: 'Seconds before an open alert expires',
  },
  customer: { flags: ['--customer'], metavar: 'STRING', help: 'Customer' },
} satisfies Record<string, Omit<OptionSpec, 'name'>>;

/** The option for an alert attribute, with `alert send`'s help unless `help` is given. */
export function alertOption(
  name: keyof typeof ALERT_OPTIONS,
  help?: string,
  more: Pick<OptionSpec, 'default'> = {},
): OptionSpec {
  const spec: Omit<OptionSpec, 'name'> = ALERT_OPTIONS[name];
  return { name, ...spec, help: help ?? spec.help, ...more };
}

export interface ArgSpec {
  name: string;
  required?: boolean;
  help: string;
}

/** A mistake on the command line: the message, then usage help; exit code 2. */
export class UsageError extends Error {
  readonly command: string | null;
  constructor(message: string, command: string | null = null) {
    super(message);
    this.command = command;
  }
}

export type Values = Record<string, unknown>;

/** A repeatable option's values (none when it was not given). */
export const strings = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

/** `KEY=VALUE` split at the first `=` (the value may hold more); null without a key. */
export function splitPair(text: string): [string, string] | null {
  const eq = text.indexOf('=');
  return eq > 0 ? [text.slice(0, eq), text.slice(eq + 1)] : null;
}

/** `-A key=value` values as an object. */
export function keyValues(pairs: readonly string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs ?? []) {
    const pair = splitPair(p);
    if (!pair) throw new UsageError(`Invalid value for "${flag}": "${p}" is not KEY=VALUE`);
    out[pair[0]] = pair[1];
  }
  return out;
}

export interface Parsed {
  opts: Values;
  args: string[];
  /** Options of `extra` (the global ones) met among the command's. */
  extra: Values;
  help: boolean;
}

const takesValue = (o: OptionSpec) => o.type !== 'flag' && o.type !== 'bool';

function convert(o: OptionSpec, flag: string, raw: string, command: string | null): unknown {
  if (o.type === 'int') {
    if (!/^[-+]?\d+$/.test(raw.trim())) {
      throw new UsageError(`Invalid value for "${flag}": "${raw}" is not a valid integer`, command);
    }
    return Number(raw);
  }
  if (o.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) {
      throw new UsageError(`Invalid value for "${flag}": "${raw}" is not a valid number`, command);
    }
    return n;
  }
  return raw;
}

function store(into: Values, o: OptionSpec, value: unknown) {
  if (!o.multiple) into[o.name] = value;
  else if (Array.isArray(into[o.name])) (into[o.name] as unknown[]).push(value);
  else into[o.name] = [value];
}

/**
 * Parses the arguments of one command: options in any order among the positional arguments,
 * `--opt value`, `--opt=value`, `-o value`, `-ovalue`, and `--` to end options. Options not given
 * fall back to `ALERTA_<PREFIX>_<NAME>` in `env` (multi-valued ones split on spaces), then to their
 * default. Options of `extra` are accepted too and returned apart.
 */
export function parseArgs(
  argv: readonly string[],
  specs: readonly OptionSpec[],
  positionals: readonly ArgSpec[],
  opts: {
    env: NodeJS.ProcessEnv;
    envPrefix: string | null;
    command: string | null;
    extra?: readonly OptionSpec[];
  },
): Parsed {
  const { command } = opts;
  const byFlag = new Map<string, { spec: OptionSpec; on: boolean; extra: boolean }>();
  for (const [list, extra] of [
    [opts.extra ?? [], true],
    [specs, false],
  ] as const) {
    for (const spec of list) {
      for (const f of spec.flags) byFlag.set(f, { spec, on: true, extra });
      for (const f of spec.off ?? []) byFlag.set(f, { spec, on: false, extra });
    }
  }
  const values: Values = {};
  const extraValues: Values = {};
  const args: string[] = [];
  let help = false;

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-h' || token === '--help') {
      help = true;
      continue;
    }
    if (!token.startsWith('-') || token === '-') {
      args.push(token);
      continue;
    }
    let flag = token;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      if (eq > 0) [flag, inline] = [token.slice(0, eq), token.slice(eq + 1)];
    } else if (token.length > 2 && !byFlag.has(token)) {
      [flag, inline] = [token.slice(0, 2), token.slice(2)];
    }
    const found = byFlag.get(flag);
    if (!found) throw new UsageError(`No such option: ${flag}`, command);
    const { spec } = found;
    const into = found.extra ? extraValues : values;
    if (!takesValue(spec)) {
      if (inline !== undefined) throw new UsageError(`Option "${flag}" does not take a value`, command);
      store(into, spec, spec.type === 'bool' ? found.on : (spec.value ?? true));
      continue;
    }
    const count = spec.nargs ?? 1;
    const taken: string[] = inline !== undefined ? [inline] : [];
    while (taken.length < count) {
      const next = argv[i + 1];
      if (next === undefined || (spec.optionalValue && next.startsWith('-'))) break;
      taken.push(next);
      i++;
    }
    if (taken.length === 0 && spec.optionalValue) {
      store(into, spec, null);
      continue;
    }
    if (taken.length < count) {
      const what = count === 1 ? 'an argument' : `${count} arguments`;
      throw new UsageError(`Option "${flag}" requires ${what}`, command);
    }
    const converted = taken.map((t) => convert(spec, flag, t, command));
    store(into, spec, count === 1 ? converted[0] : converted);
  }

  for (const spec of specs) {
    if (spec.name in values) continue;
    const fromEnv = opts.envPrefix ? envValue(spec, opts.env, opts.envPrefix, command) : undefined;
    if (fromEnv !== undefined) values[spec.name] = fromEnv;
    else if (spec.default !== undefined) values[spec.name] = spec.default;
  }
  if (!help) {
    const missing = positionals.slice(args.length).find((p) => p.required);
    if (missing) throw new UsageError(`Missing argument "${missing.name.toUpperCase()}"`, command);
    if (args.length > positionals.length) {
      throw new UsageError(`Got unexpected extra argument (${args[positionals.length]})`, command);
    }
  }
  return { opts: values, args, extra: extraValues, help };
}

/** `ALERTA_<PREFIX>_<NAME>`, as click's auto_envvar_prefix reads it. */
function envValue(spec: OptionSpec, env: NodeJS.ProcessEnv, prefix: string, command: string | null): unknown {
  if (spec.value !== undefined) return undefined; // flag_value groups are not read from the environment
  const name = `${prefix}_${spec.name}`.toUpperCase().replace(/-/g, '_');
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (spec.type === 'flag' || spec.type === 'bool') return parseBool(raw, name);
  const convertOne = (v: string) => convert(spec, name, v, command);
  if (spec.multiple) return raw.split(/\s+/).filter(Boolean).map(convertOne);
  if ((spec.nargs ?? 1) > 1) return raw.split(/\s+/).filter(Boolean).map(convertOne);
  return convertOne(raw);
}

/** Help text for a list of options, aligned in two columns. */
export function describeOptions(specs: readonly OptionSpec[]): string {
  const rows = specs
    .filter((s, i, all) => all.findIndex((t) => t.flags[0] === s.flags[0]) === i)
    .map((s) => {
      const spellings = [...s.flags, ...(s.off ?? [])];
      const flags =
        s.type === 'bool' ? `${s.flags.join(', ')} / ${(s.off ?? []).join(', ')}` : spellings.join(', ');
      const meta = takesValue(s) ? ` ${s.metavar ?? s.name.toUpperCase()}${s.optionalValue ? '?' : ''}` : '';
      const repeat = s.multiple ? '…' : '';
      return [`${flags}${meta}${repeat}`, s.help];
    });
  rows.push(['-h, --help', 'Show this message and exit.']);
  const width = Math.min(34, Math.max(...rows.map(([l]) => l!.length)));
  return rows
    .map(([l, h]) =>
      l!.length > width ? `  ${l}\n  ${' '.repeat(width)}  ${h}` : `  ${l!.padEnd(width)}  ${h}`,
    )
    .join('\n');
}
