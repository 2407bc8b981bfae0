/** Module loader hook for uvu-hooks.ts: see there. */
const BEFORE = 'for (hook of before) await hook(state);';
const REPORTED =
  "try { for (hook of before) await hook(state); } catch (err) { errors = format('(set-up: before hook)', err, name); throw err; }";

interface LoadResult {
  format?: string;
  source?: string | ArrayBuffer | Uint8Array;
  shortCircuit?: boolean;
}
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  const result = await nextLoad(url, context);
  if (!/\/uvu\/dist\/index\.(mjs|js)$/.test(url) || result.source === undefined) return result;
  const source = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
  if (!source.includes(BEFORE)) {
    // A newer uvu: say so instead of silently losing the report.
    console.error('tests/support/uvu-hooks: uvu changed; before-hook errors may go unreported');
    return result;
  }
  return { ...result, source: source.replace(BEFORE, REPORTED) };
}
