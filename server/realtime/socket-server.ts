import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/events.ts';
import { originMatcher } from '../config/origins.ts';
import type { Config } from '../config.ts';
import { PING } from './liveness.ts';
import type { SharedEncoding } from './shared-encoding.ts';
import type { LiveSocket, SocketData } from './view.ts';

export type Io = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** The hub's Socket.IO server on the API's HTTP server (docs/live.md). */
export function createSocketServer(config: Config, server: HttpServer, encoding: SharedEncoding): Io {
  const isListedOrigin = originMatcher(config.CORS_ORIGINS);
  const io: Io = new Server(server, {
    path: config.SOCKET_PATH || `${config.API_PREFIX}/socket.io`,
    serveClient: false,
    ...PING,
    // A snapshot page shared by many subscribers is encoded once for all of them (shared-encoding.ts).
    parser: encoding.parser,
    // The same origin rule as HTTP (regex entries included), so a listed console may connect.
    cors: {
      origin: (origin, allow) => allow(null, origin === undefined || isListedOrigin(origin)),
      credentials: true,
    },
  });
  // Once a socket is connected, nothing reads the HTTP request that opened its session again (its
  // handshake, which authentication reads, is a copy made before). A session opened by HTTP
  // long-polling (a browser's way in) would otherwise keep that request, with its headers and
  // parser state, for the connection's life (Socket.IO's "Memory usage"); a WebSocket opened at once
  // stays referenced by Engine.IO's upgrade response until it closes. Dropped on the next turn,
  // after every `connection` listener.
  io.on('connection', (socket: LiveSocket) => {
    setImmediate(() => forgetRequest(socket));
  });
  return io;
}

/** Lets go of the request behind a socket's Engine.IO session (see createSocketServer). */
function forgetRequest(socket: LiveSocket) {
  (socket.conn as unknown as { request: unknown }).request = null;
}
