import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
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

export type Agent = HttpAgent | HttpsAgent;

/** A keep-alive agent for one destination; ssl_verify False accepts any certificate. */
export function agentFor(destination: Destination, maxSockets: number): Agent {
  return destination.url.startsWith('https:')
    ? new HttpsAgent({ keepAlive: true, maxSockets, rejectUnauthorized: destination.sslVerify })
    : new HttpAgent({ keepAlive: true, maxSockets });
}

/**
 * Sends a request and waits for the whole answer (bodies are not parsed), at most `timeoutMs`;
 * `stop` aborts it when this instance shuts down.
 */
export function send(
  req: OutboundRequest,
  options: { agent: Agent; timeoutMs: number; stop: AbortSignal },
): Promise<Attempt> {
  if (options.stop.aborted) return Promise.resolve({ outcome: 'stopped' });
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, options.stop]);
  const doRequest = req.url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise<Attempt>((resolve) => {
    const settle = (a: Attempt) => resolve(options.stop.aborted ? { outcome: 'stopped' } : a);
    const onError = (err: NodeJS.ErrnoException) => {
      if (timeout.aborted) settle({ outcome: 'failed', error: `no answer within ${options.timeoutMs} ms` });
      else settle({ outcome: 'failed', error: err.code ?? err.message });
    };
    const outgoing = doRequest(
      req.url,
      {
        method: req.method,
        headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
        agent: options.agent,
        signal,
      },
      (res) => {
        res.on('error', onError);
        res.on('end', () => settle(attemptOf(res.statusCode ?? 0)));
        res.resume();
      },
    );
    outgoing.on('error', onError);
    outgoing.end(req.body);
  });
}
