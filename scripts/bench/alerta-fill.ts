/**
 * An Alerta 9.x database for scripts/bench/import-alerta.ts, filled in SQL (generate_series, two
 * connections each writing half the alerts): tests/fixtures/alerta/schema.sql, then `alerts` alerts
 * with `history` entries each (newest first, the oldest of type `new`), and a few hundred users,
 * keys, blackouts, heartbeats, ten thousand notes, perms, customers and groups.
 *
 * Alert i (0-based) is resource r = i % R of R = max(2000, ⌈alerts / 500⌉) and, with
 * m = (⌊i / R⌋ + 7r) % 500, environment m % 2, event ⌊m / 2⌋ % 50 and customer ⌊m / 100⌋ (NULL or
 * one of four): ⌊i / R⌋ < 500, so each resource's alerts have different m and every (environment,
 * resource, event, customer) is different; the 7r spreads events and customers at any size. Times lie in the 30 days before
 * `now`; an alert's history runs from its create time to its last receive time.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const SCHEMA = new URL('../../tests/fixtures/alerta/schema.sql', import.meta.url);

const EVENTS = (
  'NodeDown NodeUp DiskFull DiskSpaceLow HighCPU HighLoad HighMemory SwapUsage ServiceDown ' +
  'ServiceUp ProcessDown HttpError Http5xx HttpLatency PingFailed PacketLoss LinkDown ' +
  'LinkUp InterfaceErrors BgpPeerDown DnsFailure NtpDrift CertExpiring CertExpired ' +
  'BackupFailed BackupLate ReplicationLag ReplicaDown DeadlockDetected SlowQueries ' +
  'ConnectionsHigh QueueDepth ConsumerLag JobFailed CronMissed OOMKilled PodCrashLooping ' +
  'PodPending NodeNotReady VolumeFull InodesLow FanFailure PowerSupply TemperatureHigh ' +
  'RaidDegraded SmartError LoginFailures ConfigDrift Heartbeat Watchdog'
).split(' ');
// The Alerta alarm model's severities, the common ones more often.
const SEVERITIES = (
  'critical critical major major major minor minor minor warning warning warning warning ' +
  'indeterminate informational normal ok cleared security debug trace unknown'
).split(' ');
const STATUSES = ['open', 'open', 'open', 'open', 'ack', 'ack', 'closed', 'closed', 'shelved'];
const HISTORY_TYPES = ['severity', 'value', 'status', 'action', 'severity', 'ack', 'note'];
const SERVICES = Array.from(
  { length: 30 },
  (_, i) => ['Web', 'Database', 'Network', 'Storage', 'Payments', 'Search'][i % 6]! + (i < 6 ? '' : `-${i}`),
);
const TAGS = ['linux', 'dc1', 'dc2', 'kubernetes', 'vm', 'bare-metal', 'tier1', 'tier2', 'pci'];
const CUSTOMERS = ['acme', 'globex', 'initech', 'umbrella'];

/** The alerts, with history, whose number `i` lies in [lo, hi). */
const ALERTS = `
WITH a AS (
  SELECT i, id, resource, event, environment, customer, severity, status, timeout, created, age,
    age / ($4::int + 1) AS gap
  FROM (
    SELECT i, gen_random_uuid()::text AS id,
      (ARRAY['web','db','cache','api','mq'])[1 + (i % $3::int) % 5] || '-' || lpad((i % $3::int)::text, 5, '0') AS resource,
      ($5::text[])[1 + m / 2 % 50] AS event,
      (ARRAY['Production','Development'])[1 + m % 2] AS environment,
      (ARRAY[NULL,'acme','globex','initech','umbrella'])[1 + m / 100] AS customer,
      ($6::text[])[1 + (i * 7 + i / 13) % cardinality($6::text[])] AS severity,
      ($7::text[])[1 + (i * 11 + 3) % cardinality($7::text[])] AS status,
      (ARRAY[86400, 86400, 3600, 7200, 0])[1 + i % 5] AS timeout,
      $8::timestamp - ((i::int8 * 7919) % 2592000) * interval '1 second' AS created,
      60 + (i::int8 * 7919) % 2592000 AS age
    FROM generate_series($1::int, $2::int - 1) AS i, LATERAL (SELECT (i / $3::int + 7 * (i % $3::int)) % 500 AS m) mm
  ) s
)
INSERT INTO alerts (id, resource, event, environment, severity, correlate, status, service, "group", value,
  text, tags, attributes, origin, type, create_time, timeout, raw_data, customer, duplicate_count, repeat,
  previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, history, update_time)
SELECT a.id, a.resource, a.event, a.environment, a.severity,
  CASE WHEN i % 10 = 0 THEN ARRAY[a.event, 'NodeUp'] ELSE '{}' END,
  a.status,
  CASE WHEN i % 3 = 0 THEN ARRAY[($9::text[])[1 + i % 30], ($9::text[])[1 + (i + 7) % 30]]
       ELSE ARRAY[($9::text[])[1 + i % 30]] END,
  (ARRAY['OS','Network','Database','Application','Performance','Hardware'])[1 + i % 6],
  (i % 100)::text || '%', a.event || ' on ' || a.resource || ' is ' || a.severity || ' (' || (i % 100) || '%)',
  ($10::text[])[1 + i % 7 : i % 7 + i % 4],
  CASE WHEN i % 4 = 0 THEN jsonb_build_object('region', 'eu-west-' || (1 + i % 3))
       ELSE jsonb_build_object('region', 'us-east-' || (1 + i % 2), 'ip', '10.' || (i % 250) || '.' || (i / 250 % 250) || '.' || (1 + i % 200),
         'moreInfo', '<a href="https://runbooks.example.com/' || a.event || '">runbook</a>') END,
  (ARRAY['prometheus/alertmanager','zabbix/zbx01','nagios/mon1','alerta-cli/ops1','telegraf/agent'])[1 + i % 5],
  (ARRAY['exceptionAlert','exceptionAlert','prometheusAlert','zabbixAlert'])[1 + i % 4],
  a.created, a.timeout,
  CASE WHEN i % 4 = 1 THEN '{"labels":{"alertname":"' || a.event || '","instance":"' || a.resource || ':9100"}}' END,
  a.customer, (i * 13) % 40, (i * 13) % 40 > 0,
  ($6::text[])[1 + (i * 7 + i / 13 + 1) % cardinality($6::text[])],
  (ARRAY['moreSevere','lessSevere','noChange'])[1 + i % 3],
  a.created + a.gap * ($4::int - 1) * interval '1 second', gen_random_uuid()::text,
  a.created + a.gap * ($4::int - 1) * interval '1 second',
  ARRAY(
    SELECT ROW(
      CASE WHEN t IN ('severity', 'value') THEN gen_random_uuid()::text ELSE a.id END,
      a.event,
      ($6::text[])[1 + (i * 7 + i / 13 + $4::int - 1 - j) % cardinality($6::text[])],
      CASE WHEN j = $4::int - 1 THEN a.status WHEN t = 'new' THEN 'open' WHEN t = 'ack' THEN 'ack'
           WHEN t = 'status' THEN (ARRAY['open','ack','shelved'])[1 + (i + j) % 3] ELSE 'open' END,
      ((i + j * 17) % 100)::text || '%',
      CASE t WHEN 'ack' THEN 'acknowledged, looking into it' WHEN 'action' THEN 'status changed by action'
             WHEN 'note' THEN 'see ticket OPS-' || (i % 9000 + 1000)
             ELSE a.event || ' on ' || a.resource || ' (' || ((i + j * 17) % 100) || '%)' END,
      t,
      a.created + a.gap * j * interval '1 second',
      CASE WHEN t IN ('ack', 'action', 'note', 'status') THEN 'ops' || (i % 20) || '@example.com' END,
      a.timeout
    )::history
    FROM (SELECT j, CASE WHEN j = 0 THEN 'new' ELSE ($11::text[])[1 + (i + j) % cardinality($11::text[])] END AS t
          FROM generate_series(0, $4::int - 1) AS j) h
    ORDER BY j DESC
  ),
  a.created + a.gap * ($4::int - 1) * interval '1 second'
FROM a`;

