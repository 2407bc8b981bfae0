import { Router } from '../router.ts';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inlineScriptHashes, uiContentPolicy } from '../middleware/security-headers.ts';

/**
 * Where `npm run build:web` writes the SvelteKit app (adapter-static, SPA fallback); `WEB_BUILD_DIR`
 * moves it (web/vite.config.ts reads the same variable), so separate checkouts' builds stay apart.
 */
export const UI_BUILD_DIR = process.env.WEB_BUILD_DIR
  ? resolve(process.env.WEB_BUILD_DIR)
  : fileURLToPath(new URL('../../../web/build/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.ogg': 'audio/ogg',
};

async function fileAt(root: string, path: string): Promise<string | null> {
  const full = normalize(join(root, path));
  if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    return (await stat(full)).isFile() ? full : null;
  } catch {
    return null;
  }
}

/**
 * The web UI (docs/ui.md): files of the static build, and index.html for every other UI path so
 * the app's own router takes over. Hashed assets are cached for good; everything else is revalidated.
 */
export function uiRoutes(
  uiBase: string,
  apiPrefix: string,
  config: Parameters<typeof uiContentPolicy>[0],
  root = UI_BUILD_DIR,
): Router {
  const router = new Router();
  /** Pages with their policy, read again only when the build changes. */
  const pages = new Map<string, { mtimeMs: number; html: string; policy: string }>();
  async function pageAt(file: string) {
    const { mtimeMs } = await stat(file);
    const known = pages.get(file);
    if (known?.mtimeMs === mtimeMs) return known;
    const html = await readFile(file, 'utf8');
    const page = { mtimeMs, html, policy: uiContentPolicy(config, inlineScriptHashes(html)) };
    pages.set(file, page);
    return page;
  }
  const base = uiBase.replace(/\/$/, '');
  const placeholder = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Alerts</title></head>
<body><main><h1>Alerts</h1><p>The web UI has not been built: run <code>npm run build:web</code> (npm start does it).
The API is at <a href="${apiPrefix || '/'}">${apiPrefix || '/'}</a>.</p></main></body></html>`;
  router.get(uiBase === '/' ? /^\/.*$/ : new RegExp(`^${base}(/.*)?$`), async (ctx) => {
    const rel = decodeURIComponent(ctx.path.slice(base.length)) || '/';
    const file = (rel !== '/' && (await fileAt(root, rel))) || (await fileAt(root, 'index.html'));
    if (!file) {
      ctx.type = 'text/html';
      ctx.set('Content-Security-Policy', uiContentPolicy(config, []));
      ctx.body = placeholder;
      return;
    }
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    ctx.set(
      'Cache-Control',
      file.includes(`${sep}_app${sep}immutable${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    if (extname(file) === '.html') {
      // The policy names the page's inline start-up script by its hash, computed from the build.
      const page = await pageAt(file);
      ctx.set('Content-Security-Policy', page.policy);
      ctx.body = page.html;
      return;
    }
    ctx.body = createReadStream(file);
  });
  return router;
}
