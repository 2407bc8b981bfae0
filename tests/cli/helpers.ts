import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../helpers/live.ts';

/**
 * Runs the `alerta` CLI as a subprocess (`node cli/main.ts …`), the way a user or script
 * does, with HOME pointed at a temporary directory and an environment of our choosing only.
 */

const root = new URL('../../', import.meta.url).pathname;
export const MAIN = join(root, 'cli/main.ts');
export const BIN = join(root, 'bin/alerta.js');

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  home: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
  /** Run this script instead of cli/main.ts (the bin shim). */
  script?: string;
  timeoutMs?: number;
}

/** A HOME of its own, removed by `cleanup`. */
export function tempHome(label: string): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), `alerta-cli-${label}-`));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

function childEnv(o: RunOptions): NodeJS.ProcessEnv {
  // Nothing from the test runner's environment leaks in (ALERTA_*, DEBUG, NO_COLOR …).
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: o.home, TZ: 'UTC' };
  for (const [k, v] of Object.entries(o.env ?? {})) if (v !== undefined) env[k] = v;
  return env;
}

export function alerta(args: string[], o: RunOptions): Promise<Result> {
  const child = spawn(process.execPath, [o.script ?? MAIN, ...args], {
    cwd: o.home,
    env: childEnv(o),
    stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (o.input !== undefined) child.stdin!.end(o.input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`alerta ${args.join(' ')} did not finish in time:\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Runs and expects exit 0; gives stdout parsed as JSON. */
export async function alertaJson<T = unknown>(args: string[], o: RunOptions): Promise<T> {
  const r = await alerta(['--output', 'json', ...args], o);
  if (r.code !== 0) throw new Error(`alerta ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`alerta ${args.join(' ')} printed no JSON: ${r.stdout}`);
  }
}

/** Runs and expects exit 0; gives stdout. */
export async function alertaOk(args: string[], o: RunOptions): Promise<string> {
  const r = await alerta(args, o);
  if (r.code !== 0) throw new Error(`alerta ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** A long-running CLI (watch, tail): its output so far, line by line, and a way to stop it. */
export interface Running {
  child: ChildProcess;
  lines(): string[];
  stderr(): string;
  /** Waits for a stdout line that satisfies `test`; gives it. */
  waitFor(test: (line: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<number | null>;
}

export function start(args: string[], o: RunOptions): Running {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: o.home,
    env: childEnv(o),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  const lines = () => out.split('\n').filter(Boolean);
  return {
    child,
    lines,
    stderr: () => err,
    waitFor: (test, what, timeoutMs = 15_000) =>
      until(
        () => lines().find(test),
        timeoutMs,
        () => `${what}\nstdout:\n${out}\nstderr:\n${err}`,
      ),
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Parses JSON lines, skipping none: every line must be JSON. */
export const jsonLines = <T = Record<string, unknown>>(text: string): T[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
