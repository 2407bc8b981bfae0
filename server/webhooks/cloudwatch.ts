import { z } from 'zod';
import { appError } from '../errors.ts';
import { firstOf, htmlLink, isoDate, parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

/** An Amazon SNS HTTP(S) message; SNS posts it as text/plain JSON. */
const SnsMessageSchema = z.object({
  Type: z.string(),
  TopicArn: z.string().min(1, 'must not be empty'),
  Message: z.string(),
  Timestamp: z.string(),
  SubscribeURL: z.string().nullish(),
});

/** The CloudWatch alarm state change an SNS Notification carries in `Message`. */
const AlarmSchema = z.object({
  AlarmName: z.string().min(1, 'must not be empty'),
  AlarmDescription: z.string().nullish(),
  AWSAccountId: z.string(),
  NewStateValue: z.string(),
  Region: z.string(),
  Trigger: z
    .object({
      Namespace: z.string().nullish(),
      // Only the first dimension is read (the resource); the others are not checked.
      Dimensions: firstOf(z.object({ name: z.string(), value: z.string() })).nullish(),
    })
    .loose(),
});

const SEVERITY: Record<string, string> = { ALARM: 'major', INSUFFICIENT_DATA: 'warning', OK: 'normal' };

function createTimeOf(timestamp: string): string {
  const iso = isoDate(timestamp);
  if (!iso) throw appError('invalid_payload', 'CloudWatch', `Timestamp '${timestamp}' is not a date`);
  return iso;
}

/** AWS CloudWatch alarms through SNS, including the subscription confirmation (reference §4). */
export const cloudwatch: Webhook = {
  name: 'cloudwatch',
  incoming({ payload }, { config }) {
    const type =
      payload !== null && typeof payload === 'object' ? (payload as { Type?: unknown }).Type : null;
    if (type !== 'SubscriptionConfirmation' && type !== 'Notification') throw appError('sns_no_notification');
    const sns = parsePayload(SnsMessageSchema, payload, 'CloudWatch');
    const common = {
      environment: config.DEFAULT_ENVIRONMENT,
      origin: sns.TopicArn,
      type: 'cloudwatchAlarm',
      createTime: createTimeOf(sns.Timestamp),
    };

    if (sns.Type === 'SubscriptionConfirmation') {
      const link = sns.SubscribeURL ? ` ${htmlLink(sns.SubscribeURL, 'SubscribeURL')}` : '';
      return {
        alerts: [
          {
            ...common,
            resource: sns.TopicArn,
            event: 'SubscriptionConfirmation',
            severity: 'informational',
            service: ['Unknown'],
            group: 'AWS/CloudWatch',
            text: `${sns.Message}${link}`,
            rawData: JSON.stringify(payload),
          },
        ],
      };
    }

    let message: unknown;
    try {
      message = JSON.parse(sns.Message);
    } catch {
      throw appError('invalid_payload', 'CloudWatch', 'Message is not JSON');
    }
    if (message === null || typeof message !== 'object' || !('Trigger' in message))
      throw appError('sns_not_cloudwatch');
    const alarm = parsePayload(AlarmSchema, message, 'CloudWatch alarm');
    const dimension = alarm.Trigger.Dimensions?.[0];
    return {
      alerts: [
        {
          ...common,
          resource: dimension
            ? `${dimension.name}:${dimension.value}`
            : (sns.TopicArn.split(':').pop() ?? sns.TopicArn),
          event: alarm.AlarmName,
          severity: SEVERITY[alarm.NewStateValue] ?? 'unknown',
          service: [alarm.AWSAccountId],
          group: alarm.Trigger.Namespace ?? null,
          value: alarm.NewStateValue,
          text: alarm.AlarmDescription ?? '',
          tags: [alarm.Region],
          attributes: { incidentKey: alarm.AlarmName, thresholdInfo: alarm.Trigger },
          rawData: sns.Message,
        },
      ],
    };
  },
};
