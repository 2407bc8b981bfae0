/**
 * `npm start` runs this first: builds the web UI (web/build) when it is missing or older than its
 * sources, so `npm install && npm start` serves the UI on a fresh clone.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const newest = (dir: string): number => {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
};
let built: number;
try {
  built = statSync(join(process.env.WEB_BUILD_DIR ?? join(root, 'web/build'), 'index.html')).mtimeMs;
} catch {
  built = 0;
}
const sources = Math.max(
  newest(join(root, 'web/src')),
  newest(join(root, 'shared')),
  statSync(join(root, 'web/vite.config.ts')).mtimeMs,
);
if (built > sources && !process.argv.includes('--force')) {
  console.log('web UI is up to date');
} else {
  console.log('building the web UI…');
  const r = spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
