import type { Alert, LiveAlert } from '../shared/alerts.ts';
import { localTime, renderTable, severityPainter, type Column } from './format.ts';

/** The alert fields every view reads: a LiveAlert (socket) or a full Alert (HTTP). */
export type AnyAlert = LiveAlert | Alert;

const short = (id: string) => id.slice(0, 8);

/** The fields that name an alert, which an alert and a history entry both carry. */
type AlertName = Pick<AnyAlert, 'customer' | 'environment' | 'service' | 'resource' | 'group' | 'event'> & {
  value?: string | null;
};

/** What names an alert in a table (customer … value): the same columns in `query` and `history`. */
export function alertNameColumns<T extends AlertName>(): Column<T>[] {
  return [
    { header: 'CUSTOMER', value: (a) => a.customer },
    { header: 'ENVIRONMENT', value: (a) => a.environment },
    { header: 'SERVICE', value: (a) => a.service },
    { header: 'RESOURCE', value: (a) => a.resource },
    { header: 'GROUP', value: (a) => a.group },
    { header: 'EVENT', value: (a) => a.event },
    { header: 'VALUE', value: (a) => a.value },
  ];
}

/** The `query` table (`--oneline`), columns as the established client shows them. */
export function alertTable(alerts: readonly AnyAlert[], output: string, timezone: string, color: boolean) {
  const columns: Column<AnyAlert>[] = [
    { header: 'ID', value: (a) => short(a.id) },
    { header: 'LAST RECEIVED', value: (a) => localTime(a.lastReceiveTime, timezone) },
    { header: 'SEVERITY', value: (a) => a.severity },
    { header: 'STATUS', value: (a) => a.status },
    { header: 'DUPL', value: (a) => a.duplicateCount },
    ...alertNameColumns<AnyAlert>(),
    { header: 'DESCRIPTION', value: (a) => a.text },
  ];
  return renderTable(alerts, columns, output, (a) => severityPainter(a.severity, color));
}

const fixed = (s: string, n: number) => s.padEnd(n);

/**
 * The coloured one-alert line of `query --medium/--full` and `watch`:
 * `id|last received|severity|status|dupl|customer|environment|service|resource|group|event|value`
 * then `   |text`. Ours adds the status after the severity, so acks and closes are visible.
 */
export function alertLines(a: AnyAlert, timezone: string, color: boolean, full: boolean): string {
  const head = [
    short(a.id),
    localTime(a.lastReceiveTime, timezone),
    a.severity,
    a.status,
    String(a.duplicateCount).padStart(5),
    a.customer ?? '-',
    fixed(a.environment, 5),
    fixed(a.service.join(','), 10),
    fixed(a.resource, 18),
    fixed(a.group, 12),
    fixed(a.event, 16),
    fixed(a.value ?? 'n/a', 12),
  ].join('|');
  const lines = [head.trimEnd(), `   |${a.text}`];
  if (full) {
    const latency = Date.parse(a.receiveTime) - Date.parse(a.createTime);
    lines.push(
      `    severity   | ${a.previousSeverity} -> ${a.severity}`,
      `    trend      | ${a.trendIndication}`,
      `    status     | ${a.status}`,
      `    resource   | ${a.resource}`,
      `    group      | ${a.group}`,
      `    event      | ${a.event}`,
      `    value      | ${a.value ?? ''}`,
      `    tags       | ${a.tags.join(' ')}`,
      ...Object.entries(a.attributes).map(
        ([k, v]) => `    ${k.padEnd(10)} | ${typeof v === 'string' ? v : JSON.stringify(v)}`,
      ),
      `        time created  | ${localTime(a.createTime, timezone)}`,
      `        time received | ${localTime(a.receiveTime, timezone)}`,
      `        last received | ${localTime(a.lastReceiveTime, timezone)}`,
      `        latency       | ${Number.isFinite(latency) ? latency : ''}ms`,
      `        timeout       | ${a.timeout ?? ''}s`,
      `            alert id     | ${a.id}`,
      `            last recv id | ${a.lastReceiveId}`,
      `            customer     | ${a.customer ?? ''}`,
      `            environment  | ${a.environment}`,
      `            service      | ${a.service.join(',')}`,
      `            resource     | ${a.resource}`,
      `            type         | ${a.type}`,
      `            repeat       | ${a.repeat}`,
      `            origin       | ${a.origin}`,
      `            correlate    | ${a.correlate.join(',')}`,
    );
  }
  const paint = severityPainter(a.severity, color);
  return lines.map((l) => (paint ? paint(l) : l)).join('\n');
}
