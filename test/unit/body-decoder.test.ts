import t from 'tap';
import zlib from 'node:zlib';
import { BodyDecoder, codingOf, decodeWholeBody } from '../../src/engine/body-decoder.js';

const text = Array.from({ length: 3000 }, (_, i) => `data: {"i":${i}}\n\n`).join('');
const codings = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync } as const;

t.test('codingOf: the one coding salvo decodes, identity, or undefined', async (t) => {
  t.equal(codingOf('gzip'), 'gzip');
  t.equal(codingOf('X-Gzip'), 'gzip');
  t.equal(codingOf(' br '), 'br');
  t.equal(codingOf('identity'), 'identity');
  t.equal(codingOf('deflate, identity'), 'deflate');
  t.equal(codingOf('gzip, br'), undefined, 'two codings in a row are not decoded');
  t.equal(codingOf('zstd'), undefined);
});

t.test('a body decoded in any split, each piece at once, reused for the next body', async (t) => {
  for (const [coding, encode] of Object.entries(codings) as Array<[keyof typeof codings, (b: Buffer) => Buffer]>) {
    const coded = encode(Buffer.from(text));
    const decoder = new BodyDecoder();
    for (const piece of [1, 13, coded.length]) {
      decoder.start(coding);
      const out: Buffer[] = [];
      let goOn = true;
      for (let i = 0; i < coded.length; i += piece) {
        goOn &&= decoder.push(coded, i, Math.min(coded.length, i + piece), (data, start, end) => out.push(Buffer.from(data.subarray(start, end))) > 0);
      }
      t.ok(goOn);
      t.equal(Buffer.concat(out).toString(), text, `${coding} in pieces of ${piece}: ${text.length} bytes, more than one output buffer from one piece`);
    }
    decoder.close();
  }
  const raw = zlib.deflateRawSync(Buffer.from(text));
  const decoder = new BodyDecoder();
  decoder.start('deflate');
  let length = 0;
  decoder.push(raw, 0, raw.length, (_data, start, end) => ((length += end - start), true));
  t.equal(length, text.length, 'deflate without its zlib wrapper, as some servers send it');
});

t.test('output that says stop stops; corrupt data fails, and the next body starts clean', async (t) => {
  const coded = zlib.gzipSync(Buffer.from(text));
  const decoder = new BodyDecoder();
  decoder.start('gzip');
  let calls = 0;
  t.equal(decoder.push(coded, 0, coded.length, () => (calls++, false)), false);
  t.equal(calls, 1, 'no output after a false');
  t.equal(decoder.failed, false);
  decoder.start('gzip');
  const corrupt = Buffer.from(coded);
  corrupt.fill(0x55, 10, 30);
  t.equal(decoder.push(corrupt, 0, corrupt.length, () => true), false);
  t.equal(decoder.failed, true);
  decoder.start('gzip');
  let length = 0;
  t.ok(decoder.push(coded, 0, coded.length, (_data, start, end) => ((length += end - start), true)));
  t.equal(length, text.length, 'a new zlib state after a failure');
});

t.test('decodeWholeBody: a captured body', async (t) => {
  t.equal(decodeWholeBody(zlib.gzipSync('hi'), 'gzip').toString(), 'hi');
  t.equal(decodeWholeBody(zlib.deflateRawSync('hi'), 'deflate').toString(), 'hi');
  t.equal(decodeWholeBody(Buffer.from('hi'), undefined).toString(), 'hi');
  t.equal(decodeWholeBody(Buffer.from('hi'), 'zstd'), 'UNSUPPORTED_ENCODING');
  t.equal(decodeWholeBody(Buffer.from('not gzip'), 'gzip'), 'BAD_ENCODING');
  t.equal(decodeWholeBody(Buffer.alloc(0), 'br').length, 0, 'no body, nothing to decode');
});
