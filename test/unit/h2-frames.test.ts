// FrameReader on its own: the same frames, whether they arrive whole or split at every byte.
import t from 'tap';
import { encodeFrame, FrameReader, type FrameHandler } from '../../src/http2/frames.js';

type Event = [string, ...unknown[]];

/** Records what the reader hands over; DATA pieces are joined per frame, as they may come split. */
class Recorder implements FrameHandler {
  events: Event[] = [];
  #data = '';

  onFrame(type: number, flags: number, streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    this.events.push(['frame', type, flags, streamId, Buffer.from(bytes.subarray(start, end)).toString('latin1')]);
    return true;
  }

  onData(_streamId: number, bytes: Uint8Array, start: number, end: number): boolean {
    this.#data += Buffer.from(bytes.subarray(start, end)).toString('latin1');
    return true;
  }

  onDataEnd(streamId: number, flags: number, frameBytes: number, dataBytes: number): boolean {
    this.events.push(['data', streamId, flags, frameBytes, this.#data]);
    // The data handed over, padding left out, is what the reader counts: any difference shows as an event.
    if (dataBytes !== this.#data.length) this.events.push(['dataBytes', dataBytes, this.#data.length]);
    this.#data = '';
    return true;
  }

  onFramingError(code: number, reason: string): void {
    this.events.push(['error', code, reason]);
  }
}

function padded(data: string, padding: number): Buffer {
  return Buffer.concat([Buffer.from([padding]), Buffer.from(data, 'latin1'), Buffer.alloc(padding)]);
}

const STREAM = Buffer.concat([
  encodeFrame(0x4, 0, 0, Buffer.from([0, 3, 0, 0, 0, 100])),
  encodeFrame(0x1, 0x4, 1, Buffer.from([0x88])),
  encodeFrame(0x0, 0, 1, Buffer.from('hello ')),
  encodeFrame(0x0, 0x8, 1, padded('padded ', 5)),
  encodeFrame(0x0, 0x9, 1, padded('', 3)),
  encodeFrame(0x6, 0, 0, Buffer.from('12345678')),
  encodeFrame(0x0, 0x1, 3, Buffer.alloc(0)),
  encodeFrame(0x0, 0x1, 5, Buffer.alloc(16_384, 'z')),
]);

const EXPECTED: Event[] = [
  ['frame', 0x4, 0, 0, '\x00\x03\x00\x00\x00d'],
  ['frame', 0x1, 0x4, 1, '\x88'],
  ['data', 1, 0, 6, 'hello '],
  ['data', 1, 0x8, 13, 'padded '],
  ['data', 1, 0x9, 4, ''],
  ['frame', 0x6, 0, 0, '12345678'],
  ['data', 3, 0x1, 0, ''],
  ['data', 5, 0x1, 16_384, 'z'.repeat(16_384)],
];

t.test('frames are handed over the same whole and split at every byte, padding removed, lengths kept', async (t) => {
  const whole = new Recorder();
  t.equal(new FrameReader(whole).execute(STREAM, 0, STREAM.length), true);
  t.same(whole.events, EXPECTED, 'in one read');

  const split = new Recorder();
  const reader = new FrameReader(split);
  for (let at = 0; at < STREAM.length; at++) reader.execute(STREAM, at, at + 1);
  t.same(split.events, EXPECTED, 'one byte per read');

  for (const size of [7, 9, 10, 100, 4096]) {
    const chunked = new Recorder();
    const chunkedReader = new FrameReader(chunked);
    for (let at = 0; at < STREAM.length; at += size) chunkedReader.execute(STREAM, at, Math.min(STREAM.length, at + size));
    t.same(chunked.events, EXPECTED, `${size}-byte reads`);
  }
});

t.test('broken framing is a connection error: oversized frames, padding beyond the frame', async (t) => {
  const oversized = new Recorder();
  const big = Buffer.alloc(9);
  big.writeUIntBE(16_385, 0, 3);
  t.equal(new FrameReader(oversized).execute(big, 0, big.length), false);
  t.same(oversized.events, [['error', 0x6, 'a 16385-byte frame, above the 16,384 bytes allowed']]);

  const overPadded = new Recorder();
  const frame = encodeFrame(0x0, 0x8, 1, Buffer.from([10, 0x61, 0x62]));
  t.equal(new FrameReader(overPadded).execute(frame, 0, frame.length), false);
  t.same(overPadded.events, [['error', 0x1, 'a DATA frame padded beyond its length']]);
});
