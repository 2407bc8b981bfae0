import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import type { Api } from './api.ts';

export interface Posted {
  status: number;
  body: { status: string; id: string; alert: Alert; message?: string; errors?: string[]; code?: number };
}

/** Posts an alert with the fields the default plugins insist on (environment, service) unless given. */
export async function postAlert(
  api: Api,
  fields: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<Posted> {
  const res = await api.post(
    '/alert',
    { environment: 'Production', service: ['web'], ...fields },
    { headers },
  );
  return { status: res.status, body: (await res.json()) as Posted['body'] };
}

/** Posts and asserts 201; returns the alert. */
export async function createAlert(api: Api, fields: Record<string, unknown>): Promise<Alert> {
  const r = await postAlert(api, fields);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body.alert;
}

export async function getAlert(api: Api, id: string): Promise<Alert> {
  const res = await api.get(`/alert/${id}`);
  assert.is(res.status, 200);
  return ((await res.json()) as { alert: Alert }).alert;
}

/** PUT helper returning status and parsed body. */
export async function put(
  api: Api,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await api.put(path, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
