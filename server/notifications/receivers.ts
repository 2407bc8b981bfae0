import { z } from 'zod';
import type { ReceiverType } from '../../shared/notifications.ts';
import type { ReceiverDef } from '../db/notifications.ts';
import { MASK } from '../secrets.ts';
import { isSealed } from '../secret-box.ts';

export type { ReceiverDef } from '../db/notifications.ts';

const httpUrl = (name: string) =>
  z.string({ error: `${name} must be a URL` }).refine((u) => {
    try {
      const parsed = new URL(u);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:';
    } catch {
      return false;
    }
  }, `${name} must be an http(s) URL`);
const text = (name: string) => z.string({ error: `${name} must be a string` });
const flag = (name: string) => z.boolean({ error: `${name} must be true or false` });

/** Each type's settings (docs/notifications.md); unknown keys are refused so a typo is not ignored. */
export const SETTINGS_SCHEMAS = {
  slack: z.strictObject({
    url: httpUrl('url'),
    channel: text('channel').optional(),
    username: text('username').optional(),
    iconEmoji: text('iconEmoji').optional(),
    /** Bearer token, for https://slack.com/api/chat.postMessage instead of an incoming webhook. */
    token: text('token').optional(),
    /** Ack / Close buttons, handled by POST /webhooks/slack (a Slack app with interactivity). */
    buttons: flag('buttons').optional(),
  }),
  mattermost: z.strictObject({
    url: httpUrl('url'),
    channel: text('channel').optional(),
    username: text('username').optional(),
    iconUrl: text('iconUrl').optional(),
  }),
  msteams: z.strictObject({
    url: httpUrl('url'),
    /** Our POST /webhooks/msteams, as the Ack / Close buttons' target. */
    actionUrl: httpUrl('actionUrl').optional(),
    /** X-API-Key the buttons send (write:webhooks). */
    actionKey: text('actionKey').optional(),
  }),
  webhook: z.strictObject({
    url: httpUrl('url'),
    /** HMAC-SHA256 key for X-Alertwall-Signature. */
    secret: text('secret').optional(),
  }),
  email: z
    .strictObject({
      to: z.array(z.email({ error: 'to must be a list of e-mail addresses' })).min(1, 'to must not be empty'),
      from: text('from').optional(),
      host: text('host').optional(),
      port: z.number().int().min(1).max(65535).optional(),
      /** TLS from the start (port 465). */
      secure: flag('secure').optional(),
      /** Require STARTTLS (the older name of requireTLS). Without it, STARTTLS is used whenever offered. */
      starttls: flag('starttls').optional(),
      /** Fail rather than send without STARTTLS. */
      requireTLS: flag('requireTLS').optional(),
      /** Never STARTTLS, even when offered: login and messages go over plain TCP. */
      ignoreTLS: flag('ignoreTLS').optional(),
      username: text('username').optional(),
      password: text('password').optional(),
      skipVerify: flag('skipVerify').optional(),
    })
    .refine((s) => !(s.ignoreTLS && (s.requireTLS || s.starttls || s.secure)), {
      message: 'ignoreTLS cannot be combined with requireTLS, starttls or secure',
      path: ['ignoreTLS'],
    }),
  pagerduty: z.strictObject({
    routingKey: text('routingKey').min(1, 'routingKey must not be empty'),
    url: httpUrl('url').optional(),
  }),
  opsgenie: z.strictObject({
    apiKey: text('apiKey').min(1, 'apiKey must not be empty'),
    url: httpUrl('url').optional(),
    teams: z.array(text('teams')).optional(),
  }),
  telegram: z.strictObject({
    token: text('token').min(1, 'token must not be empty'),
    chatId: z.union([text('chatId'), z.number().int()]).transform(String),
    apiUrl: httpUrl('apiUrl').optional(),
    /** Ack / Close / Blackout buttons, handled by POST /webhooks/telegram. */
    buttons: flag('buttons').optional(),
  }),
} satisfies Record<ReceiverType, z.ZodType>;

export type SettingsOf<T extends ReceiverType> = z.infer<(typeof SETTINGS_SCHEMAS)[T]>;

