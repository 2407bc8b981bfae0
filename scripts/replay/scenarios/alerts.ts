/** One alert's life: receipt, duplicate, correlation, severity, every action, notes, tags, attributes, delete. */
import type { Scenario } from '../types.ts';
import { alert, del, get, post, put } from './common.ts';

export const alerts: Scenario = {
  name: 'alerts',
  title: 'create, duplicate, correlate, severity, actions, custom action, notes, tags, attributes, delete',
  steps: (run) => {
    const web = alert(run, {
      resource: `${run}-web01`,
      event: 'HttpError',
      correlate: ['HttpError', 'HttpSlow'],
      group: 'Web',
      value: '500',
      text: 'HTTP 500 on /',
      attributes: { region: 'eu-west', runbook: 'https://wiki.example.com/http' },
      type: 'exceptionAlert',
      timeout: 3600,
      rawData: 'GET / 500',
    });
    return [
      post('new', '/alert', web, { save: { alert: 'id' } }),
      post('duplicate', '/alert', { ...web, value: '501' }),
      post('correlate', '/alert', { ...web, event: 'HttpSlow', severity: 'minor', value: '2.5s' }),
      post('more-severe', '/alert', { ...web, event: 'HttpSlow', severity: 'critical' }),
      get('get', '/alert/{alert}'),
      put('ack', '/alert/{alert}/action', { action: 'ack', text: 'looking' }),
      put('ack-again', '/alert/{alert}/action', { action: 'ack' }),
      put('unack', '/alert/{alert}/action', { action: 'unack', text: 'not mine' }),
      put('shelve', '/alert/{alert}/action', { action: 'shelve', text: 'later', timeout: 600 }),
      put('unshelve', '/alert/{alert}/action', { action: 'unshelve' }),
      put('custom-action', '/alert/{alert}/action', { action: 'createTicket', text: 'INC-1' }),
      put('custom-no-text', '/alert/{alert}/action', { action: 'escalate' }),
      put('close', '/alert/{alert}/action', { action: 'close', text: 'fixed' }),
      put('status', '/alert/{alert}/status', { status: 'open', text: 'again' }),
      put('note', '/alert/{alert}/note', { text: 'restarted nginx' }, { save: { note: 'id' } }),
      get('notes', '/alert/{alert}/notes'),
      put('note-edit', '/alert/{alert}/note/{note}', { text: 'restarted nginx twice' }),
      del('note-delete', '/alert/{alert}/note/{note}'),
      get('notes-after', '/alert/{alert}/notes'),
      put('tag', '/alert/{alert}/tag', { tags: ['edge', 'eu'] }),
      put('untag', '/alert/{alert}/untag', { tags: ['edge'] }),
      put('attributes', '/alert/{alert}/attributes', {
        attributes: { owner: 'web-team', runbook: null },
      }),
      get('get-after', '/alert/{alert}'),
      post('ok', '/alert', { ...web, severity: 'normal' }),
      get('closed', '/alert/{alert}'),
      del('delete', '/alert/{alert}'),
      get('deleted', '/alert/{alert}'),
      del('delete-again', '/alert/{alert}'),
    ];
  },
};
