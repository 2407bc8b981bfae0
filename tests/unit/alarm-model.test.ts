import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../server/config.ts';
import {
  createAlarmModel,
  InvalidActionError,
  type AlarmModel,
  type AlarmSettings,
  type TransitionInput,
} from '../../server/domain/alarm-model.ts';

/** Compile-time check: the server's Config can be passed to createAlarmModel. */
const _configIsAlarmSettings = (config: Config): AlarmSettings => config;

const DEFAULTS: AlarmSettings = {
  ALARM_MODEL: 'ALERTA',
  SEVERITY_MAP: {},
  COLOR_MAP: {},
  DEFAULT_NORMAL_SEVERITY: null,
  DEFAULT_INFORM_SEVERITY: null,
  DEFAULT_PREVIOUS_SEVERITY: null,
};
const modelWith = (overrides: Partial<AlarmSettings> = {}) => createAlarmModel({ ...DEFAULTS, ...overrides });
const alerta = modelWith();
const isa = modelWith({ ALARM_MODEL: 'ISA_18_2' });

/** `status`, `status [severity]` or `409 <message>`, the notation of alarm-model.md §6. */
type Outcome = string;

/** Runs one transition and renders it as an Outcome, always naming the resulting severity. */
function outcome(model: AlarmModel, input: TransitionInput): string {
  try {
    const { severity, status } = model.transition(input);
    return `${status} [${severity}]`;
  } catch (err) {
    if (err instanceof InvalidActionError) return `409 ${err.message}`;
    throw err;
  }
}

/** The Outcome written in full: a status without a bracket keeps the input severity. */
function expand(expected: Outcome, severity: string): string {
  return expected.startsWith('409 ') || expected.includes('[') ? expected : `${expected} [${severity}]`;
}

function expectOutcome(model: AlarmModel, input: TransitionInput, expected: Outcome) {
  assert.is(outcome(model, input), expand(expected, input.severity));
}

interface Row {
  name: string;
  input: TransitionInput;
  expected: Outcome;
}

// ---------------------------------------------------------------------------------------------
// §4: one test per rule row, in table order
// ---------------------------------------------------------------------------------------------

const rules = suite('alarm-model §4 transition rules (default model)');

