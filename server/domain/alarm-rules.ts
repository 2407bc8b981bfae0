// The alarm model's state machines (docs/alerts.md, "The alarm model") as rule tables:
// the default (Alerta) model and ISA 18.2. alarm-model.ts turns the settings into a model around them.

export type Trend = 'moreSevere' | 'lessSevere' | 'noChange';

export interface TransitionInput {
  /** The incoming severity (receive) or the stored one (actions). */
  severity: string;
  /** Receive path: the submitted status (default the model's default status). Omit on actions. */
  incomingStatus?: string;
  /** prevSev of alarm-model.md §3: stored severity on correlate, stored previousSeverity on actions, else the default previous severity. */
  previousSeverity?: string;
  /** S: current status; null for a new alert. */
  current: string | null;
  /** P: previous status (see §3); the model's default status when unknown. */
  previous?: string | null;
  /** The operator action, if any: open, assign, ack, unack, shelve, unshelve, close, expired, timeout, or a custom name. */
  action?: string;
}

export interface TransitionResult {
  severity: string;
  status: string;
}

/** Thrown for an action the current state does not allow; answered with 409 and this message. */
export class InvalidActionError extends Error {}

/** The transition inputs with every default applied (alarm-model.md §3). */
export interface Step {
  sev: string;
  prevSev: string;
  incoming: string;
  current: string;
  previous: string;
  action: string | undefined;
}

/** What a rule table needs to know about the model it runs in. */
export interface Core {
  defaultStatus: string;
  normalSeverity: string;
  previousSeverity: string;
  isNormal(severity: string): boolean;
  trend(previous: string, current: string): Trend;
}

type Machine = (step: Step, core: Core) => TransitionResult;
type Rule = (step: Step, core: Core) => TransitionResult | undefined;

/** A model before the settings are applied. */
export interface ModelDefinition {
  name: string;
  severity: Readonly<Record<string, number>>;
  /** Default colour per severity name; may name colour-only entries (ISA `Unknown`). */
  severityColors: Readonly<Record<string, string>>;
  /** Colour for a severity of SEVERITY_MAP that has no default colour. */
  fallbackColor: string;
  statusColors: Readonly<Record<string, string>>;
  textColor: string;
  status: Readonly<Record<string, string>>;
  defaultStatus: string;
  normalSeverity: string;
  informSeverity: string;
  previousSeverity: string;
  blackoutStatus: string;
  /** ISA: a higher code is more severe; Alerta: a lower code is. */
  higherIsWorse: boolean;
  machine: Machine;
}

/** The actions the state machines know; anything else is a custom action (ACT-1). */
export const STANDARD_ACTIONS: ReadonlySet<string> = new Set([
  'open',
  'assign',
  'ack',
  'unack',
  'shelve',
  'unshelve',
  'close',
  'expired',
  'timeout',
]);

const isCustomAction = (action: string | undefined): boolean =>
  action !== undefined && !STANDARD_ACTIONS.has(action);

const to = (severity: string, status: string): TransitionResult => ({ severity, status });

const alreadyIn = (status: string) => new InvalidActionError(`alert is already in ${status} status`);
const invalidFor = (status: string) => new InvalidActionError(`invalid action for current ${status} status`);

// ---------------------------------------------------------------------------------------------
// Default (Alerta) model: §1, §2, §4
// ---------------------------------------------------------------------------------------------

const NORMAL_COLOR = '#00CC00';

const ALERTA_SEVERITY_COLORS: Record<string, [code: number, color: string]> = {
  security: [0, 'blue'],
  critical: [1, 'red'],
  major: [2, 'orange'],
  minor: [3, 'yellow'],
  warning: [4, 'dodgerblue'],
  indeterminate: [5, 'lightblue'],
  informational: [6, NORMAL_COLOR],
  normal: [7, NORMAL_COLOR],
  ok: [7, NORMAL_COLOR],
  cleared: [7, NORMAL_COLOR],
  debug: [8, '#9D006D'],
  trace: [9, '#7554BF'],
  unknown: [10, 'silver'],
};

