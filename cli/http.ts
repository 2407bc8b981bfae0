import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { hawkHeader, type HawkCredentials } from '../shared/hawk.ts';
import type { Settings } from './config.ts';
import { redact } from './config.ts';

/** A failure the CLI reports in one line and exits with `exitCode` (docs/cli.md, "Exit codes"). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
/** The server could not be reached (refused, unknown host, TLS, timeout): exit 3. */
export class ConnectionError extends CliError {
  constructor(message: string) {
    super(message, 3);
  }
}
/** An error answer from the API: exit 1 (a 403 too, as the established client), or 4 for AuthError. */
export class ApiError extends CliError {
  readonly status: number;
  readonly body: unknown;
  constructor(message: string, status: number, body: unknown, exitCode = 1) {
    super(message, exitCode);
    this.status = status;
    this.body = body;
  }
}
/** Authentication failed: the server refused the credentials (401), or the live socket did: exit 4. */
export class AuthError extends ApiError {
  constructor(message: string, status = 401, body: unknown = null) {
    super(message, status, body, 4);
  }
}

export type Query = URLSearchParams | [string, string][] | Record<string, string | number | undefined>;

export interface RequestOptions {
  query?: Query;
  /** JSON-encoded; `null` is sent as the body `null` (as the established client does for some PUTs). */
  body?: unknown;
  /** Send no credentials (GET /config). */
  anonymous?: boolean;
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: http.IncomingHttpHeaders;
}

const CLIENT = 'alertwall-cli';

/** How requests carry credentials: one fixed header, or a Hawk signature made for each request. */
export type Authorization = string | { hawk: HawkCredentials };

function toParams(q: Query | undefined): URLSearchParams {
  if (!q) return new URLSearchParams();
  if (q instanceof URLSearchParams) return q;
  if (Array.isArray(q)) return new URLSearchParams(q);
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.append(k, String(v));
  return p;
}

/** Why a request never got an answer, in words. */
function describeNetworkError(err: NodeJS.ErrnoException, url: URL): string {
  const where = url.origin;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${where}: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to ${where}: unknown host ${url.hostname}`;
    case 'ECONNRESET':
      return `connection to ${where} was reset`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot connect to ${where}: host unreachable`;
    default:
      return `cannot connect to ${where}: ${err.message}`;
  }
}

/** The API over HTTP: credentials, JSON both ways, request ids, timeouts, debug traces. */
export class Http {
  readonly endpoint: string;
  private readonly settings: Settings;
  private readonly authorization: Authorization | null;
  private readonly agent: http.Agent;
  private readonly trace: ((line: string) => void) | null;

