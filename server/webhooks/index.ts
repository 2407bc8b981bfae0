import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config.ts';
import type { Log } from '../log.ts';
import { cloudwatch } from './cloudwatch.ts';
import { grafana } from './grafana.ts';
import { graylog } from './graylog.ts';
import { msteams } from './msteams.ts';
import { newrelic } from './newrelic.ts';
import { pagerduty } from './pagerduty.ts';
import { pingdom } from './pingdom.ts';
import { prometheus } from './prometheus.ts';
import { riemann } from './riemann.ts';
import { serverdensity } from './serverdensity.ts';
import { slack } from './slack.ts';
import { stackdriver } from './stackdriver.ts';
import { telegram } from './telegram.ts';
import type { Webhook, WebhookFactory } from './types.ts';

/** The receivers every server has, as the established server maps them (docs/webhooks.md). */
export const BUILTIN_WEBHOOKS: readonly Webhook[] = Object.freeze([
  prometheus,
  grafana,
  cloudwatch,
  pingdom,
  pagerduty,
  newrelic,
  graylog,
  riemann,
  serverdensity,
  slack,
  stackdriver,
  telegram,
  msteams,
]);

/** Receivers by name, as `/webhooks/<name>` finds them. */
export type WebhookRegistry = ReadonlyMap<string, Webhook>;

/** Names travel in URLs: keep them to what needs no escaping. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

const isWebhook = (value: unknown): value is Webhook =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Webhook).name === 'string' &&
  typeof (value as Webhook).incoming === 'function';

const CONTRACT = 'a webhook ({ name, incoming(request, ctx) }) or a factory returning one';

/** Imports one CUSTOM_WEBHOOKS module (relative to the working directory) and builds its webhook. */
async function importWebhook(entry: string, config: Config, log: Log): Promise<Webhook> {
  let exported: unknown;
  try {
    const mod = (await import(pathToFileURL(resolve(process.cwd(), entry)).href)) as { default?: unknown };
    exported = mod.default;
  } catch (err) {
    throw new Error(`CUSTOM_WEBHOOKS: cannot load '${entry}': ${(err as Error).message}`, { cause: err });
  }
  let webhook = exported;
  if (typeof exported === 'function') {
    try {
      webhook = await (exported as WebhookFactory)({ config, log });
    } catch (err) {
      throw new Error(`CUSTOM_WEBHOOKS: '${entry}' failed to start: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  if (!isWebhook(webhook)) throw new Error(`CUSTOM_WEBHOOKS: '${entry}' must export ${CONTRACT} as default`);
  if (!NAME.test(webhook.name)) {
    throw new Error(
      `CUSTOM_WEBHOOKS: '${entry}' names its webhook '${webhook.name}'; use 1 to 64 letters, digits, _ or -`,
    );
  }
  return webhook;
}

/**
 * The built-in receivers plus the CUSTOM_WEBHOOKS modules, loaded once at start-up. A custom
 * webhook may replace a built-in of the same name (logged); two custom modules claiming one name,
 * a module that cannot be imported or one without a usable default export stop start-up.
 */
export async function loadWebhooks(config: Config, log: Log): Promise<WebhookRegistry> {
  const registry = new Map(BUILTIN_WEBHOOKS.map((w) => [w.name, w]));
  const custom = new Map<string, string>();
  for (const entry of config.CUSTOM_WEBHOOKS.map((e) => e.trim()).filter(Boolean)) {
    const webhook = await importWebhook(entry, config, log);
    const earlier = custom.get(webhook.name);
    if (earlier) {
      throw new Error(
        `CUSTOM_WEBHOOKS: '${entry}' and '${earlier}' both define the webhook '${webhook.name}'`,
      );
    }
    if (registry.has(webhook.name))
      log.info(
        { webhook: webhook.name, module: entry },
        'webhook.replaced: a custom module replaces the built-in',
      );
    custom.set(webhook.name, entry);
    registry.set(webhook.name, webhook);
  }
  log.debug({ webhooks: [...registry.keys()] }, 'webhooks.loaded');
  return registry;
}

/** Only the built-in receivers (an app built without start-up, e.g. in a test). */
export const builtinWebhooks = (): WebhookRegistry => new Map(BUILTIN_WEBHOOKS.map((w) => [w.name, w]));