/** Everything but the alerts: modest numbers, as a real installation has. `now` is a timestamp literal. */
const others = (now: string, customers = `'{${CUSTOMERS.join(',')}}'::text[]`) => `
INSERT INTO customers (id, match, customer)
  SELECT gen_random_uuid()::text, c || '.example.com', c FROM unnest(${customers}) AS c;
INSERT INTO users (id, name, login, email, password, status, roles, attributes, create_time, last_login, text,
  update_time, email_verified, hash)
  SELECT gen_random_uuid()::text, 'User ' || u, 'user' || u || '@example.com', 'user' || u || '@example.com',
    '$2b$12$' || substr(translate(encode(sha256(('pw' || u)::bytea), 'base64'), '+=', './') ||
      translate(encode(sha256(('salt' || u)::bytea), 'base64'), '+=', './'), 1, 53),
    (ARRAY['active','active','active','inactive'])[1 + u % 4],
    CASE WHEN u % 25 = 0 THEN ARRAY['admin'] ELSE ARRAY['user'] END, '{"prefs":{"timezone":"UTC"}}',
    ${now} - u * interval '1 hour', ${now} - u * interval '1 minute', '', ${now},
    u % 10 <> 0, md5('hash' || u)
  FROM generate_series(1, 200) AS u;
INSERT INTO keys (id, key, "user", scopes, text, expire_time, count, last_used_time, customer)
  SELECT gen_random_uuid()::text, substr(md5('key' || k) || md5('more' || k), 1, 40),
    'user' || (1 + k % 200) || '@example.com',
    CASE k % 4 WHEN 0 THEN ARRAY['read'] WHEN 1 THEN ARRAY['read','write'] WHEN 2 THEN ARRAY['write:alerts'] ELSE ARRAY['admin'] END,
    'key ' || k, ${now} + (k % 400 - 30) * interval '1 day', k * 37, ${now} - k * interval '1 minute',
    CASE WHEN k % 3 = 0 THEN (${customers})[1 + k % 4] END
  FROM generate_series(1, 300) AS k;
INSERT INTO blackouts (id, priority, environment, service, resource, event, "group", tags, customer, start_time,
  end_time, duration, "user", create_time, text, origin)
  SELECT gen_random_uuid()::text, 1 + b % 8, (ARRAY['Production','Development'])[1 + b % 2],
    CASE WHEN b % 3 = 0 THEN ARRAY['Web'] END, CASE WHEN b % 4 = 1 THEN 'web-' || lpad(b::text, 5, '0') END,
    CASE WHEN b % 5 = 2 THEN 'NodeDown' END, NULL, CASE WHEN b % 6 = 3 THEN ARRAY['dc1'] ELSE '{}' END,
    CASE WHEN b % 7 = 0 THEN 'acme' END, ${now} - b * interval '1 day',
    ${now} - b * interval '1 day' + interval '2 hours', 7200, 'ops1@example.com',
    ${now} - b * interval '1 day', 'maintenance window ' || b, 'alerta/web'
  FROM generate_series(1, 50) AS b;
INSERT INTO heartbeats (id, origin, tags, type, create_time, timeout, receive_time, customer, attributes)
  SELECT gen_random_uuid()::text, 'agent/host-' || lpad(h::text, 4, '0'), ARRAY['dc' || (1 + h % 2)], 'Heartbeat',
    ${now} - interval '20 days', (ARRAY[60, 300, 900])[1 + h % 3], ${now} - (h % 600) * interval '1 second',
    CASE WHEN h % 5 = 0 THEN (${customers})[1 + h % 4] END,
    jsonb_build_object('environment', (ARRAY['Production','Development'])[1 + h % 2])
  FROM generate_series(1, 500) AS h;
INSERT INTO perms (id, match, scopes)
  VALUES (gen_random_uuid()::text, 'admin', ARRAY['admin']), (gen_random_uuid()::text, 'user', ARRAY['read','write']),
    (gen_random_uuid()::text, 'guest', ARRAY['read']),
    (gen_random_uuid()::text, 'ops', ARRAY['read','write:alerts','write:blackouts']),
    (gen_random_uuid()::text, 'viewer', ARRAY['read:alerts']);
INSERT INTO groups (id, name, users, text, tags, attributes, update_time)
  SELECT gen_random_uuid()::text, 'group-' || g,
    ARRAY(SELECT id FROM users ORDER BY login LIMIT 5 OFFSET g * 5), 'team ' || g, '{}', '{}', ${now}
  FROM generate_series(0, 9) AS g;
INSERT INTO notes (id, text, "user", attributes, type, create_time, update_time, alert, customer)
  SELECT gen_random_uuid()::text, 'looked at this: see OPS-' || (1000 + n), 'ops' || (n % 20) || '@example.com',
    '{}', 'alert', last_receive_time, last_receive_time, id, customer
  FROM (SELECT id, customer, last_receive_time, row_number() OVER () AS n FROM alerts LIMIT 10000) s;`;

/** Creates the Alerta tables in the empty database at `url` and fills them; the source of an import. */
export async function fillAlertaDatabase(url: string, alerts: number, history: number): Promise<void> {
  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SET synchronous_commit = off');
    return c;
  };
  const [a, b] = [await connect(), await connect()];
  try {
    await a.query(readFileSync(SCHEMA, 'utf8'));
    const now = new Date().toISOString().replace('Z', '');
    const resources = Math.max(2000, Math.ceil(alerts / 500));
    const half = Math.floor(alerts / 2);
    const part = (c: pg.Client, lo: number, hi: number) =>
      c.query(ALERTS, [
        lo,
        hi,
        resources,
        history,
        EVENTS,
        SEVERITIES,
        STATUSES,
        now,
        SERVICES,
        TAGS,
        HISTORY_TYPES,
      ]);
    await Promise.all([part(a, 0, half), part(b, half, alerts)]);
    await a.query(others(`'${now}'::timestamp`));
    // Hint bits and statistics now, so that the import's reads do not pay for them.
    await Promise.all([a.query('VACUUM ANALYZE alerts'), b.query('VACUUM ANALYZE notes')]);
    await a.query('VACUUM ANALYZE');
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
}
