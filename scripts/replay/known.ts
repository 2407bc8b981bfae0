/** The known-differences file: differences that stay on purpose, each with its reason. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { pathPattern } from './compare.ts';
import type { Difference, KnownDifference } from './types.ts';

const KnownFileSchema = z.array(
  z.object({ scenario: z.string().min(1), path: z.string().min(1), reason: z.string().min(1) }).strict(),
);

/** The default list, committed beside the harness. */
export const DEFAULT_KNOWN_FILE = new URL('./known.json', import.meta.url).pathname;

/** Reads and checks a known-differences file; a bad file is an error naming the entry. */
export function readKnown(file: string): KnownDifference[] {
  const parsed = KnownFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(
      `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export interface KnownMatcher {
  /** The entry that explains this difference of this scenario, if any. */
  explain(scenario: string, d: Difference): KnownDifference | undefined;
}

export function knownMatcher(entries: KnownDifference[]): KnownMatcher {
  const compiled = entries.map((e) => ({ e, scenario: pathPattern(e.scenario), path: pathPattern(e.path) }));
  return {
    explain: (scenario, d) => compiled.find((c) => c.scenario.test(scenario) && c.path.test(d.path))?.e,
  };
}