const RULE_ROWS: Row[] = [
  {
    name: 'ACT-1 a custom action leaves severity and status unchanged',
    input: { severity: 'major', current: 'ack', previous: 'open', action: 'escalate' },
    expected: 'ack',
  },
  {
    name: 'ACT-1 a custom action does not auto-close a normal alert',
    input: { severity: 'normal', current: 'open', action: 'notify-team' },
    expected: 'open',
  },
  {
    name: 'SET-1 an explicit status with a normal-level severity closes with the normal severity',
    input: { severity: 'ok', incomingStatus: 'blackout', current: 'open' },
    expected: 'closed [normal]',
  },
  {
    name: 'SET-* an explicit incoming status is kept',
    input: { severity: 'major', incomingStatus: 'blackout', current: 'open' },
    expected: 'blackout',
  },
  {
    name: 'SET-* an explicit status wins over the current state',
    input: { severity: 'minor', incomingStatus: 'ack', current: 'closed', previous: 'shelved' },
    expected: 'ack',
  },
  {
    name: 'UNACK-1 unack restores the previous status',
    input: { severity: 'major', current: 'ack', previous: 'shelved', action: 'unack' },
    expected: 'shelved',
  },
  {
    name: '409 unack outside ack',
    input: { severity: 'major', current: 'open', action: 'unack' },
    expected: '409 invalid action for current open status',
  },
  {
    name: 'UNSHL-1 unshelve restores the previous status',
    input: { severity: 'major', current: 'shelved', previous: 'ack', action: 'unshelve' },
    expected: 'ack',
  },
  {
    name: '409 unshelve outside shelved',
    input: { severity: 'major', current: 'ack', action: 'unshelve' },
    expected: '409 invalid action for current ack status',
  },
  {
    name: 'EXP-0 expired from any state',
    input: { severity: 'normal', current: 'closed', action: 'expired' },
    expected: 'expired',
  },
  {
    name: 'ACK-0 timeout returns to ack when the previous status was ack',
    input: { severity: 'major', current: 'shelved', previous: 'ack', action: 'timeout' },
    expected: 'ack',
  },
  {
    name: 'OPEN-0 timeout otherwise opens',
    input: { severity: 'major', current: 'ack', previous: 'open', action: 'timeout' },
    expected: 'open',
  },
  {
    name: '409 open an open alert',
    input: { severity: 'major', current: 'open', action: 'open' },
    expected: '409 alert is already in open status',
  },
  {
    name: 'OPEN-1 ack an open alert',
    input: { severity: 'major', current: 'open', action: 'ack' },
    expected: 'ack',
  },
  {
    name: 'OPEN-2 shelve an open alert',
    input: { severity: 'major', current: 'open', action: 'shelve' },
    expected: 'shelved',
  },
  {
    name: 'OPEN-3 close an open alert writes the normal severity',
    input: { severity: 'major', current: 'open', action: 'close' },
    expected: 'closed [normal]',
  },
  {
    name: 'ACK-1 open an acked alert',
    input: { severity: 'major', current: 'ack', action: 'open' },
    expected: 'open',
  },
  {
    name: '409 ack an acked alert',
    input: { severity: 'major', current: 'ack', action: 'ack' },
    expected: '409 alert is already in ack status',
  },
  {
    name: 'ACK-2 shelve an acked alert',
    input: { severity: 'major', current: 'ack', action: 'shelve' },
    expected: 'shelved',
  },
  {
    name: 'ACK-3 close an acked alert writes the normal severity',
    input: { severity: 'major', current: 'ack', action: 'close' },
    expected: 'closed [normal]',
  },
  {
    name: 'ACK-4 re-opens on a real severity increase',
    input: { severity: 'critical', previousSeverity: 'minor', current: 'ack' },
    expected: 'open',
  },
  {
    name: 'ACK-4 does not apply when the previous severity is the default (indeterminate)',
    input: { severity: 'critical', previousSeverity: 'indeterminate', current: 'ack' },
    expected: 'ack',
  },
  {
    name: 'ACK-4 does not apply when the severity decreases',
    input: { severity: 'minor', previousSeverity: 'critical', current: 'ack' },
    expected: 'ack',
  },
  {
    name: 'SHL-1 open a shelved alert',
    input: { severity: 'major', current: 'shelved', action: 'open' },
    expected: 'open',
  },
  {
    name: '409 ack a shelved alert',
    input: { severity: 'major', current: 'shelved', action: 'ack' },
    expected: '409 invalid action for current shelved status',
  },
  {
    name: '409 shelve a shelved alert',
    input: { severity: 'major', current: 'shelved', action: 'shelve' },
    expected: '409 alert is already in shelved status',
  },
  {
    name: 'SHL-2 close a shelved alert writes the normal severity',
    input: { severity: 'major', current: 'shelved', action: 'close' },
    expected: 'closed [normal]',
  },
  {
    name: 'BLK-1 close a blackout alert writes the normal severity',
    input: { severity: 'major', current: 'blackout', previous: 'blackout', action: 'close' },
    expected: 'closed [normal]',
  },
  {
    name: 'BLK-2 after a blackout the status before it returns',
    input: { severity: 'major', current: 'blackout', previous: 'ack' },
    expected: 'ack',
  },
  {
    name: 'BLK-2 is checked before the normal-level close',
    input: { severity: 'ok', current: 'blackout', previous: 'shelved' },
    expected: 'shelved',
  },
  {
    name: 'BLK-* with a blackout previous status, a receive takes the incoming status',
    input: { severity: 'major', incomingStatus: 'open', current: 'blackout', previous: 'blackout' },
    expected: 'open',
  },
  {
    name: 'BLK-* with a blackout previous status, an action keeps the stored status',
    input: { severity: 'major', current: 'blackout', previous: 'blackout', action: 'ack' },
    expected: 'blackout',
  },
  {
    name: 'CLS-1 open a closed alert restores the previous severity',
    input: { severity: 'normal', previousSeverity: 'major', current: 'closed', action: 'open' },
    expected: 'open [major]',
  },
  {
    name: '409 ack a closed alert',
    input: { severity: 'normal', current: 'closed', action: 'ack' },
    expected: '409 invalid action for current closed status',
  },
  {
    name: '409 shelve a closed alert',
    input: { severity: 'normal', current: 'closed', action: 'shelve' },
    expected: '409 invalid action for current closed status',
  },
  {
    name: '409 close a closed alert',
    input: { severity: 'normal', current: 'closed', action: 'close' },
    expected: '409 alert is already in closed status',
  },
  {
    name: 'CLS-2 a re-raised alert that was shelved goes back to shelved',
    input: { severity: 'major', previousSeverity: 'normal', current: 'closed', previous: 'shelved' },
    expected: 'shelved [normal]',
  },
  {
    name: 'CLS-3 a re-raised closed alert opens',
    input: { severity: 'major', previousSeverity: 'normal', current: 'closed', previous: 'ack' },
    expected: 'open [normal]',
  },
  {
    name: 'CLS-* a normal-level severity closes from any state',
    input: { severity: 'cleared', previousSeverity: 'major', current: 'ack' },
    expected: 'closed [normal]',
  },
  {
    name: 'CLS-* also for a remaining action (assign)',
    input: { severity: 'ok', current: 'assign', action: 'assign' },
    expected: 'closed [normal]',
  },
  {
    name: '409 any action but open on an expired alert',
    input: { severity: 'major', current: 'expired', action: 'shelve' },
    expected: '409 invalid action for current expired status',
  },
  {
    name: 'EXP-1 a non-normal expired alert re-opens',
    input: { severity: 'major', current: 'expired' },
    expected: 'open',
  },
  {
    name: 'ALL-* otherwise unchanged',
    input: { severity: 'major', current: 'assign', action: 'ack' },
    expected: 'assign',
  },
  {
    name: 'ALL-* a new non-normal alert is open',
    input: { severity: 'informational', current: null, previous: null },
    expected: 'open',
  },
];

