import type { ArgSpec, OptionSpec, Values } from './args.ts';
import type { Settings } from './config.ts';
import { JSON_LINES, renderTable, toJson, toJsonLine, type Column } from './format.ts';
import { ApiError, CliError, type Http, type Query } from './http.ts';
import { Progress } from './progress.ts';

/** What every command gets: settings, the server's /config, the HTTP client and output helpers. */
export interface Context {
  settings: Settings;
  /** The server's GET /config merged under the local settings (clients.md §2); `{}` offline. */
  remote: Record<string, unknown>;
  http: Http;
  /** `--output` as given (a table style, `json` or a json-lines name). */
  output: string;
  color: boolean;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  /** Writes one line (or block) to stdout. */
  print(text: string): void;
  /** A note on stderr that does not change the outcome. */
  warn(message: string): void;
  /** A line on stderr for the person at the terminal (not a warning): what to do next. */
  notice(message: string): void;
  /** True when `--output json`. */
  readonly isJson: boolean;
  /** True when `--output json_lines` (or jsonl, ndjson). */
  readonly isJsonLines: boolean;
  /** Either JSON output: commands print data for a program, not text for a person. */
  readonly isMachine: boolean;
  /** Prints a value as JSON (sorted keys, indent 4) or, in json-lines mode, one line. */
  json(value: unknown): void;
  /** Asks on the terminal; false when there is no terminal to ask on. */
  confirm(question: string): Promise<boolean>;
  /** Reads a line from the terminal (hidden for passwords), or the first line of piped stdin. */
  prompt(question: string, hidden?: boolean): Promise<string>;
  /** Whether a person is at the keyboard (stdin and stderr are terminals). */
  readonly interactive: boolean;
  /** Whether stdout is a terminal (not a pipe or a file). */
  readonly stdoutIsTty: boolean;
}

export interface Command {
  name: string;
  summary: string;
  description?: string;
  options: OptionSpec[];
  args?: ArgSpec[];
  /** Runs without the server (no GET /config first): help, token, logout. */
  offline?: boolean;
  /** Returns the exit code (0 when nothing is returned). */
  run(ctx: Context, opts: Values, args: string[]): Promise<number | void>;
}

export function makeOutput(output: string, write: (s: string) => void) {
  const isJson = output === 'json';
  const isJsonLines = JSON_LINES.has(output);
  return {
    isJson,
    isJsonLines,
    isMachine: isJson || isJsonLines,
    json(value: unknown) {
      if (isJsonLines && Array.isArray(value)) for (const v of value) write(toJsonLine(v));
      else write(isJsonLines ? toJsonLine(value) : toJson(value));
    },
  };
}

/** A list as JSON for a program, else as a table in the `--output` style. */
export function listing<T>(ctx: Context, items: readonly T[], columns: readonly Column<T>[]): void {
  if (ctx.isMachine) ctx.json(items);
  else ctx.print(renderTable(items, columns, ctx.output));
}

/** GET `path` and show the list it answers under `key` (as `listing` does); gives the list. */
export async function listFrom<T>(
  ctx: Context,
  path: string,
  key: string,
  columns: readonly Column<T>[],
  query?: Query,
): Promise<T[]> {
  const items = (await ctx.http.get<Record<string, T[]>>(path, query))[key] as T[];
  listing(ctx, items, columns);
  return items;
}

/** A command that only lists: what GET `path` answers under `key`, its `query` from the options. */
export function listCommand<T>(spec: {
  name: string;
  summary: string;
  options?: OptionSpec[];
  path: string;
  key: string;
  columns: readonly Column<T>[] | ((ctx: Context) => readonly Column<T>[]);
  query?: (o: Values) => Query;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    options: spec.options ?? [],
    async run(ctx, o) {
      const columns = typeof spec.columns === 'function' ? spec.columns(ctx) : spec.columns;
      await listFrom(ctx, spec.path, spec.key, columns, spec.query?.(o));
    },
  };
}

/** A change: the server's answer as JSON; as text, `text` or (as before) nothing. */
export function answered(ctx: Context, answer: unknown, text?: string): void {
  if (ctx.isMachine) ctx.json(answer);
  else if (text !== undefined) ctx.print(text);
}

/** Reads the whole of stdin as text. */
export function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stdin.setEncoding('utf8');
    stdin.on('data', (d: string) => (text += d));
    stdin.on('end', () => resolve(text));
    stdin.on('error', reject);
  });
}

/** Keys typed (or pasted) ahead of the prompt that will read them. */
let typedAhead = '';

/** A line typed at the terminal, not echoed when hidden; Ctrl-C aborts with exit 130. */
export function promptTerminal(stdin: NodeJS.ReadStream, question: string, hidden: boolean): Promise<string> {
  process.stderr.write(question);
  return new Promise((resolve) => {
    let value = '';
    const finish = (rest: string) => {
      typedAhead = rest;
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      const chars = [...chunk];
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!;
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          // A pasted "user⏎password⏎" arrives in one chunk: keep the rest for the next prompt.
          const next = chars[i + 1] === '\n' && ch === '\r' ? i + 2 : i + 1;
          return finish(chars.slice(next).join(''));
        }
        if (ch === '\u007f' || ch === '\b') {
          if (value) {
            value = value.slice(0, -1);
            if (!hidden) process.stderr.write('\b \b');
          }
          continue;
        }
        value += ch;
        if (!hidden) process.stderr.write(ch);
      }
    };
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.on('data', onData);
    if (typedAhead) onData(typedAhead);
    if (stdin.listenerCount('data') > 0) stdin.resume();
  });
}

/** The first line of a non-terminal stdin (scripts pipe a password in). */
export async function firstLine(stdin: NodeJS.ReadStream): Promise<string> {
  const text = await readStdin(stdin);
  const line = text.split(/\r?\n/)[0] ?? '';
  if (!line) throw new CliError('nothing to read on stdin', 2);
  return line;
}

/**
 * Runs `fn` on each item with a progress bar. An API error on one item is reported on stderr and
 * counted, and the rest still run; gives the number that failed (the caller exits non-zero).
 *
 * With `announce`, the label is also a line on stdout in text output unless the bar shows it on the
 * same terminal: the established client's progress bar (click) prints its label once on stdout when
 * it cannot draw, so `Purging 3 heartbeats` reaches a pipe or a log. JSON output stays JSON only.
 */
export async function eachReported<T>(
  ctx: Pick<Context, 'warn' | 'print' | 'isMachine' | 'stdoutIsTty'>,
  label: string,
  items: readonly T[],
  name: (item: T) => string,
  fn: (item: T) => Promise<unknown>,
  options: { announce?: boolean } = {},
): Promise<number> {
  const progress = new Progress(label, items.length);
  if (options.announce && !ctx.isMachine && !(progress.drawn && ctx.stdoutIsTty)) ctx.print(label);
  let failed = 0;
  for (const item of items) {
    try {
      await fn(item);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      failed++;
      ctx.warn(`ERROR: ${name(item)}: ${err.message}`);
    }
    progress.tick();
  }
  progress.finish();
  return failed;
}
