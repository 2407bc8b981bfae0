/** Small builders the scenarios share. */
import type { Step } from '../types.ts';

/** An ISO time `seconds` before the moment the step is sent. */
export const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

/** A query string from pairs (repeated names allowed), each value encoded. */
export const query = (...pairs: [string, string | number][]) =>
  `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;

/** An alert as monitoring sends it: Production, one service, the run's tag. */
export const alert = (run: string, fields: Record<string, unknown>) => ({
  environment: 'Production',
  service: ['Web'],
  severity: 'major',
  origin: 'replay',
  tags: [run],
  ...fields,
});

export const get = (name: string, path: string, more: Partial<Step> = {}): Step => ({
  name,
  method: 'GET',
  path,
  ...more,
});
export const post = (name: string, path: string, body?: unknown, more: Partial<Step> = {}): Step => ({
  name,
  method: 'POST',
  path,
  body,
  ...more,
});
export const put = (name: string, path: string, body?: unknown, more: Partial<Step> = {}): Step => ({
  name,
  method: 'PUT',
  path,
  body,
  ...more,
});
export const del = (name: string, path: string, more: Partial<Step> = {}): Step => ({
  name,
  method: 'DELETE',
  path,
  ...more,
});
