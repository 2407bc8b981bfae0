/**
 * The alarm model: severities, statuses and the state machine (../shared/reference/alarm-model.md).
 * Pure functions only; selected by ALARM_MODEL and shaped by SEVERITY_MAP, COLOR_MAP and the
 * DEFAULT_*_SEVERITY settings.
 */

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
