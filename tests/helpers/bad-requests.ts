/**
 * A seeded set of bad or odd requests, one or more per class of docs/robustness.md,
 * spread over every endpoint. The same seed gives the same list, so a failure can be replayed.
 *
 * Nothing generated here contains words the leak check looks for (SQL keywords, host:port, file
 * paths, JavaScript error names), so an error message that echoes the input is not taken for a leak.
 */

import { MAX_ATTRIBUTES, MAX_LENGTH, MAX_LIST } from '../../shared/alerts.ts';
import { rng } from './rng.ts';

/**
 * An environment of the longest length allowed, in 3-byte characters: the robustness modes allow
 * it (ALLOWED_ENVIRONMENTS), so that alerts at every limit at once reach the indexes.
 */
export const WIDE_ENVIRONMENT = Array.from({ length: MAX_LENGTH.environment }, (_, i) =>
  String.fromCharCode(0x4e00 + ((i * 7919) % 0x5000)),
).join('');

/** Ids of records that exist, so per-id endpoints reach their handlers. */
export interface Fixtures {
  alertId: string;
  noteId: string;
  blackoutId: string;
  heartbeatId: string;
  keyId: string;
  userId: string;
  groupId: string;
  permId: string;
  customerId: string;
}

export interface BadRequest {
  /** The class of robustness.md this request belongs to, for the failure report. */
  kind: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Body = Record<string, Json>;

const nested = (depth: number): Json => {
  let v: Json = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** Values of every JSON type, and strings and numbers that are odd for a field of any type. */
const ODD_VALUES: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -2147483649,
  2147483648,
  2 ** 63,
  1e300,
  -1e300,
  '',
  ' ',
  'abc',
  '12',
  '-5',
  'true',
  'null',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'é'.repeat(1500),
  'x'.repeat(3000),
  'y'.repeat(20000),
  [],
  [null],
  [1, 2],
  ['a', 7, null, {}],
  [[['deep']]],
  {},
  { a: 1 },
  { '': '' },
  nested(40),
];

/** Datetimes that are malformed, or outside what PostgreSQL and JavaScript both represent. */
const ODD_DATES: Json[] = [
  '0000-01-01T00:00:00.000Z',
  '0001-01-01T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  '10000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '2024-13-45T25:61:61Z',
  '2024-02-30T00:00:00Z',
  'yesterday',
  'infinity',
  '-infinity',
  '2024-01-01',
  '2024-01-01T00:00:00+99:99',
  '1e10',
  '',
  1e20,
  -1,
  0,
];

const ODD_KEYS = ['.', '$x', 'a.b', '$', '', '\u0000', 'é'.repeat(400), 'k'.repeat(3000)];

/** Query strings that are not valid, or odd: bare operators, unbalanced syntax, bad regexes. */
const ODD_Q = [
  'AND',
  'OR',
  'NOT',
  '||',
  '&&',
  '!',
  'AND OR',
  'NOT NOT',
  'a AND',
  'OR b',
  '(',
  ')',
  '((((((((((((((((((((((((((((((((((((((((x',
  '"',
  '"unterminated',
  '[',
  ']',
  '{',
  'resource:',
  ':value',
  'resource:[1 TO',
  'duplicateCount:[a TO b]',
  'duplicateCount:>abc',
  'timeout:xyz',
  'createTime:[bad TO worse]',
  'createTime:>0000-01-01',
  'lastReceiveTime:[* TO 99999-01-01]',
  'nosuchfield:1',
  '_.:1',
  'attributes.:x',
  '/(/',
  '/[/',
  '/a{99999}/',
  '/(?<n>x)/',
  '/\\/',
  'resource:/(/',
  'resource:/[z-a]/',
  'resource:/*/',
  '*',
  '?',
  '\\',
  'a~',
  'a~abc',
  'a^2',
  'a^x',
  '+',
  '-',
  '+-+-',
  'resource:(a OR',
  'x'.repeat(5000),
  '\u0000',
  'é:é',
];

const ODD_IDS = [
  '((',
  '[',
  '*',
  '%25',
  '%00',
  '%2F',
  '..',
  '\\',
  'a'.repeat(3000),
  '00000000-0000-0000-0000-000000000000',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '-1',
  '1e400',
  '%F0%9F%92%A9',
  '%C3%28',
  'a%20b',
];

/** Filter parameters of GET /alerts and friends with values their columns cannot hold. */
const ODD_FILTERS = [
  'duplicateCount=abc',
  'timeout=xyz',
  'timeout=-1',
  'timeout=99999999999999999999',
  'repeat=maybe',
  'createTime=yesterday',
  'lastReceiveTime=0000-01-01T00:00:00Z',
  'from-date=not-a-date',
  'from-date=0000-01-01T00:00:00.000Z',
  'to-date=99999-01-01T00:00:00Z',
  'from-date=2024-13-45',
  'sort-by=nosuchfield',
  'sort-by=',
  'sort-by=-',
  'group-by=nosuchfield',
  'group-by=',
  'page=-1',
  'page=0',
  'page=abc',
  'page=1e400',
  'page-size=0',
  'page-size=-5',
  'page-size=100000000',
  'page-size=abc',
  'limit=abc',
  'nosuchfield=1',
  'id=((',
  'id=[',
  'id=*',
  'id=' + 'f'.repeat(3000),
  'resource=~(',
  'resource=~[z-a]',
  'resource!=~(',
  'event=~*',
  'attributes.=x',
  'attributes.$x=1',
  'attributes..=1',
  'status=nosuchstatus',
  'severity=',
  'fields=nosuchfield',
  'show-raw-data=maybe',
  'show-history=maybe',
  'topn=abc',
  'topn=-3',
  'topn=100000000000',
  'customer=%00',
  'q=%00',
  'resource=%00',
];

const ALERT: Body = {
  resource: 'rb-host',
  event: 'rb-event',
  environment: 'Production',
  severity: 'major',
  service: ['rb-svc'],
  group: 'rb-group',
  value: 'v',
  text: 't',
  tags: ['t1'],
  attributes: { a: 'b' },
  origin: 'robustness',
  type: 'exceptionAlert',
  timeout: 600,
  correlate: ['rb-event', 'rb-other'],
  createTime: '2026-01-01T00:00:00.000Z',
  rawData: 'raw',
};
const LIST_FIELDS = ['service', 'tags', 'correlate'] as const;
const DATE_FIELDS: Record<string, string[]> = {
  alert: ['createTime', 'receiveTime', 'lastReceiveTime', 'updateTime'],
  blackout: ['startTime', 'endTime'],
  heartbeat: ['createTime'],
  key: ['expireTime'],
};

interface Endpoint {
  method: BadRequest['method'];
  path: string;
  /** A body the endpoint accepts, mutated field by field. */
  body?: () => Body;
  /** Which of DATE_FIELDS applies to this body. */
  dates?: keyof typeof DATE_FIELDS;
  /** A list endpoint taking alert filters and `q`. */
  query?: boolean;
  /** Path templates with :id, replaced by odd ids. */
  idParam?: boolean;
}

function endpoints(f: Fixtures): Endpoint[] {
  const a = f.alertId;
  return [
    { method: 'POST', path: '/alert', body: () => ({ ...ALERT }), dates: 'alert' },
    { method: 'GET', path: '/alert/:id', idParam: true },
    { method: 'GET', path: `/alert/${a}` },
    { method: 'DELETE', path: '/alert/:id', idParam: true },
    { method: 'PUT', path: `/alert/${a}/status`, body: () => ({ status: 'open', text: 'x', timeout: 10 }) },
    { method: 'PUT', path: '/alert/:id/status', idParam: true, body: () => ({ status: 'ack' }) },
    {
      method: 'PUT',
      path: `/alert/${a}/action`,
      body: () => ({ action: 'shelve', text: 'x', timeout: 10 }),
    },
    { method: 'PUT', path: '/alert/:id/action', idParam: true, body: () => ({ action: 'ack' }) },
    { method: 'PUT', path: `/alert/${a}/tag`, body: () => ({ tags: ['x'] }) },
    { method: 'PUT', path: `/alert/${a}/untag`, body: () => ({ tags: ['x'] }) },
    { method: 'PUT', path: `/alert/${a}/attributes`, body: () => ({ attributes: { k: 'v' } }) },
    { method: 'PUT', path: `/alert/${a}/note`, body: () => ({ note: 'hello' }) },
    { method: 'GET', path: `/alert/${a}/notes` },
    { method: 'PUT', path: `/alert/${a}/note/${f.noteId}`, body: () => ({ note: 'edited' }) },
    { method: 'PUT', path: `/alert/${a}/note/:id`, idParam: true, body: () => ({ note: 'edited' }) },
    { method: 'DELETE', path: `/alert/${a}/note/:id`, idParam: true },
    { method: 'GET', path: '/alerts', query: true },
    { method: 'GET', path: '/alerts/history', query: true },
    { method: 'GET', path: '/alerts/count', query: true },
    { method: 'GET', path: '/alerts/top10/count', query: true },
    { method: 'GET', path: '/alerts/topn/flapping', query: true },
    { method: 'GET', path: '/alerts/topn/standing', query: true },
    { method: 'GET', path: '/alerts/groups', query: true },
    { method: 'GET', path: '/alerts/tags', query: true },
    { method: 'GET', path: '/environments', query: true },
    { method: 'GET', path: '/services', query: true },
    { method: 'GET', path: '/tags', query: true },
    { method: 'PUT', path: '/_bulk/alerts/status', query: true, body: () => ({ status: 'ack', text: 'b' }) },
    { method: 'PUT', path: '/_bulk/alerts/action', query: true, body: () => ({ action: 'ack' }) },
    { method: 'PUT', path: '/_bulk/alerts/tag', query: true, body: () => ({ tags: ['b'] }) },
    { method: 'PUT', path: '/_bulk/alerts/untag', query: true, body: () => ({ tags: ['b'] }) },
    { method: 'PUT', path: '/_bulk/alerts/attributes', query: true, body: () => ({ attributes: { b: 1 } }) },
    { method: 'DELETE', path: '/_bulk/alerts', query: true },
    { method: 'GET', path: '/_bulk/task/:id', idParam: true },
    {
      method: 'POST',
      path: '/blackout',
      body: () => ({
        environment: 'Production',
        service: ['rb-svc'],
        resource: 'rb-host',
        event: 'rb-event',
        group: 'g',
        tags: ['t'],
        origin: 'o',
        startTime: '2026-01-01T00:00:00.000Z',
        endTime: '2026-01-02T00:00:00.000Z',
        duration: 3600,
        text: 'maintenance',
      }),
      dates: 'blackout',
    },
    {
      method: 'POST',
      path: '/blackout',
      body: () => ({
        environment: 'Production',
        resource: 'rb-host',
        rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0',
        timezone: 'Europe/Berlin',
        startTime: '2026-01-01T00:00:00.000Z',
        duration: 50400,
      }),
      dates: 'blackout',
    },
    {
      method: 'POST',
      path: '/blackouts/preview',
      body: () => ({
        rrule: 'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=1;BYMINUTE=0',
        timezone: 'Australia/Sydney',
        startTime: '2026-01-01T00:00:00.000Z',
        endTime: '2027-01-01T00:00:00.000Z',
        duration: 7200,
        count: 5,
      }),
      dates: 'blackout',
    },
    { method: 'GET', path: '/blackouts' },
    { method: 'GET', path: '/blackout/:id', idParam: true },
    {
      method: 'PUT',
      path: `/blackout/${f.blackoutId}`,
      body: () => ({
        rrule: 'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=1',
        timezone: 'Australia/Sydney',
        duration: 7200,
      }),
    },
    {
      method: 'PUT',
      path: `/blackout/${f.blackoutId}`,
      body: () => ({ environment: 'Development', endTime: '2099-01-01T00:00:00.000Z', text: 'later' }),
      dates: 'blackout',
    },
    { method: 'PUT', path: '/blackout/:id', idParam: true, body: () => ({ text: 'x' }) },
    { method: 'DELETE', path: '/blackout/:id', idParam: true },
    {
      method: 'POST',
      path: '/heartbeat',
      body: () => ({
        origin: 'rb-origin',
        tags: ['t'],
        attributes: { a: 'b' },
        timeout: 120,
        createTime: '2026-01-01T00:00:00.000Z',
        type: 'Heartbeat',
      }),
      dates: 'heartbeat',
    },
    { method: 'GET', path: '/heartbeats' },
    { method: 'GET', path: '/heartbeat/:id', idParam: true },
    { method: 'DELETE', path: '/heartbeat/:id', idParam: true },
    {
      method: 'POST',
      path: '/key',
      body: () => ({
        user: 'admin@example.com',
        scopes: ['read'],
        text: 'k',
        expireTime: '2030-01-01T00:00:00.000Z',
      }),
      dates: 'key',
    },
    { method: 'GET', path: '/keys' },
    { method: 'GET', path: '/key/:id', idParam: true },
    {
      method: 'PUT',
      path: `/key/${f.keyId}`,
      body: () => ({ scopes: ['read', 'write'], text: 'k2', expireTime: '2031-01-01T00:00:00.000Z' }),
      dates: 'key',
    },
    { method: 'DELETE', path: '/key/:id', idParam: true },
    {
      method: 'POST',
      path: '/user',
      body: () => ({
        name: 'R B',
        login: 'rb-user',
        email: 'rb@example.com',
        password: 'secret-password-1',
        roles: ['user'],
        text: 'x',
        email_verified: true,
        attributes: { a: 1 },
        status: 'active',
      }),
    },
    { method: 'GET', path: '/users' },
    { method: 'GET', path: '/user/:id', idParam: true },
    {
      method: 'PUT',
      path: `/user/${f.userId}`,
      body: () => ({ name: 'N', status: 'inactive', roles: ['user'], attributes: { x: 1 }, text: 't' }),
    },
    { method: 'PUT', path: '/user/:id', idParam: true, body: () => ({ name: 'N' }) },
    { method: 'PUT', path: `/user/${f.userId}/attributes`, body: () => ({ attributes: { x: 2 } }) },
    { method: 'GET', path: '/user/:id/groups', idParam: true },
    { method: 'DELETE', path: '/user/:id', idParam: true },
    { method: 'GET', path: '/user/me' },
    { method: 'PUT', path: '/user/me', body: () => ({ name: 'Me', text: 'x', attributes: { y: 1 } }) },
    { method: 'PUT', path: '/user/me/attributes', body: () => ({ attributes: { z: 1 } }) },
    { method: 'GET', path: '/user/me/attributes' },
    { method: 'POST', path: '/group', body: () => ({ name: 'rb-group', text: 'x' }) },
    { method: 'GET', path: '/groups' },
    { method: 'GET', path: '/group/:id', idParam: true },
    { method: 'PUT', path: `/group/${f.groupId}`, body: () => ({ name: 'rb-group-2', text: 'y' }) },
    { method: 'GET', path: '/group/:id/users', idParam: true },
    { method: 'PUT', path: `/group/${f.groupId}/user/:id`, idParam: true },
    { method: 'DELETE', path: `/group/${f.groupId}/user/:id`, idParam: true },
    { method: 'DELETE', path: '/group/:id', idParam: true },
    { method: 'POST', path: '/perm', body: () => ({ match: 'rb-role', scopes: ['read:alerts'] }) },
    { method: 'GET', path: '/perms' },
    { method: 'GET', path: '/perm/:id', idParam: true },
    {
      method: 'PUT',
      path: `/perm/${f.permId}`,
      body: () => ({ match: 'rb-role-2', scopes: ['write:alerts'] }),
    },
    { method: 'DELETE', path: '/perm/:id', idParam: true },
    { method: 'GET', path: '/scopes' },
    { method: 'POST', path: '/customer', body: () => ({ customer: 'rb-cust', match: 'rb\\.example' }) },
    { method: 'GET', path: '/customers' },
    { method: 'GET', path: '/customer/:id', idParam: true },
    { method: 'PUT', path: `/customer/${f.customerId}`, body: () => ({ customer: 'rb-cust-2', match: 'x' }) },
    { method: 'DELETE', path: '/customer/:id', idParam: true },
    { method: 'POST', path: '/auth/login', body: () => ({ username: 'nobody@example.com', password: 'x' }) },
    {
      method: 'POST',
      path: '/auth/signup',
      body: () => ({ name: 'S', email: 'signup@example.com', password: 'secret-password-2', text: '' }),
    },
    { method: 'GET', path: '/management/manifest' },
    { method: 'GET', path: '/management/status' },
    { method: 'GET', path: '/management/properties' },
    { method: 'GET', path: '/management/switchboard' },
    { method: 'GET', path: '/management/healthcheck' },
    { method: 'GET', path: '/management/gtg' },
    { method: 'GET', path: '/config' },
    { method: 'GET', path: '/notifications/health' },
    { method: 'GET', path: '/notifications/deliveries', query: true },
  ];
}

/** Webhook payloads of the wrong shape, per receiver. */
const WEBHOOKS: Record<string, Json[]> = {
  prometheus: [{}, { alerts: 'x' }, { alerts: [1, null, {}] }, { alerts: [{ labels: 'x' }] }],
  grafana: [
    {},
    { state: 'alerting', evalMatches: 'x' },
    { state: 'alerting', evalMatches: Array.from({ length: 2000 }, (_, i) => i) },
    { alerts: [{ labels: null }] },
  ],
  cloudwatch: [{}, { Type: 'Notification', Message: '{' }, { Type: 'Notification', Message: 7 }],
  pingdom: [{}, { check_name: 5 }, { current_state: [] }],
  newrelic: [{}, { incident: 'x' }, { severity: {} }],
  stackdriver: [{}, { incident: 'x' }, { incident: { state: 5 } }],
  serverdensity: [{}, { alert_type: [] }],
  riemann: [{}, { host: [] }, [1, 2]],
  graylog: [{}, { event: 'x' }, { check_result: 7 }],
  pagerduty: [{}, { messages: 'x' }, { messages: [{ incident: null }] }, { event: {} }],
  slack: [{}, { payload: '{' }, { payload: 7 }],
  msteams: [{}, { action: 7 }],
  telegram: [{}, { callback_query: 'x' }, { callback_query: { data: 7 } }],
};

/** Authorization headers that are malformed or name nobody. */
const ODD_AUTH = [
  'Basic !!!',
  'Basic ' + Buffer.from('nocolon').toString('base64'),
  'Basic ' + Buffer.from(':').toString('base64'),
  'Basic ' + Buffer.from('\u00ff\u00fe:x').toString('base64'),
  'Basic',
  'Bearer',
  'Bearer x.y.z',
  'Bearer eyJhbGciOiJub25lIn0.e30.',
  'Bearer ' + 'a'.repeat(5000),
  'Key',
  'Key ' + 'k'.repeat(3000),
  'Key not-a-key',
  'Digest username="x"',
  'Hawk id="x", ts="1", nonce="n", mac="m"',
  'Hawk garbage',
  '   ',
];

/**
 * `count` requests drawn from every class, deterministic for a seed. `auth` goes on every request
 * except those testing malformed credentials.
 */
export function badRequests(seed: number, count: number, f: Fixtures, auth: Record<string, string>) {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const eps = endpoints(f);
  const withBody = eps.filter((e) => e.body);
  const withQuery = eps.filter((e) => e.query);
  const withId = eps.filter((e) => e.idParam);
  const withDates = eps.filter((e) => e.dates);
  const json = (
    kind: string,
    e: Endpoint,
    body: Json,
    path = e.path.replace(':id', idFor(e)),
  ): BadRequest => ({
    kind,
    method: e.method,
    path,
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  /** A request to `path` with `headers` and the endpoint's own valid body, when it takes one. */
  const ownBody = (
    kind: string,
    e: Endpoint,
    path: string,
    headers: Record<string, string> = auth,
  ): BadRequest => {
    const body = e.body ? JSON.stringify(e.body()) : undefined;
    return {
      kind,
      method: e.method,
      path,
      headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body,
    };
  };
  function idFor(e: Endpoint): string {
    if (e.path.startsWith('/alert/') && e.path.includes('/note/')) return f.noteId;
    return 'nonexistent';
  }
  /** `n` random 3-byte characters (CJK): what compresses least and weighs most per character. */
  const wide = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(random() * 0x5000))).join('');
  function longList(field: (typeof LIST_FIELDS)[number]): Json {
    const { items, total } = MAX_LIST[field];
    return pick([
      () => Array.from({ length: 1000 }, (_, i) => `n${i}`),
      () => Array.from({ length: 15 }, (_, i) => `${i}`.padEnd(250, 'v')),
      () => Array.from({ length: items + 1 }, (_, i) => `i${i}`),
      () => [
        wide(Math.min(MAX_LENGTH.listItem, total)),
        ...(total >= MAX_LENGTH.listItem ? [wide(total)] : []),
      ],
      () => Array.from({ length: Math.ceil((total + 1) / 100) }, () => wide(100)),
    ])();
  }
  function hugeAttributes(): Json {
    return pick([
      () => Object.fromEntries(Array.from({ length: MAX_ATTRIBUTES.count + 1 }, (_, i) => [`k${i}`, i])),
      () => Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v'])),
      () => ({ [wide(MAX_ATTRIBUTES.keyLength + 1)]: 1 }),
      () => ({ big: wide(MAX_ATTRIBUTES.jsonLength) }),
      () => ({ list: Array.from({ length: 30_000 }, (_, i) => i) }),
    ])();
  }
  /** An alert with every indexed field at its limit, and a service list as wide as allowed. */
  function widestAlert(): Body {
    const { items, total } = MAX_LIST.service;
    const service = Array.from({ length: items }, (_, i) =>
      wide(Math.floor(total / items) + (i < total % items ? 1 : 0)),
    );
    return {
      resource: wide(MAX_LENGTH.resource),
      event: wide(MAX_LENGTH.event),
      environment: WIDE_ENVIRONMENT,
      customer: wide(MAX_LENGTH.customer),
      origin: wide(MAX_LENGTH.origin),
      service,
      severity: 'major',
      tags: [wide(MAX_LENGTH.listItem)],
      correlate: [wide(MAX_LENGTH.listItem)],
      attributes: { [wide(MAX_ATTRIBUTES.keyLength)]: wide(100) },
      text: 'combined maxima',
    };
  }

  const makers: (() => BadRequest)[] = [
    // Wrong JSON type for a field.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      const field = pick(Object.keys(body));
      body[field] = pick(ODD_VALUES);
      return json(`wrong type: ${field}`, e, body);
    },
    // Body that is not a JSON object.
    () => {
      const e = pick(withBody);
      return json('not an object', e, pick<Json>([[], 'x', true, 7, [{}], null]));
    },
    // Unknown or odd extra fields.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      body[pick(ODD_KEYS)] = pick(ODD_VALUES);
      return json('extra field', e, body);
    },
    // Missing required fields: each field dropped in turn.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      delete body[pick(Object.keys(body))];
      return json('missing field', e, body);
    },
    // Datetimes out of range or malformed.
    () => {
      const e = pick(withDates);
      const body = e.body!();
      const field = pick(DATE_FIELDS[e.dates!]!);
      body[field] = pick(ODD_DATES);
      return json(`date: ${field}`, e, body);
    },
    // Values that would break later reads: attribute keys with '.' and '$', negative timeouts.
    () => {
      const e = pick(withBody.filter((x) => 'attributes' in x.body!() || 'timeout' in x.body!()));
      const body = e.body!();
      if ('attributes' in body && random() < 0.7) body.attributes = { [pick(ODD_KEYS)]: pick(ODD_VALUES) };
      else body.timeout = pick<Json>([-1, -2147483649, 2147483648, 1e300, 1.5, '10']);
      return json('stored value', e, body);
    },
    // Deep nesting, in the body as a whole and in attributes.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      body[pick(['attributes', 'tags', 'text', 'zzz'])] = nested(20 + Math.floor(random() * 200));
      return json('deep nesting', e, body);
    },
    // NUL bytes and lone surrogates in strings.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      const strings = Object.keys(body).filter((k) => typeof body[k] === 'string');
      const field = strings.length ? pick(strings) : 'text';
      body[field] = pick(['a\u0000b', '\u0000', 'x\ud800y', '\udfff']);
      return json(`nul: ${field}`, e, body);
    },
    // Oversized strings in indexed and free-text fields, and oversized list items.
    () => {
      const e = pick(withBody);
      const body = e.body!();
      const field = pick(Object.keys(body));
      const big = pick(['r'.repeat(2800), 'é'.repeat(1400), 's'.repeat(10000), 'ü'.repeat(5000)]);
      body[field] = Array.isArray(body[field]) ? [big] : big;
      return json(`oversized: ${field}`, e, body);
    },
    // Missing or empty required lists.
    () => {
      const e = pick(withBody.filter((x) => 'tags' in x.body!()));
      const body = e.body!();
      if (random() < 0.5) delete body.tags;
      else body.tags = pick<Json>([[], [''], [null], {}, 'x']);
      return json('empty list', e, body);
    },
    // Odd ids, id prefixes and regex metacharacters in paths.
    () => {
      const e = pick(withId);
      return ownBody('odd id', e, e.path.replace(':id', pick(ODD_IDS)));
    },
    // q syntax errors, bare operators and bad regexes.
    () => {
      const e = pick(withQuery);
      return ownBody('q', e, `${e.path}?q=${encodeURIComponent(pick(ODD_Q))}`);
    },
    // Filters with values their column cannot hold, unknown fields, bad paging and sorting.
    () => {
      const e = pick(withQuery);
      const params = [pick(ODD_FILTERS), ...(random() < 0.3 ? [pick(ODD_FILTERS)] : [])].join('&');
      return ownBody('filter', e, `${e.path}?${params}`);
    },
    // Malformed Authorization headers.
    () => {
      const e = pick(eps);
      return ownBody('auth header', e, e.path.replace(':id', idFor(e)), { Authorization: pick(ODD_AUTH) });
    },
    // Very long URLs.
    () => {
      const e = pick(withQuery);
      return {
        kind: 'long url',
        method: 'GET',
        path: `${e.path}?resource=${'u'.repeat(2000 + Math.floor(random() * 30000))}`,
        headers: auth,
      };
    },
    // Bodies that are not JSON, bodies on GET, odd content types, large bodies.
    () => {
      const e = pick(eps);
      const raw = pick([
        '{',
        '{"a":',
        '\ufeff{}',
        '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
        'not json',
        '',
        '{"resource": "a", "resource": 7}',
        JSON.stringify({ text: 'z'.repeat(2 * 1024 * 1024) }),
        '\u0000',
      ]);
      return {
        kind: 'raw body',
        method:
          e.method === 'GET' || random() < 0.2 ? pick(['POST', 'PUT', 'GET', 'DELETE', 'PATCH']) : e.method,
        path: e.path.replace(':id', idFor(e)),
        headers: {
          ...auth,
          'Content-Type': pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']),
        },
        body: raw,
      };
    },
    // Webhook payloads of the wrong shape.
    () => {
      const name = pick(Object.keys(WEBHOOKS));
      return {
        kind: `webhook ${name}`,
        method: 'POST',
        path: `/webhooks/${name}`,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(pick(WEBHOOKS[name]!)),
      };
    },
    // Long lists: over the item count or total length, and the service lists that were 500s.
    () => {
      const e = pick(withBody.filter((x) => LIST_FIELDS.some((k) => k in x.body!())));
      const body = e.body!();
      const field = pick(LIST_FIELDS.filter((k) => k in body));
      body[field] = longList(field);
      return json(`long list: ${field}`, e, body);
    },
    // Many tags, on every endpoint that takes tags (100,000 tags were stored, 1.4 MB).
    () => {
      const e = pick(withBody.filter((x) => 'tags' in x.body!()));
      const body = e.body!();
      const n = pick([MAX_LIST.tags.items + 1, 2000, 20_000, 100_000]);
      body.tags = Array.from({ length: n }, (_, i) => `tag-${i}`);
      return json(`many tags: ${n}`, e, body);
    },
    // Huge attribute maps: too many keys, long keys, a large value.
    () => {
      const e = pick(withBody.filter((x) => 'attributes' in x.body!()));
      const body = e.body!();
      body.attributes = hugeAttributes();
      return json('huge attributes', e, body);
    },
    // Every indexed alert field at its limit at once (accepted: it must fit every index), or one
    // of them, or the service list, one over.
    () => {
      const e = eps.find((x) => x.path === '/alert' && x.method === 'POST')!;
      const body = widestAlert();
      if (random() < 0.5) {
        const field = pick(['resource', 'event', 'environment', 'customer', 'origin', 'service']);
        if (field === 'service') body.service = [...(body.service as string[]), 'x'];
        else body[field] = `${body[field] as string}x`;
        return json(`combined maxima, ${field} over`, e, body);
      }
      return json('combined maxima', e, body);
    },
  ];

  return Array.from({ length: count }, () => pick(makers)());
}

/**
 * What an error body must not show: stack frames, SQL, database messages, host:port, file paths,
 * JavaScript exception names. Returns the first match, or null.
 */
export function leakIn(text: string): string | null {
  const patterns = [
    /\bat [\w$.<>]+ \(/,
    /\.(ts|js|mjs|cjs):\d+/,
    /\b(SELECT|INSERT INTO|DELETE FROM|ON CONFLICT|RETURNING)\b/,
    /syntax error at or near|relation "|column "|invalid input syntax|violates|duplicate key|SQLSTATE|index row size|invalid regular expression: /i,
    /\b\d{1,3}(\.\d{1,3}){3}:\d+\b|\blocalhost:\d+|ECONNREFUSED|ETIMEDOUT/,
    /\/(work|root|home|usr|tmp|node_modules|server)\//,
    /\b(TypeError|ReferenceError|RangeError|ZodError|DatabaseError|SlonikError)\b|Cannot read propert|is not a function|undefined is not/,
  ];
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m[0];
  }
  return null;
}
