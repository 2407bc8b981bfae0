import { readFileSync } from 'node:fs';

/**
 * The node flags of package.json's `start` script (`node <flags> server/main.ts`), for benches that
 * start the server as `npm start` does: tests/helpers/process.ts gives only its V8 flags
 * (SERVER_FLAGS), not e.g. `--import ./server/preload.mjs`. Given twice, the later one wins.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.split(/\s+/);
  const node = words.indexOf('node');
  const main = words.indexOf('server/main.ts');
  if (node < 0 || main < node) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return words.slice(node + 1, main);
}
