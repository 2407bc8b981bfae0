import type { ReceiverType } from '../../../../shared/notifications.ts';

/**
 * One setting of a receiver type, as its form shows it (docs/notifications.md, "Receivers").
 * secret: a password field, never filled from the server (it sends secrets masked); list: typed
 * comma-separated, sent as an array; flag: a checkbox whose unticked state differs from the default.
 */
export interface SettingField {
  key: string;
  label: string;
  kind: 'text' | 'url' | 'secret' | 'list' | 'number' | 'flag';
  required?: boolean;
  /** What an empty field means, or an example. */
  placeholder?: string;
  /** A flag's value when the setting is absent. */
  default?: boolean;
}

/**
 * Every setting of every type, in the order the form shows them. tests/unit/notification-forms.test.ts
 * checks these keys against the server's settings schemas, so a setting added there shows up here.
 */
export const SETTING_FIELDS: Record<ReceiverType, SettingField[]> = {
  slack: [
    {
      key: 'url',
      label: 'Webhook URL',
      kind: 'secret',
      required: true,
      placeholder: 'https://hooks.slack.com/services/…',
    },
    { key: 'channel', label: 'Channel', kind: 'text', placeholder: '#ops' },
    { key: 'username', label: 'Username', kind: 'text' },
    { key: 'iconEmoji', label: 'Icon emoji', kind: 'text', placeholder: ':rotating_light:' },
    { key: 'token', label: 'Bot token (chat.postMessage)', kind: 'secret' },
    { key: 'buttons', label: 'Ack and Close buttons', kind: 'flag', default: true },
  ],
  mattermost: [
    {
      key: 'url',
      label: 'Webhook URL',
      kind: 'secret',
      required: true,
      placeholder: 'https://chat.example.com/hooks/…',
    },
    { key: 'channel', label: 'Channel', kind: 'text' },
    { key: 'username', label: 'Username', kind: 'text' },
    { key: 'iconUrl', label: 'Icon URL', kind: 'url' },
  ],
  msteams: [
    {
      key: 'url',
      label: 'Webhook URL',
      kind: 'secret',
      required: true,
      placeholder: 'https://….webhook.office.com/…',
    },
    { key: 'actionUrl', label: 'Button target (…/webhooks/msteams)', kind: 'url' },
    { key: 'actionKey', label: 'Button API key', kind: 'secret' },
  ],
  webhook: [
    {
      key: 'url',
      label: 'Webhook URL',
      kind: 'secret',
      required: true,
      placeholder: 'https://example.com/hook',
    },
    { key: 'secret', label: 'HMAC secret', kind: 'secret' },
  ],
  email: [
    { key: 'to', label: 'To', kind: 'list', required: true, placeholder: 'oncall@example.com, …' },
    { key: 'from', label: 'From', kind: 'text' },
    { key: 'host', label: 'SMTP host', kind: 'text', placeholder: "empty: the server's SMTP_*" },
    { key: 'port', label: 'SMTP port', kind: 'number' },
    { key: 'username', label: 'SMTP username', kind: 'text' },
    { key: 'password', label: 'SMTP password', kind: 'secret' },
    { key: 'secure', label: 'TLS from the start (465)', kind: 'flag', default: false },
    { key: 'requireTLS', label: 'Require STARTTLS', kind: 'flag', default: false },
    { key: 'starttls', label: 'Require STARTTLS (old name)', kind: 'flag', default: false },
    { key: 'ignoreTLS', label: 'Never STARTTLS (plain text)', kind: 'flag', default: false },
    { key: 'skipVerify', label: 'Accept any certificate', kind: 'flag', default: false },
  ],
  pagerduty: [
    { key: 'routingKey', label: 'Routing key', kind: 'secret', required: true },
    {
      key: 'url',
      label: 'Events API URL',
      kind: 'url',
      placeholder: 'https://events.pagerduty.com/v2/enqueue',
    },
  ],
  opsgenie: [
    { key: 'apiKey', label: 'API key', kind: 'secret', required: true },
    { key: 'url', label: 'API URL', kind: 'url', placeholder: 'https://api.opsgenie.com' },
    { key: 'teams', label: 'Teams', kind: 'list', placeholder: 'ops, dba' },
  ],
  telegram: [
    { key: 'token', label: 'Bot token', kind: 'secret', required: true },
    { key: 'chatId', label: 'Chat id', kind: 'text', required: true },
    { key: 'apiUrl', label: 'API URL', kind: 'url', placeholder: 'empty: TELEGRAM_API_URL' },
    { key: 'buttons', label: 'Ack, Close and Blackout buttons', kind: 'flag', default: true },
  ],
};

/** Form values of one type's settings: text for inputs (numbers from number inputs), booleans for flags. */
export type SettingValues = Record<string, string | number | boolean | null>;

/** An input's value as trimmed text ('' for nothing). */
export const inputText = (v: unknown): string =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';

/** A receiver's settings (as the API shows them) as form values; secrets start empty. */
export function settingValues(fields: SettingField[], settings: Record<string, unknown>): SettingValues {
  const values: SettingValues = {};
  for (const f of fields) {
    const v = settings[f.key];
    if (f.kind === 'flag') values[f.key] = typeof v === 'boolean' ? v : (f.default ?? false);
    else if (f.kind === 'secret') values[f.key] = '';
    else if (Array.isArray(v)) values[f.key] = v.join(', ');
    else values[f.key] = v === null || v === undefined ? '' : String(v);
  }
  return values;
}

/** One field's form value as the API takes it; undefined for an empty one. */
function apiSetting(f: SettingField, v: SettingValues[string] | undefined): unknown {
  if (f.kind === 'flag') return v === true;
  const text = inputText(v);
  if (text === '') return undefined;
  if (f.kind === 'list')
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (f.kind === 'number') return Number(text);
  return text;
}

/**
 * The settings a form sends. New receiver: every filled field, and flags that differ from their
 * default. Edit (`before` = the values it started from): only what changed, an emptied field as
 * null (the API removes it), a secret only when typed (left empty, the stored one is kept).
 */
export function settingsBody(
  fields: SettingField[],
  values: SettingValues,
  before: SettingValues | null,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const v = apiSetting(f, values[f.key]);
    if (!before) {
      if (f.kind === 'flag' ? v !== (f.default ?? false) : v !== undefined) body[f.key] = v;
      continue;
    }
    if (f.kind === 'secret') {
      if (v !== undefined) body[f.key] = v;
    } else if (
      f.kind === 'flag'
        ? values[f.key] !== before[f.key]
        : inputText(values[f.key]) !== inputText(before[f.key])
    ) {
      body[f.key] = v === undefined ? null : v;
    }
  }
  return body;
}
