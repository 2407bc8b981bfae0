/**
 * The alarm model: severities, statuses and the state machine (docs/alerts.md, "The alarm model").
 * Pure functions only; selected by ALARM_MODEL and shaped by SEVERITY_MAP, COLOR_MAP and the
 * DEFAULT_*_SEVERITY settings.
 */

import {
  ALERTA,
  ISA_18_2,
  type Core,
  type ModelDefinition,
  type Trend,
  type TransitionInput,
  type TransitionResult,
} from './alarm-rules.ts';

export {
  InvalidActionError,
  STANDARD_ACTIONS,
  type Trend,
  type TransitionInput,
  type TransitionResult,
} from './alarm-rules.ts';

export interface AlarmModel {
  /** 'Alerta' or 'ANSI/ISA 18.2', as /config reports it. */
  readonly name: string;
  /** Severity name → code (after SEVERITY_MAP). */
  readonly severity: Readonly<Record<string, number>>;
  /** { severity: {...}, status: {...}, text } (after COLOR_MAP). */
  readonly colors: Readonly<Record<string, unknown>>;
  /** Status name → sort key letter. */
  readonly status: Readonly<Record<string, string>>;
  readonly defaultStatus: string;
  readonly normalSeverity: string;
  readonly informSeverity: string;
  readonly previousSeverity: string;
  /** Status names the blackout plugin sets ('blackout'; ISA 'OOSRV'). */
  readonly blackoutStatus: string;
  isSeverity(name: string): boolean;
  /** Message for an unknown severity: `Severity (x) is not one of a, b, …` (ordered by code). */
  unknownSeverityMessage(name: string): string;
  /** Ordering rank for "sort by severity": most severe first gives the smallest rank. */
  severityRank(name: string): number;
  isNormal(severity: string): boolean;
  trend(previous: string, current: string): Trend;
  transition(input: TransitionInput): TransitionResult;
}

/** The settings that select and shape the model; `Config` satisfies this structurally. */
export interface AlarmSettings {
  ALARM_MODEL: 'ALERTA' | 'ISA_18_2';
  SEVERITY_MAP: Readonly<Record<string, number>>;
  COLOR_MAP: Readonly<Record<string, unknown>>;
  DEFAULT_NORMAL_SEVERITY: string | null;
  DEFAULT_INFORM_SEVERITY: string | null;
  DEFAULT_PREVIOUS_SEVERITY: string | null;
}

// ---------------------------------------------------------------------------------------------
// Settings → model
// ---------------------------------------------------------------------------------------------

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Severity colours: one per severity (default or fallback), plus the model's colour-only names. */
function severityColors(def: ModelDefinition, severity: Readonly<Record<string, number>>) {
  const colors: Record<string, unknown> = {};
  for (const name of Object.keys(severity)) {
    colors[name] = Object.hasOwn(def.severityColors, name) ? def.severityColors[name] : def.fallbackColor;
  }
  for (const [name, color] of Object.entries(def.severityColors)) {
    if (!Object.hasOwn(def.severity, name)) colors[name] = color;
  }
  return colors;
}

/** COLOR_MAP over the defaults: sub-dicts (severity, status) merge, anything else replaces. */
function mergeColors(defaults: Record<string, unknown>, override: Readonly<Record<string, unknown>>) {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(override)) {
    const base = merged[key];
    merged[key] = isRecord(base) && isRecord(value) ? { ...base, ...value } : value;
  }
  return merged;
}

/** Startup check: a named default must be a severity of the map. */
function requireSeverity(setting: string, name: string, severity: Readonly<Record<string, number>>) {
  if (Object.hasOwn(severity, name)) return;
  throw new Error(
    `${setting}: severity '${name}' is not in the severity map (${Object.keys(severity).join(', ')}); ` +
      `set ${setting} to one of them or add it to SEVERITY_MAP`,
  );
}

/** Builds the model the settings select; throws Error with a clear message if the normal or previous default severity is not in the severity map. */
export function createAlarmModel(settings: AlarmSettings): AlarmModel {
  const def = settings.ALARM_MODEL === 'ISA_18_2' ? ISA_18_2 : ALERTA;
  const hasMap = Object.keys(settings.SEVERITY_MAP).length > 0;
  const severity: Readonly<Record<string, number>> = Object.freeze({
    ...(hasMap ? settings.SEVERITY_MAP : def.severity),
  });
  const normalSeverity = settings.DEFAULT_NORMAL_SEVERITY ?? def.normalSeverity;
  const previousSeverity = settings.DEFAULT_PREVIOUS_SEVERITY ?? def.previousSeverity;
  const informSeverity = settings.DEFAULT_INFORM_SEVERITY ?? def.informSeverity;
  requireSeverity('DEFAULT_NORMAL_SEVERITY', normalSeverity, severity);
  requireSeverity('DEFAULT_PREVIOUS_SEVERITY', previousSeverity, severity);

  const colors = Object.freeze(
    mergeColors(
      { severity: severityColors(def, severity), status: { ...def.statusColors }, text: def.textColor },
      settings.COLOR_MAP,
    ),
  );

  const codeOf = (name: string): number | undefined =>
    Object.hasOwn(severity, name) ? severity[name] : undefined;
  const codes = Object.values(severity);
  const worstCode = def.higherIsWorse ? Math.max(...codes) : Math.min(...codes);
  /** Distance from the most severe code: 0 = most severe. */
  const rankOf = (code: number) => Math.abs(code - worstCode);
  const normalCode = codeOf(normalSeverity);
  const byRank = Object.keys(severity).sort((a, b) => rankOf(severity[a]!) - rankOf(severity[b]!));

  const isSeverity = (name: string) => codeOf(name) !== undefined;
  const isNormal = (name: string) => codeOf(name) === normalCode;
  const severityRank = (name: string) => {
    const code = codeOf(name);
    return code === undefined ? Number.MAX_SAFE_INTEGER : rankOf(code);
  };
  /** §1 trend (ISA: previous code < current code is moreSevere); unknown names give noChange. */
  const trend = (previous: string, current: string): Trend => {
    if (!isSeverity(previous) || !isSeverity(current)) return 'noChange';
    const delta = severityRank(previous) - severityRank(current);
    return delta > 0 ? 'moreSevere' : delta < 0 ? 'lessSevere' : 'noChange';
  };

  const core: Core = { defaultStatus: def.defaultStatus, normalSeverity, previousSeverity, isNormal, trend };
  const transition = (input: TransitionInput): TransitionResult =>
    def.machine(
      {
        sev: input.severity,
        prevSev: input.previousSeverity ?? previousSeverity,
        incoming: input.incomingStatus ?? def.defaultStatus,
        current: input.current ?? def.defaultStatus,
        previous: input.previous ?? def.defaultStatus,
        action: input.action || undefined,
      },
      core,
    );

  return Object.freeze({
    name: def.name,
    severity,
    colors,
    status: Object.freeze({ ...def.status }),
    defaultStatus: def.defaultStatus,
    normalSeverity,
    informSeverity,
    previousSeverity,
    blackoutStatus: def.blackoutStatus,
    isSeverity,
    unknownSeverityMessage: (name: string) => `Severity (${name}) is not one of ${byRank.join(', ')}`,
    severityRank,
    isNormal,
    trend,
    transition,
  });
}
