import type { Base } from '../deps.ts';
import * as store from '../db/notifications.ts';
import type { NotifiedAlert, Trigger } from '../db/notifications.ts';
import { fromSettings } from './from-settings.ts';
import { wants, type ReceiverDef } from './receivers.ts';
import { openReceiver } from './sealed-settings.ts';
import { byPriority, compileRule, routeAlert, type CompiledRule, type RuleDef } from './rules.ts';

/** How often an instance asks whether another one changed receivers or rules. */
const VERSION_POLL_MS = 2000;

/**
 * This instance's copy of receivers and rules, compiled for matching in memory: the receive path
 * asks it about every changed alert and never waits for the database. The copy is reloaded after
 * each change made here and, for changes made elsewhere, when the version row has moved (polled).
 */
export class Routing {
  receivers = new Map<string, ReceiverDef>();
  byName = new Map<string, ReceiverDef>();
  rules: CompiledRule[] = [];
  rulesById = new Map<string, RuleDef>();
  private version = -1;
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;
  private readonly listeners: (() => void)[] = [];
  private readonly deps: Base;
  private readonly fromSettings: ReturnType<typeof fromSettings>;

  constructor(deps: Base) {
    this.deps = deps;
    this.fromSettings = fromSettings(deps.config);
  }

  /** Calls `fn` after every reload. */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /**
   * Reads everything again (one transaction, so receivers and rules agree). Loads run one after
   * another and each reads afresh, so a caller that just wrote sees its write.
   */
  load(): Promise<void> {
    const next = (this.loading ?? Promise.resolve()).catch(() => {}).then(() => this.read());
    this.loading = next;
    return next;
  }

  private async read(): Promise<void> {
    const { version, receivers, rules } = await this.deps.db.transaction(async (tx) => ({
      version: await store.readVersion(tx),
      receivers: await store.listReceivers(tx),
      rules: await store.listRules(tx),
    }));
    const all = [...this.fromSettings.receivers, ...receivers.map((r) => openReceiver(this.deps.secrets, r))];
    const defs = [...(this.fromSettings.rule ? [this.fromSettings.rule] : []), ...rules].sort(byPriority);
    const rank = (s: string) => this.deps.model.severityRank(s);
    this.receivers = new Map(all.map((r) => [r.id, r]));
    this.byName = new Map(all.map((r) => [r.name, r]));
    this.rules = defs.map((d) => compileRule(d, rank));
    this.rulesById = new Map(defs.map((d) => [d.id, d]));
    this.version = version;
    for (const fn of this.listeners) fn();
  }

  /** Reloads when another instance changed something. */
  async refresh(): Promise<void> {
    const version = await store.readVersion(this.deps.db);
    if (version !== this.version) await this.load();
  }

  start(): void {
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) =>
        this.deps.log.warn({ error: (err as Error).message }, 'notifications.reload_failed'),
      );
    }, VERSION_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Whether any rule could route anything (the receive path's cheapest way out). */
  get isIdle(): boolean {
    return this.rules.length === 0;
  }

  /**
   * Enabled receivers of these names that want this kind of message about an alert of `customer`:
   * a customer's receiver is told only about that customer's alerts, whichever rule names it and
   * whatever was stored (tests/api/notifications-tenancy.test.ts); global receivers hear of any.
   */
  receiversFor(names: readonly string[], kind: string, customer: string | null): ReceiverDef[] {
    const found: ReceiverDef[] = [];
    for (const name of new Set(names)) {
      const r = this.byName.get(name);
      if (r && r.enabled && (r.customer === null || r.customer === customer) && wants(r, kind)) found.push(r);
    }
    return found;
  }

  /** What the rules say about an alert that needs telling: one trigger per matching rule. */
  triggersFor(alert: NotifiedAlert): Trigger[] {
    const triggers: Trigger[] = [];
    for (const { def } of routeAlert(this.rules, alert)) {
      const targets = this.receiversFor(def.receivers, 'trigger', alert.customer).map((r) => ({
        receiverId: r.id,
        waitMs: def.groupWait * 1000,
      }));
      if (!targets.length && !def.escalations.length) continue;
      triggers.push({
        ruleId: def.id,
        alert,
        receivers: def.receivers,
        targets,
        repeatMs: def.repeatInterval * 1000,
        escalateMs: (def.escalations[0]?.after ?? 0) * 1000,
      });
    }
    return triggers;
  }
}
