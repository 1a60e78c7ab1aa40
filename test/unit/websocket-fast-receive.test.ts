// The fast receive path (src/websocket/fast-receive.ts) beside ws's own: every message arrives once,
// in order, whatever mix of frames a read holds, and what it leaves to ws keeps ws's handling
// (pings answered, fragments joined, protocol errors by ws's codes).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import t, { type Test } from 'tap';
import { socketSettings, WsConnection } from '../../src/websocket/connection.js';

/** A server frame: FIN, `opcode`, unmasked unless `mask`; `fin: false` for a fragment. */
function frame(opcode: number, payload: Buffer | string, { fin = true, mask = false, rsv = 0 } = {}): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const length = data.length;
  const head = [(fin ? 0x80 : 0) | rsv | opcode];
  if (length < 126) head.push((mask ? 0x80 : 0) | length);
  else if (length < 65_536) head.push((mask ? 0x80 : 0) | 126, length >> 8, length & 0xff);
  else head.push((mask ? 0x80 : 0) | 127, 0, 0, 0, 0, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff);
  if (mask) head.push(0, 0, 0, 0);
  return Buffer.concat([Buffer.from(head), data]);
}

const text = (payload: string, options?: { fin?: boolean }): Buffer => frame(0x1, payload, options);
const binary = (payload: Buffer): Buffer => frame(0x2, payload);

interface Received {
  messages: Array<{ data: string; isBinary: boolean }>;
  /** What the client sent after its handshake (pongs, close frames), raw. */
  fromClient: Buffer[];
  error: string | undefined;
  closeCode: number | undefined;
  attached: boolean;
  /** The memory the messages were read in: one reused buffer, or a buffer per read. */
  buffers: Set<ArrayBufferLike>;
}

/** Reads through the thread's reused buffer (`onread`), or through the socket's 'data' events. */
const MODES = [
  { name: 'onread', keepsMessages: false },
  { name: 'data events', keepsMessages: true },
];

/**
 * Opens a `WsConnection` to a raw server that completes the handshake and then writes each of
 * `writes` in one write of its own, 20 ms apart; resolves once the client closed or `settleMs` passed.
 */
