/**
 * POST → visible on the wall (issue #20 item 4): the wall (`/wall`, 1920×1080, headless Debian
 * Chromium) with `--alerts` open alerts in view, while `--rate` updates a second of those alerts are
 * POSTed from here (background load, pushed to the wall too). Every `--every` ms the page itself
 * POSTs a new critical alert with a unique resource (`probe-<n>`) and measures, on the page's own
 * clock, from just before the fetch to:
 *   - dom: the alert's row being in the DOM (a MutationObserver sees its resource), and
 *   - visible: the next animation frame after that (the frame that paints it);
 * and, to tell the server's part from the push's, when the POST's answer reached the page.
 * `--source node`: the probes are POSTed by this process instead, as an alert source would (the wall
 * never posts alerts itself), so the browser's own request path is not in the figure; times are
 * then epoch ms on both sides (`performance.timeOrigin + performance.now()`, the same clock here).
 * Each probe alert is deleted again after it was seen, so the view keeps its size.
 * Target: visible p99 ≤ 50 ms.
 * Usage: node scripts/bench/ui-push.ts [--alerts 200] [--rate 50] [--probes 200] [--every 150]
 *        [--source page|node]
 */
import type { Page } from 'playwright-core';
import { numberArg, textArg } from './args.ts';
import { postAtRate } from './paced-load.ts';
import { startUiBench } from './ui-server.ts';

const count = numberArg('alerts', 200);
const rate = numberArg('rate', 50);
const probes = numberArg('probes', 200);
const every = numberArg('every', 150);
/** A probe alert, given its unique resource: new and critical, so it always enters the wall. */
const PROBE = {
  event: 'ProbeDown',
  environment: 'Production',
  severity: 'critical',
  service: ['probe'],
  text: 'POST to visible probe',
};
const fromNode = textArg('source') === 'node';

