/** Pure blackout rules (heartbeats-blackouts.md §2): priority, status, remaining, matching, input schemas. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ZodError } from 'zod';
import { BlackoutInputSchema, BlackoutSchema, BlackoutUpdateSchema } from '../../shared/blackouts.ts';
import type { BlackoutRow } from '../../server/db/blackouts.ts';
import type { AlertDraft } from '../../server/domain/alert-types.ts';
import { alertDraft } from '../helpers/alert-draft.ts';
import { assignCustomer } from '../../server/domain/caller.ts';
import {
  matchesBlackout,
  presentBlackout,
  priorityOf,
  remainingOf,
  statusOf,
} from '../../server/domain/blackouts.ts';
import { AppError } from '../../server/errors.ts';

const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const BASE = 'http://alerts.test/api';

const row = (over: Partial<BlackoutRow> = {}): BlackoutRow => ({
  id: '0b6c3f0e-8a4e-4d0b-9a59-3c3a2b1f9e01',
  priority: 1,
  environment: 'Production',
  service: [],
  resource: null,
  event: null,
  group: null,
  origin: null,
  tags: [],
  customer: null,
  startTime: T0,
  endTime: T0 + 3600_000,
  duration: 3600,
  user: null,
  createTime: T0,
  text: '',
  ...over,
});

const alert = (over: Partial<AlertDraft> = {}): AlertDraft =>
  alertDraft({
    id: 'a1',
    service: ['web', 'api'],
    group: 'Net',
    tags: ['dc1', 'linux'],
    origin: 'nagios',
    createTime: T0 + 60_000,
    customer: 'acme',
    ...over,
  });

// ---------------------------------------------------------------------------------------------

const priority = suite('blackout priority');

priority('from which fields are set, first rule wins, origin overrides', () => {
  const f = (over: Partial<BlackoutRow>) => priorityOf(row(over));
  assert.is(f({}), 1);
  assert.is(f({ resource: 'r' }), 2);
  assert.is(f({ resource: 'r', service: ['s'] }), 2);
  assert.is(f({ service: ['s'] }), 3);
  assert.is(f({ service: ['s'], resource: 'r', event: 'e' }), 3);
  assert.is(f({ service: ['s'], event: 'e' }), 3);
  assert.is(f({ event: 'e' }), 4);
  assert.is(f({ event: 'e', group: 'g' }), 4);
  assert.is(f({ group: 'g' }), 5);
  assert.is(f({ group: 'g', tags: ['t'] }), 5);
  assert.is(f({ resource: 'r', event: 'e' }), 6);
  assert.is(f({ resource: 'r', event: 'e', tags: ['t'] }), 6);
  assert.is(f({ tags: ['t'] }), 7);
  assert.is(f({ origin: 'o' }), 8);
  assert.is(f({ origin: 'o', resource: 'r', event: 'e', service: ['s'] }), 8);
});

priority.run();

// ---------------------------------------------------------------------------------------------

const time = suite('blackout status and remaining');

time('pending before the start, active until the end, expired from the end on', () => {
  const b = row();
  assert.is(statusOf(b, T0 - 1), 'pending');
  assert.is(statusOf(b, T0), 'active');
  assert.is(statusOf(b, T0 + 3599_999), 'active');
  assert.is(statusOf(b, T0 + 3600_000), 'expired');
  assert.is(statusOf(b, T0 + 86400_000), 'expired');
});

time('remaining counts from the start while pending, from now while active, 0 once expired', () => {
  const b = row();
  assert.is(remainingOf(b, T0 - 600_000), 3600);
  assert.is(remainingOf(b, T0), 3600);
  assert.is(remainingOf(b, T0 + 600_000), 3000);
  assert.is(remainingOf(b, T0 + 3599_500), 1); // rounded up: 0 only when expired
  assert.is(remainingOf(b, T0 + 3600_000), 0);
  assert.is(remainingOf(b, T0 + 7200_000), 0);
  assert.is(remainingOf(row({ endTime: T0 }), T0), 0);
});

time('presentBlackout gives the API shape with ISO times and computed fields', () => {
  const b = presentBlackout(row({ resource: 'web01', priority: 2, text: 'x' }), BASE, T0 + 1000);
  BlackoutSchema.parse(b);
  assert.equal(b, {
    id: '0b6c3f0e-8a4e-4d0b-9a59-3c3a2b1f9e01',
    href: `${BASE}/blackout/0b6c3f0e-8a4e-4d0b-9a59-3c3a2b1f9e01`,
    priority: 2,
    environment: 'Production',
    service: [],
    resource: 'web01',
    event: null,
    group: null,
    tags: [],
    origin: null,
    customer: null,
    startTime: '2025-03-01T12:00:00.000Z',
    endTime: '2025-03-01T13:00:00.000Z',
    duration: 3600,
    status: 'active',
    remaining: 3599,
    user: null,
    createTime: '2025-03-01T12:00:00.000Z',
    text: 'x',
  });
  // A row without a stored duration shows the span.
  assert.is(presentBlackout(row({ duration: null, endTime: T0 + 90_000 }), BASE, T0).duration, 90);
});

time.run();

// ---------------------------------------------------------------------------------------------

const matching = suite('blackout matching');

matching('each field set on the blackout must match; unset fields match anything', () => {
  const cases: [string, Partial<BlackoutRow>, Partial<AlertDraft>, boolean][] = [
    ['environment only', {}, {}, true],
    ['other environment', { environment: 'Development' }, {}, false],
    ['environment is case-sensitive', { environment: 'production' }, {}, false],
    ['resource', { resource: 'web01' }, {}, true],
    ['resource differs', { resource: 'web02' }, {}, false],
    ['event', { event: 'NodeDown' }, {}, true],
    ['event differs', { event: 'NodeUp' }, {}, false],
    ['group', { group: 'Net' }, {}, true],
    ['group differs', { group: 'Web' }, {}, false],
    ['origin', { origin: 'nagios' }, {}, true],
    ['origin differs', { origin: 'zabbix' }, {}, false],
    ['service subset', { service: ['api'] }, {}, true],
    ['service all', { service: ['api', 'web'] }, {}, true],
    ['service partly outside', { service: ['web', 'db'] }, {}, false],
    ['service, alert none', { service: ['web'] }, { service: [] }, false],
    ['tags subset', { tags: ['linux'] }, {}, true],
    ['tags partly outside', { tags: ['linux', 'windows'] }, {}, false],
    ['tags, alert none', { tags: ['dc1'] }, { tags: [] }, false],
    [
      'all set and matching',
      {
        resource: 'web01',
        event: 'NodeDown',
        group: 'Net',
        origin: 'nagios',
        service: ['web'],
        tags: ['dc1'],
        customer: 'acme',
      },
      {},
      true,
    ],
    ['all set, one off', { resource: 'web01', event: 'NodeDown', group: 'Other' }, {}, false],
    ['createTime at the start', {}, { createTime: T0 }, true],
    ['createTime before the start', {}, { createTime: T0 - 1 }, false],
    ['createTime at the end', {}, { createTime: T0 + 3600_000 }, false],
  ];
  for (const [label, b, a, expected] of cases) {
    assert.is(matchesBlackout(row(b), alert(a), false), expected, label);
  }
});

matching('customer counts only with CUSTOMER_VIEWS: null matches all, else equal', () => {
  assert.ok(matchesBlackout(row({ customer: 'zeta' }), alert(), false));
  assert.not.ok(matchesBlackout(row({ customer: 'zeta' }), alert(), true));
  assert.ok(matchesBlackout(row({ customer: 'acme' }), alert(), true));
  assert.ok(matchesBlackout(row({ customer: null }), alert(), true));
  assert.not.ok(matchesBlackout(row({ customer: 'acme' }), alert({ customer: null }), true));
});

matching.run();

// ---------------------------------------------------------------------------------------------

const input = suite('blackout input');

const messages = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ZodError) return err.issues.map((i) => i.message);
    throw err;
  }
  return [];
};

input('POST body: environment required, types and empty strings refused with clear messages', () => {
  const post = (body: unknown) => messages(() => BlackoutInputSchema.parse(body));
  assert.equal(post({}), ['Missing mandatory value for "environment"']);
  assert.equal(post({ environment: 3 }), ['environment must be a string']);
  assert.equal(post({ environment: 'P', service: 'web' }), ['service must be a list']);
  assert.equal(post({ environment: 'P', tags: [1] }), ['tags must be a list of strings']);
  assert.equal(post({ environment: 'P', resource: '' }), ['resource can not be an empty string']);
  assert.equal(post({ environment: 'P', duration: '60' }), ['duration must be an integer']);
  assert.equal(post({ environment: 'P', startTime: '2025-01-01' }), [
    'dates must be ISO 8601 date format YYYY-MM-DDThh:mm:ss.sssZ',
  ]);
  assert.equal(post([]), ['expected a JSON object']);
  assert.equal(post({ environment: 'P', resource: null, service: null, duration: null }), []);
  const parsed = BlackoutInputSchema.parse({
    environment: 'P',
    startTime: '2025-03-01T12:00:00.000Z',
    endTime: '2025-03-01T13:00:00.123456Z',
    ignored: true,
  });
  assert.equal([parsed.startTime, parsed.endTime], [T0, T0 + 3600_123]);
  assert.not.ok('ignored' in parsed);
});

input('PUT body: every field optional; absent and null stay distinguishable', () => {
  const parsed = BlackoutUpdateSchema.parse({ resource: null, text: 'x' });
  assert.ok('resource' in parsed && parsed.resource === null);
  assert.not.ok('event' in parsed);
  assert.equal(
    messages(() => BlackoutUpdateSchema.parse({ environment: '' })),
    ['environment can not be an empty string'],
  );
});

input('customer assignment (alert-lifecycle.md §3)', () => {
  assert.is(assignCustomer(undefined, null), null);
  assert.is(assignCustomer('any', null), 'any');
  assert.is(assignCustomer(undefined, ['acme']), 'acme');
  assert.is(assignCustomer('zeta', ['acme', 'zeta']), 'zeta');
  assert.is(assignCustomer(null, []), null);
  for (const [wanted, customers, message] of [
    ['zeta', ['acme'], "not allowed to set customer to 'zeta'"],
    [undefined, ['acme', 'zeta'], 'must define customer as more than one possibility'],
  ] as const) {
    try {
      assignCustomer(wanted, customers);
      assert.unreachable();
    } catch (err) {
      assert.instance(err, AppError);
      assert.equal([(err as AppError).status, (err as AppError).message], [400, message]);
    }
  }
});

input.run();
