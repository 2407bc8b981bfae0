import type { AlertRecord, SubmittedField } from './alert-fields.ts';

export type { AlertRecord } from './alert-fields.ts';

/**
 * An alert as submitted, after validation and defaults; what pre-receive plugins see and may change.
 * `id` is the submission id: the alert's id if it creates one, and always its lastReceiveId.
 */
export interface AlertDraft extends Omit<Pick<AlertRecord, SubmittedField>, 'timeout'> {
  timeout: number;
}

export interface HistoryRecord {
  id: string;
  event: string;
  severity: string | null;
  status: string | null;
  value: string | null;
  text: string;
  type: string;
  updateTime: number;
  user: string | null;
  timeout: number | null;
}
