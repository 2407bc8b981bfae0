/**
 * `alerta`: the command-line client (docs/cli.md). Same commands, options, config file and
 * environment variables as the established Python client, over the HTTP API and `shared/` only.
 */
import { describeOptions, parseArgs, UsageError, type OptionSpec } from './args.ts';
import { loadSettings, parseBool, type GlobalFlags, type Settings } from './config.ts';
import { firstLine, makeOutput, promptTerminal, type Command, type Context } from './context.ts';
import { JSON_LINES, TABLE_STYLES } from './format.ts';
import { authorizationFor, CliError, Http } from './http.ts';
import { readToken } from './netrc.ts';
import { adminCommands } from './commands/admin.ts';
import { alertCommands } from './commands/alerts.ts';
import { bulkCommands } from './commands/bulk.ts';
import { liveCommands } from './commands/live.ts';
import { notificationCommands } from './commands/notifications.ts';
import { serverCommands } from './commands/server.ts';
import { sessionCommands } from './commands/session.ts';

const GLOBAL_OPTIONS: OptionSpec[] = [
  {
    name: 'config_file',
    flags: ['--config-file'],
    metavar: 'FILE',
    help: 'Configuration file (~/.alerta.conf)',
  },
  { name: 'profile', flags: ['--profile'], metavar: 'PROFILE', help: 'Configuration profile' },
  { name: 'endpoint_url', flags: ['--endpoint-url'], metavar: 'URL', help: 'API endpoint URL' },
  {
    name: 'output',
    flags: ['--output'],
    metavar: 'FORMAT',
    help: 'Output format: simple, plain, grid, psql, pipe, github, tsv, json, json_lines …',
  },
  {
    name: 'output',
    flags: ['--json'],
    type: 'flag',
    value: 'json',
    help: 'Output in JSON (same as --output json)',
  },
  { name: 'color', flags: ['--color'], off: ['--no-color'], type: 'bool', help: 'Colour by severity' },
  {
    name: 'debug',
    flags: ['--debug'],
    type: 'flag',
    help: 'Print HTTP traffic to stderr (credentials hidden)',
  },
];

const COMMANDS: Command[] = [
  ...alertCommands,
  ...liveCommands,
  ...bulkCommands,
  ...adminCommands,
  ...notificationCommands,
  ...sessionCommands,
  ...serverCommands,
];

const HELP_COMMAND: Command = {
  name: 'help',
  summary: 'Show help for the client or a command',
  args: [{ name: 'command', help: 'Command to describe' }],
  options: [],
  offline: true,
  async run(ctx, _o, args) {
    if (!args[0]) return void ctx.print(mainHelp());
    const command = find(args[0]);
    if (!command) throw new UsageError(`No such command "${args[0]}".`);
    ctx.print(commandHelp(command));
  },
};

const find = (name: string) => [...COMMANDS, HELP_COMMAND].find((c) => c.name === name);

function mainHelp(): string {
  const all = [...COMMANDS, HELP_COMMAND].sort((a, b) => a.name.localeCompare(b.name));
  const width = Math.max(...all.map((c) => c.name.length));
  return [
    'Usage: alerta [OPTIONS] COMMAND [ARGS]...',
    '',
    '  Alerta client unified command-line tool.',
    '',
    'Options:',
    describeOptions(GLOBAL_OPTIONS),
    '',
    'Commands:',
    ...all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'alerta COMMAND --help' for a command's options. Docs: docs/cli.md",
  ].join('\n');
}

function commandHelp(c: Command): string {
  const args = (c.args ?? [])
    .map((a) => (a.required ? ` ${a.name.toUpperCase()}` : ` [${a.name.toUpperCase()}]`))
    .join('');
  return [
    `Usage: alerta ${c.name} [OPTIONS]${args}`,
    '',
    `  ${(c.description ?? c.summary).replace(/\n/g, '\n  ')}`,
    '',
    'Options:',
    describeOptions(c.options),
  ].join('\n');
}

/** Where the command name sits: after the global options and their values. */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith('-')) return i;
    const spec = GLOBAL_OPTIONS.find((o) => o.flags.includes(token.split('=')[0]!));
    if (spec && spec.type !== 'flag' && spec.type !== 'bool' && !token.includes('=')) i++;
  }
  return -1;
}

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  stdoutIsTty: boolean;
}

function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : parseBool(v, name);
}

/** Colour when asked for, or when the terminal can show it and nobody said no (NO_COLOR). */
function wantsColor(flags: GlobalFlags, settings: Settings, io: Io): boolean {
  if (flags.color !== undefined) return flags.color;
  if (io.env.NO_COLOR) return false;
  return settings.color && io.stdoutIsTty && io.env.TERM !== 'dumb';
}

