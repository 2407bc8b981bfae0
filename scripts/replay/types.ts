/** The shapes the replay harness (scripts/replay.ts) works with. */

/** A side's values captured from earlier answers (`save`), and `run`, the same on both sides. */
export type Vars = Record<string, string>;

export interface Step {
  /** Names the step in differences (`<step>.status`, `<step>.body.alert.severity`); unique in a scenario. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under the API base; each `{name}` is replaced by that side's value of `name`. */
  path: string;
  /** A JSON body (`{name}` replaced in its strings), or one built from the side's values at send time. */
  body?: unknown;
  /** A body sent as it is, with its content type (forms, text, broken JSON). */
  raw?: { text: string; type: string };
  headers?: Record<string, string>;
  /** Sent without the side's key. */
  anonymous?: boolean;
  /** Values to keep from this side's answer: name → dotted path into the body (`alert.id`, `ids.0`). */
  save?: Record<string, string>;
  /** `values` (default): status, shape and values; `shape`: status, keys and types only. */
  compare?: 'values' | 'shape';
  /** Paths (as in differences, after the step name) whose lists may come in any order. */
  unordered?: string[];
  /** Milliseconds to wait before sending (timeouts that must pass). */
  waitMs?: number;
}

/** A step whose body needs the side's values or the time it is sent. */
export type BodyFn = (vars: Vars) => unknown;

export interface Scenario {
  /** What `--only` and the known-differences file name. */
  name: string;
  /** What it covers, one line, printed with its result. */
  title: string;
  /** The steps for one run; `run` is the run's unique prefix for names. */
  steps: (run: string) => Step[];
}

/** One answer as compared: the HTTP status, media type, Location header and body, normalised. */
export interface Answer {
  status: number | string;
  type: string;
  location?: string;
  body: unknown;
}

export interface Difference {
  /** `<step>.status`, `<step>.body.alerts[0].severity`, … */
  path: string;
  a: unknown;
  b: unknown;
}

/** A difference that stays on purpose: `path` may use `*` (within one segment) and `**` (anything). */
export interface KnownDifference {
  scenario: string;
  path: string;
  /** Why, naming the docs/compatibility.md bullet that explains it. */
  reason: string;
}

/** Marks a value absent on one side. */
export const ABSENT = '(absent)';
