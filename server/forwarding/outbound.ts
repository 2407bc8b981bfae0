import type * as Undici from 'undici';
import type { QueuedRow } from '../db/forward-queue.ts';
import { hawkHeader } from '../../shared/hawk.ts';
import { build } from '../version.ts';
import type { Destination, DestinationAuth } from './destinations.ts';
import { ALERTA_LOOP_HEADER, LOOP_HEADER } from './loop.ts';

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

/** What became of one attempt. */
export type Attempt =
  | { outcome: 'delivered'; status: number }
  /** Worth trying again: no answer, a timeout, 5xx, 408, 429. */
  | { outcome: 'failed'; error: string }
  /** The destination answered and refused (other 3xx/4xx): trying again would be refused again. */
  | { outcome: 'rejected'; status: number; error: string }
  /** This instance is stopping; the row goes back to the queue as it was. */
  | { outcome: 'stopped' };

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
 * request, and undici's costs about half the CPU (docs/benchmarks.md, 2026-11-27). It is loaded
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

/** Requests in flight by the signal that stops them: one listener per signal, not one per request. */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

function inFlightOf(stop: AbortSignal): Set<AbortController> {
  let running = inFlight.get(stop);
  if (!running) {
    const all = new Set<AbortController>();
    stop.addEventListener('abort', () => all.forEach((c) => c.abort()), { once: true });
    inFlight.set(stop, (running = all));
  }
  return running;
}

/**
 * Sends a request and waits for the whole answer (bodies are not parsed), at most `timeoutMs`;
 * `stop` aborts it when this instance shuts down. A controller and a cleared timer per request,
 * not `AbortSignal.timeout` and `.any`: those kept each request's signals (and, when the timer
 * fired long after the answer, a DOMException with its stack) for the whole timeout, which cost
 * the forwarding instance garbage collection per event (docs/benchmarks.md, 2026-11-27).
 */
export async function send(
  req: OutboundRequest,
  options: { agent: Agent; timeoutMs: number; stop: AbortSignal },
): Promise<Attempt> {
  if (options.stop.aborted) return { outcome: 'stopped' };
  const controller = new AbortController();
  const { signal } = controller;
  const running = inFlightOf(options.stop);
  running.add(controller);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    const { request } = undici ?? (await client());
    const dispatcher = options.agent.made ?? (await options.agent.dispatcher());
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body === '' ? null : req.body,
      dispatcher,
      signal,
    });
    await res.body.dump({ limit: 64 * 1024, signal });
    return options.stop.aborted ? { outcome: 'stopped' } : attemptOf(res.statusCode);
  } catch (err) {
    if (options.stop.aborted) return { outcome: 'stopped' };
    if (timedOut) return { outcome: 'failed', error: `no answer within ${options.timeoutMs} ms` };
    return { outcome: 'failed', error: reasonOf(err) };
  } finally {
    clearTimeout(timer);
    running.delete(controller);
  }
}
