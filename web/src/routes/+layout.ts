import { config } from 'zod';

// A client-side app: the server sends the same index.html for every UI path.
export const ssr = false;
export const prerender = false;

// Zod would otherwise probe `new Function` to compile its parsers, which the UI's
// Content-Security-Policy forbids (no 'unsafe-eval'): parse without compiling in the browser.
config({ jitless: true });
