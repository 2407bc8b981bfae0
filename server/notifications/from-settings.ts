import type { ReceiverType } from '../../shared/notifications.ts';
import type { Config } from '../config.ts';
import { checkSettings, type ReceiverDef } from './receivers.ts';
import { matchEveryAlert, type RuleDef } from './rules.ts';

/**
 * Existing deployments configure one notification plugin per service (alerta-contrib) by listing it
 * in PLUGINS. Each such name becomes a built-in receiver made from that plugin's settings, and all
 * of them are reached through one catch-all rule (docs/notifications.md, "From the settings").
 */
export const SETTINGS_PLUGINS = [
  'slack',
  'mattermost',
  'msteams',
  'pagerduty',
  'opsgenie',
  'telegram',
  'mailer',
] as const;
export type SettingsPlugin = (typeof SETTINGS_PLUGINS)[number];

export const SETTINGS_RULE_ID = 'settings';
/** The receiver type a plugin's settings make: its own name, but for the mailer's e-mail. */
const typeOf = (plugin: SettingsPlugin): ReceiverType => (plugin === 'mailer' ? 'email' : plugin);

const put = (o: Record<string, unknown>, key: string, value: string | null | undefined) => {
  if (value) o[key] = value;
};

/** The settings a plugin name reads, as receiver settings; throws naming the missing setting. */
function settingsFor(plugin: SettingsPlugin, c: Config): Record<string, unknown> {
  const need = (name: keyof Config, value: unknown) => {
    if (value === '' || value === null || value === undefined || (Array.isArray(value) && !value.length))
      throw new Error(`${name} is needed when PLUGINS lists ${plugin}`);
  };
  const s: Record<string, unknown> = {};
  switch (plugin) {
    case 'slack':
      need('SLACK_WEBHOOK_URL', c.SLACK_WEBHOOK_URL);
      s.url = c.SLACK_WEBHOOK_URL;
      put(s, 'channel', c.SLACK_CHANNEL);
      put(s, 'username', c.ALERTA_USERNAME);
      put(s, 'iconEmoji', c.ICON_EMOJI);
      put(s, 'token', c.SLACK_TOKEN);
      return s;
    case 'mattermost':
      need('MATTERMOST_URL', c.MATTERMOST_URL);
      need('MATTERMOST_TOKEN', c.MATTERMOST_TOKEN);
      s.url = `${c.MATTERMOST_URL.replace(/\/+$/, '')}/hooks/${c.MATTERMOST_TOKEN}`;
      put(s, 'username', c.MATTERMOST_USERNAME);
      return s;
    case 'msteams':
      need('MS_TEAMS_WEBHOOK_URL', c.MS_TEAMS_WEBHOOK_URL);
      s.url = c.MS_TEAMS_WEBHOOK_URL;
      put(s, 'actionUrl', c.MS_TEAMS_INBOUNDWEBHOOK_URL);
      put(s, 'actionKey', c.MS_TEAMS_APIKEY);
      return s;
    case 'pagerduty':
      need('PAGERDUTY_SERVICE_KEY', c.PAGERDUTY_SERVICE_KEY);
      return { routingKey: c.PAGERDUTY_SERVICE_KEY, url: c.PAGERDUTY_EVENTS_URL };
    case 'opsgenie':
      need('OPSGENIE_SERVICE_KEY', c.OPSGENIE_SERVICE_KEY);
      return { apiKey: c.OPSGENIE_SERVICE_KEY, url: c.OPSGENIE_API_URL };
    case 'telegram':
      need('TELEGRAM_TOKEN', c.TELEGRAM_TOKEN);
      need('TELEGRAM_CHAT_ID', c.TELEGRAM_CHAT_ID);
      // As the plugin: buttons only when Telegram was told where to send presses.
      return {
        token: c.TELEGRAM_TOKEN,
        chatId: c.TELEGRAM_CHAT_ID,
        apiUrl: c.TELEGRAM_API_URL,
        buttons: c.TELEGRAM_WEBHOOK_URL !== '',
      };
    case 'mailer':
      need('MAIL_TO', c.MAIL_TO);
      s.to = [...c.MAIL_TO];
      put(s, 'from', c.MAIL_FROM);
      return s;
  }
}

/** A receiver a PLUGINS name stands for; throws (stopping start-up) when its settings are missing or bad. */
export function settingsReceiver(plugin: SettingsPlugin, config: Config): ReceiverDef {
  const type = typeOf(plugin);
  const settings = settingsFor(plugin, config);
  const problems = checkSettings(type, settings);
  if (problems.length) throw new Error(`settings for ${plugin}: ${problems.join('; ')}`);
  return {
    id: `settings-${plugin}`,
    name: plugin,
    type,
    enabled: true,
    rateLimit: null,
    sendResolved: true,
    settings,
    customer: null,
    source: 'settings',
    createTime: null,
    updateTime: null,
  };
}

/** The receivers PLUGINS names, and the catch-all rule that reaches them (null when there are none). */
export function fromSettings(config: Config): { receivers: ReceiverDef[]; rule: RuleDef | null } {
  const names = config.PLUGINS.map((p) => p.trim()).filter((p): p is SettingsPlugin =>
    (SETTINGS_PLUGINS as readonly string[]).includes(p),
  );
  const receivers = [...new Set(names)].map((p) => settingsReceiver(p, config));
  if (!receivers.length) return { receivers, rule: null };
  return {
    receivers,
    rule: {
      id: SETTINGS_RULE_ID,
      name: 'settings',
      // Before every API rule, and never stopping them: it stands for plugins that saw every alert.
      priority: -1_000_001,
      enabled: true,
      ...matchEveryAlert(),
      receivers: receivers.map((r) => r.name),
      continue: true,
      groupWait: config.NOTIFY_GROUP_WAIT,
      repeatInterval: config.NOTIFY_REPEAT_INTERVAL,
      escalations: [],
      paging: false,
      blackoutNotices: false,
      owner: null,
      source: 'settings',
      createTime: null,
      updateTime: null,
    },
  };
}