async function receive(t: Test, keepsMessages: boolean, writes: Buffer[], { settleMs = 300, withUpgrade = false } = {}): Promise<Received> {
  const received: Received = { messages: [], fromClient: [], error: undefined, closeCode: undefined, attached: false, buffers: new Set() };
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    let handshaken = false;
    socket.on('data', (chunk) => {
      if (handshaken) {
        received.fromClient.push(chunk);
        return;
      }
      const key = /sec-websocket-key: *(\S+)/i.exec(chunk.toString('latin1'))![1]!;
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      const upgrade = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;
      // `withUpgrade`: the first write's frames in the same write as the 101 (ws gets them as the upgrade's head).
      socket.write(withUpgrade ? Buffer.concat([Buffer.from(upgrade), writes[0]!]) : upgrade);
      handshaken = true;
      let index = withUpgrade ? 1 : 0;
      const next = (): void => {
        if (index === writes.length || socket.destroyed) return;
        socket.write(writes[index++]!);
        setTimeout(next, 20);
      };
      setTimeout(next, 20);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = `ws://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  const settings = socketSettings(url, { headers: {}, protocols: [], perMessageDeflate: false, tlsOptions: undefined, timeoutMs: 5000, keepsMessages });
  t.equal(settings.readBuffer === undefined, keepsMessages, 'the read mode asked for');
  const connection = new WsConnection(0);
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  connection.connect(settings, {
    opened: () => {
      const socket = connection.socket as unknown as { _socket: net.Socket };
      received.attached = socket._socket.listeners('data').every((listener) => listener.name !== 'socketOnData');
    },
    // A view of the reused buffer is read now, never kept.
    message: (_connection, data, isBinary) => {
      received.messages.push({ data: data.toString(isBinary ? 'hex' : 'utf8'), isBinary });
      received.buffers.add(data.buffer);
    },
    failed: (_connection, code) => (received.error = code),
    closed: (_connection, code) => {
      received.closeCode = code;
      closed();
    },
  });
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, settleMs + 20 * writes.length))]);
  connection.socket?.terminate();
  return received;
}

const texts = (received: Received): string[] => received.messages.map((message) => (message.isBinary ? `bin:${message.data}` : message.data));

for (const { name, keepsMessages } of MODES) {
  t.test(name, async (t) => {
    t.test('installed on the ws this package depends on', async (t) => {
      const received = await receive(t, keepsMessages, [text('a'), text('b')]);
      t.ok(received.attached, 'the fast path found the ws internals it rests on');
      t.same(texts(received), ['a', 'b']);
      t.equal(received.buffers.size, keepsMessages ? 2 : 1, 'two reads: in one reused buffer, or in one buffer each');
    });

    t.test('frames in the same read as the 101 come first, then the next reads\'', async (t) => {
      const received = await receive(t, keepsMessages, [Buffer.concat([text('with'), text('the-101')]), text('later')], { withUpgrade: true });
      t.same(texts(received), ['with', 'the-101', 'later']);
    });

    t.test('several whole frames in one read, text and binary, 7-bit and 16-bit lengths', async (t) => {
      const long = 'x'.repeat(300);
      const received = await receive(t, keepsMessages, [Buffer.concat([text('one'), binary(Buffer.from([1, 2, 3])), text(long), text('é ✓')])]);
      t.same(texts(received), ['one', 'bin:010203', long, 'é ✓']);
    });

    t.test('a frame cut by the read goes to ws, and so does the read that completes it; the next read is fast again', async (t) => {
      const whole = text('split-me');
      const received = await receive(t, keepsMessages, [Buffer.concat([text('first'), whole.subarray(0, 5)]), whole.subarray(5), text('after')]);
      t.same(texts(received), ['first', 'split-me', 'after']);
    });

    t.test('a read that goes on with the rest of a frame is ws\'s, even where that rest looks like a whole frame', async (t) => {
      const tricky = binary(Buffer.from([0x81, 0x01, 0x7a])); // its payload reads as text frame 'z'
      const received = await receive(t, keepsMessages, [Buffer.concat([text('first'), tricky.subarray(0, 2)]), tricky.subarray(2)]);
      t.same(texts(received), ['first', 'bin:81017a']);
    });

    t.test('a ping between messages is answered by ws, the messages around it arrive in order', async (t) => {
      const received = await receive(t, keepsMessages, [Buffer.concat([text('before'), frame(0x9, 'hi'), text('after')])]);
      t.same(texts(received), ['before', 'after']);
      const pong = Buffer.concat(received.fromClient);
      t.equal(pong[0], 0x8a, 'the client sent a pong');
    });

    t.test('a fragmented message is joined by ws; whole frames after it come through', async (t) => {
      const received = await receive(t, keepsMessages, [Buffer.concat([text('frag-', { fin: false }), frame(0x0, 'mid-', { fin: false })]), Buffer.concat([frame(0x0, 'end'), text('next')])]);
      t.same(texts(received), ['frag-mid-end', 'next']);
    });

    t.test('a 64-bit length frame is read by ws', async (t) => {
      const big = Buffer.alloc(70_000, 7);
      const received = await receive(t, keepsMessages, [Buffer.concat([text('small'), binary(big)])], { settleMs: 600 });
      t.equal(received.messages.length, 2);
      t.equal(received.messages[1]!.data.length, 140_000, 'the 70,000-byte message, whole');
    });

    t.test('text that is not UTF-8 is ws\'s error, after the messages before it', async (t) => {
      const received = await receive(t, keepsMessages, [Buffer.concat([text('good'), frame(0x1, Buffer.from([0xc3, 0x28]))])]);
      t.same(texts(received), ['good']);
      t.equal(received.error, 'WS_ERR_INVALID_UTF8');
    });

    t.test('a masked server frame is ws\'s error', async (t) => {
      const received = await receive(t, keepsMessages, [Buffer.concat([text('good'), frame(0x1, 'masked', { mask: true })])]);
      t.same(texts(received), ['good']);
      t.equal(received.error, 'WS_ERR_UNEXPECTED_MASK');
    });

    t.test('a frame with RSV1 set and no extension is ws\'s error', async (t) => {
      const received = await receive(t, keepsMessages, [frame(0x1, 'x', { rsv: 0x40 })]);
      t.same(texts(received), []);
      t.equal(received.error, 'WS_ERR_UNEXPECTED_RSV_1');
    });

    t.test('a close frame ends it with its code; nothing after it is a message', async (t) => {
      const close = frame(0x8, Buffer.from([0x0f, 0xa1])); // 4001
      const received = await receive(t, keepsMessages, [Buffer.concat([text('last'), close, text('ignored')])]);
      t.same(texts(received), ['last']);
      t.equal(received.closeCode, 4001);
    });
  });
}
