/** Bad input and refused requests: the status and body of each error. */
import type { Scenario } from '../types.ts';
import { alert, del, get, post, put, query } from './common.ts';

export const badInput: Scenario = {
  name: 'bad-input',
  title:
    'missing and wrong fields, bad JSON, content type, filters, sort, q, paging, ids, routes, credentials',
  steps: (run) => [
    post('target', '/alert', alert(run, { resource: `${run}-bad`, event: 'Target' }), {
      save: { alert: 'id' },
    }),
    post('no-resource', '/alert', { event: 'NoResource', environment: 'Production' }),
    post('no-event', '/alert', { resource: `${run}-bad`, environment: 'Production' }),
    post(
      'unknown-severity',
      '/alert',
      alert(run, { resource: `${run}-bad`, event: 'X', severity: 'apocalyptic' }),
    ),
    post('tags-not-list', '/alert', alert(run, { resource: `${run}-bad`, event: 'X', tags: 'one' })),
    post(
      'bad-environment',
      '/alert',
      alert(run, { resource: `${run}-bad`, event: 'X', environment: 'Staging' }),
    ),
    post('bad-json', '/alert', undefined, { raw: { text: '{"resource": ', type: 'application/json' } }),
    post('not-json', '/alert', undefined, { raw: { text: 'resource=x', type: 'text/plain' } }),
    post('bad-date', '/alert', alert(run, { resource: `${run}-bad`, event: 'X', createTime: 'yesterday' })),
    get('bad-filter', `/alerts${query(['colour', 'red'])}`),
    get('bad-sort', `/alerts${query(['sort-by', 'colour'])}`),
    get('bad-q', `/alerts${query(['q', 'resource:(a OR'])}`),
    get('bad-page', `/alerts${query(['page', 0])}`),
    get('bad-from-date', `/alerts${query(['from-date', 'last week'])}`),
    get('unknown-alert', '/alert/00000000-0000-4000-8000-000000000000'),
    put('status-missing', '/alert/{alert}/status', { text: 'no status' }),
    put('status-unknown', '/alert/{alert}/status', { status: 'asleep' }),
    put('action-missing', '/alert/{alert}/action', { text: 'no action' }),
    put('tag-missing', '/alert/{alert}/tag', {}),
    put('attributes-missing', '/alert/{alert}/attributes', {}),
    put('note-missing', '/alert/{alert}/note', {}),
    put('unknown-note', '/alert/{alert}/note/00000000-0000-4000-8000-000000000000', { text: 'x' }),
    get('unknown-route', '/no/such/route'),
    del('wrong-method', '/alerts'),
    get('no-credentials', `/alerts/count${query(['tag', run])}`, { anonymous: true }),
    get('bad-key', `/alerts/count${query(['tag', run])}`, {
      anonymous: true,
      headers: { Authorization: 'Key not-a-key-of-this-server' },
    }),
    del('cleanup', '/alert/{alert}'),
  ],
};