/** Rules checked before the current status matters: ACT-1, SET-1/SET-*, UNACK, UNSHL, EXP-0, timeout. */
const alertaPreamble: Rule = (s, m) => {
  if (isCustomAction(s.action)) return to(s.sev, s.current); // ACT-1
  if (s.action === undefined && s.incoming !== m.defaultStatus) {
    return m.isNormal(s.sev) ? to(m.normalSeverity, 'closed') : to(s.sev, s.incoming); // SET-1 / SET-*
  }
  switch (s.action) {
    case 'unack':
      if (s.current === 'ack') return to(s.sev, s.previous); // UNACK-1
      throw invalidFor(s.current);
    case 'unshelve':
      if (s.current === 'shelved') return to(s.sev, s.previous); // UNSHL-1
      throw invalidFor(s.current);
    case 'expired':
      return to(s.sev, 'expired'); // EXP-0
    case 'timeout':
      return to(s.sev, s.previous === 'ack' ? 'ack' : 'open'); // ACK-0 / OPEN-0
  }
  return undefined;
};

const alertaOpen: Rule = (s, m) => {
  switch (s.action) {
    case 'open':
      throw alreadyIn('open');
    case 'ack':
      return to(s.sev, 'ack'); // OPEN-1
    case 'shelve':
      return to(s.sev, 'shelved'); // OPEN-2
    case 'close':
      return to(m.normalSeverity, 'closed'); // OPEN-3
  }
  return undefined;
};

const alertaAck: Rule = (s, m) => {
  switch (s.action) {
    case 'open':
      return to(s.sev, 'open'); // ACK-1
    case 'ack':
      throw alreadyIn('ack');
    case 'shelve':
      return to(s.sev, 'shelved'); // ACK-2
    case 'close':
      return to(m.normalSeverity, 'closed'); // ACK-3
  }
  // ACK-4: re-open only on a real increase, not one measured from the default previous severity.
  if (s.prevSev !== m.previousSeverity && m.trend(s.prevSev, s.sev) === 'moreSevere') {
    return to(s.sev, 'open');
  }
  return undefined;
};

const alertaShelved: Rule = (s, m) => {
  switch (s.action) {
    case 'open':
      return to(s.sev, 'open'); // SHL-1
    case 'ack':
      throw invalidFor('shelved');
    case 'shelve':
      throw alreadyIn('shelved');
    case 'close':
      return to(m.normalSeverity, 'closed'); // SHL-2
  }
  return undefined;
};

const alertaBlackout: Rule = (s, m) => {
  if (s.action === 'close') return to(m.normalSeverity, 'closed'); // BLK-1
  if (s.previous !== 'blackout') return to(s.sev, s.previous); // BLK-2
  return to(s.sev, s.action === undefined ? s.incoming : s.current); // BLK-*
};

const alertaClosed: Rule = (s, m) => {
  switch (s.action) {
    case 'open':
      return to(s.prevSev, 'open'); // CLS-1
    case 'ack':
    case 'shelve':
      throw invalidFor('closed');
    case 'close':
      throw alreadyIn('closed');
  }
  if (m.isNormal(s.sev)) return undefined;
  return to(s.prevSev, s.previous === 'shelved' ? 'shelved' : 'open'); // CLS-2 / CLS-3
};

const ALERTA_BY_STATUS: ReadonlyMap<string, Rule> = new Map([
  ['open', alertaOpen],
  ['ack', alertaAck],
  ['shelved', alertaShelved],
  ['blackout', alertaBlackout],
  ['closed', alertaClosed],
]);

/** Rules after the per-status ones: CLS-*, the expired 409, EXP-1, ALL-*. */
const alertaTail = (s: Step, m: Core): TransitionResult => {
  if (m.isNormal(s.sev)) return to(m.normalSeverity, 'closed'); // CLS-*
  if (s.current === 'expired') {
    if (s.action !== undefined && s.action !== 'open') throw invalidFor('expired');
    return to(s.sev, 'open'); // EXP-1
  }
  return to(s.sev, s.current); // ALL-*
};

/** §4: first matching rule wins. */
const alertaMachine: Machine = (s, m) =>
  alertaPreamble(s, m) ?? ALERTA_BY_STATUS.get(s.current)?.(s, m) ?? alertaTail(s, m);

