import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cacheMatches, MATCH_CACHE_SIZE, Router } from '../../server/http/router.ts';

/** Runs the router's middleware on a bare context and says which handler answered with which params. */
async function dispatch(router: Router, method: string, path: string) {
  const middleware = router.routes();
  const ctx = { method, path, request: {}, state: {} } as unknown as Parameters<typeof middleware>[0];
  let fellThrough = false;
  await middleware(ctx, async () => {
    fellThrough = true;
  });
  return { body: fellThrough ? null : (ctx.body as unknown), matched: ctx.matched };
}

function alertRouter() {
  const router = cacheMatches(new Router({ prefix: '/api' }));
  router.get('/alert/:id', (ctx) => {
    ctx.body = { route: 'get', params: { ...ctx.params } };
  });
  router.put('/alert/:id/status', (ctx) => {
    ctx.body = { route: 'status', params: { ...ctx.params } };
  });
  router.post('/alert', (ctx) => {
    ctx.body = { route: 'post', params: { ...ctx.params } };
  });
  return router;
}

test('a remembered match still gives each path of one route its own params', async () => {
  const router = alertRouter();
  for (let round = 0; round < 2; round++) {
    assert.equal((await dispatch(router, 'GET', '/api/alert/one')).body, {
      route: 'get',
      params: { id: 'one' },
    });
    assert.equal((await dispatch(router, 'GET', '/api/alert/two')).body, {
      route: 'get',
      params: { id: 'two' },
    });
    assert.equal((await dispatch(router, 'PUT', '/api/alert/two/status')).body, {
      route: 'status',
      params: { id: 'two' },
    });
    assert.equal((await dispatch(router, 'POST', '/api/alert')).body, { route: 'post', params: {} });
  }
});

test('the method is part of what is remembered', async () => {
  const router = alertRouter();
  assert.is((await dispatch(router, 'GET', '/api/alert/one')).body !== null, true);
  assert.is((await dispatch(router, 'DELETE', '/api/alert/one')).body, null);
  assert.is(router.match('/api/alert/one', 'DELETE').route, false);
  assert.is(router.match('/api/alert/one', 'GET').route, true);
});

test('every caller gets arrays of its own', () => {
  const router = alertRouter();
  const first = router.match('/api/alert/one', 'GET');
  first.path.length = 0;
  first.pathAndMethod.push(...first.pathAndMethod);
  const second = router.match('/api/alert/one', 'GET');
  assert.is(second.path.length, 1);
  assert.is(second.pathAndMethod.length, 1);
});

test('routes added after a match are found', async () => {
  const router = alertRouter();
  assert.is((await dispatch(router, 'GET', '/api/alerts')).body, null);
  router.get('/alerts', (ctx) => {
    ctx.body = 'list';
  });
  assert.is((await dispatch(router, 'GET', '/api/alerts')).body, 'list');
});

test('more paths than the cache holds are all still matched right', async () => {
  const router = alertRouter();
  for (let i = 0; i < MATCH_CACHE_SIZE + 10; i++) await dispatch(router, 'GET', `/api/alert/${i}`);
  for (const i of [0, 5, MATCH_CACHE_SIZE + 9]) {
    assert.equal((await dispatch(router, 'GET', `/api/alert/${i}`)).body, {
      route: 'get',
      params: { id: String(i) },
    });
  }
});

test.run();