for (const row of RULE_ROWS) rules(row.name, () => expectOutcome(alerta, row.input, row.expected));

rules.run();

// ---------------------------------------------------------------------------------------------
// §5: receive × current state
// ---------------------------------------------------------------------------------------------

const receive = suite('alarm-model §5 receive by current state (default model)');

/** The stored severity for every row; each column sends a different incoming severity. */
const STORED = 'minor';
const RECEIVE_COLUMNS = {
  normal: (sev: string) => ({ severity: sev, previousSeverity: STORED }),
  dup: () => ({ severity: STORED }), // duplicate path: prevSev treated as the default
  worse: () => ({ severity: 'critical', previousSeverity: STORED }),
  less: () => ({ severity: 'warning', previousSeverity: STORED }),
};
type Column = keyof typeof RECEIVE_COLUMNS;

const RECEIVE_MATRIX: {
  current: string | null;
  previous: string;
  cells: Partial<Record<Column, Outcome>>;
}[] = [
  { current: null, previous: 'open', cells: { normal: 'closed', worse: 'open', less: 'open' } },
  {
    current: 'open',
    previous: 'open',
    cells: { normal: 'closed', dup: 'open', worse: 'open', less: 'open' },
  },
  {
    current: 'assign',
    previous: 'open',
    cells: { normal: 'closed', dup: 'assign', worse: 'assign', less: 'assign' },
  },
  { current: 'ack', previous: 'open', cells: { normal: 'closed', dup: 'ack', worse: 'open', less: 'ack' } },
  {
    current: 'shelved',
    previous: 'open',
    cells: { normal: 'closed', dup: 'shelved', worse: 'shelved', less: 'shelved' },
  },
  { current: 'blackout', previous: 'ack', cells: { normal: 'ack', dup: 'ack', worse: 'ack', less: 'ack' } },
  {
    current: 'blackout',
    previous: 'open', // created in blackout: no older history entry
    cells: { normal: 'open', dup: 'open', worse: 'open', less: 'open' },
  },
  {
    current: 'closed',
    previous: 'open',
    cells: { normal: 'closed', dup: 'open', worse: 'open', less: 'open' },
  },
  {
    current: 'closed',
    previous: 'shelved',
    cells: { normal: 'closed', dup: 'shelved', worse: 'shelved', less: 'shelved' },
  },
  {
    current: 'expired',
    previous: 'open',
    cells: { normal: 'closed', dup: 'open', worse: 'open', less: 'open' },
  },
];

for (const { current, previous, cells } of RECEIVE_MATRIX) {
  for (const [column, expected] of Object.entries(cells) as [Column, Outcome][]) {
    const normals = column === 'normal' ? ['normal', 'ok', 'cleared'] : [''];
    for (const sev of normals) {
      const label = column === 'normal' ? `normal (${sev})` : column;
      receive(`S=${current ?? 'new'} P=${previous}, incoming ${label} → ${expected}`, () => {
        const input: TransitionInput = {
          ...RECEIVE_COLUMNS[column](sev),
          incomingStatus: 'open',
          current,
          previous,
        };
        const { status } = alerta.transition(input); // only the status matters on receive (§3)
        assert.is(status, expected);
      });
    }
  }
}

receive('ACK-4 exception: an acked alert whose stored severity was indeterminate stays ack', () => {
  const input = { severity: 'critical', previousSeverity: 'indeterminate', current: 'ack', previous: 'open' };
  assert.is(alerta.transition(input).status, 'ack');
});

receive('CLS-* returns the normal severity (the caller stores the incoming one)', () => {
  assert.equal(alerta.transition({ severity: 'ok', current: 'open' }), {
    severity: 'normal',
    status: 'closed',
  });
});

receive('an omitted incoming status is the default status', () => {
  assert.is(alerta.transition({ severity: 'major', current: 'assign' }).status, 'assign');
});

