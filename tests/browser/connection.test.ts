import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restartServer, sendAlert, startRestartable, stopRestartable, type Restartable } from './browser.ts';

const connection = suite<Restartable>('web UI: the connection banner', {} as Restartable);
connection.before((ctx) => startRestartable(ctx, 'browser_connection'));
connection.after(stopRestartable);

connection(
  'appears when the server stops and clears when it is back, keeping the rows on screen',
  async (ctx) => {
    const port = ctx.server.port;
    const origin = `http://127.0.0.1:${port}`;
    assert.is((await sendAlert(origin, 'banner-host')).status, 201);
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

      await restartServer(ctx, port);
      await banner.waitFor({ state: 'detached', timeout: 15_000 });
      await page.close();
    }
  },
);

connection.run();
