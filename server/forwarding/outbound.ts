import type * as Undici from 'undici';
import type { QueuedRow } from '../db/forward-queue.ts';
import { hawkHeader } from '../../shared/hawk.ts';
import { build } from '../version.ts';
import type { Attempt } from '../delivery/queue.ts';
import type { Destination, DestinationAuth } from './destinations.ts';
import { ALERTA_LOOP_HEADER, LOOP_HEADER } from './loop.ts';

export type { Attempt };

/** A forwarded request, ready to send. */
export interface OutboundRequest {
  method: 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  /** '' for DELETE. */
  body: string;
}

const JSON_TYPE = 'application/json';
const USER_AGENT = `${build.name}-forwarder/${build.version}`;

function authorization(auth: DestinationAuth, method: string, url: string, body: string): string | null {
  switch (auth.kind) {
    case 'none':
      return null;
    case 'basic':
      return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    case 'hawk':
      // Signed afresh on every attempt (new ts and nonce); the payload hash covers the exact body
      // and media type sent, as the established server's mohawk check and ours both expect.
      return hawkHeader(
        { id: auth.id, key: auth.secret, algorithm: 'sha256' },
        { method, url, contentType: JSON_TYPE, payload: body },
      );
    case 'key':
      return `Key ${auth.key}`;
    case 'bearer':
      return `Bearer ${auth.token}`;
  }
}

/**
 * The request an event becomes (reference §3): POST /alert, PUT /alert/:id/action or
 * DELETE /alert/:id under the destination's BASE_URL, JSON, with both loop headers.
 */
export function buildRequest(destination: Destination, row: QueuedRow): OutboundRequest {
  const alertPath = `${destination.url}/alert/${encodeURIComponent(row.alertId)}`;
  const [method, url] =
    row.kind === 'alert'
      ? (['POST', `${destination.url}/alert`] as const)
      : row.kind === 'action'
        ? (['PUT', `${alertPath}/action`] as const)
        : (['DELETE', alertPath] as const);
  const body = row.body ? JSON.stringify(row.body) : '';
  const headers: Record<string, string> = {
    'Content-Type': JSON_TYPE,
    Accept: JSON_TYPE,
    'User-Agent': USER_AGENT,
    'X-Request-ID': row.requestId,
    [LOOP_HEADER]: row.loop,
    [ALERTA_LOOP_HEADER]: row.loop,
  };
  const auth = authorization(destination.auth, method, url, body);
  if (auth) headers.Authorization = auth;
  return { method, url, headers, body };
}

const RETRYABLE = new Set([408, 425, 429]);

/** Classifies an answer: any 2xx is taken (a 202 loop answer means the remote has it already). */
export function attemptOf(status: number): Attempt {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status };
  if (status >= 500 || RETRYABLE.has(status)) return { outcome: 'failed', error: `HTTP ${status}` };
  return { outcome: 'rejected', status, error: `HTTP ${status}` };
}

let undici: typeof Undici | undefined;
const client = async () => (undici ??= await import('undici'));

/**
 * Keep-alive connections to the servers one destination (or one receiver) is sent to: an undici
 * agent, made on first use. undici rather than node:http: a forwarded event costs the sender a
 * request, and undici's costs about half the CPU (60–110 against 160–180 µs). It is loaded
 * only when something is first sent: importing it costs an instance about 9 MB of memory, which
 * one that forwards and notifies nothing should not spend.
 */
export class Agent {
  readonly #options: Undici.Agent.Options;
  #agent: Undici.Agent | undefined;

  constructor(options: Undici.Agent.Options) {
    this.#options = options;
  }

  async dispatcher(): Promise<Undici.Agent> {
    const { Agent: Connections } = await client();
    return (this.#agent ??= new Connections(this.#options));
  }

  /** The connections once made (no promise to wait for on every request). */
  get made(): Undici.Agent | undefined {
    return this.#agent;
  }

  async destroy(): Promise<void> {
    await this.#agent?.destroy();
    this.#agent = undefined;
  }
}

/**
 * The agent of one destination: at most `maxSockets` connections; ssl_verify False accepts any
 * certificate.
 */
export function agentFor(destination: Destination, maxSockets: number): Agent {
  return new Agent({
    connections: maxSockets,
    ...(destination.url.startsWith('https:')
      ? { connect: { rejectUnauthorized: destination.sslVerify } }
      : {}),
  });
}

/** The cause's code (ECONNREFUSED, …) or message, for logs, metrics and the status endpoint. */
function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  return e.cause?.code ?? e.code ?? e.message ?? String(err);
}

