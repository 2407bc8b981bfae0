import type { Config } from '../../config.ts';
import { Agent, send, type Attempt } from '../../forwarding/outbound.ts';
import { CAPABILITIES, scrub, SETTINGS_SCHEMAS, type ReceiverDef, type SettingsOf } from '../receivers.ts';
import { mattermostRequest, slackRequest } from '../render/chat.ts';
import type { HttpRequest, Item, Message } from '../render/common.ts';
import { renderMail } from '../render/email.ts';
import { opsgenieRequest, pagerdutyRequest } from '../render/paging.ts';
import { teamsRequest } from '../render/teams.ts';
import { telegramRequest } from '../render/telegram.ts';
import { webhookRequest } from '../render/webhook.ts';
import { sendMail } from './smtp.ts';
import { unreadableError } from '../sealed-settings.ts';

export interface SendOptions {
  config: Config;
  timeoutMs: number;
  stop: AbortSignal;
  /** Keep-alive connections per receiver (the caller owns and destroys them). */
  agents: Agents;
  now: number;
}

/** What became of some of a message's items (all of them, for a grouped message). */
export interface Sent {
  items: Item[];
  attempt: Attempt;
}

/** Keep-alive HTTP agents, one per receiver (at most 4 connections to each server it sends to). */
export class Agents {
  readonly #agents = new Map<string, Agent>();
  for(receiverId: string): Agent {
    let agent = this.#agents.get(receiverId);
    if (!agent) {
      agent = new Agent({ connections: 4 });
      this.#agents.set(receiverId, agent);
    }
    return agent;
  }
  /** Closes a receiver's connections (it changed or went away); all when no id is given. */
  drop(receiverId?: string): void {
    for (const [key, agent] of this.#agents) {
      if (receiverId === undefined || key === receiverId) {
        void agent.destroy();
        this.#agents.delete(key);
      }
    }
  }
}

/** The HTTP request a grouped message becomes, per type. */
function groupRequest(r: ReceiverDef, m: Message, o: SendOptions): HttpRequest {
  switch (r.type) {
    case 'slack':
      return slackRequest(m, SETTINGS_SCHEMAS.slack.parse(r.settings));
    case 'mattermost':
      return mattermostRequest(m, SETTINGS_SCHEMAS.mattermost.parse(r.settings));
    case 'msteams':
      return teamsRequest(m, SETTINGS_SCHEMAS.msteams.parse(r.settings));
    case 'webhook':
      return webhookRequest(m, SETTINGS_SCHEMAS.webhook.parse(r.settings), o.now);
    case 'telegram':
      return telegramRequest(m, SETTINGS_SCHEMAS.telegram.parse(r.settings), o.config.TELEGRAM_API_URL);
    default:
      throw new Error(`${r.type} is not sent as one request per message`);
  }
}

function itemRequest(r: ReceiverDef, item: Item, m: Message): HttpRequest {
  if (r.type === 'pagerduty')
    return pagerdutyRequest(item, SETTINGS_SCHEMAS.pagerduty.parse(r.settings), m.links);
  if (r.type === 'opsgenie')
    return opsgenieRequest(item, SETTINGS_SCHEMAS.opsgenie.parse(r.settings), m.links);
  throw new Error(`${r.type} is not sent per alert`);
}

export async function sendHttp(r: ReceiverDef, req: HttpRequest, o: SendOptions): Promise<Attempt> {
  const attempt = await send(req, {
    agent: o.agents.for(r.id),
    timeoutMs: o.timeoutMs,
    stop: o.stop,
  });
  // An error text may quote a URL: never let a credential in it reach a log, the history or the API.
  if (attempt.outcome === 'failed' || attempt.outcome === 'rejected') attempt.error = scrub(attempt.error, r);
  return attempt;
}

/**
 * Sends a message the way its receiver takes it: one request (or e-mail) for the whole group, or
 * — for paging services — one request per alert, in order, stopping at the first failure (the
 * service is down: the rest would fail too and are retried with it).
 */
export async function sendMessage(r: ReceiverDef, m: Message, o: SendOptions): Promise<Sent[]> {
  // Secrets no configured key opens: worth retrying, since an admin may enter them again or put the
  // key back (tests/api/notification-secrets.test.ts).
  if (r.unreadable?.length)
    return [{ items: m.items, attempt: { outcome: 'failed', error: unreadableError(r) } }];
  if (r.type === 'email') {
    const settings: SettingsOf<'email'> = SETTINGS_SCHEMAS.email.parse(r.settings);
    const attempt = await sendMail(renderMail(m), settings, o.config, {
      timeoutMs: o.timeoutMs,
      stop: o.stop,
    });
    if (attempt.outcome === 'failed' || attempt.outcome === 'rejected')
      attempt.error = scrub(attempt.error, r);
    return [{ items: m.items, attempt }];
  }
  if (!CAPABILITIES[r.type].perAlert) {
    return [{ items: m.items, attempt: await sendHttp(r, groupRequest(r, m, o), o) }];
  }
  const results: Sent[] = [];
  for (let i = 0; i < m.items.length; i++) {
    const item = m.items[i]!;
    const attempt = await sendHttp(r, itemRequest(r, item, m), o);
    results.push({ items: [item], attempt });
    if (attempt.outcome === 'failed' || attempt.outcome === 'stopped') {
      if (i + 1 < m.items.length) results.push({ items: m.items.slice(i + 1), attempt });
      break;
    }
  }
  return results;
}

/** How many requests a message costs (for the rate limit). */
export const requestsFor = (r: ReceiverDef, items: number) => (CAPABILITIES[r.type].perAlert ? items : 1);
