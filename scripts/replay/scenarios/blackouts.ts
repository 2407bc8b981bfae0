/** Blackouts: create, read, list, suppress a matching alert (202), update, delete. */
import type { Scenario } from '../types.ts';
import { alert, del, get, post, put, query } from './common.ts';

export const blackouts: Scenario = {
  name: 'blackouts',
  title: 'create, get, list, suppression 202, pending, update, delete',
  steps: (run) => {
    const resource = `${run}-maint`;
    const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();
    return [
      post(
        'create',
        '/blackout',
        { environment: 'Production', resource, duration: 3600, text: 'patching' },
        { save: { blackout: 'id' } },
      ),
      get('get', '/blackout/{blackout}'),
      get('list', `/blackouts${query(['resource', resource])}`),
      post('suppressed', '/alert', alert(run, { resource, event: 'Reboot' })),
      get('not-stored', `/alerts${query(['resource', resource])}`),
      post(
        'pending',
        '/blackout',
        () => ({ environment: 'Production', resource: `${run}-later`, startTime: tomorrow(), duration: 600 }),
        { save: { pending: 'id' } },
      ),
      get('pending-get', '/blackout/{pending}'),
      post('not-yet', '/alert', alert(run, { resource: `${run}-later`, event: 'Reboot' })),
      get('active-only', `/blackouts${query(['resource', resource], ['status', 'active'])}`),
      put('update', '/blackout/{blackout}', { text: 'patching, longer', duration: 7200 }),
      put('update-nothing', '/blackout/{blackout}', {}),
      del('delete', '/blackout/{blackout}'),
      del('delete-pending', '/blackout/{pending}'),
      get('deleted', '/blackout/{blackout}'),
      post('after', '/alert', alert(run, { resource, event: 'Reboot' })),
      post('no-environment', '/blackout', { resource }),
    ];
  },
};
