/** An alert as submitted, after validation and defaults; what pre-receive plugins see and may change. */
export interface AlertDraft {
  /** The submission id: the alert's id if it creates one, and always its lastReceiveId. */
  id: string;
  resource: string;
  event: string;
  environment: string;
  severity: string;
  correlate: string[];
  status: string;
  service: string[];
  group: string;
  value: string | null;
  text: string;
  tags: string[];
  attributes: Record<string, unknown>;
  origin: string;
  type: string;
  /** Epoch milliseconds. */
  createTime: number;
  timeout: number;
  rawData: string | null;
  customer: string | null;
}

/** A stored alert (times in epoch milliseconds); history is loaded separately. */
export interface AlertRecord extends Omit<AlertDraft, 'timeout'> {
  timeout: number | null;
  duplicateCount: number;
  repeat: boolean;
  previousSeverity: string;
  trendIndication: string;
  receiveTime: number;
  lastReceiveId: string;
  lastReceiveTime: number;
  updateTime: number;
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
