import type { Config } from '../../config.ts';
import type { Attempt } from '../../forwarding/outbound.ts';
import type { SettingsOf } from '../receivers.ts';
import type { Mail } from '../render/email.ts';

export type SmtpSettings = Pick<
  Config,
  | 'SMTP_HOST'
  | 'SMTP_PORT'
  | 'MAIL_LOCALHOST'
  | 'SMTP_STARTTLS'
  | 'SMTP_USE_SSL'
  | 'SMTP_SKIP_SSL_VERIFY'
  | 'MAIL_FROM'
  | 'SMTP_USERNAME'
  | 'SMTP_PASSWORD'
>;

/**
 * How the connection is protected: TLS from the start (`secure`), else STARTTLS whenever the server
 * offers it, required with `requireTLS` (or its older name `starttls`, or SMTP_STARTTLS for the
 * server's settings), and left out only when a receiver asks for `ignoreTLS`. So a login never
 * goes over plain TCP to a server that offers STARTTLS unless a receiver says so
 * (tests/api/smtp-tls.test.ts).
 */
export function tlsOf(
  s: SettingsOf<'email'>,
  config: SmtpSettings,
): { secure: boolean; requireTLS: boolean; ignoreTLS: boolean } {
  if (s.host === undefined) {
    const secure = config.SMTP_USE_SSL;
    return { secure, requireTLS: !secure && config.SMTP_STARTTLS, ignoreTLS: false };
  }
  const secure = s.secure ?? false;
  return {
    secure,
    requireTLS: !secure && (s.requireTLS ?? s.starttls ?? false),
    ignoreTLS: !secure && (s.ignoreTLS ?? false),
  };
}

/**
 * Sends one e-mail over SMTP (nodemailer): the receiver's own server when it names a host, else
 * the server's SMTP_* settings. A 5xx answer (bad address, refused sender, failed login) will be
 * refused again, so it is not retried; 4xx and connection problems (no STARTTLS although
 * required, a certificate that does not verify) are.
 */
export async function sendMail(
  mail: Mail,
  s: SettingsOf<'email'>,
  config: SmtpSettings,
  options: { timeoutMs: number; stop: AbortSignal },
): Promise<Attempt> {
  if (options.stop.aborted) return { outcome: 'stopped' };
  const own = s.host !== undefined;
  const { secure, requireTLS, ignoreTLS } = tlsOf(s, config);
  const username = own ? s.username : config.SMTP_USERNAME || undefined;
  const password = own ? s.password : config.SMTP_PASSWORD;
  // Loaded on the first e-mail: nodemailer's ES build imports node:http, which loads Node's bundled
  // undici (about 14 MB of RSS; see server/http/router.ts).
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: own ? s.host : config.SMTP_HOST,
    port: own ? (s.port ?? (secure ? 465 : 587)) : config.SMTP_PORT,
    secure,
    requireTLS,
    ignoreTLS,
    name: config.MAIL_LOCALHOST,
    auth: username ? { user: username, pass: password ?? '' } : undefined,
    tls: { rejectUnauthorized: !(own ? s.skipVerify : config.SMTP_SKIP_SSL_VERIFY) },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  const from = s.from ?? (config.MAIL_FROM || username || 'alertwall@localhost');
  const stopped = new Promise<Attempt>((resolve) =>
    options.stop.addEventListener('abort', () => resolve({ outcome: 'stopped' }), { once: true }),
  );
  try {
    return await Promise.race([
      transport
        .sendMail({
          from,
          to: s.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
        })
        .then(
          (): Attempt => ({ outcome: 'delivered', status: 250 }),
          (err: { responseCode?: number; code?: string; message?: string }): Attempt => {
            // A refused STARTTLS carries the server's 5xx, but it is the connection that failed.
            if (err.code === 'ETLS') return { outcome: 'failed', error: smtpError(err, requireTLS) };
            const code = err.responseCode;
            if (code && code >= 500) return { outcome: 'rejected', status: code, error: `SMTP ${code}` };
            if (code) return { outcome: 'failed', error: `SMTP ${code}` };
            return { outcome: 'failed', error: smtpError(err, requireTLS) };
          },
        ),
      stopped,
    ]);
  } finally {
    transport.close();
  }
}

/** A connection-level failure in words an operator can act on (never the login or the password). */
function smtpError(err: { code?: string; message?: string }, requireTLS: boolean): string {
  const message = (err.message ?? '').slice(0, 200);
  if (err.code === 'ETLS' && requireTLS && /upgrading connection with STARTTLS/i.test(message)) {
    return 'the SMTP server does not offer STARTTLS, which this receiver requires (requireTLS)';
  }
  if (!err.code) return message || 'SMTP error';
  return message ? `${err.code}: ${message}` : err.code;
}
