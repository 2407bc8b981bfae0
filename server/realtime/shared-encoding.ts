import { createRequire } from 'node:module';
import type * as SocketIoParser from 'socket.io-parser';
import type { Packet } from 'socket.io-parser';

/*
 * A Socket.IO parser whose acknowledgements carry a shared value's JSON encoded once, however many
 * sockets it is sent to: a subscription's snapshot page (1,000 alerts, about 1 MB of JSON) is shared
 * by every subscriber of that view and position (hub.ts), and encoding it for each socket of a
 * storm of 500 subscriptions held hundreds of MB of strings at once (`scripts/bench/memory.ts`;
 * tests/api/live-shared-encoding.test.ts checks the bytes against Socket.IO's own encoding).
 *
 * The wire format is Socket.IO's: an ack `3<id>[{…}]`, its argument's members in their order except
 * that the shared one comes last. Over WebSocket the frame is written as two buffers (ws's `sendFrame`, the path
 * Socket.IO's own broadcasts take): this packet's head and the shared value's bytes, which are
 * never copied per socket. Over HTTP long-polling the packet becomes the whole string.
 */

// The CommonJS build, the one socket.io itself loads: one copy of the parser in the process.
const require = createRequire(import.meta.url);
const parser = require('socket.io-parser') as typeof SocketIoParser;

/** The bytes of a shared value's JSON followed by the `}]` that closes an ack's argument. */
class SharedTail {
  #value: unknown;
  #bytes: Buffer | null = null;
  constructor(value: unknown) {
    this.#value = value;
  }
  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(`${JSON.stringify(this.#value)}}]`);
    return this.#bytes;
  }
}

/** An encoded ack: its own head, then the shared tail. */
export class SharedAck {
  /** `3<id>[{…,"key":` (the Socket.IO packet, without engine.io's `4`). */
  readonly head: string;
  readonly tail: SharedTail;
  constructor(head: string, tail: SharedTail) {
    this.head = head;
    this.tail = tail;
  }
  /** The packet as one string (HTTP long-polling; engine.io concatenates it). */
  toString(): string {
    return this.head + this.tail.bytes.toString('utf8');
  }
  /** The WebSocket frame of engine.io message `4<packet>`: FIN, text, unmasked (RFC 6455, 5.2). */
  frame(): [Buffer, Buffer] {
    const head = Buffer.from(`4${this.head}`);
    const length = head.length + this.tail.bytes.length;
    const size = length < 126 ? 2 : length < 65536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(size + head.length);
    frame[0] = 0x81;
    if (size === 2) frame[1] = length;
    else if (size === 4) {
      frame[1] = 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 127;
      frame.writeBigUInt64BE(BigInt(length), 2);
    }
    head.copy(frame, size);
    return [frame, this.tail.bytes];
  }
}

export interface SharedEncoding {
  /** The `parser` option of Socket.IO's Server. */
  parser: typeof SocketIoParser;
  /**
   * Marks a value (an array or object of plain JSON, never changed afterwards) as sent to many
   * sockets: an ack whose argument holds it as a member encodes it once (see above).
   */
  share<T extends object>(value: T): T;
}

/**
 * One hub's parser and the values it marked shared (each with its encoding, made when first sent);
 * a value is forgotten with the last reference to it.
 */
export function createSharedEncoding(): SharedEncoding {
  const shared = new WeakMap<object, SharedTail>();
  class Encoder extends parser.Encoder {
    override encode(packet: Packet): unknown[] {
      const arg: unknown =
        packet.type === parser.PacketType.ACK && packet.data?.length === 1 && packet.data[0];
      if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
        const entries = Object.entries(arg);
        const at = entries.findIndex(([, v]) => typeof v === 'object' && v !== null && shared.has(v));
        if (at >= 0) {
          const [key, value] = entries[at]!;
          const rest = Object.fromEntries(entries.filter((_, i) => i !== at));
          // The rest as the parser would encode it (binary attachments and all): an ack of one
          // object ends in `}]`, and the shared member goes last.
          const encoded = super.encode({ ...packet, data: [rest] });
          if (encoded.length === 1 && typeof encoded[0] === 'string') {
            const open = encoded[0].slice(0, -2);
            const comma = entries.length > 1 ? ',' : '';
            return [new SharedAck(`${open}${comma}${JSON.stringify(key)}:`, shared.get(value as object)!)];
          }
        }
      }
      return super.encode(packet);
    }
  }
  return {
    parser: { ...parser, Encoder },
    share(value) {
      if (!shared.has(value)) shared.set(value, new SharedTail(value));
      return value;
    },
  };
}

/**
 * Engine.io's `packetCreate` listener of one connection: a shared ack goes out over WebSocket as its
 * two-buffer frame (the transport writes `options.wsPreEncodedFrame` as it is).
 */
export function preEncodeSharedAck(packet: { data?: unknown; options?: Record<string, unknown> }) {
  if (packet.data instanceof SharedAck)
    packet.options = { ...packet.options, wsPreEncodedFrame: packet.data.frame() };
}
