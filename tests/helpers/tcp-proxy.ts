import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in the test process that stands between a server and its PostgreSQL, so a test
 * can make the database unreachable and bring it back without touching the real one.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Stops listening (new connections are refused: ECONNREFUSED) and cuts every open one. */
  cut(): Promise<void>;
  /**
   * Keeps listening, but answers every new connection as a PostgreSQL that cannot take one
   * (an ErrorResponse with this SQLSTATE, then close), and cuts the open ones.
   */
  refuseWith(code: string, message: string): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A PostgreSQL protocol ErrorResponse ('E'): severity, code and message fields. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat(
    [`SFATAL`, `VFATAL`, `C${code}`, `M${message}`].map((f) => Buffer.from(`${f}\0`, 'utf8')),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let mode: 'forward' | { code: string; message: string } = 'forward';
  let port = 0;
  let server: Server | null = null;

  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
  };

  const onConnection = (client: Socket) => {
    track(client);
    if (mode !== 'forward') {
      const { code, message } = mode;
      // Answer once the startup message arrives, as a server that is starting up or full does.
      client.once('data', () => client.end(errorResponse(code, message)));
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };

  const listen = async () => {
    server = createServer(onConnection);
    await new Promise<void>((ok, fail) => {
      server!.once('error', fail);
      server!.listen(port, '127.0.0.1', () => ok());
    });
    port = (server.address() as AddressInfo).port;
  };
  const stopListening = async () => {
    const s = server;
    server = null;
    if (s) await new Promise<void>((ok) => s.close(() => ok()));
  };
  const cutAll = () => {
    for (const s of open) s.destroy();
  };

  await listen();
  return {
    get port() {
      return port;
    },
    via(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async cut() {
      mode = 'forward';
      const stopped = stopListening();
      cutAll();
      await stopped;
    },
    async refuseWith(code, message) {
      mode = { code, message };
      cutAll();
      if (!server) await listen();
    },
    async restore() {
      mode = 'forward';
      if (!server) await listen();
    },
    async close() {
      const stopped = stopListening();
      cutAll();
      await stopped;
    },
  };
}
