import type { Alert, LiveAlert } from '../../shared/alerts.ts';
import type { Values } from '../args.ts';
import type { Command, Context } from '../context.ts';
import { localTime, toJsonLine, uptimeText } from '../format.ts';
import { streamLive, type LiveHandlers } from '../live.ts';
import { selectionOf, selectOptions } from '../selection.ts';
import { alertLines, alertTable, type AnyAlert } from '../views.ts';

/** watch, tail and top: alerts as they change. */

const LIVE_OPTIONS = [
  {
    name: 'interval',
    flags: ['-n', '--interval'],
    type: 'int' as const,
    default: 2,
    metavar: 'SECONDS',
    help: 'Seconds between polls when there is no live socket (2)',
  },
  {
    name: 'poll',
    flags: ['--poll'],
    type: 'flag' as const,
    help: 'Poll GET /alerts instead of using the live socket',
  },
];

/** Stops on Ctrl-C or SIGTERM: both are the normal way out of a watch. */
function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}

const sleep = (ms: number, stop: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done);
  });

const byReceiveTime = (a: AnyAlert, b: AnyAlert) => a.lastReceiveTime.localeCompare(b.lastReceiveTime);

/** The query string of a selection, with the page size a watch wants. */
function viewQuery(params: [string, string][]): string {
  const q = new URLSearchParams(params);
  if (!q.has('page-size')) q.set('page-size', '1000');
  return q.toString();
}

/**
 * Polls `GET /alerts?…&from-date=<lastTime>` as the established client's watch does, until stopped
 * or until the server switches auto-refresh off. `each` gets every poll's alerts, oldest first.
 */
async function poll(
  ctx: Context,
  params: [string, string][],
  intervalSec: number,
  stop: AbortSignal,
  each: (alerts: Alert[], first: boolean) => void,
): Promise<number> {
  let fromDate: string | null = null;
  for (let first = true; !stop.aborted; first = false) {
    const r: { alerts: Alert[]; lastTime?: string; autoRefresh?: boolean } = await ctx.http.get('/alerts', [
      ...params,
      ...(fromDate ? ([['from-date', fromDate]] as [string, string][]) : []),
      ['page', '1'],
      ['page-size', '1000'],
    ]);
    each([...r.alerts].sort(byReceiveTime), first);
    if (r.lastTime) fromDate = r.lastTime;
    if (r.autoRefresh === false) {
      ctx.warn('auto-refresh is switched off on the server; stopping');
      return 0;
    }
    await sleep(intervalSec * 1000, stop);
  }
  return 0;
}

/**
 * watch, tail: the selection's live events until stopped, the socket's notices on stderr; without a
 * live socket (or with --poll) it polls every -n seconds instead, `each` getting every poll's alerts.
 */
async function follow(
  ctx: Context,
  o: Values,
  handlers: Omit<LiveHandlers, 'notice'>,
  each: (alerts: Alert[], first: boolean) => void,
): Promise<number> {
  const sel = selectionOf(o);
  const stop = stopSignal();
  if (!o.poll) {
    const notice = (m: string) => ctx.warn(m);
    const outcome = await streamLive(ctx, viewQuery(sel.params), { ...handlers, notice }, stop);
    if (outcome.kind === 'stopped') return 0;
    ctx.warn(`live socket unavailable (${outcome.reason}); polling every ${String(o.interval)} s`);
  }
  return poll(ctx, sel.params, Number(o.interval), stop, each);
}

/** What watch shows of an alert, to print only real changes (a replay or a snapshot repeats some). */
const signature = (a: AnyAlert) =>
  JSON.stringify([
    a.status,
    a.severity,
    a.duplicateCount,
    a.lastReceiveId,
    a.updateTime,
    a.text,
    a.value,
    a.tags,
  ]);

const watch: Command = {
  name: 'watch',
  summary: 'Watch alerts change, live',
  description:
    'Shows the matching alerts, then each change as it happens (new alerts, duplicates, acks,\n' +
    'closes, deletions) over the live socket. Without a socket it polls every -n seconds.\n' +
    'With --output json_lines every change is one JSON line.',
  options: [
    ...selectOptions(),
    { name: 'details', flags: ['--details'], type: 'flag', help: 'Show alert details' },
    ...LIVE_OPTIONS,
  ],
  async run(ctx, o) {
    const lines = ctx.isMachine;
    const seen = new Map<string, string>();
    const show = (a: AnyAlert, snapshot: boolean) => {
      const sig = signature(a);
      if (seen.get(a.id) === sig) return;
      seen.set(a.id, sig);
      if (lines) ctx.print(toJsonLine({ event: snapshot ? 'snapshot' : 'alert.updated', alert: a }));
      else ctx.print(alertLines(a, ctx.settings.timezone, ctx.color, o.details === true));
    };
    const gone = (id: string) => {
      if (!seen.delete(id)) return;
      if (lines) ctx.print(toJsonLine({ event: 'alert.removed-from-view', id }));
      else ctx.print(`${id.slice(0, 8)}|${localTime(Date.now(), ctx.settings.timezone)}|removed`);
    };
    return follow(
      ctx,
      o,
      {
        snapshot: (alerts: LiveAlert[]) => [...alerts].sort(byReceiveTime).forEach((a) => show(a, true)),
        updated: (alerts) => alerts.forEach((a) => show(a, false)),
        removed: (ids) => ids.forEach(gone),
      },
      (alerts, first) => alerts.forEach((a) => show(a, first)),
    );
  },
};

