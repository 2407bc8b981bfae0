/**
 * The field limits follow from the indexes (issue #37 item 1; docs/alerts.md "Field limits"):
 * every btree index of every table is read from the catalogue, each of its variable-length columns
 * and expressions is mapped to the API fields that write it (COLUMNS), and the largest value every
 * limit allows is written into all of them at once, in incompressible 3-byte characters. Every
 * such write must be accepted (the limits promise it fits), never a 500; the tallies' compaction,
 * which copies alerts' keys into indexed rows, must succeed too.
 *
 * A variable-length index column that COLUMNS does not name fails the test: map it to the fields
 * that feed it (and fill them in a writer below), so that a new index cannot re-open a 500.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compactTally } from '../../server/db/alert-tally.ts';
import { MAX_ATTRIBUTES, MAX_LENGTH, MAX_LIST, type LimitedList } from '../../shared/alerts.ts';
import type { Answer } from '../helpers/api.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { rng } from '../helpers/rng.ts';

const ADMIN_KEY = `index-limits-admin-${randomBytes(12).toString('hex')}`;
const random = rng(37);

/** `n` random CJK characters: 3 bytes each in UTF-8, and nothing pglz could compress. */
const wide = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(random() * 0x5000))).join('');
/** `n` random characters an alert id may hold (ASCII: ids are limited by their pattern). */
const idOf = (n: number) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~:@-';
  return Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join('');
};

/** Bytes an element of `n` 3-byte characters takes in a text[]: a 4-byte header, int-aligned. */
const elementBytes = (n: number) => Math.ceil((4 + 3 * n) / 4) * 4;

/**
 * The element lengths (characters) of the largest list a MAX_LIST entry allows, as stored in a
 * text[]: chosen among every split of its total over at most its item count, for the most bytes
 * with headers and alignment (many short elements can outweigh one long one).
 */
function widestSplit(name: LimitedList): number[] {
  const { items, total } = MAX_LIST[name];
  const item = Math.min(MAX_LENGTH.listItem, total);
  // best[k][s]: most bytes of k elements holding s characters together; from[k][s] the last length.
  const best = Array.from({ length: items + 1 }, () => new Array<number>(total + 1).fill(-1));
  const from = Array.from({ length: items + 1 }, () => new Array<number>(total + 1).fill(0));
  best[0]![0] = 0;
  for (let k = 1; k <= items; k++) {
    for (let s = 0; s <= total; s++) {
      for (let l = 0; l <= Math.min(item, s); l++) {
        const prev = best[k - 1]![s - l]!;
        if (prev >= 0 && prev + elementBytes(l) > best[k]![s]!) {
          best[k]![s] = prev + elementBytes(l);
          from[k]![s] = l;
        }
      }
    }
  }
  let [k, s] = [0, 0];
  for (let kk = 0; kk <= items; kk++)
    for (let ss = 0; ss <= total; ss++) if (best[kk]![ss]! > best[k]![s]!) [k, s] = [kk, ss];
  const lengths: number[] = [];
  for (; k > 0; k--) {
    const l = from[k]![s]!;
    lengths.push(l);
    s -= l;
  }
  return lengths;
}

/** The list shapes written for a list field: the widest split, one longest element, all items. */
function listShapes(name: LimitedList): number[][] {
  const { items, total } = MAX_LIST[name];
  const even = Array.from(
    { length: items },
    (_, i) => Math.floor(total / items) + (i < total % items ? 1 : 0),
  );
  return [widestSplit(name), [Math.min(MAX_LENGTH.listItem, total)], even];
}
const listOf = (lengths: number[]) => lengths.map((n) => wide(n));

/** The largest attributes MAX_ATTRIBUTES allows (not indexed by btree; written to be complete). */
function widestAttributes(): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (let i = 0; i < MAX_ATTRIBUTES.count; i++) attributes[`${wide(8)}${i}`] = '';
  const room = MAX_ATTRIBUTES.jsonLength - JSON.stringify(attributes).length;
  attributes[Object.keys(attributes)[0]!] = wide(Math.max(0, room));
  return attributes;
}

/** A severity and an environment of the longest lengths allowed, configured in the settings. */
const LONG_SEVERITY = wide(MAX_LENGTH.severity);
const LONG_ENVIRONMENT = wide(MAX_LENGTH.environment);

