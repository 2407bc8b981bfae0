import { createHmac } from 'node:crypto';
import type { SettingsOf } from '../receivers.ts';
import { isAlarm, JSON_HEADERS, summaryOf, type HttpRequest, type Message } from './common.ts';

export const SIGNATURE_HEADER = 'X-Alertwall-Signature';
export const TIMESTAMP_HEADER = 'X-Alertwall-Timestamp';
export const DELIVERY_HEADER = 'X-Alertwall-Delivery';

/** `sha256=<hex>`: HMAC-SHA256 with the receiver's secret over `<timestamp>.<body>`. */
export function signatureOf(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * The generic JSON webhook: every alert of the message with what happened to it. With a secret,
 * the body is signed (X-Alertwall-Signature) over a timestamp (X-Alertwall-Timestamp) so the
 * receiver can refuse forgeries and replays; X-Alertwall-Delivery is the same on every retry.
 */
export function webhookRequest(m: Message, s: SettingsOf<'webhook'>, now: number): HttpRequest {
  const body = JSON.stringify({
    version: '1',
    deliveryId: m.deliveryId,
    receiver: m.receiver,
    rule: m.rule,
    status: m.items.some((i) => isAlarm(i.kind)) ? 'firing' : 'resolved',
    summary: summaryOf(m),
    alerts: m.items.map(({ kind, alert }) => ({
      kind,
      ...alert,
      createTime: new Date(alert.createTime).toISOString(),
      lastReceiveTime: new Date(alert.lastReceiveTime).toISOString(),
      href: m.links.alert(alert.id),
    })),
    sentAt: new Date(now).toISOString(),
  });
  const timestamp = String(Math.floor(now / 1000));
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    [DELIVERY_HEADER]: m.deliveryId,
    [TIMESTAMP_HEADER]: timestamp,
  };
  if (s.secret) headers[SIGNATURE_HEADER] = signatureOf(s.secret, timestamp, body);
  return { method: 'POST', url: s.url, headers, body };
}
