import { appError } from '../../errors.ts';

/** How long one call to an identity provider may take before the login fails with 503. */
export const PROVIDER_TIMEOUT_MS = 10_000;

export interface ProviderAnswer {
  status: number;
  ok: boolean;
  /** The parsed JSON body; null when the body was not JSON. */
  json: unknown;
}

/**
 * One HTTP call to an identity provider. Network failures and timeouts become 503, so a login
 * never hangs on a provider that is down and never answers 500.
 */
export async function callProvider(url: string, init: RequestInit = {}): Promise<ProviderAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: { Accept: 'application/json', ...init.headers },
      redirect: 'error',
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch {
    throw appError('provider_unreachable', url);
  }
  const text = await res.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, ok: res.ok, json };
}

/** A JSON object from the provider, or 502: the provider answered something we cannot read. */
export function objectFrom(answer: ProviderAnswer, what: string): Record<string, unknown> {
  const body = answer.json;
  if (!answer.ok) {
    const code = isObject(body) && typeof body.error === 'string' ? body.error : `HTTP ${answer.status}`;
    throw appError('provider_refused', what, safeText(code));
  }
  if (!isObject(body)) throw appError('provider_not_json', what);
  return body;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Provider error codes are short words (RFC 6749 §5.2); anything else is cut down before it is shown. */
export const safeText = (s: string) => s.replace(/[^\w .:-]/g, '').slice(0, 80);

/** Text a provider sent, fit to store: no NUL bytes (Postgres refuses them), trimmed, bounded. */
export function cleanText(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).replaceAll('\u0000', '').trim().slice(0, 1000);
  return s || null;
}

/** A claim holding names: a list of strings, or one string (some providers send one role bare). */
export function namesIn(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return [...new Set(list.map(cleanText).filter((s): s is string => s !== null))];
}
