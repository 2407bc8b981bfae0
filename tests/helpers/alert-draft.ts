import type { AlertDraft } from '../../server/domain/alert-types.ts';

/**
 * An alert as the receive pipeline sees it before it is stored: a major open exceptionAlert for
 * web01/NodeDown in Production, with every field set; a test overrides what it is about.
 */
export const alertDraft = (over: Partial<AlertDraft> = {}): AlertDraft => ({
  id: crypto.randomUUID(),
  resource: 'web01',
  event: 'NodeDown',
  environment: 'Production',
  severity: 'major',
  correlate: [],
  status: 'open',
  service: ['web'],
  group: 'Misc',
  value: null,
  text: '',
  tags: [],
  attributes: {},
  origin: 'test/origin',
  type: 'exceptionAlert',
  createTime: Date.now(),
  timeout: 86400,
  rawData: null,
  customer: null,
  ...over,
});
