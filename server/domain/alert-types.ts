import type { AlertRecord, SubmittedField } from './alert-fields.ts';

export type { AlertRecord, HistoryRecord } from './alert-fields.ts';

/**
 * An alert as submitted, after validation and defaults; what pre-receive plugins see and may change.
 * `id` is the submission id: the alert's id if it creates one, and always its lastReceiveId.
 */
export interface AlertDraft extends Omit<Pick<AlertRecord, SubmittedField>, 'timeout'> {
  timeout: number;
}
