/** Runs scenarios against two servers, step by step, and compares what each answers. */
import { compareAnswers, pathPattern } from './compare.ts';
import { MissingVar, pick, send, type RawAnswer, type Side } from './http.ts';
import type { KnownMatcher } from './known.ts';
import { Normaliser } from './normalise.ts';
import type { Answer, Difference, KnownDifference, Scenario, Step, Vars } from './types.ts';

export interface StepResult {
  step: string;
  request: string;
  a: Answer;
  b: Answer;
}

export interface Found extends Difference {
  /** The entry of the known list that explains it; absent for a new difference. */
  known?: KnownDifference;
}

export interface ScenarioResult {
  name: string;
  title: string;
  steps: StepResult[];
  differences: Found[];
}

async function sendStep(
  side: Side,
  step: Step,
  vars: Vars,
  declared: Set<string>,
  normaliser: Normaliser,
): Promise<RawAnswer> {
  try {
    const raw = await send(side, step, vars, declared);
    for (const [name, path] of Object.entries(step.save ?? {})) {
      const v = pick(raw.body, path);
      if (v === undefined) continue;
      vars[name] = v;
      normaliser.name(v, name);
    }
    return raw;
  } catch (e) {
    if (e instanceof MissingVar) return { status: `not sent: ${e.message}`, type: '', body: null };
    throw e;
  }
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Sends every step of `scenario` to both sides (each step to both at once) and compares the answers. */
export async function runScenario(
  scenario: Scenario,
  run: string,
  sides: [Side, Side],
  known: KnownMatcher,
): Promise<ScenarioResult> {
  const steps = scenario.steps(run);
  const names = new Set<string>();
  for (const s of steps) {
    if (names.has(s.name)) throw new Error(`scenario ${scenario.name}: step name ${s.name} used twice`);
    names.add(s.name);
  }
  const declared = new Set(['run', ...steps.flatMap((s) => Object.keys(s.save ?? {}))]);
  const vars: [Vars, Vars] = [{ run }, { run }];
  const normalisers = sides.map((s) => new Normaliser(s.base)) as [Normaliser, Normaliser];
  const result: ScenarioResult = { name: scenario.name, title: scenario.title, steps: [], differences: [] };
  for (const step of steps) {
    if (step.waitMs) await sleep(step.waitMs);
    const [rawA, rawB] = await Promise.all([
      sendStep(sides[0], step, vars[0], declared, normalisers[0]),
      sendStep(sides[1], step, vars[1], declared, normalisers[1]),
    ]);
    const a = normalisers[0].answer(rawA);
    const b = normalisers[1].answer(rawB);
    result.steps.push({ step: step.name, request: `${step.method} ${step.path}`, a, b });
    const found = compareAnswers(step.name, a, b, {
      mode: step.compare ?? 'values',
      unordered: (step.unordered ?? []).map((p) => pathPattern(`${step.name}.body.${p}`)),
    });
    for (const d of found) result.differences.push({ ...d, known: known.explain(scenario.name, d) });
  }
  return result;
}
