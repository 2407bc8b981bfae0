/**
 * UI benchmark (issue #8): the console with 10,000 alerts in view while 100 updates a second are
 * pushed for 30 s, in Debian's Chromium. Records long tasks (PerformanceObserver 'longtask') and
 * frame times (requestAnimationFrame gaps). Target: no long task over 100 ms.
 * With `--scroll` (issue #19): instead, the list is scrolled by 40 px a frame for `--duration`
 * seconds, then a plain 10,000-row table the same way, and both frame rates are printed, with
 * whether the console's columns moved while scrolling, and main-thread and renderer CPU time per
 * frame (less sensitive to other load than wall time). Target: ≥ 50 fps.
 * Usage: node scripts/bench/ui.ts [--alerts 10000] [--rate 100] [--duration 30] [--scroll]
 */
import type { Page } from 'playwright-core';
import { flag, numberArg } from './args.ts';
import { postAtRate } from './paced-load.ts';
import { startUiBench } from './ui-server.ts';

const count = numberArg('alerts', 10_000);
const rate = numberArg('rate', 100);
const scroll = flag('scroll');
const duration = numberArg('duration', scroll ? 10 : 30);

const { origin, browser, stop } = await startUiBench(
  'bench_ui',
  count,
  `SELECT gen_random_uuid()::text, 'host' || i, 'event' || (i % 20), (ARRAY['Production','Development'])[1 + i % 2],
     (ARRAY['critical','major','minor','warning','informational'])[1 + i % 5],
     '{}', (ARRAY['open','open','open','ack','shelved','closed'])[1 + i % 6], ARRAY['svc' || (i % 10)],
     'Misc', (i % 100)::text, 'Seeded alert ' || i || repeat(' with a longer text', i % 7), '{}', '{}',
     'bench/ui', 'exceptionAlert', now() - (i % 400) * interval '1 day', 86400, NULL, 0,
     false, 'indeterminate', 'noChange', now(), gen_random_uuid()::text, now() - (i * interval '1 second'), now()
   FROM generate_series(1, $1::int) AS i`,
);
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await page.goto(`${origin}/alerts?filter=none&page-size=${count}`);
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=total]')?.textContent === `${n} alerts`,
    count,
    {
      timeout: 60_000,
    },
  );
  await (scroll ? scrollBench(page) : updatesBench(page));
} finally {
  await stop();
}

/** Scrolls `selector`'s box by 40 px a frame for `duration` s: frame rate, column drift, main-thread time. */
async function scrollFor(page: Page, selector: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () =>
    Object.fromEntries(
      (
        (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }
      ).metrics.map((m) => [m.name, m.value]),
    );
  const before = await metrics();
  const run = await page.evaluate(
    async ({ selector, seconds }) => {
      const box = document.querySelector(selector)!;
      const columns = () =>
        [...document.querySelectorAll(`${selector} thead th`)].map((th) =>
          Math.round(th.getBoundingClientRect().left),
        );
      const first = columns().join();
      let moved = 0;
      let frames = 0;
      const gaps: number[] = [];
      const start = performance.now();
      let last = start;
      await new Promise<void>((done) => {
        const step = (t: number) => {
          frames++;
          gaps.push(t - last);
          last = t;
          box.scrollTop = box.scrollTop + 40 >= box.scrollHeight - box.clientHeight ? 0 : box.scrollTop + 40;
          // Measured now and then: reading layout every frame would slow what it measures.
          if (frames % 15 === 0 && columns().join() !== first) moved++;
          if (t - start < seconds * 1000) requestAnimationFrame(step);
          else done();
        };
        requestAnimationFrame(step);
      });
      gaps.sort((a, b) => a - b);
      return {
        fps: Math.round((frames / ((last - start) / 1000)) * 10) / 10,
        frameP50: Math.round(gaps[Math.floor(gaps.length / 2)]! * 10) / 10,
        frameP99: Math.round(gaps[Math.floor(gaps.length * 0.99)]! * 10) / 10,
        framesWithColumnsMoved: moved,
        frames,
      };
    },
    { selector, seconds: duration },
  );
  const after = await metrics();
  const perFrame = (name: string) =>
    Math.round(((after[name]! - before[name]!) * 1000 * 10) / run.frames) / 10;
  await cdp.detach();
  return {
    ...run,
    mainMsPerFrame: perFrame('TaskDuration'),
    // CPU time, not wall time: what the page costs, whatever else the machine is running.
    mainCpuMsPerFrame: perFrame('ThreadTime'),
    rendererCpuMsPerFrame: perFrame('ProcessTime'),
    scriptMsPerFrame: perFrame('ScriptDuration'),
    layoutMsPerFrame: perFrame('LayoutDuration'),
    styleMsPerFrame: perFrame('RecalcStyleDuration'),
  };
}

