import type { Config } from './config.ts';

/**
 * What code below the HTTP layer may know of a request, an HTTP request's or a socket handshake's:
 * plain values, so auth and the hub need no Koa (the HTTP layer fills it from `ctx`, the hub from
 * the handshake).
 */
export interface RequestFacts {
  method: string;
  /** Path and query as on the request line. */
  url: string;
  /** A header's value, '' when absent. */
  header(name: string): string;
  /** A query parameter's first value, '' when absent. */
  query(name: string): string;
  /** The caller's address: X-Forwarded-For's first with USE_PROXYFIX, else the socket's peer. */
  ip: string;
  /** True on a TLS connection. */
  encrypted: boolean;
  /** The body as sent (Hawk signs it); undefined when none was read. */
  rawBody?: string | undefined;
}

/** Scheme and host the client addressed. */
export interface RequestOrigin {
  protocol: string;
  host: string;
}

const first = (value: string) => value.split(',', 1)[0]!.trim();

/**
 * The scheme and host the client addressed, as Koa works out `ctx.protocol` and `ctx.host` with
 * `app.proxy` = USE_PROXYFIX (X-Forwarded-Proto and -Host honoured only then), for requests that
 * did not pass through Koa: the socket handshake (tests/unit/request-origin.test.ts compares them).
 */
export function requestOrigin(
  config: Pick<Config, 'USE_PROXYFIX'>,
  request: Pick<RequestFacts, 'header' | 'encrypted'>,
): RequestOrigin {
  const proto = config.USE_PROXYFIX ? request.header('X-Forwarded-Proto') : '';
  const protocol = request.encrypted ? 'https' : proto ? first(proto).toLowerCase() : 'http';
  let host = (config.USE_PROXYFIX && request.header('X-Forwarded-Host')) || request.header('Host');
  host = host ? first(host) : '';
  if (host.includes('@')) {
    try {
      host = new URL(`http://${host}`).host;
    } catch {
      host = '';
    }
  }
  return { protocol, host };
}