receive(
  'during an active blackout the plugin-set status is kept (SET-*) or closed when normal (SET-1)',
  () => {
    assert.is(
      alerta.transition({ severity: 'major', incomingStatus: 'blackout', current: 'ack' }).status,
      'blackout',
    );
    assert.is(
      alerta.transition({ severity: 'ok', incomingStatus: 'blackout', current: 'ack' }).status,
      'closed',
    );
  },
);

receive.run();

// ---------------------------------------------------------------------------------------------
// §6: action × current state
// ---------------------------------------------------------------------------------------------

const actions = suite('alarm-model §6 operator actions by current state (default model)');

const ACTIONS = [
  'open',
  'ack',
  'unack',
  'shelve',
  'unshelve',
  'close',
  'assign',
  'expired',
  'timeout',
] as const;
type ActionName = (typeof ACTIONS)[number];

interface ActionRow {
  current: string;
  previous: string;
  severity: string;
  previousSeverity: string;
  cells: Record<ActionName, Outcome>;
}

const invalid = (s: string) => `409 invalid action for current ${s} status`;
const already = (s: string) => `409 alert is already in ${s} status`;

const ACTION_MATRIX: ActionRow[] = [
  {
    current: 'open',
    previous: 'ack',
    severity: 'major',
    previousSeverity: 'minor',
    cells: {
      open: already('open'),
      ack: 'ack',
      unack: invalid('open'),
      shelve: 'shelved',
      unshelve: invalid('open'),
      close: 'closed [normal]',
      assign: 'open',
      expired: 'expired',
      timeout: 'ack',
    },
  },
  {
    current: 'assign',
    previous: 'open',
    severity: 'major',
    previousSeverity: 'minor',
    cells: {
      open: 'assign',
      ack: 'assign',
      unack: invalid('assign'),
      shelve: 'assign',
      unshelve: invalid('assign'),
      close: 'assign', // Alerta 9.x does not close a non-normal assigned alert
      assign: 'assign',
      expired: 'expired',
      timeout: 'open',
    },
  },
  {
    current: 'ack',
    previous: 'shelved',
    severity: 'major',
    previousSeverity: 'indeterminate',
    cells: {
      open: 'open',
      ack: already('ack'),
      unack: 'shelved',
      shelve: 'shelved',
      unshelve: invalid('ack'),
      close: 'closed [normal]',
      assign: 'ack',
      expired: 'expired',
      timeout: 'open',
    },
  },
  {
    current: 'shelved',
    previous: 'ack',
    severity: 'major',
    previousSeverity: 'indeterminate',
    cells: {
      open: 'open',
      ack: invalid('shelved'),
      unack: invalid('shelved'),
      shelve: already('shelved'),
      unshelve: 'ack',
      close: 'closed [normal]',
      assign: 'shelved',
      expired: 'expired',
      timeout: 'ack',
    },
  },
  {
    current: 'blackout',
    previous: 'ack',
    severity: 'major',
    previousSeverity: 'indeterminate',
    cells: {
      open: 'ack',
      ack: 'ack',
      unack: invalid('blackout'),
      shelve: 'ack',
      unshelve: invalid('blackout'),
      close: 'closed [normal]',
      assign: 'ack',
      expired: 'expired',
      timeout: 'ack',
    },
  },
  {
    current: 'blackout',
    previous: 'blackout',
    severity: 'major',
    previousSeverity: 'indeterminate',
    cells: {
      open: 'blackout',
      ack: 'blackout',
      unack: invalid('blackout'),
      shelve: 'blackout',
      unshelve: invalid('blackout'),
      close: 'closed [normal]',
      assign: 'blackout',
      expired: 'expired',
      timeout: 'open',
    },
  },
  {
    current: 'closed', // closed alerts normally carry the normal severity (footnote ²)
    previous: 'open',
    severity: 'normal',
    previousSeverity: 'major',
    cells: {
      open: 'open [major]',
      ack: invalid('closed'),
      unack: invalid('closed'),
      shelve: invalid('closed'),
      unshelve: invalid('closed'),
      close: already('closed'),
      assign: 'closed',
      expired: 'expired',
      timeout: 'open',
    },
  },
  {
    current: 'expired',
    previous: 'open',
    severity: 'major',
    previousSeverity: 'indeterminate',
    cells: {
      open: 'open',
      ack: invalid('expired'),
      unack: invalid('expired'),
      shelve: invalid('expired'),
      unshelve: invalid('expired'),
      close: invalid('expired'),
      assign: invalid('expired'),
      expired: 'expired',
      timeout: 'open',
    },
  },
];

