/** Heartbeats: create, refresh, the ok / slow / expired states, the heartbeat alert, delete. */
import type { Scenario } from '../types.ts';
import { ago, del, get, post, query } from './common.ts';

export const heartbeats: Scenario = {
  name: 'heartbeats',
  title: 'create, refresh, ok, slow and expired states, heartbeat alerts, delete',
  steps: (run) => [
    post(
      'create',
      '/heartbeat',
      { origin: `${run}/short`, tags: [run], timeout: 1 },
      { save: { short: 'id' } },
    ),
    post('refresh', '/heartbeat', { origin: `${run}/short`, tags: [run, 'again'], timeout: 1 }),
    post(
      'slow',
      '/heartbeat',
      () => ({ origin: `${run}/slow`, tags: [run], timeout: 600, createTime: ago(10) }),
      { save: { slow: 'id' } },
    ),
    post(
      'ok',
      '/heartbeat',
      { origin: `${run}/ok`, tags: [run], timeout: 600, attributes: { site: 'eu' } },
      { save: { ok: 'id' } },
    ),
    get('get', '/heartbeat/{ok}'),
    get('expired', '/heartbeat/{short}', { waitMs: 2500 }),
    get('list', `/heartbeats${query(['tag', run], ['sort-by', 'origin'])}`),
    get('list-expired', `/heartbeats${query(['tag', run], ['status', 'expired'])}`),
    get('list-slow', `/heartbeats${query(['tag', run], ['status', 'slow'])}`),
    post('as-alert', '/alert', {
      resource: `${run}/alert-hb`,
      event: 'Heartbeat',
      environment: 'Production',
      service: ['Web'],
      origin: `${run}/alert-hb`,
      tags: [run],
      timeout: 600,
    }),
    get('from-alert', `/heartbeats${query(['origin', `${run}/alert-hb`])}`, {
      save: { fromAlert: 'heartbeats.0.id' },
    }),
    post('bad-timeout', '/heartbeat', { origin: `${run}/bad`, timeout: 'soon' }),
    del('delete', '/heartbeat/{short}'),
    del('delete-slow', '/heartbeat/{slow}'),
    del('delete-ok', '/heartbeat/{ok}'),
    del('delete-from-alert', '/heartbeat/{fromAlert}'),
    get('deleted', '/heartbeat/{short}'),
  ],
};
