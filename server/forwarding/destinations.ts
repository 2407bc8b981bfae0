import { DEFAULT_DESTINATION_TIMEOUT, serverName, type DestinationTuple } from '../config/destinations.ts';

// FWD_DESTINATIONS as the forwarder uses them; the setting itself is checked in config/destinations.ts.

export type DestinationAuth =
  | { kind: 'none' }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'hawk'; id: string; secret: string }
  | { kind: 'key'; key: string }
  | { kind: 'bearer'; token: string };

export interface Destination {
  /**
   * The remote BASE_URL as serverName() writes it: what loop headers, the queue, logs and metrics
   * name it by (it never holds credentials).
   */
  url: string;
  auth: DestinationAuth;
  timeoutMs: number;
  sslVerify: boolean;
  filter: ReadonlySet<string>;
}

/** The kinds of event a destination can be sent. */
export type ForwardKind = 'alert' | 'action' | 'delete';

/**
 * Housekeeping's own actions: every server runs housekeeping on the same timeouts, and a service
 * refuses them on PUT /action, so `*` and `actions` leave them out; naming one forwards it.
 */
const HOUSEKEEPING_ACTIONS = new Set(['expired', 'timeout']);

/** Does the destination's filter ask for this event? (`action` is the action name for kind 'action'.) */
export function wantsEvent(d: Destination, kind: ForwardKind, action = ''): boolean {
  const f = d.filter;
  switch (kind) {
    case 'alert':
      return f.has('*') || f.has('alerts');
    case 'delete':
      return f.has('*') || f.has('delete');
    case 'action':
      if (f.has(action)) return true;
      return !HOUSEKEEPING_ACTIONS.has(action) && (f.has('*') || f.has('actions'));
  }
}

function authOf(c: Record<string, unknown>): DestinationAuth {
  if (typeof c.username === 'string')
    return { kind: 'basic', username: c.username, password: String(c.password) };
  if (typeof c.key === 'string' && typeof c.secret === 'string')
    return { kind: 'hawk', id: c.key, secret: c.secret };
  if (typeof c.key === 'string') return { kind: 'key', key: c.key };
  if (typeof c.token === 'string') return { kind: 'bearer', token: c.token };
  return { kind: 'none' };
}

/** The destinations of a checked FWD_DESTINATIONS value, defaults applied. */
export function toDestinations(tuples: readonly DestinationTuple[]): Destination[] {
  return tuples.map(([url, credentials, filter]) => {
    return {
      url: serverName(url),
      auth: authOf(credentials),
      timeoutMs: Math.round(
        (typeof credentials.timeout === 'number' ? credentials.timeout : DEFAULT_DESTINATION_TIMEOUT) * 1000,
      ),
      sslVerify: credentials.ssl_verify !== false,
      filter: new Set(filter),
    };
  });
}
