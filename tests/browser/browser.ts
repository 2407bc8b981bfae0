/**
 * What every browser suite does with Chromium: Debian's (apt-get install chromium), or CHROMIUM_PATH,
 * driven by playwright-core.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Running } from '../../server/boot.ts';
import { bootInstance } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const launchBrowser = (extraArgs: string[] = []): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', ...extraArgs] });

type PageOptions = Parameters<Browser['newPage']>[0];
type Use<T> = (page: Page) => Promise<T>;

/** A fresh page (with `options`) for one test, closed however the test ends; what `use` returns. */
export async function withPage<T>(browser: Browser, ...args: [Use<T>] | [PageOptions, Use<T>]): Promise<T> {
  const [options, use] = args.length === 1 ? [undefined, args[0]] : args;
  const page = await browser.newPage(options);
  try {
    return await use(page);
  } finally {
    await page.close();
  }
}

/** A suite that stops its server and starts it again on its port: its own database, the server, a browser. */
export interface Restartable {
  db: { name: string; url: string };
  server: Running;
  browser: Browser;
}
export async function startRestartable(ctx: Restartable, label: string): Promise<void> {
  ctx.db = await createTestDatabase(label);
  ctx.server = await bootInstance(ctx.db.url, { PORT: '0' });
  ctx.browser = await launchBrowser();
}
/** The server again, on the port its pages reconnect to. */
export async function restartServer(ctx: Restartable, port: number): Promise<void> {
  ctx.server = await bootInstance(ctx.db.url, { PORT: String(port) });
}
export async function stopRestartable(ctx: Restartable): Promise<void> {
  await ctx.browser?.close();
  await ctx.server?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
}
/** A major alert of `resource` posted to the server at `origin` (a Restartable has no API client). */
export const sendAlert = (origin: string, resource: string): Promise<Response> =>
  fetch(`${origin}/api/alert`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ resource, event: 'e', environment: 'Production', severity: 'major' }),
  });
