import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import type { Caller } from '../domain/caller.ts';
import type { Log } from '../log.ts';

/** What a receiver sees of the request behind `/webhooks/<name>[/<path>]` (GET or POST). */
export interface WebhookRequest {
  method: string;
  /** What follows `/webhooks/<name>/`, '' when nothing does. */
  path: string;
  query: URLSearchParams;
  /**
   * The body: parsed JSON (for a JSON content type, or any text that parses as a JSON object or
   * list), form fields for a form body, the raw text otherwise, null without a body.
   */
  payload: unknown;
  /** The body exactly as sent ('' without one). */
  rawBody: string;
  /** Request header by (case-insensitive) name, '' when absent. */
  header(name: string): string;
}

export interface WebhookContext {
  config: Config;
  log: Log;
  /** Database, bus, clock, alarm model and plugins, for receivers that act on stored alerts. */
  deps: Deps;
  /** Who called (login, customers, base URL): pass it to every domain function. */
  caller: Caller;
}

/**
 * A receiver either hands back alerts, each then received exactly as POST /alert receives one
 * (validation, customer, plugins, de-duplication, blackouts, live events), or answers by itself.
 */
export type WebhookResult =
  { alerts: unknown[] } | { reply: { status: number; body: unknown; headers?: Record<string, string> } };

export interface Webhook {
  /** The `<name>` in `/webhooks/<name>`. */
  name: string;
  /**
   * Maps one notification. Throw `AppError` for a chosen status (a bad payload is 400 naming the
   * field); any other exception becomes 400 with its message, as the established server does.
   */
  incoming(request: WebhookRequest, ctx: WebhookContext): Promise<WebhookResult> | WebhookResult;
}

/** A webhook module's default export may also be a factory, called once at start-up. */
export type WebhookFactory = (init: { config: Config; log: Log }) => Webhook | Promise<Webhook>;