  constructor(
    settings: Settings,
    authorization: Authorization | null,
    trace: ((line: string) => void) | null,
  ) {
    this.settings = settings;
    this.endpoint = settings.endpoint;
    this.authorization = authorization;
    this.trace = trace;
    const secure = this.endpoint.startsWith('https:');
    const tls: https.AgentOptions = {};
    if (secure) {
      tls.rejectUnauthorized = settings.sslverify;
      if (settings.sslcert) tls.cert = readFileSync(settings.sslcert);
      if (settings.sslkey) tls.key = readFileSync(settings.sslkey);
      const bundle = process.env.REQUESTS_CA_BUNDLE;
      if (bundle) tls.ca = [...rootCertificates, readFileSync(bundle, 'utf8')];
    }
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 16, ...tls })
      : new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** The credentials, for the live socket's handshake. */
  get credentials(): Authorization | null {
    return this.authorization;
  }

  url(path: string, query?: Query): URL {
    const url = new URL(this.endpoint + path);
    for (const [k, v] of toParams(query)) url.searchParams.append(k, v);
    return url;
  }

  /** Sends one request; error answers (and unreachable servers) throw a CliError subclass. */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<Answer<T>> {
    const answer = await this.send(method, path, opts);
    if (answer.status >= 400) throw this.errorFor(answer);
    return answer as Answer<T>;
  }

  get<T = Record<string, unknown>>(path: string, query?: Query) {
    return this.request<T>('GET', path, { query }).then((a) => a.body);
  }
  post<T = Record<string, unknown>>(path: string, body: unknown, query?: Query) {
    return this.request<T>('POST', path, { body, query }).then((a) => a.body);
  }
  put<T = Record<string, unknown>>(path: string, body: unknown, query?: Query) {
    return this.request<T>('PUT', path, { body, query }).then((a) => a.body);
  }
  delete<T = Record<string, unknown>>(path: string, query?: Query) {
    return this.request<T>('DELETE', path, { query }).then((a) => a.body);
  }

  /** Sends one request and gives whatever answer came back, error statuses included. */
  send(method: string, path: string, opts: RequestOptions = {}): Promise<Answer> {
    const url = this.url(path, opts.query);
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = {
      Accept: 'application/json',
      // The established client labels every request JSON, bodiless ones too (clients.md trap 10).
      'Content-Type': 'application/json',
      'User-Agent': CLIENT,
      'X-Request-ID': randomUUID(),
    };
    if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
    const auth = opts.anonymous ? null : this.authorization;
    if (typeof auth === 'string') headers.Authorization = auth;
    else if (auth) {
      // Signed over what is sent: the method, the URL, the media type and the exact body.
      const request = { method, url: url.href, contentType: headers['Content-Type'], payload: payload ?? '' };
      headers.Authorization = hawkHeader(auth.hawk, request);
    }
    if (this.trace) {
      this.trace(`> ${method} ${url.href}`);
      for (const [k, v] of Object.entries(headers)) {
        this.trace(`> ${k}: ${k === 'Authorization' ? redactAuthorization(v) : v}`);
      }
      if (payload !== undefined) this.trace(`> ${payload}`);
    }
    const lib = url.protocol === 'https:' ? https : http;
    const timeoutMs = this.settings.timeout * 1000;
    return new Promise<Answer>((resolve, reject) => {
      const req = lib.request(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new ConnectionError(describeNetworkError(err, url))));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          if (this.trace) {
            this.trace(`< ${res.statusCode} ${res.statusMessage ?? ''}`);
            for (const [k, v] of Object.entries(res.headers)) this.trace(`< ${k}: ${String(v)}`);
            if (text) this.trace(`< ${text}`);
          }
          let body: unknown = text;
          const type = String(res.headers['content-type'] ?? '');
          if (text && (type.includes('json') || /^\s*[[{]/.test(text))) {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        });
      });
      const timer = setTimeout(() => {
        req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new ConnectionError(
            err.code === 'ETIMEDOUT'
              ? `no answer from ${url.origin} within ${this.settings.timeout} s (${method} ${url.pathname})`
              : describeNetworkError(err, url),
          ),
        );
      });
      req.end(payload);
    });
  }

  /**
   * The error an error answer stands for: 401 → AuthError (exit 4); anything else, 403 included →
   * ApiError (exit 1). A 403 is a refusal of what was asked (a missing scope, a policy plugin
   * rejecting an alert), not of who asked, and the established client exits 1 on it.
   */
  errorFor(answer: Answer): CliError {
    const body = answer.body;
    const message =
      body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : typeof body === 'string' && body.trim() && body.length < 200
          ? body.trim()
          : (http.STATUS_CODES[answer.status] ?? 'error');
    if (answer.status === 401) return new AuthError(`authentication failed: ${message}`, 401, body);
    return new ApiError(`${message} (HTTP ${answer.status})`, answer.status, body);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `Key abcd…` → `Key ********wxyz`: debug traces never show a whole credential. */
export function redactAuthorization(value: string): string {
  const space = value.indexOf(' ');
  return space < 0 ? redact(value) : `${value.slice(0, space)} ${redact(value.slice(space + 1))}`;
}

/** The Authorization header for the configured credentials, in the established client's order. */
export function authorizationFor(settings: Settings, token: string | null): Authorization | null {
  if (settings.username) {
    const pair = `${settings.username}:${settings.password ?? ''}`;
    return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  if (settings.secret) {
    // As the established client: Hawk with `key` as the id and `secret` as the key, SHA-256.
    if (!settings.key) throw new CliError('bad configuration: "secret" (Hawk) needs "key" as its id', 2);
    return { hawk: { id: settings.key, key: settings.secret, algorithm: 'sha256' } };
  }
  if (settings.key) return `Key ${settings.key}`;
  if (token) return `Bearer ${token}`;
  return null;
}
