import * as assert from 'uvu/assert';
import type { Socket as NetSocket } from 'node:net';
import { LiveClient, sleep, until, type LiveView } from '../helpers/live.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';

/**
 * A client that stops reading is skipped (its deltas folded into a later catch-up) instead of
 * having every message queued for it; once it reads again it ends with exactly the server's state.
 */
const slow = appSuite('live sockets: a slow client', {
  TEST_LABEL: 'live_slow',
  PLUGINS: 'remote_ip',
  LIVE_SLOW_SOCKET_PACKETS: '4',
});

/** The TCP socket under a socket.io-client connection (engine.io websocket transport over `ws`). */
function tcpOf(client: LiveClient): NetSocket {
  const transport = (client.socket.io.engine as unknown as { transport: { ws: { _socket: NetSocket } } })
    .transport;
  return transport.ws._socket;
}

const coalesced = async (ctx: AppContext) => {
  const text = await (await ctx.api.get('/management/metrics')).text();
  return Number(/^live_events_total\{outcome="coalesced"\} (\S+)$/m.exec(text)?.[1] ?? 0);
};

/** Every alert's whole state, keys sorted, to compare what two clients hold. */
const states = (view: LiveView) =>
  JSON.stringify(
    [...view.alerts.values()]
      .map((a) => Object.entries(a).sort(([x], [y]) => x.localeCompare(y)))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );

/**
 * Waits (up to 5 s) for `lagging` to hold the states `steady` holds, then checks every field of
 * every alert, and that every patch it got applied to an alert it knew.
 */
async function expectSameStates(lagging: LiveView, steady: LiveView, message: string) {
  await until(() => (states(lagging) === states(steady) ? true : undefined), 5000, 'same states').catch(
    () => {},
  );
  assert.is(states(lagging), states(steady), message);
  assert.equal(lagging.unknownPatches, []);
}

for (const patches of [false, true])
  slow(
    `deltas for a client that stops reading are coalesced, then it is caught up to the exact state${patches ? ' (patches)' : ''}`,
    async (ctx) => {
      const steady = await LiveClient.connect(ctx.origin, {});
      const lagging = await LiveClient.connect(ctx.origin, {});
      try {
        const steadyView = await steady.view('');
        const laggingView = await lagging.view('', undefined, { patches });
        tcpOf(lagging).pause();
        const big = 'x'.repeat(32_000);
        const ids: string[] = [];
        for (let round = 0; round < 6; round++) {
          const batch = await Promise.all(
            Array.from({ length: 40 }, async (_, i) => {
              const res = await ctx.api.post('/alert', {
                resource: `slow-${i}`,
                event: 'e',
                environment: 'Production',
                severity: round % 2 ? 'minor' : 'major',
                text: `${round} ${big}`,
              });
              return ((await res.json()) as { id: string }).id;
            }),
          );
          ids.push(...batch);
          await sleep(50);
        }
        await steadyView.waitUntil((v) => v.alerts.size === 40, 10_000, 'the steady client sees all 40');
        assert.ok((await coalesced(ctx)) > 0, 'some deltas were held back from the slow client');
        tcpOf(lagging).resume();
        const want = steadyView.summary();
        await laggingView.waitUntil(
          (v) => JSON.stringify(v.summary()) === JSON.stringify(want),
          15_000,
          'the slow client catches up',
        );
        assert.equal(laggingView.summary(), want);
        assert.equal(laggingView.counts, steadyView.counts);
        await expectSameStates(laggingView, steadyView, 'every field of every alert');
        // A second spell of changes after the catch-up: patches again, to the state it now holds.
        for (let i = 0; i < 40; i++)
          await ctx.api.post('/alert', {
            resource: `slow-${i}`,
            event: 'e',
            environment: 'Production',
            severity: 'minor',
            text: `after ${i}`,
          });
        await steadyView.waitUntil(
          (v) => [...v.alerts.values()].every((a) => a.text.startsWith('after')),
          10_000,
          'after',
        );
        await expectSameStates(laggingView, steadyView, 'every field of every alert, after');
        if (patches) assert.ok(laggingView.patched > 0, 'changes after the catch-up came as patches');
        await until(
          () => (Object.values(want).every((s) => s.endsWith('/minor')) ? true : undefined),
          1000,
          () => 'last round minor',
        );
      } finally {
        steady.close();
        lagging.close();
      }
    },
  );

slow.run();
