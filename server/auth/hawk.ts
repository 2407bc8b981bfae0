import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { claimHawkNonce, deleteExpiredHawkNonces } from '../db/hawk-nonces.ts';
import type { Deps } from '../deps.ts';
import { appError, type AppError } from '../errors.ts';
import type { RequestFacts } from '../request.ts';
import {
  HAWK_ALGORITHMS,
  HAWK_VALUE_CHARS,
  hawkMac,
  hawkPayloadHash,
  type HawkAlgorithm,
} from '../../shared/hawk.ts';

// The signing side, where the server's callers and its tests have always found it.
export { hawkHeader, hawkPayloadHash, mediaType } from '../../shared/hawk.ts';

/**
 * Hawk 1.0 request authentication (auth.md §11, docs/hawk.md): the server side that checks an
 * `Authorization: Hawk …` header against the credentials and the nonce store. Signing (payload
 * hash, MAC, the client's header) is in shared/hawk.ts, which the forwarder and the CLI use too.
 */

/** Seconds a request's timestamp may differ from the server's clock. */
export const HAWK_SKEW_SEC = 300;
/** Extra time a seen nonce is kept, for clocks that differ between instances. */
const NONCE_MARGIN_MS = 60_000;
/** How often one instance deletes expired nonces. */
const SWEEP_EVERY_MS = 60_000;
const MAX_HEADER_LENGTH = 4096;
const MAX_ID_LENGTH = 256;
const MAX_NONCE_LENGTH = 256;

export interface HawkAttributes {
  id: string;
  /** Seconds since the epoch, as sent. */
  ts: string;
  nonce: string;
  hash: string;
  mac: string;
  ext: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ATTRIBUTE = /([A-Za-z]+)="([^"\\]*)"\s*(?:,\s*|$)/y;
const KNOWN = new Set(['id', 'ts', 'nonce', 'hash', 'mac', 'ext']);

/** The 401 with the challenge naming the problem, as the hawk library answers. */
const refuse = (e: AppError) => e.with({ headers: { 'WWW-Authenticate': `Hawk error="${e.message}"` } });

/**
 * Parses the value of an `Authorization: Hawk id="…", ts="…", …` header. Every attribute must be
 * `name="value"`, known, given once and well-formed; id, ts, nonce, hash and mac are required.
 * Anything else is a 401 naming the problem.
 */
export function parseHawkHeader(header: string): HawkAttributes {
  if (header.length > MAX_HEADER_LENGTH) throw refuse(appError('hawk_invalid_header', 'too long'));
  const m = /^hawk(?:\s+(.*))?$/is.exec(header.trim());
  if (!m) throw refuse(appError('hawk_invalid_header', 'not the Hawk scheme'));
  const text = m[1] ?? '';
  if (!text) throw refuse(appError('hawk_invalid_header', 'no attributes'));
  const found = new Map<string, string>();
  let pos = 0;
  while (pos < text.length) {
    ATTRIBUTE.lastIndex = pos;
    const a = ATTRIBUTE.exec(text);
    if (!a) throw refuse(appError('hawk_invalid_header', 'bad syntax'));
    const [, name = '', value = ''] = a;
    if (!KNOWN.has(name)) throw refuse(appError('hawk_invalid_header', `unknown attribute ${name}`));
    if (found.has(name)) throw refuse(appError('hawk_invalid_header', `duplicate attribute ${name}`));
    if (!HAWK_VALUE_CHARS.test(value)) throw refuse(appError('hawk_invalid_header', `bad value for ${name}`));
    found.set(name, value);
    pos = ATTRIBUTE.lastIndex;
  }
  for (const name of ['id', 'ts', 'nonce', 'mac']) {
    if (!found.get(name)) throw refuse(appError('hawk_invalid_header', `missing ${name}`));
  }
  if (!found.get('hash')) throw refuse(appError('hawk_invalid_header', 'missing payload hash'));
  const attrs: HawkAttributes = {
    id: found.get('id')!,
    ts: found.get('ts')!,
    nonce: found.get('nonce')!,
    hash: found.get('hash')!,
    mac: found.get('mac')!,
    ext: found.get('ext') ?? '',
  };
  if (attrs.id.length > MAX_ID_LENGTH) throw refuse(appError('hawk_invalid_header', 'id too long'));
  if (!/^\d{1,12}$/.test(attrs.ts)) throw refuse(appError('hawk_invalid_header', 'ts must be whole seconds'));
  if (attrs.nonce.length > MAX_NONCE_LENGTH) throw refuse(appError('hawk_invalid_header', 'nonce too long'));
  if (!BASE64.test(attrs.hash)) throw refuse(appError('hawk_invalid_header', 'hash must be base64'));
  if (!BASE64.test(attrs.mac)) throw refuse(appError('hawk_invalid_header', 'mac must be base64'));
  return attrs;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const firstValue = (v: string) => v.split(',')[0]!.trim();

/**
 * The host name and port the client addressed: from the Host header (X-Forwarded-Host/-Port/-Proto
 * first when USE_PROXYFIX), the port defaulting to 80 or 443 by scheme. IPv6 literals lose their
 * brackets, as the hawk client writes them.
 */
export function requestHostPort(
  request: Pick<RequestFacts, 'header' | 'encrypted'>,
  config: Pick<Config, 'USE_PROXYFIX'>,
) {
  const proxied = config.USE_PROXYFIX;
  const forwardedProto = proxied ? firstValue(request.header('X-Forwarded-Proto')).toLowerCase() : '';
  const scheme = forwardedProto || (request.encrypted ? 'https' : 'http');
  const hostHeader = (proxied && firstValue(request.header('X-Forwarded-Host'))) || request.header('Host');
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/[\]@]+))(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  if (!m) throw refuse(appError('hawk_invalid_host'));
  const forwardedPort = proxied ? firstValue(request.header('X-Forwarded-Port')) : '';
  if (forwardedPort && !/^\d{1,5}$/.test(forwardedPort))
    throw refuse(appError('hawk_invalid_forwarded_port'));
  const port = Number(forwardedPort || m[3] || (scheme === 'https' ? 443 : 80));
  return { host: (m[1] ?? m[2] ?? '').toLowerCase(), port };
}

