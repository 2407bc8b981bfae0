import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { until } from './live.ts';

/** One request a stand-in service received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

/**
 * A local HTTP server standing in for a notification service (Slack, PagerDuty …): it records
 * every request and answers with `status` (changeable, e.g. 500 while "down"); `down()` stops
 * listening altogether and `up()` listens again on the same port.
 */
export class StubService {
  readonly received: Received[] = [];
  status = 200;
  private server: Server;
  port = 0;

  private constructor() {
    this.server = this.make();
  }

  private make(): Server {
    return createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          // not JSON
        }
        this.received.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
          json,
        });
        res.writeHead(this.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(this.status < 300 ? { ok: true, status: 'success' } : { ok: false }));
      });
    });
  }

  static async start(): Promise<StubService> {
    const stub = new StubService();
    await stub.listen(0);
    return stub;
  }

  private listen(port: number): Promise<void> {
    return new Promise((ok) =>
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        ok();
      }),
    );
  }

  url(path = '/'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Stops listening: connections are refused until `up()`. */
  async down(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  async up(): Promise<void> {
    this.server = this.make();
    await this.listen(this.port);
  }

  /** Waits until `n` requests (optionally only those passing `test`) have arrived; gives them. */
  waitFor(n: number, test: (r: Received) => boolean = () => true, timeoutMs = 20_000): Promise<Received[]> {
    return until(
      () => {
        const found = this.received.filter(test);
        return found.length >= n ? found : undefined;
      },
      timeoutMs,
      () =>
        `expected ${n} requests, got ${this.received.filter(test).length}: ${JSON.stringify(this.received.map((r) => r.path))}`,
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

/** One e-mail an SMTP server took. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server (smtp-server), no TLS, any login accepted, every message kept. */
export class MailServer {
  readonly mails: ReceivedMail[] = [];
  readonly logins: { username: string; password: string }[] = [];
  port = 0;
  private readonly server: SMTPServer;

  private constructor() {
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      logger: false,
      onAuth: (auth, _session, callback) => {
        this.logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
        callback(null, { user: auth.username });
      },
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (d: Buffer) => (raw += d.toString()));
        stream.on('end', () => {
          this.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
          });
          callback();
        });
      },
    });
  }

  static async start(): Promise<MailServer> {
    const mail = new MailServer();
    await new Promise<void>((ok) => mail.server.listen(0, '127.0.0.1', () => ok()));
    mail.port = (mail.server.server.address() as AddressInfo).port;
    return mail;
  }

  waitFor(n: number, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    return until(
      () => (this.mails.length >= n ? this.mails : undefined),
      timeoutMs,
      () => `expected ${n} e-mails, got ${this.mails.length}`,
    );
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}