/** Settings that hold credentials: never shown, never logged. */
export const SECRET_FIELDS: Record<ReceiverType, readonly string[]> = {
  slack: ['url', 'token'],
  mattermost: ['url'],
  msteams: ['url', 'actionKey'],
  webhook: ['url', 'secret'],
  email: ['password'],
  pagerduty: ['routingKey'],
  opsgenie: ['apiKey'],
  telegram: ['token'],
};

/** What a type of receiver is told (docs/notifications.md, "What each receiver gets"). */
export interface Capabilities {
  /** One request per alert (the service de-duplicates by alert id) instead of one message per group. */
  perAlert: boolean;
  /** Acknowledgements are passed on. */
  acks: boolean;
  /** Reminders while an alert stays open (a paging service keeps its own). */
  repeats: boolean;
}
export const CAPABILITIES: Record<ReceiverType, Capabilities> = {
  slack: { perAlert: false, acks: false, repeats: true },
  mattermost: { perAlert: false, acks: false, repeats: true },
  msteams: { perAlert: false, acks: false, repeats: true },
  webhook: { perAlert: false, acks: true, repeats: true },
  email: { perAlert: false, acks: false, repeats: true },
  pagerduty: { perAlert: true, acks: true, repeats: false },
  opsgenie: { perAlert: true, acks: true, repeats: false },
  telegram: { perAlert: false, acks: false, repeats: true },
};

/** Whether a receiver wants a kind of message at all. */
export function wants(receiver: Pick<ReceiverDef, 'type' | 'sendResolved'>, kind: string): boolean {
  const caps = CAPABILITIES[receiver.type];
  if (kind === 'ack') return caps.acks;
  if (kind === 'repeat') return caps.repeats;
  if (kind === 'resolve') return receiver.sendResolved;
  return true;
}

/**
 * A secret as shown: a URL keeps its scheme and host (which service), anything else is the mask;
 * a value still sealed (no configured key opens it) is the mask too.
 */
export function maskSecret(value: unknown): unknown {
  if (isSealed(value)) return MASK;
  if (typeof value !== 'string' || value === '') return value;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return `${url.origin}/${MASK}`;
  } catch {
    // not a URL
  }
  return MASK;
}

/** The settings as the API shows them. */
export function maskedSettings(
  type: ReceiverType,
  settings: Record<string, unknown>,
): Record<string, unknown> {
  const shown = { ...settings };
  for (const key of SECRET_FIELDS[type]) if (key in shown) shown[key] = maskSecret(shown[key]);
  return shown;
}

/**
 * Settings after an update: given keys replace stored ones, null removes one, and a secret sent
 * back as shown (masked) or left out keeps the stored value, so a form can save what it displayed.
 */
export function mergeSettings(
  type: ReceiverType,
  stored: Record<string, unknown>,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored };
  const secrets = new Set(SECRET_FIELDS[type]);
  for (const [key, value] of Object.entries(given)) {
    if (secrets.has(key) && value === maskSecret(stored[key])) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Checks a type's settings; gives the problems, one line each, naming the key. `keptSealed`: stored
 * secrets that no key decrypts, kept as they were by an update, are not checked (they were when
 * entered); a sealed value given by a client is refused like any other non-string.
 */
export function checkSettings(
  type: ReceiverType,
  settings: Record<string, unknown>,
  keptSealed: readonly string[] = [],
): string[] {
  const parsed = SETTINGS_SCHEMAS[type].safeParse(settings);
  if (parsed.success) return [];
  const kept = (key: PropertyKey | undefined) =>
    typeof key === 'string' && keptSealed.includes(key) && isSealed(settings[key]);
  const issues = parsed.error.issues.filter((i) => !kept(i.path[0]));
  return issues.map((i) =>
    i.code === 'unrecognized_keys'
      ? `settings: unknown ${i.keys.length > 1 ? 'keys' : 'key'} ${i.keys.join(', ')} for a ${type} receiver`
      : `settings.${i.path.join('.') || '?'}: ${i.message}`,
  );
}

/** Replaces every secret value that may sit in a text (an error message) with the mask. */
export function scrub(text: string, receiver: Pick<ReceiverDef, 'type' | 'settings'>): string {
  let out = text;
  for (const key of SECRET_FIELDS[receiver.type]) {
    const value = receiver.settings[key];
    if (typeof value === 'string' && value.length >= 4) out = out.split(value).join(MASK);
  }
  return out;
}
