import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  SharedAck,
  createSharedEncoding,
  preEncodeSharedAck,
} from '../../server/realtime/shared-encoding.ts';

/**
 * The hub's Socket.IO parser (server/realtime/shared-encoding.ts): an ack carrying a shared page is
 * encoded once, and a socket.io-client (as the web UI and the CLI use) receives the same ack as from
 * Socket.IO's own parser, over WebSocket and over HTTP long-polling, for any JSON: sizes around
 * the WebSocket frame's length forms, non-ASCII text, text that looks like the packet's syntax.
 */

type Answer = Record<string, unknown>;

/** One hub's parser and the values it shares. */
const encoding = createSharedEncoding();

const odd = ['plain', 'ünïcödé ✓ 日本語 🚨 \u2028\u2029', '}]"alerts":[{', '\\"escaped\\" \n\t\u0000', ''];
/** An array of alerts-like objects whose JSON is about `bytes` long. */
function page(bytes: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = { id: `a${i}`, text: odd[i % odd.length], n: i, f: i / 3, ok: i % 2 === 0, none: null };
    size += JSON.stringify(item).length + 1;
    out.push(item);
  }
  return out;
}

/** A Socket.IO server answering `subscribe` with `answer(n)`, default parser or the hub's. */
async function serve(shared: boolean, answer: (req: unknown) => Answer) {
  const http: HttpServer = createServer();
  const io = new Server(http, shared ? { parser: encoding.parser } : {});
  /** The second buffers of the pre-encoded frames ws wrote (the shared tails). */
  const tails: Buffer[] = [];
  const preEncoded = new WeakSet<object>();
  io.on('connection', (socket) => {
    const ws = (socket.conn.transport as unknown as { socket?: { _sender?: Record<string, unknown> } })
      .socket;
    const sender = ws?._sender as { sendFrame: (list: Buffer[], cb: unknown) => void } | undefined;
    if (sender) {
      const sendFrame = sender.sendFrame.bind(sender);
      sender.sendFrame = (list, cb) => {
        if (preEncoded.has(list)) tails.push(list[1]!);
        sendFrame(list, cb);
      };
    }
    if (shared)
      socket.conn.on('packetCreate', (packet: { options?: { wsPreEncodedFrame?: Buffer[] } }) => {
        preEncodeSharedAck(packet);
        if (packet.options?.wsPreEncodedFrame) preEncoded.add(packet.options.wsPreEncodedFrame);
      });
    socket.on('subscribe', (req: unknown, ack: (a: Answer) => void) => ack(answer(req)));
  });
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    tails,
    close: () => new Promise<void>((ok) => void io.close(() => ok())),
  };
}

/** Connects, sends `subscribe` with `req`, and gives the ack and the raw engine.io message it came in. */
async function ackOf(url: string, transport: 'websocket' | 'polling', req: unknown) {
  const socket: Socket = connect(url, { transports: [transport], forceNew: true, reconnection: false });
  try {
    await new Promise<void>((ok, fail) => {
      socket.once('connect', ok);
      socket.once('connect_error', fail);
    });
    const raw: string[] = [];
    socket.io.engine.on('packet', (p: { type: string; data?: unknown }) => {
      if (p.type === 'message' && typeof p.data === 'string' && p.data.startsWith('3')) raw.push(p.data);
    });
    const answer = (await socket.timeout(10_000).emitWithAck('subscribe', req)) as Answer;
    return { answer, raw };
  } finally {
    socket.disconnect();
  }
}

/** The same answer with `key` moved last: what the shared encoding sends. */
const lastly = (a: Answer, key: string) => {
  const { [key]: moved, ...rest } = a;
  return { ...rest, [key]: moved };
};

const SIZES = [0, 20, 100, 126, 1000, 65_530, 65_536, 70_000, 1_200_000];

