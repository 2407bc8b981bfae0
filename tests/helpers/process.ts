import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  child: ChildProcess;
  /** The URL from the start-up line. */
  url: string;
  /** The whole start-up line. */
  line: string;
  output: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = new URL('../../', import.meta.url).pathname;
/** The flags `npm start` and the container give the server: V8 memory settings and the type-stripping preload (docs/operations.md, "Memory"). */
export const SERVER_FLAGS = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=60',
  '--import',
  './server/preload.mjs',
];

/**
 * Runs `node server/main.ts` as `npm start` would, and waits for its start-up line. `flags`: V8 flags
 * after `npm start`'s (a later one wins), for benchmarks comparing memory settings.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  flags: string[] = [],
): Promise<ServerProcess> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const child = spawn(process.execPath, [...SERVER_FLAGS, ...flags, 'server/main.ts'], {
    cwd: root,
    env: { ...clean, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warning', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  const line = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no start-up line within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      output += d.toString();
      const found = output.split('\n').find((l) => / ready at /.test(l));
      if (found) {
        clearTimeout(timer);
        ok(found);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before it was ready:\n${output}`));
    });
  });
  const url = / ready at (\S+)/.exec(line)![1]!;
  return {
    child,
    url,
    line,
    output: () => output,
    exited,
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs `node server/main.ts` expecting it to refuse to start; gives its exit code and output. */
export function runServerExpectingFailure(
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; output: string }> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  const child = spawn(process.execPath, [...SERVER_FLAGS, 'server/main.ts'], {
    cwd: root,
    env: { ...clean, PORT: '0', ...env },
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((ok) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, output });
    }),
  );
}