/**
 * Where every variable-length btree index column gets its values, as `table: column or
 * expression` (pg_get_indexdef's text). `api`: written through the API at most `bytes` long
 * (checked against the stored rows after the writers ran; null: not checked, with why). `server`:
 * only the server writes it, and why that is bounded.
 */
type Source = { api: string; bytes: number | null; why?: string } | { server: string };
const COLUMNS: Record<string, Source> = {
  'alerts: id': { api: 'alert id', bytes: MAX_LENGTH.id },
  'alerts: lower(id)': { api: 'alert id', bytes: MAX_LENGTH.id },
  'alerts: lower(last_receive_id)': { api: 'alert id (the receipt that last matched)', bytes: MAX_LENGTH.id },
  'alerts: environment': { api: 'alert environment', bytes: 3 * MAX_LENGTH.environment },
  'alerts: resource': { api: 'alert resource', bytes: 3 * MAX_LENGTH.resource },
  'alerts: event': { api: 'alert event', bytes: 3 * MAX_LENGTH.event },
  'alerts: customer': { api: 'alert customer', bytes: 3 * MAX_LENGTH.customer },
  "alerts: COALESCE(customer, ''::text)": { api: 'alert customer', bytes: 3 * MAX_LENGTH.customer },
  'alerts: severity': { api: 'alert severity (SEVERITY_MAP)', bytes: 3 * MAX_LENGTH.severity },
  'alerts: status': {
    api: 'alert status',
    bytes: null,
    why: 'one of the alarm model statuses, all far below MAX_LENGTH.status',
  },
  'alerts: service': { api: 'alert service', bytes: 3 * MAX_LIST.service.total },
  'alert_history: alert_id': { api: 'alert id', bytes: MAX_LENGTH.id },
  'alert_tally: environment': {
    api: 'alert environment (tally compaction)',
    bytes: 3 * MAX_LENGTH.environment,
  },
  'alert_tally: status': { api: 'alert status (tally compaction)', bytes: null, why: 'as alerts.status' },
  'alert_tally: severity': { api: 'alert severity (tally compaction)', bytes: 3 * MAX_LENGTH.severity },
  'alert_tally: service': { api: 'alert service (tally compaction)', bytes: 3 * MAX_LIST.service.total },
  'alert_event_tally: event': { api: 'alert event (tally compaction)', bytes: 3 * MAX_LENGTH.event },
  'alert_event_tally: environment': {
    api: 'alert environment (tally compaction)',
    bytes: 3 * MAX_LENGTH.environment,
  },
  'alert_event_tally: status': {
    api: 'alert status (tally compaction)',
    bytes: null,
    why: 'as alerts.status',
  },
  'alert_event_tally: severity': { api: 'alert severity (tally compaction)', bytes: 3 * MAX_LENGTH.severity },
  'alert_event_tally: service': {
    api: 'alert service (tally compaction)',
    bytes: 3 * MAX_LIST.service.total,
  },
  'notes: alert': { api: 'alert id (PUT /alert/:id/note)', bytes: MAX_LENGTH.id },
  'notification_state: alert_id': { server: 'an alert id (MAX_LENGTH.id), copied when a rule matches' },
  'notification_state: rule_id': { server: 'a rule id the server makes (a UUID or a settings name)' },
  'notification_queue: receiver_id': { server: 'a receiver id the server makes (a UUID or a settings name)' },
  'notification_sends: receiver_id': { server: 'a receiver id the server makes (a UUID or a settings name)' },
  'notification_health: receiver_id': {
    server: 'a receiver id the server makes (a UUID or a settings name)',
  },
  'notification_deliveries: receiver_id': {
    server: 'a receiver id the server makes (a UUID or a settings name), copied at each attempt',
  },
  'notification_deliveries: alert_id': { server: 'an alert id (MAX_LENGTH.id), copied at each attempt' },
  'blackout_notices: edge': { server: "'start' or 'end', the window edge the server tells" },
  'notification_receivers: name': { api: 'receiver name', bytes: 100 },
  'notification_rules: name': { api: 'rule name', bytes: 100 },
  'forward_queue: destination': { server: 'a forwarding destination from the settings' },
  'forward_queue: alert_id': { server: 'an alert id (MAX_LENGTH.id), copied when an alert is forwarded' },
  'blackouts: environment': { api: 'blackout environment', bytes: 3 * MAX_LENGTH.environment },
  'bulk_tasks: id': { server: 'a UUID the server makes' },
  'heartbeats: origin': { api: 'heartbeat origin', bytes: 3 * MAX_LENGTH.origin },
  "heartbeats: COALESCE(customer, ''::text)": { api: 'heartbeat customer', bytes: 3 * MAX_LENGTH.customer },
  'keys: key': { api: 'key value (POST /key)', bytes: 128 },
  'keys: key_hash': { server: 'a SHA-256 digest of the key (32 bytes)' },
  'users: login': { api: 'user login', bytes: 3 * 256 },
  'users: email': { api: 'user email', bytes: 254 },
  'users: lower(email)': { api: 'user email', bytes: 254 },
  'groups: name': { api: 'group name', bytes: 3 * 256 },
  'perms: match': { api: 'permission match', bytes: 3 * 512 },
  'hawk_nonces: key_id': { server: 'a Hawk credential id from HMAC_AUTH_CREDENTIALS (settings)' },
  'hawk_nonces: nonce': { server: 'a Hawk nonce, refused over 256 characters (server/auth/hawk.ts)' },
  'instance_info: key': { server: "the server's own names (installed_at)" },
  'switches: name': { server: 'a switch name, one of SWITCHES (server/domain/switches.ts)' },
};

