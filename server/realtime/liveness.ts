/**
 * How the live socket shows it is alive (docs/live.md). A server that goes silent (hung, stopped,
 * or cut off without a close) is noticed by the browser within PING.pingInterval + PING.pingTimeout
 * (8.5 s): Socket.IO's client closes the connection as "ping timeout" when no ping came in that
 * time, and the wall turns grey at once (tests/browser/wall-noc.test.ts, a stopped server process).
 * The server drops a client that has not answered a ping within pingTimeout.
 */
export const PING = { pingInterval: 2500, pingTimeout: 6000 };

/** How often each socket hears the server's time and position, and its user's status is read again. */
export const TICK_MS = 5000;
