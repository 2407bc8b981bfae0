/** What the UI benches (scripts/bench/ui.ts, ui-push.ts) measure against: a seeded server and Chromium. */
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { buildWeb } from './args.ts';

/** The columns a bench's seeding SELECT gives, in this order. */
const SEEDED_COLUMNS = `id, resource, event, environment, severity, correlate, status, service, "group", value, text,
  tags, attributes, origin, type, create_time, timeout, customer, duplicate_count, repeat, previous_severity,
  trend_indication, receive_time, last_receive_id, last_receive_time, update_time`;

export interface UiBench {
  origin: string;
  browser: Browser;
  /** Closes the browser, stops the server and drops its database. */
  stop(): Promise<void>;
}

/**
 * Builds the UI when stale, starts a server on a new database `name` holding the alerts `seed`
 * selects (one row of SEEDED_COLUMNS per alert; `$1` is `count`), and launches Debian's Chromium.
 */
export async function startUiBench(name: string, count: number, seed: string): Promise<UiBench> {
  buildWeb();
  const db = await createTestDatabase(name);
  const server = await startServerProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'error', PLUGINS: 'remote_ip' });
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`INSERT INTO alerts (${SEEDED_COLUMNS}) ${seed}`, [count]);
  await c.end();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  return {
    origin: new URL(server.url).origin,
    browser,
    async stop() {
      await browser.close();
      await server.stop();
      await dropTestDatabase(db.name);
    },
  };
}
