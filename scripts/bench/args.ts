/** The benches' command line: `--name value` options and `--flag`s, read from process.argv. */
import { spawnSync } from 'node:child_process';

/** The word after `--name`, or undefined when the option is not given. */
export const textArg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** The number after `--name`, or `fallback` when the option is not given. */
export const numberArg = (name: string, fallback: number): number => {
  const text = textArg(name);
  return text === undefined ? fallback : Number(text);
};

/** Whether `--name` is given. */
export const flag = (name: string): boolean => process.argv.includes(`--${name}`);

/** Builds web/build when missing or stale, as `npm start` does: the UI benches load the wall and console from it. */
export function buildWeb(): void {
  const built = spawnSync(process.execPath, ['scripts/build-web.ts'], {
    cwd: new URL('../..', import.meta.url).pathname,
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
