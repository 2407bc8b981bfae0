/**
 * axe-core run inside a page (issue #40 item 5): every rule axe runs by default (WCAG 2.x A/AA and
 * best practices such as `region` and `landmark-one-main`). `axeViolations` answers what it found,
 * one line per rule with the first nodes it names, so an assertion on `[]` prints what to fix.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const source = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The violations axe finds on `page` as it is now, as readable lines (empty when there are none). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, so the page's Content-Security-Policy does not apply.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (c: Document) => Promise<{ violations: unknown }> } })
      .axe;
    return (await axe.run(document)).violations;
  });
  return (violations as Violation[]).map(
    (v) =>
      `${v.id} (${v.impact ?? 'n/a'}, ${v.nodes.length} nodes): ${v.help} — ` +
      v.nodes
        .slice(0, 3)
        .map((n) => JSON.stringify(n.target))
        .join(', '),
  );
}
