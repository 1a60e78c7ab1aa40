// engine/stream-decoding.ts: a streamed body decoded by lane as it arrives; an unknown coding or a
// corrupt body is the lane's failure, and an uncoded response is left alone.
import { deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { StreamDecoding } from '../../src/engine/stream-decoding.js';

const collect = () => {
  const chunks: Buffer[] = [];
  return { text: () => Buffer.concat(chunks).toString(), output: (data: Uint8Array, start: number, end: number) => (chunks.push(Buffer.from(data.subarray(start, end))), true) };
};

t.test('two lanes, gzip and deflate, fed in small pieces', async (t) => {
  const decoding = new StreamDecoding(2);
  const a = collect();
  const b = collect();
  const events = 'data: 1\n\ndata: 2\n\ndata: [DONE]\n\n';
  t.ok(decoding.start(0, 'gzip'));
  t.ok(decoding.start(1, 'deflate'));
  t.ok(decoding.active(0) && decoding.active(1));
  const gz = gzipSync(events);
  const df = deflateSync(events);
  for (let i = 0; i < Math.max(gz.length, df.length); i += 3) {
    if (i < gz.length) t.ok(decoding.push(0, gz, i, Math.min(i + 3, gz.length), a.output));
    if (i < df.length) t.ok(decoding.push(1, df, i, Math.min(i + 3, df.length), b.output));
  }
  t.equal(a.text(), events);
  t.equal(b.text(), events);
  t.equal(decoding.failure(0), undefined);
  decoding.reset(0);
  t.notOk(decoding.active(0), 'the next response on the lane starts uncoded');
  t.ok(decoding.start(0, 'identity'));
  t.notOk(decoding.active(0), 'identity is no coding');
  decoding.close();
});

t.test('an unknown coding and a corrupt body are the lane’s failure, until the next response', async (t) => {
  const decoding = new StreamDecoding(1);
  t.notOk(decoding.start(0, 'zstd-ish'));
  t.equal(decoding.failure(0), 'UNSUPPORTED_ENCODING');
  decoding.reset(0);
  t.equal(decoding.failure(0), undefined);
  t.ok(decoding.start(0, 'gzip'));
  const out = collect();
  t.notOk(decoding.push(0, Buffer.from('this is not gzip at all'), 0, 23, out.output));
  t.equal(decoding.failure(0), 'BAD_ENCODING');
  decoding.close();
});
