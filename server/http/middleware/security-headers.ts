import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Config } from '../../config.ts';

type FrameSettings = Pick<Config, 'FRAME_ANCESTORS'>;

/**
 * Who may frame our pages, from FRAME_ANCESTORS: nobody by default (`'none'`, and X-Frame-Options
 * DENY for browsers without CSP); `'self'` alone is SAMEORIGIN; any other list has no
 * X-Frame-Options, which cannot name other origins and would forbid what the list allows.
 */
export function framePolicy(config: FrameSettings): { ancestors: string; frameOptions: string | null } {
  const sources = config.FRAME_ANCESTORS.filter((s) => s !== "'none'");
  if (sources.length === 0) return { ancestors: "'none'", frameOptions: 'DENY' };
  const onlySelf = sources.every((s) => s === "'self'");
  return { ancestors: [...new Set(sources)].join(' '), frameOptions: onlySelf ? 'SAMEORIGIN' : null };
}

/**
 * Headers on every answer, API and UI alike: no MIME sniffing, no paths or queries (a wall's
 * `?api-key=`) in the Referer sent to other sites, and the frame policy.
 */
export function securityHeaders(config: FrameSettings): Middleware {
  const frames = framePolicy(config);
  // Nothing to do after the rest: its promise is handed back, without an async function's own.
  return (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Content-Security-Policy', `frame-ancestors ${frames.ancestors}`);
    if (frames.frameOptions) ctx.set('X-Frame-Options', frames.frameOptions);
    return next();
  };
}

/** The `'sha256-…'` source of each inline `<script>` of an HTML page (SvelteKit's start-up script). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1]!)) continue;
    hashes.add(`'sha256-${createHash('sha256').update(m[2]!, 'utf8').digest('base64')}'`);
  }
  return [...hashes];
}

/**
 * The Content-Security-Policy of a UI page: everything from our own origin, its inline scripts by
 * hash (no 'unsafe-inline' for scripts), inline styles (Svelte sets style attributes), data: and
 * blob: images and sounds, and the origin of DEFAULT_AUDIO_FILE when it is on another site.
 */
export function uiContentPolicy(
  config: FrameSettings & Pick<Config, 'DEFAULT_AUDIO_FILE'>,
  scriptHashes: readonly string[],
): string {
  const media = ["'self'", 'data:', 'blob:'];
  const audio = config.DEFAULT_AUDIO_FILE;
  if (audio && /^https?:\/\//i.test(audio)) {
    try {
      media.push(new URL(audio).origin);
    } catch {
      // not a URL after all: the browser would not load it either
    }
  }
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `media-src ${media.join(' ')}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${framePolicy(config).ancestors}`,
  ].join('; ');
}
