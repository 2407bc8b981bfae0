import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Hawk 1.0 signing (auth.md §11, docs/hawk.md): the payload hash, the MAC and the client's
 * `Authorization` header. Pure, node:crypto only, so the server's check, the forwarder and the CLI
 * share it; the nonce store and the request checks stay in server/auth/hawk.ts. Not for web/: the
 * browser never signs with Hawk.
 */

export type HawkAlgorithm = 'sha1' | 'sha256';
export const HAWK_ALGORITHMS: readonly string[] = ['sha1', 'sha256'];

/** Attribute values Hawk carries unescaped: printable ASCII without `"` and `\`. */
export const HAWK_VALUE_CHARS = /^[ \w!#$%&'()*+,\-./:;<=>?@[\]^`{|}~]*$/;

export interface HawkArtifacts {
  method: string;
  /** Path and query exactly as on the request line. */
  resource: string;
  host: string;
  port: number;
  ts: string | number;
  nonce: string;
  hash: string;
  ext?: string;
}

/** The media type of a Content-Type value: lower-case, parameters dropped ('' for none). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** base64(<alg>("hawk.1.payload\n" + media type + "\n" + body + "\n")). */
export function hawkPayloadHash(algorithm: HawkAlgorithm, contentType: string | undefined, payload: string) {
  return createHash(algorithm)
    .update(`hawk.1.payload\n${mediaType(contentType)}\n`)
    .update(payload, 'utf8')
    .update('\n')
    .digest('base64');
}

/** The normalized string of a request, one line each, every line ending in "\n". */
export function hawkNormalizedString(a: HawkArtifacts): string {
  const ext = (a.ext ?? '').replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return [
    'hawk.1.header',
    String(a.ts),
    a.nonce,
    a.method.toUpperCase(),
    a.resource,
    a.host.toLowerCase(),
    String(a.port),
    a.hash,
    ext,
    '',
  ].join('\n');
}

export function hawkMac(algorithm: HawkAlgorithm, key: string, a: HawkArtifacts): string {
  return createHmac(algorithm, key).update(hawkNormalizedString(a)).digest('base64');
}

export interface HawkCredentials {
  id: string;
  key: string;
  algorithm?: HawkAlgorithm;
}

export interface HawkRequest {
  method: string;
  /** Absolute http(s) URL the request goes to. */
  url: string;
  contentType?: string;
  /** The body exactly as sent ('' or absent for none). */
  payload?: string;
  /** Seconds since the epoch; now by default. */
  ts?: number;
  nonce?: string;
  ext?: string;
}

/**
 * Client side: the `Authorization` header value for a request signed with Hawk 1.0, always with a
 * payload hash. What it produces is what the server's check (and any Hawk server) accepts.
 */
export function hawkHeader(credentials: HawkCredentials, request: HawkRequest): string {
  const algorithm = credentials.algorithm ?? 'sha256';
  if (!HAWK_ALGORITHMS.includes(algorithm)) throw new Error(`unsupported Hawk algorithm '${algorithm}'`);
  if (!credentials.id || !credentials.key) throw new Error('Hawk credentials need an id and a key');
  const u = new URL(request.url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('Hawk signs http(s) URLs only');
  const ts = request.ts ?? Math.floor(Date.now() / 1000);
  const nonce = request.nonce ?? randomBytes(9).toString('base64url');
  const ext = request.ext ?? '';
  for (const [name, value] of [
    ['id', credentials.id],
    ['nonce', nonce],
    ['ext', ext],
  ] as const) {
    if (!HAWK_VALUE_CHARS.test(value)) throw new Error(`Hawk ${name} has characters a header cannot carry`);
  }
  if (!Number.isSafeInteger(ts) || ts < 0) throw new Error('Hawk ts must be whole seconds');
  // WHATWG URLs drop a bare trailing '?' from search; the request line keeps it.
  const withoutFragment = u.href.replace(/#.*$/s, '');
  const resource = u.pathname + (u.search || (withoutFragment.endsWith('?') ? '?' : ''));
  const hash = hawkPayloadHash(algorithm, request.contentType, request.payload ?? '');
  const mac = hawkMac(algorithm, credentials.key, {
    method: request.method,
    resource,
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(u.port || (u.protocol === 'http:' ? 80 : 443)),
    ts,
    nonce,
    hash,
    ext,
  });
  return (
    `Hawk id="${credentials.id}", ts="${ts}", nonce="${nonce}", hash="${hash}"` +
    (ext ? `, ext="${ext}"` : '') +
    `, mac="${mac}"`
  );
}
