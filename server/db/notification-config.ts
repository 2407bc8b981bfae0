import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import {
  ReceiverSchema,
  ReceiverTypeSchema,
  RuleSchema,
  type Escalation,
  type ReceiverType,
} from '../../shared/notifications.ts';
import { texts } from './rows.ts';

const json = (value: unknown) => sql.jsonb(value as never);

// Notification receivers and routing rules (docs/notifications.md); the queue and the per-alert
// state are in notifications.ts.

// ---- receivers and rules --------------------------------------------------------------------

/** A receiver as the server keeps it (settings unmasked). */
export interface ReceiverDef {
  id: string;
  name: string;
  type: ReceiverType;
  enabled: boolean;
  /** Requests per minute at most; null: no limit. */
  rateLimit: number | null;
  sendResolved: boolean;
  /**
   * As stored, each secret is sealed (`{"$enc": …}`, notifications/sealed-settings.ts); as the
   * server uses it, opened, except the `unreadable` ones, which stay sealed.
   */
  settings: Record<string, unknown>;
  /** The customer that owns it; null: global (admins only). */
  customer: string | null;
  /** Secret fields whose sealed value the configured keys cannot open (docs/notifications.md). */
  unreadable?: readonly string[];
  source: 'api' | 'settings';
  createTime: number | null;
  updateTime: number | null;
}

/** A routing rule as stored (API rules) or made from the settings (docs/notifications.md). */
export interface RuleDef {
  id: string;
  name: string;
  priority: number;
  enabled: boolean;
  environment: string | null;
  severity: string[];
  minSeverity: string | null;
  service: string | null;
  group: string | null;
  event: string | null;
  resource: string | null;
  tags: string[];
  customer: string | null;
  /**
   * The customer that owns the rule; null: global (admins only). An owned rule matches only that
   * customer's alerts and names only that customer's receivers (docs/notifications.md, "Customers").
   */
  owner: string | null;
  /** Receiver names. */
  receivers: string[];
  continue: boolean;
  /** Seconds. */
  groupWait: number;
  /** Seconds; 0: no repeats. */
  repeatInterval: number;
  escalations: Escalation[];
  /** Its receivers and escalation receivers are paging ones (the wall's badge). */
  paging: boolean;
  /** Its receivers hear when a blackout the rule matches starts and ends (notifications/notices.ts). */
  blackoutNotices: boolean;
  source: 'api' | 'settings';
  createTime: number | null;
  updateTime: number | null;
}

/** The API's receiver fields as stored (settings unmasked), times as epoch ms. */
const ReceiverRowSchema = ReceiverSchema.pick({
  id: true,
  name: true,
  type: true,
  enabled: true,
  rateLimit: true,
  sendResolved: true,
  settings: true,
  customer: true,
}).extend({ createTime: z.number(), updateTime: z.number() });
const receiverColumns = sql.fragment`id::text, name, type, enabled, rate_limit AS "rateLimit",
  send_resolved AS "sendResolved", settings, customer, create_time AS "createTime",
  update_time AS "updateTime"`;

/** A receiver to store: its secrets already sealed. */
export type ReceiverWrite = Omit<ReceiverDef, 'source' | 'createTime' | 'updateTime' | 'unreadable'>;

/** Every receiver as stored (secrets sealed; notifications/sealed-settings.ts opens them). */
export async function listReceivers(db: CommonQueryMethods): Promise<ReceiverDef[]> {
  const rows = await db.any(sql.type(ReceiverRowSchema)`
    SELECT ${receiverColumns} FROM notification_receivers ORDER BY name`);
  return rows.map((r) => ({ ...r, source: 'api' as const }));
}

export async function insertReceiver(db: CommonQueryMethods, r: ReceiverWrite): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO notification_receivers (id, name, type, enabled, rate_limit, send_resolved, settings, customer)
    VALUES (${r.id}, ${r.name}, ${r.type}, ${r.enabled}, ${r.rateLimit}, ${r.sendResolved}, ${json(r.settings)},
      ${r.customer})`);
}

export async function updateReceiver(db: CommonQueryMethods, r: ReceiverWrite): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE notification_receivers SET name = ${r.name}, enabled = ${r.enabled}, rate_limit = ${r.rateLimit},
      send_resolved = ${r.sendResolved}, settings = ${json(r.settings)}, customer = ${r.customer},
      update_time = now()
    WHERE id = ${r.id}`);
}

/** Every receiver's type and stored settings, locked for this transaction (the start-up reseal). */
export function lockReceiverSettings(db: CommonQueryMethods) {
  return db.any(
    sql.type(
      z.object({ id: z.string(), type: ReceiverTypeSchema, settings: z.record(z.string(), z.unknown()) }),
    )`SELECT id::text, type, settings FROM notification_receivers ORDER BY id FOR UPDATE`,
  );
}

/** Stores a receiver's settings as they are (already sealed), leaving its update time alone. */
export async function setReceiverSettings(
  db: CommonQueryMethods,
  id: string,
  settings: Record<string, unknown>,
): Promise<void> {
  await db.query(sql.unsafe`UPDATE notification_receivers SET settings = ${json(settings)} WHERE id = ${id}`);
}

