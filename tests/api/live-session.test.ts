import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { io } from 'socket.io-client';
import { createToken } from '../../server/auth/tokens.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { insertKeys } from '../helpers/db.ts';
import { keyAuth, securedSettings } from '../helpers/secured.ts';
import { tokenUser } from '../helpers/users.ts';

const session = suite<AppContext>('live sockets: token expiry and metrics', {} as AppContext);
session.before((ctx) =>
  startApp(ctx, securedSettings('live_session', 'live-secret', { PLUGINS: 'remote_ip' })),
);
session.after(stopApp);

/** A socket to the app's live endpoint with these credentials, never reconnecting. */
const socketFor = (ctx: AppContext, auth: { token: string } | { key: string }) =>
  io(ctx.origin, { path: '/api/socket.io', transports: ['websocket'], auth, reconnection: false });

session('a socket whose token expires is told so and disconnected', async (ctx) => {
  const { config } = ctx.running.deps;
  const lifetime = config.TOKEN_EXPIRE_DAYS * 86400 * 1000;
  // Issued so that it expires about 1.5 s from now.
  const userId = await tokenUser(ctx.db.url, 'short@example.com');
  const token = await createToken(
    config,
    { userId, login: 'short@example.com', provider: 'basic', scopes: ['read'] },
    ctx.api.base,
    Date.now() - lifetime + 1500,
  );
  const socket = socketFor(ctx, { token });
  try {
    const connected = await new Promise<boolean>((ok) => {
      socket.once('connect', () => ok(true));
      socket.once('connect_error', () => ok(false));
    });
    assert.ok(connected, 'the token is still valid at connection time');
    const started = Date.now();
    const [expired, reason] = await Promise.all([
      new Promise<{ message: string }>((ok) => socket.once('session.expired', ok)),
      new Promise<string>((ok) => socket.once('disconnect', ok)),
    ]);
    assert.equal(expired, { message: 'Token has expired' });
    assert.is(reason, 'io server disconnect');
    assert.ok(Date.now() - started < 4000);
  } finally {
    socket.close();
  }
});

session('live metrics: sockets connected and events delivered', async (ctx) => {
  const key = 'live-metrics-key-000000000000000000000000';
  await insertKeys(ctx.db.url, [{ key, user: 'm@example.com', scopes: ['admin', 'read', 'write'] }]);
  const socket = socketFor(ctx, { key });
  try {
    await new Promise((ok) => socket.once('connect', () => ok(null)));
    const answer = (await socket.emitWithAck('subscribe', { query: '' })) as { status: string };
    assert.is(answer.status, 'ok');
    const got = new Promise((ok) => socket.once('alert.updated', ok));
    const res = await ctx.api.post(
      '/alert',
      { resource: 'm1', event: 'e', environment: 'Production', severity: 'major' },
      { headers: keyAuth(key) },
    );
    assert.is(res.status, 201);
    await got;
    const text = await (await ctx.api.get('/management/metrics', { headers: keyAuth(key) })).text();
    assert.match(text, /^live_sockets 1$/m);
    assert.match(text, /^live_events_total\{outcome="delivered"\} [1-9]/m);
    assert.match(text, /^live_push_latency_seconds_count [1-9]/m);
    assert.match(text, /^live_flush_seconds_count [1-9]/m);
  } finally {
    socket.close();
  }
});

session.run();
