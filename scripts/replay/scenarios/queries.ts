/** Searching: filters, `q`, sorting, paging, fields, counts and the derived lists. */
import type { Scenario, Step } from '../types.ts';
import { ago, alert, get, post, query } from './common.ts';

export const queries: Scenario = {
  name: 'queries',
  title: 'filters, q syntax, sort, paging, fields, count, environments, services, groups, tags, history',
  steps: (run) => {
    const tag = ['tag', `q-${run}`] as [string, string];
    const byResource = ['sort-by', 'resource'] as [string, string];
    const make = (n: number, fields: Record<string, unknown>, name = `create-${n}`): Step =>
      post(name, '/alert', {
        ...alert(run, { resource: `${run}-q${n}`, event: 'DiskFull', tags: [`q-${run}`, `n${n}`] }),
        ...fields,
      });
    return [
      make(1, { severity: 'critical', service: ['Db'], group: 'Storage', text: 'disk full on /var' }),
      make(2, { severity: 'major', environment: 'Development', attributes: { region: 'eu' } }),
      make(3, { severity: 'minor', event: 'CpuHigh', group: 'Compute', value: '97%' }),
      make(4, { severity: 'warning', service: ['Db', 'Web'], attributes: { region: 'us' } }),
      make(5, { severity: 'major', event: 'CpuHigh', text: 'load 12 for 5 minutes' }),
      make(4, { severity: 'warning', service: ['Db', 'Web'] }, 'duplicate-4'),
      get('list', `/alerts${query(tag, byResource)}`),
      get('equal', `/alerts${query(tag, ['severity', 'major'], byResource)}`),
      get('any-of', `/alerts${query(tag, ['severity', 'major'], ['severity', 'minor'], byResource)}`),
      get('substring', `/alerts${query(tag, ['text', '~DISK'], byResource)}`),
      get('not', `/alerts${query(tag, ['event!', 'DiskFull'], byResource)}`),
      get('service', `/alerts${query(tag, ['service', 'Db'], byResource)}`),
      get('attribute', `/alerts${query(tag, ['attributes.region', 'eu'])}`),
      get('environment', `/alerts${query(tag, ['environment', 'Development'])}`),
      get('q-field', `/alerts${query(['q', `resource:${run}-q1 OR resource:${run}-q3`], byResource)}`),
      get('q-and', `/alerts${query(tag, ['q', 'event:CpuHigh AND severity:major'])}`),
      get('q-phrase', `/alerts${query(tag, ['q', 'text:"disk full"'])}`),
      get('q-wildcard', `/alerts${query(tag, ['q', 'event:Cpu*'], byResource)}`),
      get('q-not', `/alerts${query(tag, ['q', 'NOT event:CpuHigh'], byResource)}`),
      get('q-default-field', `/alerts${query(tag, ['q', 'load'])}`),
      get('sort-severity', `/alerts${query(tag, ['sort-by', 'severity'], byResource)}`),
      get('sort-desc', `/alerts${query(tag, ['sort-by', '-resource'])}`),
      get('sort-two', `/alerts${query(tag, ['sort-by', 'event'], ['sort-by', '-resource'])}`),
      get('page-2', `/alerts${query(tag, byResource, ['page', 2], ['page-size', 2])}`),
      get('page-last', `/alerts${query(tag, byResource, ['page', 3], ['page-size', 2])}`),
      get('page-past', `/alerts${query(tag, byResource, ['page', 4], ['page-size', 2])}`),
      get('limit', `/alerts${query(tag, byResource, ['limit', 1])}`),
      get(
        'raw-and-history',
        `/alerts${query(tag, byResource, ['show-raw-data', 'true'], ['show-history', 'true'])}`,
      ),
      get('none', `/alerts${query(tag, ['resource', 'no-such-resource'])}`),
      get('count', `/alerts/count${query(tag)}`),
      get('count-filtered', `/alerts/count${query(tag, ['environment', 'Production'])}`),
      get('environments', `/environments${query(tag)}`),
      get('services', `/services${query(tag)}`),
      get('groups', `/alerts/groups${query(tag)}`),
      get('tags', `/alerts/tags${query(tag)}`),
      post('history-new', '/alert', () =>
        alert(run, { resource: `${run}-h1`, event: 'Latency', severity: 'minor', createTime: ago(50) }),
      ),
      post('history-up', '/alert', () =>
        alert(run, { resource: `${run}-h1`, event: 'Latency', severity: 'major', createTime: ago(40) }),
      ),
      post('history-down', '/alert', () =>
        alert(run, { resource: `${run}-h1`, event: 'Latency', severity: 'warning', createTime: ago(30) }),
      ),
      get('history', `/alerts/history${query(['resource', `${run}-h1`])}`),
      get('history-page', `/alerts/history${query(['resource', `${run}-h1`], ['page-size', 2])}`),
    ];
  },
};
