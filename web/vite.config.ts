import adapter from '@sveltejs/adapter-static';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

/** The UI is a static single-page app served by the API server at `/` (docs/ui.md). */
export default defineConfig({
  plugins: [
    sveltekit({
      adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html', strict: false }),
    }),
  ],
  server: {
    // `npm run dev:web` proxies the API and the live socket to a server on :8080.
    proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } },
    fs: { allow: ['..'] },
  },
});
