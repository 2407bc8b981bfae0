import { randomUUID } from 'node:crypto';
import type {
  NotificationHealth,
  QueuedNotification,
  Receiver,
  ReceiverHealth,
  ReceiverInput,
  ReceiverUpdate,
  Rule,
  RuleInput,
  RuleUpdate,
  TestResult,
} from '../../shared/notifications.ts';
import type { HistoryEntry } from '../../shared/alerts.ts';
import type { Deps } from '../deps.ts';
import * as store from '../db/notifications.ts';
import { getAlert } from '../domain/alerts.ts';
import { assignCustomer, type Caller } from '../domain/caller.ts';
import { appError, AppError } from '../errors.ts';
import { allReceivers, allRules, visibleReceivers, visibleRules } from './catalog.ts';
import { healthOfReceivers, healthSummary, noteAttempt } from './health.ts';
import { checkSettings, maskedSettings, mergeSettings, type ReceiverDef } from './receivers.ts';
import { linksOf, testAlert, type Item } from './render/common.ts';
import { matchEveryAlert, type RuleDef } from './rules.ts';
import { sealSettings } from './sealed-settings.ts';
import { Agents, sendMessage } from './senders/index.ts';

/**
 * Receivers, rules and test messages: the use cases behind /notifications (docs/notifications.md).
 * Customers as for blackouts: a caller restricted to customers sees, changes and tests only the
 * receivers and rules its customers own — global ones (no customer, and those the settings make)
 * are not found — and what it creates is owned by its customer (tests/api/notifications-tenancy.test.ts).
 */

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentReceiver(r: ReceiverDef, health: ReceiverHealth): Receiver {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    enabled: r.enabled,
    rateLimit: r.rateLimit,
    sendResolved: r.sendResolved,
    settings: maskedSettings(r.type, r.settings),
    customer: r.customer,
    unreadableSecrets: [...(r.unreadable ?? [])],
    health,
    source: r.source,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  };
}

export function presentRule(r: RuleDef): Rule {
  return { ...r, createTime: iso(r.createTime), updateTime: iso(r.updateTime) };
}

/** By id or name, among those the caller sees. */
async function findReceiver(deps: Deps, caller: Caller, key: string): Promise<ReceiverDef> {
  const found = (await visibleReceivers(deps, caller)).find((r) => r.id === key || r.name === key);
  if (!found) throw appError('receiver_not_found');
  return found;
}

async function findRule(deps: Deps, caller: Caller, key: string): Promise<RuleDef> {
  const found = (await visibleRules(deps, caller)).find((r) => r.id === key || r.name === key);
  if (!found) throw appError('rule_not_found');
  return found;
}

/**
 * The owner after a change (as blackouts): absent keeps it; a restricted caller may move it only
 * among its customers, and null (global) keeps it where it is.
 */
function ownerAfter(
  current: string | null,
  wanted: string | null | undefined,
  caller: Caller,
): string | null {
  if (wanted === undefined) return current;
  if (wanted === null && caller.customers !== null) return current;
  return assignCustomer(wanted, caller.customers);
}

const ownerName = (customer: string | null) =>
  customer === null ? 'no customer (global)' : `customer '${customer}'`;

const readOnly = (what: string) => appError('made_from_settings', what);

/** Writes in a transaction with the version bump, then reloads this instance's copy at once. */
async function write(
  deps: Deps,
  fn: (tx: Parameters<Parameters<Deps['db']['transaction']>[0]>[0]) => Promise<void>,
) {
  await deps.db.transaction(async (tx) => {
    await fn(tx);
    await store.bumpVersion(tx);
  });
  await deps.notifier.reload();
  // What makes a receiver paging may have changed: open screens read the health again.
  await deps.bus.publish({ type: 'notifications.health', receiver: null, changed: true });
}

/** Receivers as the API shows them, each with its health. */
async function presentWithHealth(deps: Deps, receivers: ReceiverDef[]): Promise<Receiver[]> {
  const health = await healthOfReceivers(deps.db, receivers, await allRules(deps));
  return receivers.map((r) => presentReceiver(r, health.get(r.id)!));
}

export async function listReceivers(deps: Deps, caller: Caller): Promise<Receiver[]> {
  return presentWithHealth(deps, await visibleReceivers(deps, caller));
}

export async function getReceiver(deps: Deps, caller: Caller, key: string): Promise<Receiver> {
  const [receiver] = await presentWithHealth(deps, [await findReceiver(deps, caller, key)]);
  return receiver!;
}

