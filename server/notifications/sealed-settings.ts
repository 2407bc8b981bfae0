import type { ReceiverType } from '../../shared/notifications.ts';
import type { Deps } from '../deps.ts';
import * as store from '../db/notifications.ts';
import { SECRET_FIELDS, type ReceiverDef } from './receivers.ts';
import { isSealed, secretBoxFrom, type SecretBox } from '../secret-box.ts';

/**
 * Receiver settings at rest: every secret field (SECRET_FIELDS) of a stored receiver is sealed,
 * never plain text (tests/api/notification-secrets.test.ts reads the table to check it). A value
 * is bound to its receiver and field, so it opens only where it was sealed.
 */

const contextOf = (receiverId: string, field: string) => `receiver:${receiverId}:${field}`;

/** The settings to store: each plain secret sealed under the current key; sealed ones kept as they are. */
export function sealSettings(
  box: SecretBox,
  r: { id: string; type: ReceiverType; settings: Record<string, unknown> },
): Record<string, unknown> {
  const sealed = { ...r.settings };
  for (const field of SECRET_FIELDS[r.type]) {
    const value = sealed[field];
    if (typeof value === 'string') sealed[field] = box.seal(value, contextOf(r.id, field));
  }
  return sealed;
}

/**
 * A stored receiver as the server uses it: secrets opened. One that does not open (its key was
 * removed) stays sealed and is named in `unreadable`: sending then fails with `unreadableError`, and
 * the API says so, until an admin enters the secret again.
 */
export function openReceiver(box: SecretBox, r: ReceiverDef): ReceiverDef {
  const settings = { ...r.settings };
  const unreadable: string[] = [];
  for (const field of SECRET_FIELDS[r.type]) {
    const value = settings[field];
    if (!isSealed(value)) continue;
    const opened = box.open(value, contextOf(r.id, field));
    if (opened.ok) settings[field] = opened.value;
    else unreadable.push(field);
  }
  return { ...r, settings, unreadable };
}

/** What delivery and the test button say about a receiver whose secrets do not open. */
export const unreadableError = (r: Pick<ReceiverDef, 'unreadable'>) =>
  `the stored secret settings (${(r.unreadable ?? []).join(', ')}) cannot be decrypted with the ` +
  'configured SECRETS_KEYS (was a key removed?); enter them again';

/**
 * At start-up: seals secrets stored in plain text (from before sealing, or written by hand) and
 * seals again those sealed under an older key (after a rotation), in one transaction holding the
 * rows, so instances starting together do it once. Idempotent. Values no configured key opens are
 * left alone and reported in the log, never fatal.
 */
export async function resealReceiverSecrets(
  deps: Pick<Deps, 'db' | 'log' | 'secrets' | 'config'>,
): Promise<void> {
  const { db, log, secrets: box } = deps;
  const report = await db.transaction(async (tx) => {
    let sealed = 0;
    let resealed = 0;
    let secretValues = 0;
    const unreadable: { receiver: string; field: string; reason: string }[] = [];
    for (const row of await store.lockReceiverSettings(tx)) {
      const next = { ...row.settings };
      let changed = false;
      for (const field of SECRET_FIELDS[row.type]) {
        const value = next[field];
        if (typeof value === 'string') {
          next[field] = box.seal(value, contextOf(row.id, field));
          sealed++;
          changed = true;
        } else if (isSealed(value)) {
          const opened = box.open(value, contextOf(row.id, field));
          if (!opened.ok) {
            unreadable.push({ receiver: row.id, field, reason: opened.reason });
          } else if (box.isStale(value)) {
            next[field] = box.seal(opened.value, contextOf(row.id, field));
            resealed++;
            changed = true;
          }
        } else continue;
        secretValues++;
      }
      if (changed) await store.setReceiverSettings(tx, row.id, next);
    }
    // Other instances reload their copy (with the same secrets, now sealed differently).
    if (sealed || resealed) await store.bumpVersion(tx);
    return { sealed, resealed, secretValues, unreadable };
  });
  if (report.sealed || report.resealed)
    log.info(
      { sealed: report.sealed, resealed: report.resealed, sealedUnder: box.currentKeyId },
      'notifications.secrets_sealed',
    );
  for (const u of report.unreadable)
    log.warn(u, 'notifications.secret_unreadable: a receiver secret does not open with SECRETS_KEYS');
  if (report.secretValues && secretBoxFrom(deps.config).defaultKey)
    log.warn(
      { setting: 'SECRETS_KEYS' },
      "receiver secrets are encrypted with a key derived from SECRET_KEY, which is the published default 'changeme' (or empty): set SECRETS_KEYS (docs/operations.md)",
    );
}
