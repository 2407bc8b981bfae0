/** The top-N reports: count, flapping, standing, their size and grouping. */
import type { Scenario } from '../types.ts';
import { ago, alert, get, post, query } from './common.ts';

export const reports: Scenario = {
  name: 'reports',
  title: 'top10 and topn count, flapping, standing; size, group-by, paging',
  steps: (run) => {
    const tag = ['tag', `r-${run}`] as [string, string];
    const receive = (name: string, resource: string, event: string, severity: string, fields: object) =>
      post(name, '/alert', () =>
        alert(run, { resource: `${run}-${resource}`, event, severity, tags: [`r-${run}`], ...fields }),
      );
    const hourAgo = () => ({ createTime: ago(3600) });
    const lists = ['top10[*].resources', 'top10[*].services', 'top10[*].environments'];
    return [
      receive('outage-1', 'r1', 'Outage', 'major', { service: ['Web'], ...hourAgo() }),
      receive('outage-1-up', 'r1', 'Outage', 'critical', { service: ['Web'], ...hourAgo() }),
      receive('outage-1-down', 'r1', 'Outage', 'major', { service: ['Web'], ...hourAgo() }),
      receive('outage-1-up-again', 'r1', 'Outage', 'critical', { service: ['Web'], ...hourAgo() }),
      receive('outage-2', 'r2', 'Outage', 'major', { service: ['Web', 'Db'], ...hourAgo() }),
      receive('outage-2-duplicate', 'r2', 'Outage', 'major', { service: ['Web', 'Db'], ...hourAgo() }),
      receive('slow', 'r3', 'Slow', 'minor', { service: ['Api'], createTime: ago(60) }),
      receive('slow-up', 'r3', 'Slow', 'major', { service: ['Api'], createTime: ago(60) }),
      receive('quiet', 'r4', 'Quiet', 'warning', { service: ['Web', 'Api'], createTime: ago(60) }),
      get('count', `/alerts/top10/count${query(tag)}`, { unordered: lists }),
      get('topn-count', `/alerts/topn/count${query(tag)}`, { unordered: lists }),
      get('topn-size', `/alerts/topn/count${query(tag, ['topn', 1])}`, { unordered: lists }),
      get('page-size', `/alerts/topn/count${query(tag, ['page-size', 1])}`, { unordered: lists }),
      get('top10-page-size', `/alerts/top10/count${query(tag, ['page-size', 2])}`, { unordered: lists }),
      get('group-by', `/alerts/top10/count${query(tag, ['group-by', 'resource'])}`, {
        unordered: ['top10', ...lists],
      }),
      get('flapping', `/alerts/top10/flapping${query(tag)}`, { unordered: lists }),
      get('standing', `/alerts/top10/standing${query(tag)}`, { unordered: lists }),
      get('topn-standing', `/alerts/topn/standing${query(tag, ['page-size', 1])}`, { unordered: lists }),
      get('page-2', `/alerts/top10/count${query(tag, ['page', 2])}`),
      get('none', `/alerts/top10/count${query(['tag', `none-${run}`])}`),
    ];
  },
};
