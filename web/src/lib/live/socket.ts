import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../../../../shared/events.ts';
import { API, loginRequired, socketAuth } from '../api.ts';

export type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Whether a failed handshake was the server refusing the credentials (a token expired or revoked). */
export const isRefused = (err: Error): boolean =>
  (err as Error & { data?: { code?: number } }).data?.code === 401;

/**
 * What to tell the reader about a failed handshake: the server's own message when it refused (it
 * sends one with the refusal), else nothing — "xhr poll error", "websocket error" and the like are
 * transport details the connection banner already puts in words.
 */
export const connectErrorMessage = (err: Error): string | null =>
  (err as Error & { data?: { message?: unknown } }).data?.message !== undefined ? err.message : null;

/**
 * The browser's live socket (docs/live.md), with the stored token or API key. A refused handshake
 * sends the user to log in, and so does a session the server ends (`session.expired`: the token
 * expired, or its user was disabled or deleted meanwhile); a disconnect by the server is retried
 * after two seconds while `retry()` says so, since Socket.IO itself does not retry those. Callers
 * add their own listeners for state.
 */
export function openLiveSocket(retry: () => boolean = () => true): LiveSocket {
  const socket: LiveSocket = io({ path: `${API}/socket.io`, auth: socketAuth() });
  socket.on('disconnect', (reason) => {
    if (reason === 'io server disconnect' && retry()) setTimeout(() => socket.connect(), 2000);
  });
  socket.on('connect_error', (err) => {
    if (isRefused(err)) loginRequired();
  });
  socket.on('session.expired', () => loginRequired());
  return socket;
}
