/** Bulk operations over a selection: status, action (a task), tag, untag, attributes, delete. */
import type { Scenario } from '../types.ts';
import { alert, del, get, post, put, query } from './common.ts';

export const bulk: Scenario = {
  name: 'bulk',
  title: 'bulk status, action task, tag, untag, attributes, delete, an empty selection',
  steps: (run) => {
    const tag = ['tag', `b-${run}`] as [string, string];
    const sel = query(tag);
    // The ids a bulk answer lists come in the database's order, which follows the random ids.
    const set = { unordered: ['updated', 'result.updated', 'deleted'] };
    const make = (n: number) =>
      post(
        `create-${n}`,
        '/alert',
        alert(run, { resource: `${run}-b${n}`, event: 'Bulk', tags: [`b-${run}`] }),
      );
    return [
      make(1),
      make(2),
      make(3),
      put('status', `/_bulk/alerts/status${sel}`, { status: 'ack', text: 'all of them' }, set),
      put(
        'action',
        `/_bulk/alerts/action${sel}`,
        { action: 'unack', text: 'not yet' },
        { save: { task: 'id' } },
      ),
      get('task', '/_bulk/task/{task}', { waitMs: 1500, ...set }),
      put('tag', `/_bulk/alerts/tag${sel}`, { tags: ['batch'] }, set),
      put('untag', `/_bulk/alerts/untag${sel}`, { tags: ['batch'] }, set),
      put('attributes', `/_bulk/alerts/attributes${sel}`, { attributes: { wave: '1' } }, set),
      get('after', `/alerts${query(tag, ['sort-by', 'resource'])}`),
      put('none', `/_bulk/alerts/status${query(['tag', `none-${run}`])}`, { status: 'ack' }),
      put('tag-missing', `/_bulk/alerts/tag${sel}`, {}),
      del('delete', `/_bulk/alerts${sel}`, set),
      get('deleted', `/alerts/count${sel}`),
    ];
  },
};
