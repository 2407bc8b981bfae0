import type { Base } from '../deps.ts';
import type { BlackoutRow } from '../db/blackouts.ts';
import { readVersion } from '../db/blackouts.ts';
import {
  claimEdges,
  enqueueNotices,
  forgetEdges,
  noticeCandidates,
  NoticeBlackoutSchema,
  type BlackoutNotice,
  type Edge,
  type QueuedNotice,
} from '../db/blackout-notices.ts';
import { describe, seriesOf, windowsBetween } from '../domain/recurrence.ts';
import type { Routing } from './routing.ts';
import type { RuleDef } from './rules.ts';

/** How often an instance looks for window edges while a rule wants notices (a notice's delay at most). */
const TICK_MS = 1000;
/** An edge first seen later than this after it happened (every instance down) is not announced late. */
export const LOOKBACK_MS = 10 * 60_000;
/** Claims older than this are forgotten: no instance looks that far back. */
const FORGET_MS = 60 * 60_000;

/** A whole-value regular expression, as rules match alerts (rules.ts). */
const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

/**
 * Whether a rule's receivers hear of a blackout's windows: the rule is enabled and has
 * `blackoutNotices`, and every field the blackout sets matches the rule's pattern for it (a field
 * the blackout leaves open covers every value, so it matches any pattern); a customer's rule hears
 * only of its customer's blackouts. Severity does not decide: a blackout has none
 * (docs/notifications.md, "Blackout notices"; tests/api/blackout-notices.test.ts).
 */
export function ruleHearsOf(def: RuleDef, b: BlackoutRow): boolean {
  if (!def.enabled || !def.blackoutNotices) return false;
  if (def.owner !== null && b.customer !== def.owner) return false;
  const fits = (pattern: string | null, value: string | null) =>
    pattern === null || value === null || whole(pattern).test(value);
  const anyFits = (pattern: string, values: readonly string[]) =>
    values.length === 0 || values.some((v) => whole(pattern).test(v));
  return (
    fits(def.environment, b.environment) &&
    fits(def.resource, b.resource) &&
    fits(def.event, b.event) &&
    fits(def.group, b.group) &&
    fits(def.customer, b.customer) &&
    (def.service === null || anyFits(def.service, b.service)) &&
    def.tags.every((p) => anyFits(p, b.tags))
  );
}

/**
 * The edges of a blackout's windows in (from, to], each with its window: nothing from before the
 * blackout was made, except the start of a window already on when it was made within the range
 * (told as it is made); and of several, only the last start and end (after a gap in looking, the
 * latest state is what matters).
 */
export function edgesOf(
  b: BlackoutRow,
  from: number,
  to: number,
): { edge: Edge; startTime: number; endTime: number }[] {
  const since = Math.max(from, b.createTime);
  const series = seriesOf(b);
  const windows = series
    ? windowsBetween(series, since, to)
    : b.startTime < b.endTime
      ? [{ start: b.startTime, end: b.endTime }]
      : [];
  const madeOn = since === b.createTime && b.createTime > from;
  const out: { edge: Edge; startTime: number; endTime: number }[] = [];
  for (const w of windows) {
    const window = { startTime: w.start, endTime: w.end };
    const onWhenMade = madeOn && w.start <= since && w.end > since;
    if ((w.start > since && w.start <= to) || onWhenMade)
      out.push({ edge: { blackoutId: b.id, occurrenceStart: w.start, edge: 'start' }, ...window });
    if (w.end > since && w.end <= to)
      out.push({ edge: { blackoutId: b.id, occurrenceStart: w.start, edge: 'end' }, ...window });
  }
  const lastStart = out.findLast((e) => e.edge.edge === 'start');
  const lastEnd = out.findLast((e) => e.edge.edge === 'end');
  return out.filter((e) => e === lastStart || e === lastEnd);
}

const keyOf = (e: Edge) => `${e.blackoutId} ${e.occurrenceStart} ${e.edge}`;

/**
 * Blackout notices on one instance: while some rule has `blackoutNotices`, looks every TICK_MS for
 * windows that started or ended since it last looked (the last LOOKBACK_MS after a change to the
 * blackouts, or at start), claims each edge in the database and queues a notice per receiver of
 * the rules that hear of it. Whichever instance claims an edge first queues it; the others find it
 * claimed, so each start and end is told once (tests/api/blackout-notices.test.ts).
 */
export class NoticeWatch {
  private readonly deps: Pick<Base, 'db' | 'log'>;
  private readonly routing: Routing;
  private readonly kick: (receiverId: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Up to when this instance looked, at which version of the blackouts. */
  private seen: { time: number; version: number } | null = null;
  private ticks = 0;

  constructor(deps: Pick<Base, 'db' | 'log'>, routing: Routing, kick: (receiverId: string) => void) {
    this.deps = deps;
    this.routing = routing;
    this.kick = kick;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick(Date.now())
        .then(() => undefined)
        .catch((err: unknown) =>
          this.deps.log.warn({ err: (err as Error).message }, 'notify.blackout_notices_failed'),
        )
        .finally(() => (this.running = null));
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Announces the edges up to `now` not yet announced; gives how many notices it queued. */
  async tick(now: number): Promise<number> {
    const rules = this.routing.rules.map((r) => r.def).filter((d) => d.enabled && d.blackoutNotices);
    if (!rules.length) {
      this.seen = null;
      return 0;
    }
    const { db } = this.deps;
    const version = await readVersion(db);
    const from =
      this.seen && this.seen.version === version
        ? Math.max(this.seen.time, now - LOOKBACK_MS)
        : now - LOOKBACK_MS;
    const wanted = new Map<string, QueuedNotice[]>();
    const edges: Edge[] = [];
    for (const row of await noticeCandidates(db, from, now)) {
      const found = edgesOf(row, from, now);
      if (!found.length) continue;
      const series = seriesOf(row);
      const description = series ? describe(series) : null;
      for (const { edge, startTime, endTime } of found) {
        const kind = edge.edge === 'start' ? 'blackoutStart' : 'blackoutEnd';
        const notice: BlackoutNotice = {
          kind,
          blackout: NoticeBlackoutSchema.parse(row),
          startTime,
          endTime,
          description,
        };
        const targets = this.targetsOf(rules, row, kind).map((t) => ({ ...t, notice }));
        if (!targets.length) continue;
        wanted.set(keyOf(edge), targets);
        edges.push(edge);
      }
    }
    let queued: QueuedNotice[] = [];
    if (edges.length) {
      queued = await db.transaction(async (tx) => {
        const claimed = await claimEdges(tx, edges);
        const rows = claimed.flatMap((e) => wanted.get(keyOf(e)) ?? []);
        await enqueueNotices(tx, rows);
        return rows;
      });
      for (const receiverId of new Set(queued.map((q) => q.receiverId))) this.kick(receiverId);
    }
    this.seen = { time: now, version };
    if (this.ticks++ % 60 === 0) await forgetEdges(db, now - FORGET_MS);
    return queued.length;
  }

  /** One target per receiver: the first rule (in routing order) that hears of the blackout and names it. */
  private targetsOf(rules: readonly RuleDef[], b: BlackoutRow, kind: string) {
    const targets = new Map<string, { receiverId: string; ruleId: string }>();
    for (const def of rules) {
      if (!ruleHearsOf(def, b)) continue;
      for (const r of this.routing.receiversFor(def.receivers, kind, b.customer))
        if (!targets.has(r.id)) targets.set(r.id, { receiverId: r.id, ruleId: def.id });
    }
    return [...targets.values()];
  }
}
