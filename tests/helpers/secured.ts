/**
 * The app under test with authentication required: its settings, requests as an API key, and the
 * checks on its answers that the auth, key and notification tests share (an error body, a status
 * with the body it brings, no secret anywhere in what is sent back).
 */
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { Answer, Api } from './api.ts';

/** Settings of an app that requires authentication, admin@example.com its admin; `extra` wins. */
export const securedSettings = (label: string, secretKey: string, extra: Record<string, string> = {}) => ({
  TEST_LABEL: label,
  AUTH_REQUIRED: 'True',
  SECRET_KEY: secretKey,
  ADMIN_USERS: 'admin@example.com',
  ...extra,
});

/** The Authorization header that sends API key `key`. */
export const keyAuth = (key: string) => ({ Authorization: `Key ${key}` });

/** The Authorization header that sends `user` and `password` as Basic credentials. */
export const basicAuth = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A request as the API key `opts.key` (anonymous without one); `opts.headers` are sent after it. */
export const callAs = (
  api: Api,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> =>
  api.call(method, path, opts.body, { headers: { ...(opts.key ? keyAuth(opts.key) : {}), ...opts.headers } });

/** An error answer: its status, the same code in its body and, when given, its message. */
export function assertError(a: Pick<Answer, 'status' | 'body'>, status: number, message?: string): void {
  assert.is(a.status, status, JSON.stringify(a.body));
  const body = ErrorBodySchema.parse(a.body);
  assert.is(body.code, status);
  if (message !== undefined) assert.is(body.message, message);
}

/** The body of an answer that came with `status`. */
export async function ok(a: Promise<Answer>, status = 200): Promise<Record<string, unknown>> {
  const answer = await a;
  assert.is(answer.status, status, JSON.stringify(answer.body));
  return answer.body;
}

/** The JSON body of a fetch Response that came with `status`. */
export async function okResponse(res: Response, status = 200): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, status, JSON.stringify(body));
  return body;
}

/**
 * A request whose answer, read as text, matches none of `leaks` (what each one catches by name),
 * returned with that text.
 */
export async function callUnleaked(
  api: Api,
  leaks: Record<string, RegExp>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer & { text: string }> {
  const res = await api.request(method, path, body, { headers });
  const text = await res.text();
  for (const [what, pattern] of Object.entries(leaks)) assert.not.match(text, pattern, `${what} leaked`);
  return {
    status: res.status,
    body: JSON.parse(text) as Record<string, unknown>,
    text,
    headers: res.headers,
  };
}