interface IndexColumn {
  table: string;
  index: string;
  column: string;
  typlen: number;
}

/** Every column and expression of every btree index in the app's schema, with its type's length. */
const CATALOGUE = `
  SELECT c.relname AS table, i.relname AS index, pg_get_indexdef(x.indexrelid, k.n, true) AS column,
    t.typlen
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_class c ON c.oid = x.indrelid
  JOIN pg_namespace ns ON ns.oid = c.relnamespace
  JOIN pg_am am ON am.oid = i.relam
  CROSS JOIN LATERAL generate_series(1, x.indnatts) AS k(n)
  JOIN pg_attribute a ON a.attrelid = x.indexrelid AND a.attnum = k.n
  JOIN pg_type t ON t.oid = a.atttypid
  WHERE am.amname = 'btree' AND ns.nspname = current_schema()
  ORDER BY 1, 2, k.n`;

const test = suite<AppContext>(
  'every btree index holds the largest values the limits allow',
  {} as AppContext,
);
test.before((ctx) =>
  startApp(ctx, {
    TEST_LABEL: 'index_limits',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'index-limits-secret-key-123456',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
    // The longest severity and environment the schema allows, so that their indexes are filled.
    ALLOWED_ENVIRONMENTS: JSON.stringify(['Production', LONG_ENVIRONMENT]),
    SEVERITY_MAP: JSON.stringify({
      critical: 1,
      major: 3,
      minor: 4,
      warning: 5,
      indeterminate: 5,
      normal: 7,
      ok: 7,
      cleared: 7,
      informational: 6,
      [LONG_SEVERITY]: 2,
    }),
  }),
);
test.after(stopApp);

test('every variable-length btree index column is mapped to what writes it', async (ctx) => {
  const columns = await queryDb<IndexColumn>(ctx.db.url, CATALOGUE);
  assert.ok(columns.length > 40, `only ${columns.length} index columns read`);
  const unknown = columns
    .filter((c) => c.typlen < 0 && !COLUMNS[`${c.table}: ${c.column}`])
    .map((c) => `  ${c.index} on ${c.table}: ${c.column}`);
  assert.ok(
    unknown.length === 0,
    `btree index columns this test cannot fill:\n${unknown.join('\n')}\n` +
      'Map each in COLUMNS of tests/api/index-limits.test.ts to the API fields that write it, give ' +
      'those fields limits (shared/) that keep the whole index row within 2,704 bytes, and fill them ' +
      'at their limits in a writer below (or say why only the server writes it).',
  );
});

