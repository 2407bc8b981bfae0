import { serverName } from '../config/destinations.ts';

/**
 * Loop protection (spec "Events" 5): a forwarded request names, in order, every server that already
 * processed it. We send our header and the established servers' one with the same value, and read
 * both, so a federation can mix this server with stock ones.
 */
export const LOOP_HEADER = 'X-Service-Loop';
export const ALERTA_LOOP_HEADER = 'X-Alerta-Loop';

/** The servers named by the two loop headers, in order, each once. */
export function loopNames(...headerValues: string[]): string[] {
  const names: string[] = [];
  for (const value of headerValues) {
    for (const part of value.split(',')) {
      const name = serverName(part);
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * Is `server` among the names? Compared as whole server names (serverName form), not as the
 * established server's substring test, so http://a:80 is not taken for http://a:8080.
 */
export const isNamed = (names: readonly string[], server: string) => names.includes(serverName(server));

/** The header value to send onward: what came in, then our own name. */
export function loopValue(names: readonly string[], own: string): string {
  const ownName = serverName(own);
  return [...names.filter((n) => n !== ownName), ownName].join(',');
}