for (const transport of ['websocket', 'polling'] as const) {
  test(`over ${transport}: a shared page's ack parses to the same answer, byte for byte but for key order`, async () => {
    const pages = new Map(SIZES.map((n) => [n, page(n)] as const));
    const answerOf = (shared: boolean) => (req: unknown) => {
      const n = (req as { n: number }).n;
      const alerts = pages.get(n)!;
      return {
        status: 'ok',
        mode: 'snapshot',
        view: 'v1',
        position: { epoch: 'e', seq: n },
        alerts: shared ? encoding.share(alerts) : alerts,
        page: 1,
        pageSize: 1000,
        total: alerts.length,
        note: odd[1],
      };
    };
    const plain = await serve(false, answerOf(false));
    const shared = await serve(true, answerOf(true));
    try {
      for (const n of SIZES) {
        const want = await ackOf(plain.url, transport, { n });
        // Twice on one page: the second is encoded from what the first left.
        for (const round of [1, 2]) {
          const got = await ackOf(shared.url, transport, { n });
          assert.equal(got.answer, want.answer, `${n} bytes, round ${round}`);
          assert.equal(Object.keys(got.answer).at(-1), 'alerts');
          assert.is(got.raw.length, 1);
          // The packet is Socket.IO's encoding of the answer with `alerts` last.
          const expected = want.raw[0]!.replace(/\[.*\]$/s, JSON.stringify([lastly(want.answer, 'alerts')]));
          assert.is(got.raw[0], expected, `${n} bytes, round ${round}: raw packet`);
        }
        if (transport === 'websocket') {
          // Written as head and shared tail, the same buffer for both sockets.
          const [first, second] = shared.tails.splice(0);
          assert.ok(first && first === second, `${n} bytes: one shared tail`);
        }
      }
      assert.is(plain.tails.length, 0);
    } finally {
      await plain.close();
      await shared.close();
    }
  });
}

test('acks without a shared member, with binary, and other packets encode as Socket.IO does', () => {
  const encoder = new encoding.parser.Encoder();
  const plain = new (Object.getPrototypeOf(encoding.parser.Encoder) as typeof encoding.parser.Encoder)();
  const list = encoding.share([{ id: 'x' }]);
  const cases = [
    { type: 3, nsp: '/', id: 7, data: [{ status: 'ok', alerts: [{ id: 'x' }] }] }, // an equal, unshared array
    { type: 3, nsp: '/', id: 7, data: ['text'] },
    { type: 3, nsp: '/', id: 7, data: [list, list] }, // the shared value as an argument, not a member
    { type: 2, nsp: '/', data: ['live', { alerts: list }] }, // an event, not an ack
  ];
  for (const packet of cases)
    assert.equal(encoder.encode(packet), plain.encode(packet), JSON.stringify(packet));
  // Binary beside a shared member: Socket.IO's binary ack, whole.
  const binary = { type: 3, nsp: '/', id: 8, data: [{ blob: Buffer.from([1, 2, 3]), alerts: list }] };
  const encoded = encoder.encode(binary);
  assert.equal(encoded, plain.encode(binary));
  assert.ok(typeof encoded[0] === 'string' && encoded[0].startsWith('61-'), String(encoded[0]));
});

test('a shared ack in another namespace, and one whose only member is shared', () => {
  const encoder = new encoding.parser.Encoder();
  const list = encoding.share([{ id: 'y', t: '✓' }]);
  const [a] = encoder.encode({ type: 3, nsp: '/live', id: 12, data: [{ alerts: list, n: 1 }] });
  assert.instance(a, SharedAck);
  assert.is(String(a), '3/live,12[{"n":1,"alerts":[{"id":"y","t":"✓"}]}]');
  const [b] = encoder.encode({ type: 3, nsp: '/', id: 0, data: [{ alerts: list }] });
  assert.is(String(b), '30[{"alerts":[{"id":"y","t":"✓"}]}]');
  // The frame: FIN + text, the payload's length in bytes, then `4` and the packet, unmasked.
  const [head, tail] = (b as SharedAck).frame();
  const payload = Buffer.concat([head.subarray(2), tail]);
  assert.equal([head[0], head[1]], [0x81, payload.length]);
  assert.is(payload.toString(), `4${String(b)}`);
});

test.run();
