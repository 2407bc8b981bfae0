import type { Socket } from 'socket.io';
import type { LiveAlert } from '../../shared/alerts.ts';
import type {
  ClientToServerEvents,
  GroupCounts,
  GroupField,
  ChangeEvent,
  LiveEvent,
  ServerToClientEvents,
  ViewCounts,
} from '../../shared/events.ts';
import type { Auth } from '../auth/types.ts';
import type { Caller } from '../domain/caller.ts';
import type { Matcher } from './matcher.ts';
import { AlertNumbers, Membership } from './members.ts';
import { SentStates } from './patches.ts';

// A view's membership and counts, kept from the bus's changes by the hub (hub.ts, docs/live.md).

export interface SocketData {
  auth: Auth;
  caller: Caller;
  /** Views this socket is subscribed to. */
  views: Set<View>;
  /** Views whose deltas this socket missed while it was slow: caught up when it drains. */
  behind: Map<View, number>;
}
export type LiveSocket = Socket<
  ClientToServerEvents,
  ServerToClientEvents,
  Record<string, never>,
  SocketData
>;

/** Packets queued for a socket's connection and not yet written (engine.io keeps them in writeBuffer). */
export const waiting = (socket: LiveSocket) =>
  (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;

export interface Logged {
  gseq: number;
  time: number;
  event: ChangeEvent;
}

export interface Member {
  severity: string;
  status: string;
  /** The values of the view's group-by field (none when the view is not grouped). */
  groups: readonly string[];
}

export type Tally = {
  total: number;
  severityCounts: Record<string, number>;
  statusCounts: Record<string, number>;
};

function tally(counts: Tally, m: Member, by: number) {
  counts.total += by;
  counts.severityCounts[m.severity] = (counts.severityCounts[m.severity] ?? 0) + by;
  if (counts.severityCounts[m.severity] === 0) delete counts.severityCounts[m.severity];
  counts.statusCounts[m.status] = (counts.statusCounts[m.status] ?? 0) + by;
  if (counts.statusCounts[m.status] === 0) delete counts.statusCounts[m.status];
}

/** The groups an alert counts under: its services (or '' with none), else the field's value. */
export function groupsOf(alert: Pick<LiveAlert, GroupField>, by: GroupField | null): string[] {
  if (!by) return [];
  if (by !== 'service') return [alert[by]];
  return alert.service.length ? [...new Set(alert.service)] : [''];
}

const sameGroups = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((g, i) => g === b[i]);

/**
 * The (severity, status) pairs seen, numbered once for the whole process (a handful: the alarm
 * model's): a view keeps each member as one small integer, the pair's number + 1 (0 is "not a
 * member"), in a Membership by alert number, instead of an object under an id string, which matters
 * with 100,000 alerts in several views (`scripts/bench/memory.ts`).
 */
class States {
  private readonly pairs: { severity: string; status: string }[] = [];
  /** Severity → status → code (nested: any text may be a severity or a status). */
  private readonly codes = new Map<string, Map<string, number>>();
  codeOf(severity: string, status: string): number {
    let bySeverity = this.codes.get(severity);
    if (!bySeverity) this.codes.set(severity, (bySeverity = new Map()));
    let code = bySeverity.get(status);
    if (code === undefined) {
      this.pairs.push({ severity, status });
      code = this.pairs.length;
      bySeverity.set(status, code);
    }
    return code;
  }
  of(code: number): { severity: string; status: string } {
    return this.pairs[code - 1]!;
  }
}
const states = new States();

/**
 * A grouped view's distinct group lists, numbered and counted: members keep a list's number (in a
 * Membership, like their state) instead of an array of their own strings, which for a view grouped
 * by event was one array and one string per member (`scripts/bench/memory.ts`).
 */
class GroupLists {
  /** The lists' JSON texts, numbered and reference-counted the way alert ids are. */
  private readonly numbers = new AlertNumbers();
  /** Number → its list (stale for a freed number until it is given out again). */
  private readonly lists: (readonly string[])[] = [];
  /** A member's code: the list's number + 1 (a Membership code is never 0). */
  hold(list: readonly string[]): number {
    const key = JSON.stringify(list);
    const fresh = this.numbers.numberOf(key) === undefined;
    const n = this.numbers.hold(key);
    if (fresh) this.lists[n] = Object.freeze([...list]);
    return n + 1;
  }
  release(code: number): void {
    this.numbers.release(code - 1);
  }
  of(code: number): readonly string[] {
    return this.lists[code - 1]!;
  }
}
/** Every alert some view holds, numbered once for all views. */
export const alertNumbers = new AlertNumbers();
const NO_GROUPS: readonly string[] = Object.freeze([]);

/** One selection of alerts shared by every socket that asked for it (same query, same customers). */
export class View {
  readonly id: string;
  readonly query: string;
  readonly customers: readonly string[] | null;
  readonly matcher: Matcher;
  readonly groupBy: GroupField | null;
  readonly groupLimit: number;
  /** Member (alert number, AlertNumbers) → state code (States); the groups of a grouped view apart. */
  private readonly members = new Membership();
  /** Member → its group list's code (GroupLists), grouped views only. */
  private memberGroups = new Membership();
  private groupLists = new GroupLists();
  readonly counts: Tally = { total: 0, severityCounts: {}, statusCounts: {} };
  /** Per group-by value (grouped views only). */
  readonly groupCounts = new Map<string, Tally>();
  readonly sockets = new Set<LiveSocket>();
  /** The sockets (of `sockets`) that take patches, and the states sent to them (patches.ts). */
  readonly patching = new Set<LiveSocket>();
  readonly sent = new SentStates();
  /** The newest change applied. */
  seq = 0;
  ready: Promise<void> | null = null;
  /** Changes since the last flush, with the publish time and position of each. */
  readonly updated = new Map<string, { alert: LiveAlert; time: number; gseq: number }>();
  readonly removed = new Map<string, number>();
  countsChanged = false;

  constructor(
    id: string,
    query: string,
    customers: readonly string[] | null,
    matcher: Matcher,
    grouping: { by: GroupField | null; limit: number },
  ) {
    this.id = id;
    this.query = query;
    this.customers = customers;
    this.matcher = matcher;
    this.groupBy = grouping.by;
    this.groupLimit = grouping.limit;
  }

  visible(customer: string | null): boolean {
    return this.customers === null || (customer !== null && this.customers.includes(customer));
  }

  private count(m: Member, by: number) {
    tally(this.counts, m, by);
    for (const g of m.groups) {
      let group = this.groupCounts.get(g);
      if (!group) this.groupCounts.set(g, (group = { total: 0, severityCounts: {}, statusCounts: {} }));
      tally(group, m, by);
      if (group.total === 0) this.groupCounts.delete(g);
    }
    this.countsChanged = true;
  }

  has(id: string): boolean {
    const n = alertNumbers.numberOf(id);
    return n !== undefined && this.members.get(n) !== 0;
  }

  /** How many alerts the view holds. */
  get size(): number {
    return this.members.size;
  }

  /** The member's severity, status and groups (undefined when the alert is not in the view). */
  member(id: string): Member | undefined {
    const n = alertNumbers.numberOf(id);
    if (n === undefined) return undefined;
    const code = this.members.get(n);
    if (code === 0) return undefined;
    const groups = this.memberGroups.get(n);
    return { ...states.of(code), groups: groups ? this.groupLists.of(groups) : NO_GROUPS };
  }

  add(id: string, m: Member) {
    const old = this.member(id);
    if (old && old.severity === m.severity && old.status === m.status && sameGroups(old.groups, m.groups))
      return;
    if (old) this.count(old, -1);
    const n = old ? alertNumbers.numberOf(id)! : alertNumbers.hold(id);
    this.members.set(n, states.codeOf(m.severity, m.status), alertNumbers.range);
    const held = this.memberGroups.get(n);
    if (m.groups.length) this.memberGroups.set(n, this.groupLists.hold(m.groups), alertNumbers.range);
    else this.memberGroups.delete(n);
    if (held) this.groupLists.release(held);
    this.count(m, 1);
  }

  remove(id: string) {
    const old = this.member(id);
    if (!old) return;
    const n = alertNumbers.numberOf(id)!;
    this.members.delete(n);
    const held = this.memberGroups.get(n);
    if (held) {
      this.memberGroups.delete(n);
      this.groupLists.release(held);
    }
    alertNumbers.release(n);
    this.count(old, -1);
  }

  /** The view is no longer used: its alerts' numbers are let go (see AlertNumbers). */
  close() {
    for (const n of [...this.members.numbers()]) {
      this.members.delete(n);
      alertNumbers.release(n);
    }
    this.memberGroups = new Membership();
    this.groupLists = new GroupLists();
  }

  /**
   * What a change means for this view: the alert is in it (with its new state), out of it
   * (deleted, or no longer matching), or the change is not this view's business (null).
   */
  classify(event: LiveEvent): { in: LiveAlert } | { out: string } | null {
    if (event.type === 'alert.deleted') return this.visible(event.customer) ? { out: event.id } : null;
    if (event.type !== 'alert.received' && event.type !== 'alert.updated') return null;
    const { alert } = event;
    if (!this.visible(alert.customer)) return null;
    return this.matcher(alert) ? { in: alert } : { out: alert.id };
  }

  /** Applies one change to membership and counts, and records the delta to send. */
  apply(entry: Logged): boolean {
    this.seq = Math.max(this.seq, entry.gseq);
    const c = this.classify(entry.event);
    if (!c) return false;
    if ('in' in c) {
      this.add(c.in.id, {
        severity: c.in.severity,
        status: c.in.status,
        groups: groupsOf(c.in, this.groupBy),
      });
      this.removed.delete(c.in.id);
      this.updated.set(c.in.id, { alert: c.in, time: entry.time, gseq: entry.gseq });
      return true;
    }
    const had = this.has(c.out);
    // A deleted alert is always announced; one that merely does not match only if it was in the view.
    if (!had && entry.event.type !== 'alert.deleted') return false;
    this.remove(c.out);
    this.updated.delete(c.out);
    this.removed.set(c.out, entry.time);
    return had;
  }
}

/** A view's counts as its messages carry them (copies: later changes do not touch what was sent). */
export function countsOfView(view: View, rank: (severity: string) => number): ViewCounts {
  return {
    total: view.counts.total,
    severityCounts: { ...view.counts.severityCounts },
    statusCounts: { ...view.counts.statusCounts },
    ...(view.groupBy ? { groups: topGroups(view, rank), groupTotal: view.groupCounts.size } : {}),
  };
}

/** A grouped view's first groups (ViewCountsSchema's order): what a wall shows of them. */
function topGroups(view: View, rank: (severity: string) => number): GroupCounts[] {
  const ranked = [...view.groupCounts].map(([key, c]) => {
    const waiting = c.total - (c.statusCounts.ack ?? 0) - (c.statusCounts.shelved ?? 0);
    const worst = Math.min(...Object.keys(c.severityCounts).map(rank));
    return { key, c, waiting: waiting > 0 ? 0 : 1, worst };
  });
  ranked.sort(
    (a, b) =>
      a.waiting - b.waiting ||
      a.worst - b.worst ||
      b.c.total - a.c.total ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return ranked.slice(0, view.groupLimit).map(({ key, c }) => ({
    key,
    total: c.total,
    severityCounts: { ...c.severityCounts },
    statusCounts: { ...c.statusCounts },
  }));
}