for (const { current, previous, severity, previousSeverity, cells } of ACTION_MATRIX) {
  for (const action of ACTIONS) {
    const expected = cells[action];
    actions(`S=${current} P=${previous} sev=${severity}, ${action} → ${expected}`, () =>
      expectOutcome(alerta, { severity, previousSeverity, current, previous, action }, expected),
    );
  }
  actions(`S=${current}: a custom action changes nothing`, () =>
    expectOutcome(alerta, { severity, previousSeverity, current, previous, action: 'runbook' }, current),
  );
}

const ACTION_EXTRAS: Row[] = [
  {
    name: 'assign row: close closes when the severity is normal-level',
    input: { severity: 'ok', current: 'assign', action: 'close' },
    expected: 'closed [normal]',
  },
  {
    name: 'ack row: assign re-opens via ACK-4 on a real increase',
    input: { severity: 'critical', previousSeverity: 'minor', current: 'ack', action: 'assign' },
    expected: 'open',
  },
  {
    name: 'expired row: open closes when the severity is normal-level',
    input: { severity: 'normal', current: 'expired', action: 'open' },
    expected: 'closed [normal]',
  },
  {
    name: 'closed row: assign on a non-normal closed alert re-opens (CLS-3)',
    input: { severity: 'major', previousSeverity: 'minor', current: 'closed', action: 'assign' },
    expected: 'open [minor]',
  },
  {
    name: 'OPEN-1 precedes CLS-*: ack on an open normal-level alert keeps its severity',
    input: { severity: 'ok', current: 'open', action: 'ack' },
    expected: 'ack',
  },
  {
    name: 'an empty action string counts as no action',
    input: { severity: 'major', current: 'expired', action: '' },
    expected: 'open',
  },
];

for (const row of ACTION_EXTRAS) actions(row.name, () => expectOutcome(alerta, row.input, row.expected));

actions.run();

// ---------------------------------------------------------------------------------------------
// §1, §2: tables, trend, rank, messages
// ---------------------------------------------------------------------------------------------

const tables = suite('alarm-model §1–§2 tables (default model)');

tables('severity codes, colours and named defaults', () => {
  assert.is(alerta.name, 'Alerta');
  assert.equal(alerta.severity, {
    security: 0,
    critical: 1,
    major: 2,
    minor: 3,
    warning: 4,
    indeterminate: 5,
    informational: 6,
    normal: 7,
    ok: 7,
    cleared: 7,
    debug: 8,
    trace: 9,
    unknown: 10,
  });
  assert.equal(alerta.colors, {
    severity: {
      security: 'blue',
      critical: 'red',
      major: 'orange',
      minor: 'yellow',
      warning: 'dodgerblue',
      indeterminate: 'lightblue',
      informational: '#00CC00',
      normal: '#00CC00',
      ok: '#00CC00',
      cleared: '#00CC00',
      debug: '#9D006D',
      trace: '#7554BF',
      unknown: 'silver',
    },
    status: { ack: 'skyblue', shelved: 'skyblue' },
    text: 'black',
  });
  assert.is(alerta.normalSeverity, 'normal');
  assert.is(alerta.informSeverity, 'informational');
  assert.is(alerta.previousSeverity, 'indeterminate');
  assert.is(alerta.defaultStatus, 'open');
  assert.is(alerta.blackoutStatus, 'blackout');
});

tables('status sort keys', () => {
  assert.equal(alerta.status, {
    open: 'A',
    assign: 'B',
    ack: 'C',
    shelved: 'D',
    blackout: 'E',
    closed: 'F',
    expired: 'G',
    unknown: 'H',
  });
});

const TRENDS: [previous: string, current: string, trend: string][] = [
  ['indeterminate', 'major', 'moreSevere'],
  ['indeterminate', 'informational', 'lessSevere'],
  ['minor', 'critical', 'moreSevere'],
  ['critical', 'normal', 'lessSevere'],
  ['normal', 'ok', 'noChange'],
  ['major', 'major', 'noChange'],
  ['debug', 'security', 'moreSevere'],
  ['bogus', 'major', 'noChange'],
  ['major', 'bogus', 'noChange'],
];
for (const [previous, current, expected] of TRENDS) {
  tables(`trend ${previous} → ${current} is ${expected}`, () =>
    assert.is(alerta.trend(previous, current), expected),
  );
}

tables('normal-level means the code of the normal severity', () => {
  for (const name of ['normal', 'ok', 'cleared']) assert.ok(alerta.isNormal(name), name);
  for (const name of ['informational', 'debug', 'trace', 'unknown', 'indeterminate', 'bogus']) {
    assert.not.ok(alerta.isNormal(name), name);
  }
});