test('the largest values every limit allows, in all columns of every index at once, are stored', async (ctx) => {
  const auth = { headers: { Authorization: `Key ${ADMIN_KEY}` } };
  const answers: { what: string; answer: Answer }[] = [];
  const write = async (what: string, method: string, path: string, body: unknown) => {
    const answer = await ctx.api.call(method, path, body, auth);
    answers.push({ what, answer });
    return answer;
  };

  // Alerts: every field at its limit, for each shape of the service list (the event index holds
  // event, service, environment, resource, id and customer together). Status stays what the alarm
  // model gives a new alert.
  const tags = listOf(widestSplit('tags'));
  const correlate = listOf(widestSplit('correlate'));
  const attributes = widestAttributes();
  const alertIds: string[] = [];
  for (const shape of listShapes('service')) {
    const id = idOf(MAX_LENGTH.id);
    const r = await write(`POST /alert, service ${JSON.stringify(shape)}`, 'POST', '/alert', {
      id,
      environment: LONG_ENVIRONMENT,
      resource: wide(MAX_LENGTH.resource),
      event: wide(MAX_LENGTH.event),
      customer: wide(MAX_LENGTH.customer),
      severity: LONG_SEVERITY,
      service: listOf(shape),
      tags,
      correlate,
      attributes,
      origin: wide(MAX_LENGTH.origin),
    });
    if (r.status === 201) alertIds.push(id);
  }
  for (const id of alertIds) await write('PUT /alert/:id/note', 'PUT', `/alert/${id}/note`, { note: 'n' });
  // The tallies' key rows are written by compaction, from the alerts' keys.
  await compactTally(ctx.running.deps.db);

  // Blackouts, heartbeats, keys, users, groups, perms and notification settings.
  await write('POST /blackout', 'POST', '/blackout', {
    environment: wide(MAX_LENGTH.environment),
    resource: wide(MAX_LENGTH.resource),
    event: wide(MAX_LENGTH.event),
    service: listOf(widestSplit('service')),
    tags,
    origin: wide(MAX_LENGTH.origin),
    customer: wide(MAX_LENGTH.customer),
    duration: 3600,
  });
  await write('POST /heartbeat', 'POST', '/heartbeat', {
    origin: wide(MAX_LENGTH.origin),
    customer: wide(MAX_LENGTH.customer),
    tags,
    attributes,
  });
  await write('POST /key', 'POST', '/key', {
    key: Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x21 + ((i * 7) % 94))).join(''),
    user: 'admin@example.com',
    scopes: ['read'],
    customer: wide(MAX_LENGTH.customer),
  });
  const email = `${'e'.repeat(64)}@${'d'.repeat(184)}.test`;
  await write('POST /user', 'POST', '/user', {
    name: 'Wide',
    login: wide(256),
    email,
    password: 'index-limits-password-1',
  });
  await write('POST /group', 'POST', '/group', { name: wide(256), text: 'x' });
  await write('POST /perm', 'POST', '/perm', { match: wide(512), scopes: ['read'] });
  await write('POST /notifications/receivers', 'POST', '/notifications/receivers', {
    name: 'r'.repeat(100),
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/hook' },
  });
  const receivers = await ctx.api.call('GET', '/notifications/receivers', undefined, auth);
  const receiver = (receivers.body.receivers as { id: string; name: string }[] | undefined)?.find(
    (x) => x.name === 'r'.repeat(100),
  );
  await write('POST /notifications/rules', 'POST', '/notifications/rules', {
    name: 'q'.repeat(100),
    receivers: receiver ? [receiver.name] : [],
  });

  const refused = answers.filter((a) => a.answer.status >= 300);
  assert.ok(
    refused.length === 0,
    refused
      .map((a) => `${a.what}: ${a.answer.status} ${JSON.stringify(a.answer.body).slice(0, 300)}`)
      .join('\n'),
  );

  // Each mapped column of every index now holds a value as long as its limit allows.
  const columns = await queryDb<IndexColumn>(ctx.db.url, CATALOGUE);
  const short: string[] = [];
  for (const c of columns) {
    const source = COLUMNS[`${c.table}: ${c.column}`];
    if (!source || !('api' in source) || source.bytes === null) continue;
    const expr = c.column.startsWith('service') ? `array_to_string(${c.column}, '')` : c.column;
    const [{ n }] = (await queryDb<{ n: number | null }>(
      ctx.db.url,
      `SELECT max(octet_length(${expr}))::int AS n FROM ${c.table}`,
    )) as [{ n: number | null }];
    if ((n ?? 0) < source.bytes)
      short.push(`  ${c.index}: ${c.column} holds ${n ?? 0} bytes, not ${source.bytes}`);
  }
  assert.ok(short.length === 0, `columns not filled to their limits:\n${short.join('\n')}`);
});

test.run();
