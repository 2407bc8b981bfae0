/**
 * Screenshots of the wall and the console with 200 alerts, light and dark, at 1920×1080, into
 * docs/screenshots/ (linked from the README). Usage: node scripts/screenshots.ts
 * Needs Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) and a built UI (npm run build:web).
 */
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { createTestDatabase, dropTestDatabase } from '../tests/helpers/db.ts';
import { startServerProcess } from '../tests/helpers/process.ts';

const out = new URL('../docs/screenshots/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
const db = await createTestDatabase('screenshots');
const server = await startServerProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'error', PLUGINS: 'remote_ip' });
const origin = new URL(server.url).origin;
const severities = ['critical', 'major', 'minor', 'warning', 'informational'];
const environments = ['Production', 'Development', 'Staging'];
const events = ['NodeDown', 'DiskFull', 'HighLatency', 'CertExpiry', 'QueueBacklog', 'HighCPU'];
try {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${origin}/api/alert`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        resource: `host${String(i % 70).padStart(2, '0')}.example.net`,
        event: events[i % events.length],
        environment: environments[i % environments.length],
        severity: severities[(i * 7) % severities.length],
        service: [`svc-${i % 9}`],
        value: `${(i * 13) % 100}%`,
        text: `${events[i % events.length]} on host${i % 70}`,
      }),
    });
    if (res.status !== 201) throw new Error(`POST /alert: ${res.status}`);
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({
      viewport: { width: 1920, height: 1080 },
      colorScheme: scheme,
    });
    const page = await context.newPage();
    await page.goto(`${origin}/alerts`);
    await page.getByTestId('alert-row').nth(50).waitFor();
    await page.waitForTimeout(6000); // past the highlight of new rows
    await page.screenshot({ path: `${out}alerts-${scheme}.png` });
    await page.goto(`${origin}/wall?theme=${scheme}`);
    // The wall shows what fits the screen, then "+N more".
    await page.getByTestId('more').waitFor();
    await page.waitForTimeout(6000);
    await page.screenshot({ path: `${out}wall-${scheme}.png` });
    await context.close();
  }
  await browser.close();
  console.log(`screenshots written to ${out}`);
} finally {
  await server.stop();
  await dropTestDatabase(db.name);
}