tables('isSeverity and the unknown-severity message (ordered by code)', () => {
  assert.ok(alerta.isSeverity('cleared'));
  assert.not.ok(alerta.isSeverity('Critical'));
  assert.not.ok(alerta.isSeverity('constructor'));
  assert.is(
    alerta.unknownSeverityMessage('bogus'),
    'Severity (bogus) is not one of security, critical, major, minor, warning, indeterminate, ' +
      'informational, normal, ok, cleared, debug, trace, unknown',
  );
});

tables('severityRank: smaller is more severe, unknown names last', () => {
  const names = ['unknown', 'bogus', 'ok', 'critical', 'security', 'warning'];
  const sorted = [...names].sort((a, b) => alerta.severityRank(a) - alerta.severityRank(b));
  assert.equal(sorted, ['security', 'critical', 'warning', 'ok', 'unknown', 'bogus']);
  assert.is(alerta.severityRank('normal'), alerta.severityRank('cleared'));
});

tables.run();

// ---------------------------------------------------------------------------------------------
// Settings: SEVERITY_MAP, COLOR_MAP, DEFAULT_*_SEVERITY and the startup check
// ---------------------------------------------------------------------------------------------

const settings = suite('alarm-model settings');

const custom = modelWith({
  SEVERITY_MAP: { fatal: 0, critical: 1, warning: 2, fine: 3, chatter: 4 },
  DEFAULT_NORMAL_SEVERITY: 'fine',
  DEFAULT_PREVIOUS_SEVERITY: 'warning',
  DEFAULT_INFORM_SEVERITY: 'chatter',
});

settings('SEVERITY_MAP replaces the severity table', () => {
  assert.equal(custom.severity, { fatal: 0, critical: 1, warning: 2, fine: 3, chatter: 4 });
  assert.not.ok(custom.isSeverity('major'));
  assert.is(
    custom.unknownSeverityMessage('major'),
    'Severity (major) is not one of fatal, critical, warning, fine, chatter',
  );
  assert.is(custom.normalSeverity, 'fine');
  assert.is(custom.previousSeverity, 'warning');
  assert.is(custom.informSeverity, 'chatter');
});

settings('SEVERITY_MAP colours: known names keep theirs, new names fall back to silver', () => {
  assert.equal(custom.colors.severity, {
    fatal: 'silver',
    critical: 'red',
    warning: 'dodgerblue',
    fine: 'silver',
    chatter: 'silver',
  });
  assert.equal(custom.colors.status, { ack: 'skyblue', shelved: 'skyblue' });
  assert.is(custom.colors.text, 'black');
});

settings('the overridden defaults drive the state machine', () => {
  expectOutcome(custom, { severity: 'critical', current: 'open', action: 'close' }, 'closed [fine]');
  expectOutcome(custom, { severity: 'fine', current: 'ack' }, 'closed [fine]');
  // ACK-4 compares against DEFAULT_PREVIOUS_SEVERITY, here 'warning'
  expectOutcome(custom, { severity: 'fatal', previousSeverity: 'warning', current: 'ack' }, 'ack');
  expectOutcome(custom, { severity: 'fatal', previousSeverity: 'critical', current: 'ack' }, 'open');
  assert.is(custom.trend('chatter', 'fatal'), 'moreSevere');
});

settings('DEFAULT_NORMAL_SEVERITY moves the normal level', () => {
  const model = modelWith({ DEFAULT_NORMAL_SEVERITY: 'informational' });
  assert.ok(model.isNormal('informational'));
  assert.not.ok(model.isNormal('normal'));
  expectOutcome(model, { severity: 'informational', current: 'open' }, 'closed');
  expectOutcome(model, { severity: 'ok', current: 'open' }, 'open');
  expectOutcome(model, { severity: 'major', current: 'ack', action: 'close' }, 'closed [informational]');
});

settings('DEFAULT_NORMAL_SEVERITY ok keeps the same normal level but close writes ok', () => {
  const model = modelWith({ DEFAULT_NORMAL_SEVERITY: 'ok' });
  assert.ok(model.isNormal('cleared'));
  expectOutcome(model, { severity: 'major', current: 'open', action: 'close' }, 'closed [ok]');
});

settings('COLOR_MAP severity colours merge over the defaults', () => {
  const model = modelWith({ COLOR_MAP: { severity: { critical: 'purple', fatal: 'black' } } });
  const colors = model.colors.severity as Record<string, string>;
  assert.is(colors.critical, 'purple');
  assert.is(colors.fatal, 'black');
  assert.is(colors.major, 'orange');
  assert.equal(model.colors.status, { ack: 'skyblue', shelved: 'skyblue' });
  assert.is(model.colors.text, 'black');
});

settings('COLOR_MAP text, status and extra keys override', () => {
  const model = modelWith({ COLOR_MAP: { text: 'white', status: { ack: 'green' }, highlight: 'pink' } });
  assert.is(model.colors.text, 'white');
  assert.equal(model.colors.status, { ack: 'green', shelved: 'skyblue' });
  assert.is(model.colors.highlight, 'pink');
  assert.is((model.colors.severity as Record<string, string>).critical, 'red');
});