const bench = await startUiBench(
  'bench_ui_push',
  count,
  `SELECT gen_random_uuid()::text, 'host' || i, 'event' || (i % 20), 'Production',
     (ARRAY['major','minor','warning'])[1 + i % 3], '{}', 'open', ARRAY['svc' || (i % 10)],
     'Misc', (i % 100)::text, 'Seeded alert ' || i, '{}', '{}', 'bench/ui-push', 'exceptionAlert',
     now() - interval '1 hour', 86400, NULL, 0, false, 'indeterminate', 'noChange', now(),
     gen_random_uuid()::text, now() - (i * interval '1 second'), now()
   FROM generate_series(1, $1::int) AS i`,
);
const { origin, browser } = bench;
let load: Promise<number> | null = null;
let stop = false;
let loadErrors = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  // What reaches the page over its sockets: a resubscription means a fresh snapshot was read.
  const socket = { subscribes: 0, frames: 0, bytes: 0, patchFrames: 0 };
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      if (String(f.payload).includes('"subscribe"')) socket.subscribes++;
    });
    ws.on('framereceived', (f) => {
      const text = String(f.payload);
      socket.frames++;
      socket.bytes += text.length;
      if (text.includes('"patches"')) socket.patchFrames++;
    });
  });
  await page.goto(`${origin}/wall`);
  await page.waitForSelector('[data-testid=wall-alert]', { timeout: 60_000 });
  await page.waitForTimeout(2000);

  // Background load: updates of the seeded alerts (value and severity change), `rate` a second.
  const severities = ['major', 'minor', 'warning'];
  load = postAtRate({
    origin,
    rate,
    count,
    done: () => stop,
    alert: (i, sent) => ({
      resource: `host${i}`,
      event: `event${i % 20}`,
      environment: 'Production',
      severity: severities[sent % 3],
      service: [`svc${i % 10}`],
      value: String(sent),
    }),
    onError: () => void loadErrors++, // counted, not fatal: the probe is what is measured
  });

  const result = fromNode
    ? await probeFromNode(page)
    : await page.evaluate(
        async ({ probes, every, probe }) => {
          const dom: number[] = [];
          const visible: number[] = [];
          const answered: number[] = [];
          let failed = 0;
          const seen = (resource: string) =>
            [...document.querySelectorAll('[data-testid=wall-alert] .resource')].some(
              (el) => el.textContent === resource,
            );
          for (let n = 0; n < probes; n++) {
            const resource = `probe-${n}-${Math.random().toString(36).slice(2, 8)}`;
            const t0 = performance.now();
            const inDom = new Promise<number>((done) => {
              const observer = new MutationObserver(() => {
                if (!seen(resource)) return;
                observer.disconnect();
                done(performance.now());
              });
              observer.observe(document.body, { childList: true, subtree: true, characterData: true });
              setTimeout(() => {
                observer.disconnect();
                done(NaN);
              }, 5000);
            });
            const res = await fetch('/api/alert', {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ ...probe, resource }),
            });
            const answer = (await res.json()) as { id?: string };
            answered.push(performance.now() - t0);
            const t1 = await inDom;
            if (Number.isNaN(t1)) failed++;
            else {
              dom.push(t1 - t0);
              const t2 = await new Promise<number>((done) =>
                requestAnimationFrame(() => done(performance.now())),
              );
              visible.push(t2 - t0);
            }
            if (answer.id) await fetch(`/api/alert/${answer.id}`, { method: 'DELETE' });
            await new Promise((r) => setTimeout(r, every));
          }
          return { dom, visible, answered, failed };
        },
        { probes, every, probe: PROBE },
      );
  /** Probes POSTed from here; the page notes when each probe's row is in the DOM and painted. */
  async function probeFromNode(page: Page) {
    await page.evaluate(() => {
      const w = window as unknown as { probeSeen: Map<string, { dom: number; visible?: number }> };
      w.probeSeen = new Map();
      const now = () => performance.timeOrigin + performance.now();
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=wall-alert] .resource')) {
          const r = el.textContent ?? '';
          if (!r.startsWith('probe-') || w.probeSeen.has(r)) continue;
          const entry: { dom: number; visible?: number } = { dom: now() };
          w.probeSeen.set(r, entry);
          requestAnimationFrame(() => (entry.visible = now()));
        }
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    const sent = new Map<string, { t0: number; answered: number }>();
    const deletes: Promise<unknown>[] = [];
    for (let n = 0; n < probes; n++) {
      const resource = `probe-${n}-${Math.random().toString(36).slice(2, 8)}`;
      const t0 = performance.timeOrigin + performance.now();
      const res = await fetch(`${origin}/api/alert`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...PROBE, resource }),
      });
      const answer = (await res.json()) as { id?: string };
      sent.set(resource, { t0, answered: performance.timeOrigin + performance.now() - t0 });
      // Deleted a second later (seen by then, or counted as not seen), so the view keeps its size.
      if (answer.id)
        deletes.push(
          new Promise((r) => setTimeout(r, 1000)).then(() =>
            fetch(`${origin}/api/alert/${answer.id}`, { method: 'DELETE' }),
          ),
        );
      await new Promise((r) => setTimeout(r, every));
    }
    await Promise.all(deletes);
    const seen = new Map(
      await page.evaluate(() => [
        ...(window as unknown as { probeSeen: Map<string, { dom: number; visible?: number }> }).probeSeen,
      ]),
    );
    const out = { dom: [] as number[], visible: [] as number[], answered: [] as number[], failed: 0 };
    for (const [resource, { t0, answered }] of sent) {
      out.answered.push(answered);
      const s = seen.get(resource);
      if (!s || s.visible === undefined) {
        out.failed++;
        continue;
      }
      out.dom.push(s.dom - t0);
      out.visible.push(s.visible - t0);
    }
    return out;
  }
  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? Math.round(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]! * 10) / 10 : null;
  };
  const row = {
    source: fromNode ? 'node' : 'page',
    alerts: count,
    backgroundRate: rate,
    backgroundErrors: loadErrors,
    probes,
    seen: result.visible.length,
    failed: result.failed,
    answeredP50: q(result.answered, 0.5),
    answeredP99: q(result.answered, 0.99),
    domP50: q(result.dom, 0.5),
    domP99: q(result.dom, 0.99),
    visibleP50: q(result.visible, 0.5),
    visibleP99: q(result.visible, 0.99),
    visibleMax: q(result.visible, 1),
    subscribes: socket.subscribes,
    framesReceived: socket.frames,
    kbReceived: Math.round(socket.bytes / 1024),
    patchFrames: socket.patchFrames,
  };
  console.log(JSON.stringify(row));
  console.log(
    '\n| alerts in view | background POST/s | probes | seen | answered p50 / p99 ms | DOM p50 ms | DOM p99 ms | visible p50 ms | visible p99 ms | max ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${row.alerts} | ${row.backgroundRate} | ${row.probes} | ${row.seen} | ${row.answeredP50} / ${row.answeredP99} | ${row.domP50} | ${row.domP99} | ${row.visibleP50} | ${row.visibleP99} | ${row.visibleMax} |`,
  );
} finally {
  stop = true;
  await load?.catch(() => undefined);
  await bench.stop();
}