/** GET /notifications/health: the state of each receiver the caller sees, and the paging ones failing. */
export async function notificationHealth(deps: Deps, caller: Caller): Promise<NotificationHealth> {
  return healthSummary(deps.db, await visibleReceivers(deps, caller), await allRules(deps));
}

function assertSettings(r: Pick<ReceiverDef, 'type' | 'settings'>, keptSealed: readonly string[] = []) {
  const problems = checkSettings(r.type, r.settings, keptSealed);
  if (problems.length) throw appError('invalid_notification', problems[0]!).with({ errors: problems });
}

/** Names are unique across customers (rules name receivers by name): a taken name is a 409 for anyone. */
async function assertFreeName(deps: Deps, name: string, self: string | null, what: 'receiver' | 'rule') {
  const all = what === 'receiver' ? await allReceivers(deps) : await allRules(deps);
  if (all.some((x) => x.name === name && x.id !== self))
    throw appError('notification_name_taken', what, name);
}

export async function createReceiver(deps: Deps, caller: Caller, input: ReceiverInput): Promise<Receiver> {
  const customer = assignCustomer(input.customer, caller.customers);
  await assertFreeName(deps, input.name, null, 'receiver');
  const r: store.ReceiverWrite = {
    id: randomUUID(),
    name: input.name,
    type: input.type,
    enabled: input.enabled ?? true,
    rateLimit: input.rateLimit ?? null,
    sendResolved: input.sendResolved ?? true,
    settings: input.settings ?? {},
    customer,
  };
  assertSettings(r);
  await write(deps, (tx) => store.insertReceiver(tx, { ...r, settings: sealSettings(deps.secrets, r) }));
  return getReceiver(deps, caller, r.id);
}

export async function updateReceiver(
  deps: Deps,
  caller: Caller,
  key: string,
  change: ReceiverUpdate,
): Promise<Receiver> {
  const current = await findReceiver(deps, caller, key);
  if (current.source === 'settings') throw readOnly(`receiver '${current.name}'`);
  if (change.type != null && change.type !== current.type) throw appError('receiver_type_fixed');
  if (change.name != null) await assertFreeName(deps, change.name, current.id, 'receiver');
  const next: store.ReceiverWrite = {
    id: current.id,
    name: change.name ?? current.name,
    type: current.type,
    enabled: change.enabled ?? current.enabled,
    rateLimit: change.rateLimit === undefined ? current.rateLimit : change.rateLimit,
    sendResolved: change.sendResolved ?? current.sendResolved,
    settings: change.settings
      ? mergeSettings(current.type, current.settings, change.settings)
      : current.settings,
    customer: ownerAfter(current.customer, change.customer, caller),
  };
  // Secrets no key decrypts stay as stored unless given again (the same object, not one sent).
  const keptSealed = (current.unreadable ?? []).filter((f) => next.settings[f] === current.settings[f]);
  assertSettings(next, keptSealed);
  if (next.customer !== current.customer) {
    // A customer's rule names only its customer's receivers: one it names cannot move to another
    // owner (global rules may name any; routing gives a customer's receiver only its alerts).
    const users = (await allRules(deps)).filter(
      (rule) => rule.owner !== null && rule.owner !== next.customer && namesReceiver(rule, current.name),
    );
    if (users.length)
      throw appError(
        'receiver_cannot_move',
        current.name,
        users.map((u) => `'${u.name}' of ${ownerName(u.owner)}`).join(', '),
        ownerName(next.customer),
      );
  }
  await write(deps, async (tx) => {
    await store.updateReceiver(tx, { ...next, settings: sealSettings(deps.secrets, next) });
    if (next.name !== current.name) await store.renameInRules(tx, current.name, next.name);
  });
  return getReceiver(deps, caller, current.id);
}

const namesReceiver = (rule: RuleDef, name: string) =>
  rule.receivers.includes(name) || rule.escalations.some((e) => e.receivers.includes(name));

export async function deleteReceiver(deps: Deps, caller: Caller, key: string): Promise<void> {
  const current = await findReceiver(deps, caller, key);
  if (current.source === 'settings') throw readOnly(`receiver '${current.name}'`);
  const users = (await allRules(deps)).filter((rule) => namesReceiver(rule, current.name));
  if (users.length)
    throw appError('receiver_in_use', current.name, users.map((u) => `'${u.name}'`).join(', '));
  await write(deps, (tx) => store.deleteReceiver(tx, current.id));
}

/**
 * Sends a made-up alert to the receiver at once (not through the queue) and says what happened. A
 * paging service gets the test incident resolved right after it was opened.
 */