settings('the settings object is not modified', () => {
  const input: AlarmSettings = {
    ...DEFAULTS,
    COLOR_MAP: Object.freeze({ severity: Object.freeze({ a: 'b' }) }),
  };
  const model = createAlarmModel(input);
  assert.equal(input.COLOR_MAP, { severity: { a: 'b' } });
  assert.is((model.colors.severity as Record<string, string>).a, 'b');
});

const BAD_DEFAULTS: [name: string, overrides: Partial<AlarmSettings>, pattern: RegExp][] = [
  [
    'an unknown normal severity',
    { DEFAULT_NORMAL_SEVERITY: 'fine' },
    /DEFAULT_NORMAL_SEVERITY: severity 'fine'/,
  ],
  [
    'an unknown previous severity',
    { DEFAULT_PREVIOUS_SEVERITY: 'meh' },
    /DEFAULT_PREVIOUS_SEVERITY: severity 'meh'/,
  ],
  [
    'a SEVERITY_MAP without the default normal',
    { SEVERITY_MAP: { bad: 0, good: 1 } },
    /DEFAULT_NORMAL_SEVERITY/,
  ],
  [
    'a SEVERITY_MAP without the default previous',
    { SEVERITY_MAP: { bad: 0, normal: 1 } },
    /DEFAULT_PREVIOUS_SEVERITY: severity 'indeterminate' is not in the severity map \(bad, normal\)/,
  ],
  [
    'ISA with an Alerta severity name',
    { ALARM_MODEL: 'ISA_18_2', DEFAULT_NORMAL_SEVERITY: 'normal' },
    /'normal'/,
  ],
];
for (const [name, overrides, pattern] of BAD_DEFAULTS) {
  settings(`startup check rejects ${name}`, () => {
    assert.throws(() => modelWith(overrides), pattern);
  });
}

settings('the inform severity is not checked at startup', () => {
  assert.is(modelWith({ DEFAULT_INFORM_SEVERITY: 'chatty' }).informSeverity, 'chatty');
});

settings.run();

// ---------------------------------------------------------------------------------------------
// §8: ISA 18.2
// ---------------------------------------------------------------------------------------------

const isaSuite = suite('alarm-model §8 ISA 18.2');

isaSuite('tables and defaults', () => {
  assert.is(isa.name, 'ANSI/ISA 18.2');
  assert.equal(isa.severity, { Critical: 5, High: 4, Medium: 3, Low: 2, Advisory: 1, OK: 0 });
  assert.equal(isa.colors.severity, {
    Critical: 'red',
    High: 'orange',
    Medium: 'yellow',
    Low: 'dodgerblue',
    Advisory: 'lightblue',
    OK: '#00CC00',
    Unknown: 'silver',
  });
  assert.is(isa.colors.text, 'black');
  assert.equal(isa.status, {
    NORM: 'A',
    UNACK: 'B',
    ACKED: 'C',
    RTNUN: 'D',
    SHLVD: 'E',
    DSUPR: 'F',
    OOSRV: 'G',
  });
  assert.is(isa.defaultStatus, 'NORM');
  assert.is(isa.normalSeverity, 'OK');
  assert.is(isa.previousSeverity, 'OK');
  assert.is(isa.informSeverity, 'Advisory');
  assert.is(isa.blackoutStatus, 'OOSRV');
});

isaSuite('higher code is more severe: trend, rank and message', () => {
  assert.is(isa.trend('Low', 'High'), 'moreSevere');
  assert.is(isa.trend('Critical', 'OK'), 'lessSevere');
  assert.is(isa.trend('Medium', 'Medium'), 'noChange');
  assert.is(isa.trend('OK', 'bogus'), 'noChange');
  const sorted = ['OK', 'bogus', 'Low', 'Critical', 'High'].sort(
    (a, b) => isa.severityRank(a) - isa.severityRank(b),
  );
  assert.equal(sorted, ['Critical', 'High', 'Low', 'OK', 'bogus']);
  assert.is(
    isa.unknownSeverityMessage('major'),
    'Severity (major) is not one of Critical, High, Medium, Low, Advisory, OK',
  );
  assert.ok(isa.isNormal('OK'));
  assert.not.ok(isa.isNormal('Advisory'));
});

