/**
 * `npm run replay -- --a URL --b URL [--key-a K] [--key-b K] [--only NAME] [--report FILE] [--known FILE]`:
 * sends the same requests to two servers (an Alerta and ours, or two of ours) and lists every way
 * their answers differ, scenario by scenario (docs/switching.md, "Replaying the same requests
 * against both"). Point both at scratch servers with empty databases: the scenarios write alerts,
 * users, keys, blackouts and the rest, under names unique to the run.
 *
 *   --a, --b URL        the API base of each server (`http://localhost:8080/api`)
 *   --key-a, --key-b K  an API key of an administrator on each (omit when AUTH_REQUIRED is off)
 *   --only NAME         only these scenarios (comma-separated); `--list` prints their names
 *   --report FILE       also write every request's normalised answers and the differences as JSON
 *   --known FILE        the differences that stay on purpose (default scripts/replay/known.json)
 *
 * Exit 0 when every difference is in the known list, 1 when one is not, 2 on a usage error.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Side } from './replay/http.ts';
import { DEFAULT_KNOWN_FILE, knownMatcher, readKnown } from './replay/known.ts';
import { runScenario, type ScenarioResult } from './replay/run.ts';
import { SCENARIOS } from './replay/scenarios/index.ts';

const USAGE =
  'usage: npm run replay -- --a URL --b URL [--key-a K] [--key-b K] [--only NAME,…] [--report FILE] [--known FILE] [--list]';

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      'key-a': { type: 'string' },
      'key-b': { type: 'string' },
      only: { type: 'string', multiple: true },
      report: { type: 'string' },
      known: { type: 'string', default: DEFAULT_KNOWN_FILE },
      list: { type: 'boolean', default: false },
    },
  });
} catch (e) {
  usage((e as Error).message);
}
const { values } = parsed;

if (values.list) {
  for (const s of SCENARIOS) console.log(`${s.name.padEnd(14)} ${s.title}`);
  process.exit(0);
}

const base = (flag: string, url: string | undefined): string => {
  if (!url) usage(`--${flag} is required`);
  try {
    const u = new URL(url);
    if (!/^https?:$/.test(u.protocol)) throw new Error('not http');
  } catch {
    usage(`--${flag} must be an http(s) URL: ${url}`);
  }
  return url.replace(/\/+$/, '');
};
const sides: [Side, Side] = [
  { label: 'A', base: base('a', values.a), key: values['key-a'] },
  { label: 'B', base: base('b', values.b), key: values['key-b'] },
];

const only = (values.only ?? []).flatMap((o) => o.split(',')).filter(Boolean);
const unknownNames = only.filter((n) => !SCENARIOS.some((s) => s.name === n));
if (unknownNames.length)
  usage(`no scenario ${unknownNames.join(', ')}; scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}`);
const chosen = only.length ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;

let known;
try {
  known = readKnown(values.known);
} catch (e) {
  usage(`--known: ${(e as Error).message}`);
}
const matcher = knownMatcher(known);

/** Unique per run and short: resource names, logins and tags carry it, so runs never meet. */
const run = `rp${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const show = (v: unknown) => {
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

console.log(`replay ${run}: A ${sides[0].base}, B ${sides[1].base}`);
const results: ScenarioResult[] = [];
for (const scenario of chosen) {
  const r = await runScenario(scenario, run, sides, matcher);
  results.push(r);
  const fresh = r.differences.filter((d) => !d.known);
  const known = r.differences.length - fresh.length;
  const verdict = fresh.length ? count(fresh.length, 'difference') : 'OK';
  console.log(
    `${r.name.padEnd(14)} ${verdict}${known ? ` (${known} known)` : ''}, ${r.steps.length} requests: ${r.title}`,
  );
  for (const d of r.differences)
    console.log(
      `  ${d.known ? 'known' : 'DIFF '} ${d.path}: A ${show(d.a)} | B ${show(d.b)}${d.known ? ` (${d.known.reason})` : ''}`,
    );
}

const requests = results.reduce((n, r) => n + r.steps.length, 0);
const fresh = results.flatMap((r) => r.differences.filter((d) => !d.known));
const knownCount = results.reduce((n, r) => n + r.differences.filter((d) => d.known).length, 0);
const failing = results.filter((r) => r.differences.some((d) => !d.known)).length;
console.log(
  `summary: ${count(results.length, 'scenario')}, ${count(requests, 'request')}, ` +
    `${count(fresh.length, 'difference')} in ${count(failing, 'scenario')}, ${knownCount} known`,
);
if (values.report)
  writeFileSync(
    values.report,
    `${JSON.stringify({ run, a: sides[0].base, b: sides[1].base, results }, null, 2)}\n`,
  );
process.exit(fresh.length ? 1 : 0);
