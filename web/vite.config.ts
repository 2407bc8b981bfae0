import { basename, resolve } from 'node:path';
import adapter from '@sveltejs/adapter-static';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

/**
 * The UI is a static single-page app served by the API server at `/` (docs/ui.md). `WEB_BUILD_DIR`
 * (also read by the server) moves the output, and SvelteKit's working files beside it, so two
 * builds from one checkout do not clobber each other.
 */
const out = process.env.WEB_BUILD_DIR ? resolve(process.env.WEB_BUILD_DIR) : 'build';
export default defineConfig({
  plugins: [
    sveltekit({
      adapter: adapter({ pages: out, assets: out, fallback: 'index.html', strict: false }),
      ...(process.env.WEB_BUILD_DIR ? { outDir: `.svelte-kit-builds/${basename(out)}` } : {}),
    }),
  ],
  server: {
    // `npm run dev:web` proxies the API and the live socket to a server on :8080.
    proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } },
    fs: { allow: ['..'] },
  },
});