/** Answers whose body is longer are cut off there (the body is not used, only the status). */
const BODY_LIMIT = 64 * 1024;

/** An origin (`scheme://host:port`) and a path, as a dispatcher takes them; origins remembered. */
const origins = new Map<string, string>();
function originAndPath(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const prefix = slash < 0 ? url : url.slice(0, slash);
  let origin = origins.get(prefix);
  if (origin === undefined) {
    origin = new URL(prefix).origin;
    if (origins.size >= 1000) origins.clear();
    origins.set(prefix, origin);
  }
  return { origin, path: slash < 0 ? '/' : url.slice(slash) };
}

/** What stops a request before its answer: the timeout, or the instance stopping. */
class Stopped extends Error {}

/** How a request in flight is stopped: `reason` once it is, `abort` once it was dispatched. */
interface Cancel {
  reason?: Error;
  abort?: (reason: Error) => void;
}

function cancelWith(cancel: Cancel, reason: Error) {
  cancel.reason ??= reason;
  cancel.abort?.(reason);
}

/**
 * One request through the dispatcher with a handler of its own, resolving with the status once the
 * whole answer came (at most BODY_LIMIT of it is read). Lighter than undici's `request`, whose
 * per-request async resource, body stream and abort listeners showed as garbage collection per
 * forwarded event (`ingest.ts --forward live --rate 300` measures it). `cancel` is set to a function
 * that aborts it.
 */
function exchange(dispatcher: Undici.Dispatcher, req: OutboundRequest, cancel: Cancel): Promise<number> {
  const { origin, path } = originAndPath(req.url);
  return new Promise<number>((resolve, reject) => {
    let status = 0;
    let read = 0;
    let controller: Undici.Dispatcher.DispatchController | null = null;
    let ended: Error | null = null;
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(status);
    };
    cancel.abort = (reason) => {
      ended = reason;
      controller?.abort(reason);
      settle(reason);
    };
    if (cancel.reason) return cancel.abort(cancel.reason);
    dispatcher.dispatch(
      { origin, path, method: req.method, headers: req.headers, body: req.body === '' ? null : req.body },
      {
        onRequestStart(c) {
          controller = c;
          if (ended) c.abort(ended);
        },
        onResponseStart(c, statusCode) {
          if (statusCode >= 200 || status === 0) status = statusCode;
        },
        onResponseData(c, chunk) {
          read += chunk.length;
          if (read > BODY_LIMIT) {
            // Enough of it: the status is what counts.
            settle(null);
            c.abort(new Stopped('answer too long'));
          }
        },
        onResponseEnd() {
          settle(null);
        },
        onResponseError(_c, err) {
          settle(err);
        },
      },
    );
  });
}

/**
 * Sends a request and waits for the whole answer (bodies are not parsed), at most `timeoutMs`;
 * `stop` aborts it when this instance shuts down.
 */
export async function send(
  req: OutboundRequest,
  options: { agent: Agent; timeoutMs: number; stop: AbortSignal },
): Promise<Attempt> {
  const { stop } = options;
  if (stop.aborted) return { outcome: 'stopped' };
  const cancel: Cancel = {};
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    cancelWith(cancel, new Stopped(`no answer within ${options.timeoutMs} ms`));
  }, options.timeoutMs);
  timer.unref();
  const running = inFlightOf(stop);
  running.add(cancel);
  try {
    const dispatcher = options.agent.made ?? (await options.agent.dispatcher());
    if (stop.aborted) return { outcome: 'stopped' };
    const status = await exchange(dispatcher, req, cancel);
    return stop.aborted ? { outcome: 'stopped' } : attemptOf(status);
  } catch (err) {
    if (stop.aborted) return { outcome: 'stopped' };
    if (timedOut) return { outcome: 'failed', error: `no answer within ${options.timeoutMs} ms` };
    return { outcome: 'failed', error: reasonOf(err) };
  } finally {
    clearTimeout(timer);
    running.delete(cancel);
  }
}

/** Requests in flight by the signal that stops them: one listener per signal, not one per request. */
const inFlight = new WeakMap<AbortSignal, Set<Cancel>>();

function inFlightOf(stop: AbortSignal): Set<Cancel> {
  let running = inFlight.get(stop);
  if (!running) {
    const all = new Set<Cancel>();
    stop.addEventListener('abort', () => all.forEach((c) => cancelWith(c, new Stopped('stopping'))), {
      once: true,
    });
    inFlight.set(stop, (running = all));
  }
  return running;
}
