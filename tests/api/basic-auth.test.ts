import * as assert from 'uvu/assert';
import { appSuite } from '../helpers/app.ts';

const basicAuth = appSuite('HTTP Basic credentials on any request', {
  TEST_LABEL: 'basic_auth',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'basic-secret',
  ADMIN_USERS: 'root@example.com',
  ADMIN_PASSWORD: 'correct horse',
  PLUGINS: 'remote_ip',
});

const basic = (user: string, password: string) => ({
  headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
});

basicAuth(
  'good credentials pass; wrong ones get 401 with a challenge; malformed ones 400',
  async ({ api }) => {
    assert.is((await api.get('/alerts', basic('root@example.com', 'correct horse'))).status, 200);
    const wrong = await api.get('/alerts', basic('root@example.com', 'battery staple'));
    assert.is(wrong.status, 401);
    assert.is(wrong.headers.get('www-authenticate'), 'Basic realm=Alerta');
    assert.is(((await wrong.json()) as { message: string }).message, 'Authorization required');
    const unknown = await api.get('/alerts', basic('nobody@example.com', 'x'));
    assert.is(unknown.status, 401);
    const malformed = await api.get('/alerts', { headers: { Authorization: 'Basic !!!not-base64' } });
    assert.is(malformed.status, 400);
    assert.is(((await malformed.json()) as { message: string }).message, 'Invalid credentials');
  },
);

basicAuth(
  'repeated failures are limited like logins: 429 with Retry-After, for Basic and /auth/login',
  async ({ api }) => {
    const user = 'target@example.com';
    for (let i = 0; i < 10; i++) assert.is((await api.get('/alerts', basic(user, `guess-${i}`))).status, 401);
    const limited = await api.get('/alerts', basic(user, 'guess-10'));
    assert.is(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    const body = (await limited.json()) as { status: string; code: number; message: string };
    assert.equal([body.status, body.code], ['error', 429]);
    assert.match(body.message, /Too many failed login attempts/);
    const login = await api.post('/auth/login', { username: user, password: 'guess-11' });
    assert.is(login.status, 429);
    // Another user is not affected.
    assert.is((await api.get('/alerts', basic('root@example.com', 'correct horse'))).status, 200);
  },
);

basicAuth.run();
