import type { Attempt } from '../../forwarding/outbound.ts';
import type { BlackoutNotice } from '../../db/blackout-notices.ts';
import { CAPABILITIES, scrub, SETTINGS_SCHEMAS, type ReceiverDef } from '../receivers.ts';
import {
  chatNotice,
  mailNotice,
  opsgenieNotice,
  pagerdutyNotice,
  teamsNotice,
  telegramNotice,
  webhookNotice,
  type NoticeMessage,
} from '../render/notices.ts';
import { unreadableError } from '../sealed-settings.ts';
import { sendHttp, type SendOptions } from './index.ts';
import { sendMail } from './smtp.ts';

/** What became of some of a message's notices. */
export interface NoticesSent {
  notices: BlackoutNotice[];
  attempt: Attempt;
}

/**
 * Sends blackout notices the way the receiver takes messages: one request (or e-mail) for the
 * group, or one per notice for a paging service, stopping at the first failure (as sendMessage).
 */
export async function sendNotices(r: ReceiverDef, m: NoticeMessage, o: SendOptions): Promise<NoticesSent[]> {
  if (r.unreadable?.length)
    return [{ notices: m.notices, attempt: { outcome: 'failed', error: unreadableError(r) } }];
  if (r.type === 'email') {
    const attempt = await sendMail(mailNotice(m), SETTINGS_SCHEMAS.email.parse(r.settings), o.config, {
      timeoutMs: o.timeoutMs,
      stop: o.stop,
    });
    if (attempt.outcome === 'failed' || attempt.outcome === 'rejected')
      attempt.error = scrub(attempt.error, r);
    return [{ notices: m.notices, attempt }];
  }
  if (!CAPABILITIES[r.type].perAlert) {
    const request = (() => {
      switch (r.type) {
        case 'slack': {
          const s = SETTINGS_SCHEMAS.slack.parse(r.settings);
          return chatNotice(m, s, s.iconEmoji ? { icon_emoji: s.iconEmoji } : {});
        }
        case 'mattermost': {
          const s = SETTINGS_SCHEMAS.mattermost.parse(r.settings);
          return chatNotice(m, s, s.iconUrl ? { icon_url: s.iconUrl } : {});
        }
        case 'msteams':
          return teamsNotice(m, SETTINGS_SCHEMAS.msteams.parse(r.settings));
        case 'webhook':
          return webhookNotice(m, SETTINGS_SCHEMAS.webhook.parse(r.settings), o.now);
        case 'telegram':
          return telegramNotice(m, SETTINGS_SCHEMAS.telegram.parse(r.settings), o.config.TELEGRAM_API_URL);
        default:
          throw new Error(`${r.type} is not sent as one request per message`);
      }
    })();
    return [{ notices: m.notices, attempt: await sendHttp(r, request, o) }];
  }
  const results: NoticesSent[] = [];
  for (let i = 0; i < m.notices.length; i++) {
    const n = m.notices[i]!;
    const request =
      r.type === 'pagerduty'
        ? pagerdutyNotice(n, SETTINGS_SCHEMAS.pagerduty.parse(r.settings), m.links)
        : opsgenieNotice(n, SETTINGS_SCHEMAS.opsgenie.parse(r.settings), m.links);
    const attempt = await sendHttp(r, request, o);
    results.push({ notices: [n], attempt });
    if (attempt.outcome === 'failed' || attempt.outcome === 'stopped') {
      if (i + 1 < m.notices.length) results.push({ notices: m.notices.slice(i + 1), attempt });
      break;
    }
  }
  return results;
}