/** GET /config, without credentials, as every command of the established client starts. */
async function remoteConfig(http: Http): Promise<Record<string, unknown>> {
  const url = `${http.endpoint}/config`;
  let answer;
  try {
    answer = await http.send('GET', '/config', { anonymous: true });
  } catch (err) {
    throw new CliError(
      `Failed to get config from ${url}: ${(err as Error).message}`,
      (err as CliError).exitCode ?? 3,
    );
  }
  if (answer.status >= 400) throw new CliError(`Failed to get config from ${url}: HTTP ${answer.status}`, 3);
  if (!answer.body || typeof answer.body !== 'object') {
    throw new CliError(`Failed to get config from ${url}: not a JSON object`, 3);
  }
  return answer.body as Record<string, unknown>;
}

/** Runs one invocation; gives the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const warn = (m: string) => io.stderr(m.startsWith('ERROR') ? m : `WARNING: ${m}`);
  let commandName: string | null = null;
  let http: Http | null = null;
  try {
    const at = commandIndex(argv);
    const globalArgs = at < 0 ? argv : argv.slice(0, at);
    const leading = parseArgs(globalArgs, GLOBAL_OPTIONS, [], {
      env: io.env,
      envPrefix: null,
      command: null,
    });
    if (at < 0) {
      io.stdout(mainHelp());
      return leading.help ? 0 : 2;
    }
    commandName = argv[at]!;
    const command = find(commandName);
    if (!command) throw new UsageError(`No such command "${commandName}".`);
    const parsed = parseArgs(argv.slice(at + 1), command.options, command.args ?? [], {
      env: io.env,
      envPrefix: `ALERTA_${command.name}`,
      command: command.name,
      extra: GLOBAL_OPTIONS,
    });
    if (parsed.help) {
      io.stdout(commandHelp(command));
      return 0;
    }
    const g = { ...leading.opts, ...parsed.extra };
    const flags: GlobalFlags = {
      configFile: g.config_file as string | undefined,
      profile: g.profile as string | undefined,
      endpointUrl: g.endpoint_url as string | undefined,
      output: g.output as string | undefined,
      // ALERTA_COLOR is the flag's variable (as click reads it), so it forces colour like --color.
      color: (g.color as boolean | undefined) ?? envBool(io.env, 'ALERTA_COLOR'),
      debug: g.debug as boolean | undefined,
    };
    let settings: Settings;
    try {
      settings = loadSettings(flags, io.env, warn);
    } catch (err) {
      throw new CliError(`bad configuration: ${(err as Error).message}`, 2);
    }
    if (
      settings.output !== 'json' &&
      !JSON_LINES.has(settings.output) &&
      !TABLE_STYLES.includes(settings.output)
    ) {
      warn(`unknown output format "${settings.output}"; using simple`);
    }
    try {
      new URL(settings.endpoint);
    } catch {
      throw new CliError(`bad configuration: endpoint "${settings.endpoint}" is not a URL`, 2);
    }
    const token = readToken(settings.endpoint, warn);
    const trace = settings.debug ? (line: string) => io.stderr(line) : null;
    http = new Http(settings, authorizationFor(settings, token), trace);
    const remote = command.offline ? {} : await remoteConfig(http);
    const interactive = Boolean(io.stdin.isTTY && process.stderr.isTTY);
    const ctx: Context = {
      settings,
      remote,
      http,
      output: settings.output,
      color: wantsColor(flags, settings, io),
      env: io.env,
      stdin: io.stdin,
      print: io.stdout,
      warn,
      notice: io.stderr,
      ...makeOutput(settings.output, io.stdout),
      interactive,
      stdoutIsTty: io.stdoutIsTty,
      async confirm(question) {
        if (!interactive) return false;
        const answer = await promptTerminal(io.stdin, `${question} [y/N]: `, false);
        return /^y(es)?$/i.test(answer.trim());
      },
      prompt(question, hidden = false) {
        return io.stdin.isTTY ? promptTerminal(io.stdin, question, hidden) : firstLine(io.stdin);
      },
    };
    return (await command.run(ctx, parsed.opts, parsed.args)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      const name = err.command ?? commandName;
      const usage = name && find(name) ? `alerta ${name} [OPTIONS]` : 'alerta [OPTIONS] COMMAND [ARGS]...';
      const hint = name && find(name) ? `alerta ${name} -h` : 'alerta -h';
      io.stderr(`Usage: ${usage}\nTry '${hint}' for help.\n\nError: ${err.message}`);
      return 2;
    }
    if (err instanceof CliError) {
      io.stderr(`ERROR: ${err.message}`);
      return err.exitCode;
    }
    io.stderr(`ERROR: ${(err as Error).message ?? String(err)}`);
    if (io.env.ALERTA_DEBUG || argv.includes('--debug')) io.stderr(String((err as Error).stack));
    return 1;
  } finally {
    http?.close();
  }
}

/** The process wiring: argv, stdio, environment, exit code. */
export async function cli(): Promise<void> {
  const write = (stream: NodeJS.WriteStream) => (s: string) => {
    stream.write(`${s}\n`);
  };
  // A closed pipe (alerta query | head) is a normal end, not a crash.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await run(process.argv.slice(2), {
    stdout: write(process.stdout),
    stderr: write(process.stderr),
    stdin: process.stdin,
    env: process.env,
    stdoutIsTty: Boolean(process.stdout.isTTY),
  });
}