export async function testReceiver(deps: Deps, caller: Caller, key: string): Promise<TestResult> {
  const receiver = await findReceiver(deps, caller, key);
  const alert = testAlert(Date.now(), receiver.name);
  const items: Item[] = [{ kind: 'test', alert }];
  const agents = new Agents();
  try {
    const message = {
      rule: null,
      receiver: receiver.name,
      deliveryId: `test:${randomUUID()}`,
      links: linksOf(deps.config),
    };
    const options = {
      config: deps.config,
      timeoutMs: deps.config.NOTIFY_TIMEOUT * 1000,
      stop: new AbortController().signal,
      agents,
      now: Date.now(),
    };
    const [sent] = await sendMessage(receiver, { ...message, items }, options);
    const attempt = sent!.attempt;
    if (attempt.outcome !== 'stopped')
      await noteTest(deps, receiver, attempt.outcome, 'error' in attempt ? attempt.error : null);
    if (attempt.outcome === 'delivered' && (receiver.type === 'pagerduty' || receiver.type === 'opsgenie')) {
      await sendMessage(receiver, { ...message, items: [{ kind: 'resolve', alert }] }, options);
    }
    deps.log.info({ receiver: receiver.name, type: receiver.type, outcome: attempt.outcome }, 'notify.test');
    if (attempt.outcome === 'delivered')
      return { status: 'ok', receiver: receiver.name, outcome: 'sent', detail: null };
    if (attempt.outcome === 'stopped') throw appError('server_stopping');
    return { status: 'ok', receiver: receiver.name, outcome: attempt.outcome, detail: attempt.error };
  } catch (err) {
    if (err instanceof AppError) throw err;
    await noteTest(deps, receiver, 'rejected', (err as Error).message);
    return { status: 'ok', receiver: receiver.name, outcome: 'rejected', detail: (err as Error).message };
  } finally {
    agents.drop();
  }
}

/** A test message's outcome, in the delivery history and the receiver's health like any attempt. */
function noteTest(
  deps: Deps,
  receiver: ReceiverDef,
  outcome: 'delivered' | 'failed' | 'rejected',
  error: string | null,
): Promise<void> {
  const sent = outcome === 'delivered';
  return noteAttempt(deps, {
    receiver: { id: receiver.id, name: receiver.name, type: receiver.type, customer: receiver.customer },
    rule: null,
    outcome: sent ? 'sent' : outcome,
    error: sent ? null : error,
    entries: [{ alertId: null, resource: null, event: null, kind: 'test', attempt: 1 }],
    health: sent ? 'success' : 'failure',
  });
}

// ---- rules ----------------------------------------------------------------------------------

export async function listRules(deps: Deps, caller: Caller): Promise<Rule[]> {
  return (await visibleRules(deps, caller)).map(presentRule);
}

export async function getRule(deps: Deps, caller: Caller, key: string): Promise<Rule> {
  return presentRule(await findRule(deps, caller, key));
}

/**
 * Receivers and severities a rule names must exist, and the receivers be the caller's to see; a
 * customer's rule names only that customer's receivers, a global rule (admins) any. Routing tells a
 * customer's receiver only about that customer's alerts, whichever rule names it
 * (Routing.receiversFor).
 */
async function assertRule(deps: Deps, caller: Caller, r: store.RuleWrite): Promise<void> {
  const byName = new Map((await visibleReceivers(deps, caller)).map((x) => [x.name, x]));
  const problems: string[] = [];
  for (const name of [...r.receivers, ...r.escalations.flatMap((e) => e.receivers)]) {
    const receiver = byName.get(name);
    if (!receiver) problems.push(`receivers: no receiver named '${name}'`);
    else if (r.owner !== null && receiver.customer !== r.owner)
      problems.push(
        `receivers: '${name}' belongs to ${ownerName(receiver.customer)}; a rule of ${ownerName(r.owner)} may name only that customer's receivers`,
      );
  }
  for (const s of [...r.severity, ...(r.minSeverity ? [r.minSeverity] : [])]) {
    if (!deps.model.isSeverity(s)) problems.push(deps.model.unknownSeverityMessage(s));
  }
  if (r.receivers.length === 0 && r.escalations.length === 0)
    problems.push('receivers: name at least one receiver (or an escalation)');
  for (let i = 1; i < r.escalations.length; i++) {
    if (r.escalations[i]!.after <= r.escalations[i - 1]!.after)
      problems.push('escalations: each step must come after the one before');
  }
  if (problems.length)
    throw appError('invalid_notification', problems[0]!).with({ errors: [...new Set(problems)] });
}