/** Path and query as on the request line (an absolute-form target is reduced to them). */
function requestResource(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    throw refuse(appError('hawk_invalid_target'));
  }
}

let lastSweep = 0;

/** Deletes expired nonces at most once a minute per process; a failure is logged, not fatal. */
async function sweepNonces(deps: Deps, now: number) {
  if (now - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = now;
  try {
    await deleteExpiredHawkNonces(deps.db, now);
  } catch (err) {
    deps.log.warn({ err }, 'could not delete expired Hawk nonces');
  }
}

/**
 * Verifies a Hawk-signed request (auth.md §11) and returns the key id it was signed with; 401
 * otherwise. Checks, in order: header syntax, known id, MAC, payload hash (always required; an
 * absent body hashes as ''), timestamp within HAWK_SKEW_SEC (else 401 `Stale timestamp` with the
 * server's signed time in WWW-Authenticate), and that the nonce was not used before.
 */
export async function verifyHawkRequest(deps: Deps, request: RequestFacts): Promise<string> {
  const attrs = parseHawkHeader(request.header('Authorization'));
  const credentials = deps.config.HMAC_AUTH_CREDENTIALS.find((c) => c.key === attrs.id);
  if (!credentials) throw refuse(appError('hawk_unknown_credentials'));
  const algorithm = credentials.algorithm.toLowerCase();
  if (!HAWK_ALGORITHMS.includes(algorithm)) throw refuse(appError('hawk_unsupported_algorithm'));
  const alg = algorithm as HawkAlgorithm;

  const { host, port } = requestHostPort(request, deps.config);
  const hash = hawkPayloadHash(alg, request.header('Content-Type'), request.rawBody ?? '');
  const mac = hawkMac(alg, credentials.secret, {
    method: request.method,
    resource: requestResource(request.url),
    host,
    port,
    ts: attrs.ts,
    nonce: attrs.nonce,
    hash: attrs.hash,
    ext: attrs.ext,
  });
  if (!safeEqual(mac, attrs.mac)) throw refuse(appError('hawk_bad_mac'));
  if (!safeEqual(hash, attrs.hash)) throw refuse(appError('hawk_bad_hash'));

  const now = deps.clock.now();
  const tsMs = Number(attrs.ts) * 1000;
  if (Math.abs(tsMs - now) > HAWK_SKEW_SEC * 1000) {
    const serverTs = Math.floor(now / 1000);
    const tsm = createHmac(alg, credentials.secret).update(`hawk.1.ts\n${serverTs}\n`).digest('base64');
    throw appError('hawk_stale_timestamp').with({
      headers: { 'WWW-Authenticate': `Hawk ts="${serverTs}", tsm="${tsm}", error="Stale timestamp"` },
    });
  }

  await sweepNonces(deps, now);
  const fresh = await claimHawkNonce(deps.db, {
    keyId: attrs.id,
    nonce: attrs.nonce,
    ts: Number(attrs.ts),
    expireTime: tsMs + HAWK_SKEW_SEC * 1000 + NONCE_MARGIN_MS,
  });
  if (!fresh) throw refuse(appError('hawk_replayed_nonce'));
  return attrs.id;
}
