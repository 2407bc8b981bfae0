/**
 * Logging out in the web UI (web/src/lib/api.ts): the page goes to /login, and a request refused
 * on the way (the live socket or a refresh, now without a token) does not send it to
 * `/login?next=…` instead. In the browser the later navigation wins; a CI run ended on
 * `/login?next=%2Falerts` after "Log out". The browser's globals are stood in for here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const stored = new Map<string, string>();
const assigned: string[] = [];
const location = {
  href: 'http://wall.example/alerts?status=open',
  pathname: '/alerts',
  search: '?status=open',
  assign: (url: string) => void assigned.push(url),
};
Object.assign(globalThis, {
  localStorage: {
    getItem: (k: string) => stored.get(k) ?? null,
    setItem: (k: string, v: string) => void stored.set(k, v),
    removeItem: (k: string) => void stored.delete(k),
  },
  location,
  window: { location },
});
const refused = () =>
  Promise.resolve(
    new Response(JSON.stringify({ status: 'error', message: 'Missing authorization' }), { status: 401 }),
  );
const web = await import('../../web/src/lib/api.ts');

test('a refused request sends the page to log in and back; after Log out it only goes to /login', async () => {
  const realFetch = globalThis.fetch;
  globalThis.fetch = refused as typeof fetch;
  try {
    web.setToken('a-token');
    await web.api('GET', '/alerts').catch(() => {});
    assert.equal(
      assigned,
      ['/login?next=%2Falerts%3Fstatus%3Dopen'],
      'a 401 asks for a login, then comes back',
    );
    assert.is(web.token(), null, 'and forgets the token');

    assigned.length = 0;
    web.setToken('a-token');
    web.logOut();
    await web.api('GET', '/alerts').catch(() => {});
    assert.equal(assigned, ['/login'], 'a request refused after Log out does not redirect again');
    assert.is(web.token(), null);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test.run();