async function scrollBench(page: Page) {
  const consoleRun = await scrollFor(page, '[data-stale]');
  // The same number of rows as a plain table: every row in the DOM, nothing live, in a box with an
  // opaque background (which lets the browser scroll it on the compositor, as the console's).
  await page.setContent(
    `<style>table{border-collapse:collapse;font:13px system-ui}td{padding:3px 6px;border-bottom:1px solid #ddd;white-space:nowrap}</style>
     <div id="box" style="height:900px;overflow:auto;background:#fff"><table><thead><tr><th>Severity</th><th>Status</th><th>Resource</th><th>Event</th><th>Text</th></tr></thead><tbody>${Array.from(
       { length: count },
       (_, i) =>
         `<tr><td>major</td><td>open</td><td>host${i}</td><td>event${i % 20}</td><td>Seeded alert ${i}</td></tr>`,
     ).join('')}</tbody></table></div>`,
  );
  const plainRun = await scrollFor(page, '#box');
  console.log(JSON.stringify({ console: consoleRun, plain: plainRun }));
  console.log(
    '\n| list | alerts | fps | frame p50 ms | p99 ms | main thread ms/frame | script | layout | style | main-thread CPU ms/frame | renderer CPU ms/frame | frames with columns moved |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, r] of [
    ['console', consoleRun],
    ['plain table', plainRun],
  ] as const)
    console.log(
      `| ${name} | ${count} | ${r.fps} | ${r.frameP50} | ${r.frameP99} | ${r.mainMsPerFrame} | ${r.scriptMsPerFrame} | ${r.layoutMsPerFrame} | ${r.styleMsPerFrame} | ${r.mainCpuMsPerFrame} | ${r.rendererCpuMsPerFrame} | ${r.framesWithColumnsMoved} |`,
    );
}

/** 100 updates a second pushed to the console for `duration` s: long tasks and frame gaps. */
async function updatesBench(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[]; frames: number[] };
    w.longTasks = [];
    w.frames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const frame = (t: number) => {
      w.frames.push(t - last);
      last = t;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const severities = ['critical', 'major', 'minor', 'warning', 'informational'];
  const started = Date.now();
  const sent = await postAtRate({
    origin,
    rate,
    count,
    done: () => Date.now() - started >= duration * 1000,
    alert: (i) => ({
      resource: `host${i}`,
      event: `event${i % 20}`,
      environment: i % 2 ? 'Development' : 'Production',
      severity: severities[Math.floor(Math.random() * 5)],
      service: [`svc${i % 10}`],
    }),
  });
  const { longTasks, frames } = await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[]; frames: number[] };
    return { longTasks: w.longTasks, frames: w.frames };
  });
  const sorted = [...frames].sort((a, b) => a - b);
  const q = (p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10;
  const row = {
    alerts: count,
    updatesSent: sent,
    updatesPerSec: Math.round(sent / duration),
    longTasks: longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...longTasks)),
    over100ms: longTasks.filter((d) => d > 100).length,
    frames: frames.length,
    frameP50: q(0.5),
    frameP99: q(0.99),
    frameMax: Math.round(Math.max(...frames)),
  };
  console.log(JSON.stringify(row));
  console.log(
    '\n| alerts | updates/s | long tasks | longest ms | over 100 ms | frame p50 ms | p99 ms | max ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${row.alerts} | ${row.updatesPerSec} | ${row.longTasks} | ${row.longestTaskMs} | ${row.over100ms} | ${row.frameP50} | ${row.frameP99} | ${row.frameMax} |`,
  );
}