/** Deletes a receiver, whatever is still queued for it and its health (its delivery history stays). */
export async function deleteReceiver(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM notification_queue WHERE receiver_id = ${id}`);
  await db.query(sql.unsafe`DELETE FROM notification_health WHERE receiver_id = ${id}`);
  await db.query(sql.unsafe`DELETE FROM notification_receivers WHERE id = ${id}`);
}

/** A receiver's new name, in every rule that names it (receivers and escalations). */
export async function renameInRules(db: CommonQueryMethods, from: string, to: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE notification_rules SET receivers = array_replace(receivers, ${from}, ${to}),
      escalations = COALESCE((
        SELECT jsonb_agg(jsonb_set(e, '{receivers}', (
          SELECT COALESCE(jsonb_agg(CASE WHEN r = ${from} THEN ${to} ELSE r END), '[]')
          FROM jsonb_array_elements_text(e->'receivers') AS r)))
        FROM jsonb_array_elements(escalations) AS e), '[]'),
      update_time = now()
    WHERE ${from} = ANY(receivers) OR escalations::text LIKE ${`%${JSON.stringify(from)}%`}`);
}

const MatchSchema = z.object({
  environment: z.string().nullish(),
  severity: z.array(z.string()).nullish(),
  minSeverity: z.string().nullish(),
  service: z.string().nullish(),
  group: z.string().nullish(),
  event: z.string().nullish(),
  resource: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  customer: z.string().nullish(),
});
/** The API's rule fields as stored: the match conditions in one jsonb column, times as epoch ms. */
const RuleRowSchema = RuleSchema.pick({
  id: true,
  name: true,
  priority: true,
  enabled: true,
  receivers: true,
  continue: true,
  groupWait: true,
  repeatInterval: true,
  escalations: true,
  paging: true,
  blackoutNotices: true,
  owner: true,
})
  .extend({ match: MatchSchema, createTime: z.number(), updateTime: z.number() })
  .transform(({ match: m, ...r }): RuleDef => ({
    ...r,
    environment: m.environment ?? null,
    severity: m.severity ?? [],
    minSeverity: m.minSeverity ?? null,
    service: m.service ?? null,
    group: m.group ?? null,
    event: m.event ?? null,
    resource: m.resource ?? null,
    tags: m.tags ?? [],
    customer: m.customer ?? null,
    source: 'api',
  }));
const ruleColumns = sql.fragment`id::text, name, priority, enabled, match, receivers, continue,
  group_wait AS "groupWait", repeat_interval AS "repeatInterval", escalations, paging,
  blackout_notices AS "blackoutNotices", owner, create_time AS "createTime", update_time AS "updateTime"`;

export type RuleWrite = Omit<RuleDef, 'source' | 'createTime' | 'updateTime'>;

const matchOf = (r: RuleWrite) =>
  json({
    environment: r.environment,
    severity: r.severity,
    minSeverity: r.minSeverity,
    service: r.service,
    group: r.group,
    event: r.event,
    resource: r.resource,
    tags: r.tags,
    customer: r.customer,
  });

export function listRules(db: CommonQueryMethods): Promise<readonly RuleDef[]> {
  return db.any(sql.type(RuleRowSchema)`
    SELECT ${ruleColumns} FROM notification_rules ORDER BY priority, name`);
}

export async function insertRule(db: CommonQueryMethods, r: RuleWrite): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO notification_rules (id, name, priority, enabled, match, receivers, continue, group_wait,
      repeat_interval, escalations, paging, blackout_notices, owner)
    VALUES (${r.id}, ${r.name}, ${r.priority}, ${r.enabled}, ${matchOf(r)}, ${texts(r.receivers)},
      ${r.continue}, ${r.groupWait}, ${r.repeatInterval}, ${json(r.escalations)}, ${r.paging},
      ${r.blackoutNotices}, ${r.owner})`);
}

export async function updateRule(db: CommonQueryMethods, r: RuleWrite): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE notification_rules SET name = ${r.name}, priority = ${r.priority}, enabled = ${r.enabled},
      match = ${matchOf(r)}, receivers = ${texts(r.receivers)}, continue = ${r.continue},
      group_wait = ${r.groupWait}, repeat_interval = ${r.repeatInterval},
      escalations = ${json(r.escalations)}, paging = ${r.paging},
      blackout_notices = ${r.blackoutNotices}, owner = ${r.owner}, update_time = now()
    WHERE id = ${r.id}`);
}

/** Deletes a rule and what it remembered about open alerts (queued messages still go out). */
export async function deleteRule(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM notification_state WHERE rule_id = ${id}`);
  await db.query(sql.unsafe`DELETE FROM notification_rules WHERE id = ${id}`);
}

/**
 * Marks a change of receivers or rules, for the other instances' copies. The singleton row is
 * written back if the table was emptied while running (tests/api/startup-truncated.test.ts).
 */
export async function bumpVersion(db: CommonQueryMethods): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO notification_config AS c (id, version) VALUES (1, 1)
    ON CONFLICT (id) DO UPDATE SET version = c.version + 1`);
}

/** The settings' version; 0 when the row is missing (emptied tables: ensure-rows.ts writes it back). */
export function readVersion(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(z.object({ version: z.number() }))`
    SELECT COALESCE((SELECT version FROM notification_config WHERE id = 1), 0) AS version`);
}