function ruleFrom(id: string, base: Omit<store.RuleWrite, 'id'>, change: RuleUpdate): store.RuleWrite {
  const pick = <K extends keyof RuleUpdate & keyof store.RuleWrite>(k: K, fallback: store.RuleWrite[K]) =>
    (change[k] === undefined ? fallback : (change[k] ?? fallback)) as store.RuleWrite[K];
  const nullable = <
    K extends 'environment' | 'minSeverity' | 'service' | 'group' | 'event' | 'resource' | 'customer',
  >(
    k: K,
  ) => (change[k] === undefined ? base[k] : (change[k] ?? null));
  return {
    id,
    name: pick('name', base.name),
    priority: pick('priority', base.priority),
    enabled: pick('enabled', base.enabled),
    environment: nullable('environment'),
    severity: change.severity === undefined ? base.severity : (change.severity ?? []),
    minSeverity: nullable('minSeverity'),
    service: nullable('service'),
    group: nullable('group'),
    event: nullable('event'),
    resource: nullable('resource'),
    tags: change.tags === undefined ? base.tags : (change.tags ?? []),
    customer: nullable('customer'),
    receivers: pick('receivers', base.receivers),
    continue: pick('continue', base.continue),
    groupWait: pick('groupWait', base.groupWait),
    repeatInterval: pick('repeatInterval', base.repeatInterval),
    escalations: change.escalations === undefined ? base.escalations : (change.escalations ?? []),
    paging: pick('paging', base.paging),
    blackoutNotices: pick('blackoutNotices', base.blackoutNotices),
    owner: base.owner,
  };
}

export async function createRule(deps: Deps, caller: Caller, input: RuleInput): Promise<Rule> {
  const owner = assignCustomer(input.owner, caller.customers);
  await assertFreeName(deps, input.name, null, 'rule');
  const rules = await store.listRules(deps.db);
  const last = rules.reduce((max, r) => Math.max(max, r.priority), 0);
  const base: Omit<store.RuleWrite, 'id'> = {
    name: input.name,
    priority: last + 10,
    enabled: true,
    ...matchEveryAlert(),
    receivers: [],
    continue: false,
    groupWait: 30,
    repeatInterval: 0,
    escalations: [],
    paging: false,
    blackoutNotices: false,
    owner,
  };
  const rule = ruleFrom(randomUUID(), base, input);
  await assertRule(deps, caller, rule);
  await write(deps, (tx) => store.insertRule(tx, rule));
  return getRule(deps, caller, rule.id);
}

export async function updateRule(deps: Deps, caller: Caller, key: string, change: RuleUpdate): Promise<Rule> {
  const current = await findRule(deps, caller, key);
  if (current.source === 'settings') throw readOnly(`rule '${current.name}'`);
  if (change.name != null) await assertFreeName(deps, change.name, current.id, 'rule');
  const rule = ruleFrom(
    current.id,
    { ...current, owner: ownerAfter(current.owner, change.owner, caller) },
    change,
  );
  await assertRule(deps, caller, rule);
  await write(deps, (tx) => store.updateRule(tx, rule));
  return getRule(deps, caller, current.id);
}

export async function deleteRule(deps: Deps, caller: Caller, key: string): Promise<void> {
  const current = await findRule(deps, caller, key);
  if (current.source === 'settings') throw readOnly(`rule '${current.name}'`);
  await write(deps, (tx) => store.deleteRule(tx, current.id));
}

// ---- per alert --------------------------------------------------------------------------------

/** GET /alert/:id/notifications: what is waiting to be sent about an alert, and what was (history). */
export async function alertNotifications(
  deps: Deps,
  id: string,
  caller: Caller,
): Promise<{ queued: QueuedNotification[]; delivered: HistoryEntry[] }> {
  const alert = await getAlert(deps, id, caller);
  const receivers = new Map((await allReceivers(deps)).map((r) => [r.id, r]));
  const queued = (await store.queuedFor(deps.db, alert.id)).map((q) => ({
    receiver: receivers.get(q.receiverId)?.name ?? q.receiverId,
    type: receivers.get(q.receiverId)?.type ?? 'unknown',
    kind: q.kind,
    state: q.attempts > 0 ? ('retrying' as const) : ('waiting' as const),
    dueTime: new Date(q.dueAt).toISOString(),
    attempts: q.attempts,
    lastError: q.lastError,
  }));
  return { queued, delivered: alert.history.filter((h) => h.type === 'notification') };
}
