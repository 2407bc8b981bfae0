/**
 * Which names hold secrets, for everything that prints names with values: /management/properties
 * (settings, environment, request headers), the log, and the start-up errors about settings.
 */

export const MASK = '********';

/** Words that make a name a secret's: `GITHUB_PAT`, `x-api-key`, `clientSecret`, `SENTRY_DSN` … */
const SECRET_WORDS = new Set([
  'KEY',
  'KEYS',
  'APIKEY',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWORDS',
  'PASSWD',
  'PASSPHRASE',
  'TOKEN',
  'TOKENS',
  'PAT',
  'AUTH',
  'AUTHORIZATION',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
  'COOKIE',
  'DSN',
]);
/** Parts of a run-together word that give a secret away: `DBPASSWORD`, `ACCESSTOKEN`, `GPGPASSPHRASE`. */
const SECRET_PARTS = /PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|APIKEY|PRIVATEKEY/;
/**
 * A last word that makes the value a fact about a secret rather than the secret: `AUTH_REQUIRED`,
 * `AUTH_PROVIDER`, `AUTH_PROXY_USER_HEADER`, `BASIC_AUTH_REALM`, `TOKEN_EXPIRE_DAYS`,
 * `ADMIN_KEY_MAXAGE`, `OIDC_TOKEN_AUTH_METHODS`. None of these can hold a credential.
 */
const ABOUT_A_SECRET = new Set([
  'REQUIRED',
  'ENABLED',
  'PROVIDER',
  'HEADER',
  'SEPARATOR',
  'REALM',
  'SIGNUP',
  'MAXAGE',
  'DAYS',
  'METHODS',
]);
/** Settings that carry credentials inside a structure under a harmless name. */
const HOLDS_CREDENTIALS = new Set([
  'FWD_DESTINATIONS',
  // Incoming-webhook URLs carry their token in the path (docs/notifications.md).
  'SLACK_WEBHOOK_URL',
  'MS_TEAMS_WEBHOOK_URL',
]);

/** The words of a name: split at `_`, `-`, `.`, spaces and lower→upper case changes. */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);

/** Whether a value under this name may be a credential, and so must never be printed. */
export function isSecretName(name: string): boolean {
  if (HOLDS_CREDENTIALS.has(name)) return true;
  const words = wordsOf(name);
  if (!words.some((w) => SECRET_WORDS.has(w) || SECRET_PARTS.test(w))) return false;
  return !ABOUT_A_SECRET.has(words.at(-1) ?? '');
}

/** True or False cannot be a credential: flags named like secrets (`OIDC_VERIFY_TOKEN`) stay readable. */
const isFlag = (value: unknown) =>
  typeof value === 'boolean' || (typeof value === 'string' && /^(true|false)$/i.test(value));

/** The value as printed under `name`: masked when the name says secret (empty stays empty). */
export function maskedValue(name: string, value: unknown): unknown {
  if (value === null || value === undefined || value === '' || isFlag(value)) return value;
  return isSecretName(name) ? MASK : value;
}

/** Text with the password of every URL in it replaced: `postgres://u:***@db/x`. */
export function withoutUrlPasswords(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"',]+/gi, (url) => {
    try {
      const u = new URL(url);
      if (!u.password) return url;
      u.password = '***';
      return u.toString();
    } catch {
      return url;
    }
  });
}
