import { z } from 'zod';

/**
 * The settings notifications read (docs/notifications.md), spread into SETTINGS (config/settings.ts).
 * The established server's notification plugins (alerta-contrib) and e-mail settings keep their
 * names; the NOTIFY_* ones are ours. Kept self-contained: the base layer imports it.
 */

const def = <S extends z.ZodType>(
  kind: 'bool' | 'int' | 'string' | 'list' | 'value',
  schema: S,
  d: z.infer<S>,
  expected: string,
) => ({ kind, schema, default: d, expected });
const str = (d = '') => def('string', z.string(), d, 'a string');
const bool = (d: boolean) => def('bool', z.boolean(), d, 'True or False');
const int = (d: number, min: number, max: number) =>
  def('int', z.number().int().min(min).max(max), d, `an integer from ${min} to ${max}`);
const seconds = (d: number, min: number, max: number) =>
  def('value', z.number().min(min).max(max), d, `a number of seconds from ${min} to ${max}`);

export const NOTIFICATION_SETTINGS = {
  // alerta-contrib `slack`
  SLACK_WEBHOOK_URL: str(),
  SLACK_CHANNEL: str(),
  SLACK_TOKEN: str(),
  ALERTA_USERNAME: str('alerta'),
  ICON_EMOJI: str(),
  // alerta-contrib `mattermost`: posts to MATTERMOST_URL/hooks/MATTERMOST_TOKEN
  MATTERMOST_URL: str(),
  MATTERMOST_TOKEN: str(),
  MATTERMOST_USERNAME: str('alerta'),
  // alerta-contrib `msteams`
  MS_TEAMS_WEBHOOK_URL: str(),
  MS_TEAMS_INBOUNDWEBHOOK_URL: str(),
  MS_TEAMS_APIKEY: str(),
  // alerta-contrib `pagerduty` (an Events API v2 integration key) and `opsgenie`
  PAGERDUTY_SERVICE_KEY: str(),
  PAGERDUTY_EVENTS_URL: str('https://events.pagerduty.com/v2/enqueue'),
  OPSGENIE_SERVICE_KEY: str(),
  OPSGENIE_API_URL: str('https://api.opsgenie.com'),
  // alerta-contrib `telegram` (TELEGRAM_TOKEN, TELEGRAM_CHAT_ID: config.ts; the webhook uses them too)
  TELEGRAM_WEBHOOK_URL: str(),
  // e-mail (the established server's SMTP settings; MAIL_TO as the alerta-mailer's mail_to)
  SMTP_HOST: str('smtp.gmail.com'),
  SMTP_PORT: int(587, 1, 65535),
  MAIL_LOCALHOST: str('localhost'),
  SMTP_STARTTLS: bool(true),
  SMTP_USE_SSL: bool(false),
  SMTP_SKIP_SSL_VERIFY: bool(false),
  MAIL_FROM: str(),
  MAIL_TO: def('list', z.array(z.string()), [] as string[], 'a list of e-mail addresses'),
  SMTP_USERNAME: str(),
  SMTP_PASSWORD: str(),
  // ours: the rule made for receivers configured in settings, and delivery
  NOTIFY_GROUP_WAIT: int(30, 0, 86_400),
  NOTIFY_REPEAT_INTERVAL: int(0, 0, 30 * 86_400),
  NOTIFY_TIMEOUT: seconds(10, 0.1, 300),
  NOTIFY_MAX_ATTEMPTS: int(10, 1, 1000),
  NOTIFY_RETRY_DELAY: seconds(2, 0.01, 3600),
  NOTIFY_RETRY_MAX_DELAY: seconds(300, 0.01, 86_400),
  /** How often repeats, escalations and changes made without a hook (PUT /status, bulk) are looked for. */
  NOTIFY_SWEEP_INTERVAL: seconds(10, 0.1, 3600),
  /** Seconds the delivery history keeps an entry (housekeeping deletes older ones); 0 keeps them all. */
  NOTIFY_DELIVERY_RETENTION: int(7 * 86_400, 0, 10 * 365 * 86_400),
};
