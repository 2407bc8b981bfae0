import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser } from 'playwright-core';
import type { Running } from '../../server/boot.ts';
import { bootInstance } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Ctx {
  db: { name: string; url: string };
  server: Running;
  browser: Browser;
}

const start = (url: string, port: number) => bootInstance(url, { PORT: String(port) });

const connection = suite<Ctx>('web UI: the connection banner', {} as Ctx);
connection.before(async (ctx) => {
  ctx.db = await createTestDatabase('browser_connection');
  ctx.server = await start(ctx.db.url, 0);
  ctx.browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
connection.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

connection(
  'appears when the server stops and clears when it is back, keeping the rows on screen',
  async (ctx) => {
    const port = ctx.server.port;
    const origin = `http://127.0.0.1:${port}`;
    const res = await fetch(`${origin}/api/alert`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        resource: 'banner-host',
        event: 'e',
        environment: 'Production',
        severity: 'major',
      }),
    });
    assert.is(res.status, 201);
    for (const path of ['/alerts', '/wall']) {
      const page = await ctx.browser.newPage();
      await page.goto(`${origin}${path}`);
      const banner = page.getByTestId('connection-banner');
      await page.getByText('banner-host').first().waitFor();
      assert.is(await banner.count(), 0);

      await ctx.server.close();
      await banner.waitFor({ timeout: 5000 });
      assert.match((await banner.textContent()) ?? '', /Connection lost/);
      assert.ok(await page.getByText('banner-host').first().isVisible(), 'the old rows stay on screen');

      ctx.server = await start(ctx.db.url, port);
      await banner.waitFor({ state: 'detached', timeout: 15_000 });
      await page.close();
    }
  },
);

connection.run();