export const ALERTA: ModelDefinition = {
  name: 'Alerta',
  severity: Object.fromEntries(Object.entries(ALERTA_SEVERITY_COLORS).map(([n, [code]]) => [n, code])),
  severityColors: Object.fromEntries(
    Object.entries(ALERTA_SEVERITY_COLORS).map(([n, [, color]]) => [n, color]),
  ),
  fallbackColor: 'silver',
  statusColors: { ack: 'skyblue', shelved: 'skyblue' },
  textColor: 'black',
  status: {
    open: 'A',
    assign: 'B',
    ack: 'C',
    shelved: 'D',
    blackout: 'E',
    closed: 'F',
    expired: 'G',
    unknown: 'H',
  },
  defaultStatus: 'open',
  normalSeverity: 'normal',
  informSeverity: 'informational',
  previousSeverity: 'indeterminate',
  blackoutStatus: 'blackout',
  higherIsWorse: false,
  machine: alertaMachine,
};

// ---------------------------------------------------------------------------------------------
// ISA 18.2 model: §8 (rows numbered ISA-1 … ISA-13 in table order)
// ---------------------------------------------------------------------------------------------

/** ISA-4 … ISA-13: the rules that depend on the current status. */
function isaByStatus(s: Step, m: Core): TransitionResult | undefined {
  const ok = m.isNormal(s.sev);
  switch (s.current) {
    case 'NORM':
      if (!ok) return to(s.sev, 'UNACK'); // ISA-4
      break;
    case 'UNACK':
      if (s.action === 'ack') return to(s.sev, 'ACKED'); // ISA-5
      if (ok) return to(s.sev, 'RTNUN'); // ISA-9
      break;
    case 'ACKED':
      if (s.action === 'unack') return to(s.sev, 'UNACK'); // ISA-6
      if (s.prevSev !== m.previousSeverity && m.trend(s.prevSev, s.sev) === 'moreSevere') {
        return to(s.sev, 'UNACK'); // ISA-7
      }
      if (ok) return to(s.sev, 'NORM'); // ISA-8
      break;
    case 'RTNUN':
      if (s.action === 'ack') return to(s.sev, 'NORM'); // ISA-10
      if (!ok) return to(s.sev, 'UNACK'); // ISA-11
      break;
    case 'DSUPR':
    case 'OOSRV':
      return to(s.sev, ok ? 'NORM' : 'UNACK'); // ISA-12
  }
  return undefined;
}

/** §8: first matching rule wins; the severity is never changed. */
const isaMachine: Machine = (s, m) => {
  if (isCustomAction(s.action)) return to(s.sev, s.current); // ACT-1 (as in the default model)
  if (s.action === undefined && s.incoming !== m.defaultStatus) return to(s.sev, s.incoming); // ISA-1
  if (s.action === 'shelve') return to(s.sev, 'SHLVD'); // ISA-2
  if (s.action === 'unshelve') return to(s.sev, m.isNormal(s.sev) ? 'NORM' : 'UNACK'); // ISA-3
  return isaByStatus(s, m) ?? to(s.sev, s.current); // ISA-13
};

export const ISA_18_2: ModelDefinition = {
  name: 'ANSI/ISA 18.2',
  severity: { Critical: 5, High: 4, Medium: 3, Low: 2, Advisory: 1, OK: 0 },
  severityColors: {
    Critical: 'red',
    High: 'orange',
    Medium: 'yellow',
    Low: 'dodgerblue',
    Advisory: 'lightblue',
    OK: NORMAL_COLOR,
    Unknown: 'silver',
  },
  fallbackColor: 'silver',
  statusColors: { ACKED: 'skyblue', SHLVD: 'skyblue' },
  textColor: 'black',
  status: { NORM: 'A', UNACK: 'B', ACKED: 'C', RTNUN: 'D', SHLVD: 'E', DSUPR: 'F', OOSRV: 'G' },
  defaultStatus: 'NORM',
  normalSeverity: 'OK',
  informSeverity: 'Advisory',
  previousSeverity: 'OK',
  blackoutStatus: 'OOSRV',
  higherIsWorse: true,
  machine: isaMachine,
};
