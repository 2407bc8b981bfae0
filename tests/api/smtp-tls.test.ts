/**
 * E-mail receivers and STARTTLS against real local SMTP servers (smtp-server, with its built-in
 * self-signed certificate for localhost): a login goes over TLS whenever the server offers
 * STARTTLS, in clear only with an explicit `ignoreTLS`; `requireTLS` against a server without
 * STARTTLS fails with a clear error; a certificate that does not verify is a failure, never a
 * fallback to plain text. The receivers' `skipVerify` accepts the test certificate.
 */
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';

/** One SMTP server: logins are recorded with whether the session was encrypted by then. */
class TlsMailServer {
  readonly logins: { username: string; password: string; secure: boolean }[] = [];
  readonly mails: { to: string[]; secure: boolean; raw: string }[] = [];
  port = 0;
  private readonly server: SMTPServer;

  constructor(offersStartTls: boolean) {
    this.server = new SMTPServer({
      disabledCommands: offersStartTls ? [] : ['STARTTLS'],
      // Logins over plain TCP are accepted (and recorded as such), so a client that sends them is caught.
      allowInsecureAuth: true,
      logger: false,
      onAuth: (auth, session, callback) => {
        this.logins.push({
          username: auth.username ?? '',
          password: auth.password ?? '',
          secure: session.secure,
        });
        callback(null, { user: auth.username });
      },
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (d: Buffer) => (raw += d.toString()));
        stream.on('end', () => {
          this.mails.push({ to: session.envelope.rcptTo.map((r) => r.address), secure: session.secure, raw });
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', () => ok()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

interface Ctx extends AppContext {
  tls: TlsMailServer;
  plain: TlsMailServer;
  settingsServer: TlsMailServer;
}

const test = suite<Ctx>('e-mail receivers: STARTTLS', {} as Ctx);

test.before(async (ctx) => {
  ctx.tls = await new TlsMailServer(true).start();
  ctx.plain = await new TlsMailServer(false).start();
  ctx.settingsServer = await new TlsMailServer(true).start();
  // The server's own SMTP settings as the established server's mailer has them, STARTTLS not required.
  await startApp(ctx, {
    TEST_LABEL: 'smtp_tls',
    SMTP_HOST: 'localhost',
    SMTP_PORT: String(ctx.settingsServer.port),
    SMTP_STARTTLS: 'False',
    SMTP_SKIP_SSL_VERIFY: 'True',
    SMTP_USERNAME: 'settings-user',
    SMTP_PASSWORD: 'settings-password',
    MAIL_FROM: 'alertwall@example.com',
  });
});
test.after(async (ctx) => {
  await ctx.tls?.close();
  await ctx.plain?.close();
  await ctx.settingsServer?.close();
  await stopApp(ctx);
});

/** Creates an e-mail receiver and presses its test button: what the server says happened. */
async function sendTest(api: Api, settings: Record<string, unknown>) {
  const name = `mail-${randomBytes(4).toString('hex')}`;
  const res = await api.post('/notifications/receivers', {
    name,
    type: 'email',
    settings: { to: ['oncall@example.com'], ...settings },
  });
  assert.is(res.status, 201, await res.clone().text());
  const answer = await api.post(`/notifications/receivers/${name}/test`, {});
  assert.is(answer.status, 200);
  return (await answer.json()) as { outcome: string; detail: string | null };
}

const own = (server: TlsMailServer, extra: Record<string, unknown> = {}) => ({
  host: 'localhost',
  port: server.port,
  username: 'receiver-user',
  password: 'receiver-password',
  skipVerify: true,
  ...extra,
});

test('a receiver with its own host and no TLS option logs in after STARTTLS', async ({ api, tls }) => {
  const answer = await sendTest(api, own(tls));
  assert.is(answer.outcome, 'sent', JSON.stringify(answer));
  assert.equal(tls.logins.at(-1), { username: 'receiver-user', password: 'receiver-password', secure: true });
  const mail = tls.mails.at(-1)!;
  assert.equal([mail.to, mail.secure], [['oncall@example.com'], true]);
  // The Message-ID is made from the delivery id (a test message's is test:<uuid>).
  assert.match(mail.raw, /^Message-ID: <test\.[0-9a-f-]{36}@alertwall>\r?$/m);
});

test('starttls: false means "not required": STARTTLS is still used when offered', async ({ api, tls }) => {
  const answer = await sendTest(api, own(tls, { starttls: false }));
  assert.is(answer.outcome, 'sent', JSON.stringify(answer));
  assert.is(tls.logins.at(-1)?.secure, true);
});

test('ignoreTLS, asked for explicitly, sends the login in clear', async ({ api, tls }) => {
  const answer = await sendTest(api, own(tls, { ignoreTLS: true }));
  assert.is(answer.outcome, 'sent', JSON.stringify(answer));
  assert.equal(tls.logins.at(-1), {
    username: 'receiver-user',
    password: 'receiver-password',
    secure: false,
  });
});

test('a server without STARTTLS: delivered in clear by default, refused with requireTLS', async ({
  api,
  plain,
}) => {
  const sent = await sendTest(api, own(plain));
  assert.is(sent.outcome, 'sent', JSON.stringify(sent));
  assert.is(plain.logins.at(-1)?.secure, false);
  const [before, logins] = [plain.mails.length, plain.logins.length];
  for (const option of [{ requireTLS: true }, { starttls: true }]) {
    const answer = await sendTest(api, own(plain, option));
    assert.is(answer.outcome, 'failed');
    assert.is(
      answer.detail,
      'the SMTP server does not offer STARTTLS, which this receiver requires (requireTLS)',
    );
  }
  assert.is(plain.mails.length, before);
  assert.is(plain.logins.length, logins, 'no login was sent to a server that could not protect it');
});

test('a certificate that does not verify fails the delivery; no fallback to plain text', async ({
  api,
  tls,
}) => {
  const logins = tls.logins.length;
  const answer = await sendTest(api, own(tls, { skipVerify: undefined }));
  assert.is(answer.outcome, 'failed');
  assert.match(String(answer.detail), /^E[A-Z]+: .*certificate/, String(answer.detail));
  assert.is(tls.logins.length, logins, 'no login was sent');
});

test('ignoreTLS together with requireTLS, starttls or secure is a 400', async ({ api, tls }) => {
  for (const option of [{ requireTLS: true }, { starttls: true }, { secure: true }]) {
    const res = await api.post('/notifications/receivers', {
      name: `conflict-${randomBytes(4).toString('hex')}`,
      type: 'email',
      settings: { to: ['oncall@example.com'], ...own(tls, { ignoreTLS: true, ...option }) },
    });
    const body = (await res.json()) as { status: string; message: string; errors: string[] };
    assert.is(res.status, 400);
    assert.match(JSON.stringify(body), /ignoreTLS cannot be combined with requireTLS, starttls or secure/);
  }
});

test('the server SMTP_* settings (SMTP_STARTTLS False, as the mailer plugin has them) still use STARTTLS', async ({
  api,
  settingsServer,
}) => {
  const answer = await sendTest(api, {});
  assert.is(answer.outcome, 'sent', JSON.stringify(answer));
  assert.equal(settingsServer.logins.at(-1), {
    username: 'settings-user',
    password: 'settings-password',
    secure: true,
  });
});

test.run();