const ISA_ROWS: Row[] = [
  {
    name: 'ISA-1 a non-default incoming status is kept (blackout plugin: OOSRV)',
    input: { severity: 'High', incomingStatus: 'OOSRV', current: 'ACKED' },
    expected: 'OOSRV',
  },
  {
    name: 'ISA-1 is kept even with severity OK',
    input: { severity: 'OK', incomingStatus: 'DSUPR', current: 'UNACK' },
    expected: 'DSUPR',
  },
  {
    name: 'ISA-2 shelve from any state',
    input: { severity: 'High', current: 'RTNUN', action: 'shelve' },
    expected: 'SHLVD',
  },
  {
    name: 'ISA-2 shelve a shelved alarm (no 409)',
    input: { severity: 'High', current: 'SHLVD', action: 'shelve' },
    expected: 'SHLVD',
  },
  {
    name: 'ISA-3 unshelve with severity OK → NORM',
    input: { severity: 'OK', current: 'SHLVD', action: 'unshelve' },
    expected: 'NORM',
  },
  {
    name: 'ISA-3 unshelve with severity not OK → UNACK',
    input: { severity: 'Low', current: 'SHLVD', action: 'unshelve' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-3 unshelve applies from any state',
    input: { severity: 'Low', current: 'ACKED', action: 'unshelve' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-4 NORM with an alarm severity → UNACK',
    input: { severity: 'Medium', current: 'NORM' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-4 a brand-new alarm → UNACK',
    input: { severity: 'Critical', current: null, previous: null },
    expected: 'UNACK',
  },
  {
    name: 'ISA-5 ack an unacknowledged alarm → ACKED',
    input: { severity: 'High', current: 'UNACK', action: 'ack' },
    expected: 'ACKED',
  },
  {
    name: 'ISA-6 unack an acknowledged alarm → UNACK',
    input: { severity: 'High', current: 'ACKED', action: 'unack' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-7 ACKED re-alarms when the severity increases',
    input: { severity: 'Critical', previousSeverity: 'Low', current: 'ACKED' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-7 not from the default previous severity (OK)',
    input: { severity: 'Critical', previousSeverity: 'OK', current: 'ACKED' },
    expected: 'ACKED',
  },
  {
    name: 'ISA-7 not when the severity decreases',
    input: { severity: 'Low', previousSeverity: 'Critical', current: 'ACKED' },
    expected: 'ACKED',
  },
  {
    name: 'ISA-8 ACKED returns to normal → NORM',
    input: { severity: 'OK', previousSeverity: 'High', current: 'ACKED' },
    expected: 'NORM',
  },
  {
    name: 'ISA-9 UNACK returns to normal → RTNUN',
    input: { severity: 'OK', previousSeverity: 'High', current: 'UNACK' },
    expected: 'RTNUN',
  },
  {
    name: 'ISA-10 ack a returned-to-normal alarm → NORM',
    input: { severity: 'OK', current: 'RTNUN', action: 'ack' },
    expected: 'NORM',
  },
  {
    name: 'ISA-11 RTNUN alarms again → UNACK',
    input: { severity: 'Medium', previousSeverity: 'OK', current: 'RTNUN' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-12 DSUPR with severity OK → NORM',
    input: { severity: 'OK', current: 'DSUPR' },
    expected: 'NORM',
  },
  {
    name: 'ISA-12 OOSRV with an alarm severity → UNACK',
    input: { severity: 'High', current: 'OOSRV' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-13 unchanged: a brand-new OK alert gets NORM',
    input: { severity: 'OK', current: null, previous: null },
    expected: 'NORM',
  },
  {
    name: 'ISA-13 unchanged: UNACK with an alarm severity',
    input: { severity: 'High', current: 'UNACK' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-13 unchanged: close leaves the status alone',
    input: { severity: 'High', current: 'ACKED', action: 'close' },
    expected: 'ACKED',
  },
  {
    name: 'ISA-13 unchanged: ack on NORM is not rejected',
    input: { severity: 'OK', current: 'NORM', action: 'ack' },
    expected: 'NORM',
  },
  {
    name: 'ISA-13 unchanged: unack outside ACKED is not rejected',
    input: { severity: 'High', current: 'UNACK', action: 'unack' },
    expected: 'UNACK',
  },
  {
    name: 'ISA-13 unchanged: shelved stays shelved on receive',
    input: { severity: 'Critical', previousSeverity: 'Low', current: 'SHLVD' },
    expected: 'SHLVD',
  },
  {
    name: 'ISA ACT-1 a custom action changes nothing',
    input: { severity: 'High', current: 'NORM', action: 'escalate' },
    expected: 'NORM',
  },
];

for (const row of ISA_ROWS) isaSuite(row.name, () => expectOutcome(isa, row.input, row.expected));

isaSuite('ISA never changes the severity, even on close', () => {
  assert.equal(isa.transition({ severity: 'High', current: 'UNACK', action: 'close' }), {
    severity: 'High',
    status: 'UNACK',
  });
});

isaSuite.run();