const tail: Command = {
  name: 'tail',
  summary: 'Stream raw live events as JSON lines',
  description:
    'Prints every live-socket message for the selection as one JSON line {"event": …, …}:\n' +
    'alert.updated, alert.removed-from-view, counts, heartbeat.updated, heartbeat.deleted, resync\n' +
    '(and tick with --ticks). Without a socket it polls and prints alert.updated lines.',
  options: [
    ...selectOptions(),
    { name: 'ticks', flags: ['--ticks'], type: 'flag', help: 'Include the 5-second tick messages' },
    ...LIVE_OPTIONS,
  ],
  async run(ctx, o) {
    const emit = (event: string, data: unknown) => ctx.print(toJsonLine({ event, ...(data as object) }));
    return follow(
      ctx,
      o,
      {
        snapshot: () => {},
        updated: () => {},
        removed: () => {},
        raw: (event, data) => {
          if (event !== 'tick' || o.ticks) emit(event, data);
        },
      },
      (alerts, first) => {
        if (!first && alerts.length) emit('alert.updated', { alerts });
      },
    );
  },
};

// ---- top ----------------------------------------------------------------------------------

interface Frame {
  status: { version?: string; uptime?: number; time?: number };
  alerts: {
    alerts: Alert[];
    total?: number;
    severityCounts?: Record<string, number>;
    statusCounts?: Record<string, number>;
    lastTime?: string;
    autoRefresh?: boolean;
    status?: string;
    message?: string;
  };
}

async function frameOf(ctx: Context, params: [string, string][]): Promise<Frame> {
  const [status, alerts] = await Promise.all([
    ctx.http.get<Frame['status']>('/management/status'),
    ctx.http.get<Frame['alerts']>('/alerts', [...params, ['page', '1'], ['page-size', '200']]),
  ]);
  return { status, alerts };
}

const counts = (c: Record<string, number> | undefined) =>
  Object.entries(c ?? {})
    .map(([k, n]) => `${k} ${n}`)
    .join('  ');

function renderFrame(ctx: Context, f: Frame, rows: number): string {
  const head = [
    `alerta top - ${ctx.http.endpoint}  ${localTime(f.status.time ?? Date.now(), ctx.settings.timezone)}  up ${uptimeText(f.status.uptime ?? 0)}  version ${f.status.version ?? '?'}`,
    `Total: ${f.alerts.total ?? f.alerts.alerts.length}   ${counts(f.alerts.severityCounts)}`,
    `Status: ${counts(f.alerts.statusCounts)}`,
    '',
  ];
  const table = alertTable(
    f.alerts.alerts.slice(0, Math.max(1, rows - head.length - 4)),
    'simple',
    ctx.settings.timezone,
    ctx.color,
  );
  const foot = `last update ${localTime(f.alerts.lastTime, ctx.settings.timezone)}   ${f.alerts.status ?? ''} - ${f.alerts.message ?? 'ok'}`;
  return [...head, table, '', foot].join('\n');
}

const top: Command = {
  name: 'top',
  summary: 'Full-screen view of the top alerts',
  description:
    "Refreshes every -n seconds; 'q' or Ctrl-C quits. Not on a terminal (or with --output json) it prints one frame.",
  options: [
    ...selectOptions(),
    {
      name: 'interval',
      flags: ['-n', '--interval'],
      type: 'int',
      default: 2,
      metavar: 'SECONDS',
      help: 'Seconds between refreshes (2)',
    },
  ],
  async run(ctx, o) {
    const sel = selectionOf(o);
    const tty = process.stdout.isTTY && ctx.stdin.isTTY;
    if (ctx.isMachine || !tty) {
      const f = await frameOf(ctx, sel.params);
      if (ctx.isMachine) return void ctx.json(f);
      return void ctx.print(renderFrame(ctx, f, 60));
    }
    const stop = stopSignal();
    const controller = new AbortController();
    stop.addEventListener('abort', () => controller.abort());
    ctx.stdin.setRawMode(true);
    ctx.stdin.setEncoding('utf8');
    ctx.stdin.resume();
    ctx.stdin.on('data', (k: string) => {
      if (k === 'q' || k === 'Q' || k === '\u0003') controller.abort();
    });
    process.stdout.write('\x1b[?1049h\x1b[?25l'); // alternate screen, hidden cursor
    try {
      while (!controller.signal.aborted) {
        const f = await frameOf(ctx, sel.params);
        process.stdout.write(`\x1b[H\x1b[2J${renderFrame(ctx, f, process.stdout.rows || 40)}`);
        await sleep(Number(o.interval) * 1000, controller.signal);
      }
    } finally {
      process.stdout.write('\x1b[?25h\x1b[?1049l');
      ctx.stdin.setRawMode(false);
      ctx.stdin.pause();
    }
    return 0;
  },
};

export const liveCommands: Command[] = [watch, tail, top];
