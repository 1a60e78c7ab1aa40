import t from 'tap';
import { decodeInteger, HpackDecoder } from '../../src/http2/hpack.js';
import { encodeHeaderBlock, encodeInteger } from '../../src/http2/hpack-encoder.js';
import { huffmanDecode, huffmanEncode, huffmanEncodedLength } from '../../src/http2/huffman.js';

/** Bytes from an RFC 7541 style hex dump ("8286 8441 ..."). */
function hex(dump: string): Buffer {
  return Buffer.from(dump.replace(/\s+/g, ''), 'hex');
}

/** Decodes a whole buffer with capture on; returns the status and the captured fields. */
function decode(decoder: HpackDecoder, block: Buffer): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const status = decoder.decode(block, 0, block.length, headers);
  return { status, headers };
}

/** The dynamic table, newest first, as the RFC lists it. */
function table(decoder: HpackDecoder): [string, string][] {
  const entries: [string, string][] = [];
  for (let i = 0; i < decoder.tableLength; i++) entries.push(decoder.entry(62 + i)!);
  return entries;
}

t.test('C.1 integer representation', async (t) => {
  const cases: [value: number, prefix: number, bytes: number[]][] = [
    [10, 5, [0x0a]],
    [1337, 5, [0x1f, 0x9a, 0x0a]],
    [42, 8, [0x2a]],
  ];
  for (const [value, prefix, bytes] of cases) {
    const out: number[] = [];
    encodeInteger(out, value, prefix, 0);
    t.same(out, bytes, `encode ${value} on ${prefix} bits`);
    // The bits above the prefix are not part of the value.
    const src = Uint8Array.from([bytes[0]! | (0xff << prefix), ...bytes.slice(1), 0x77]);
    const cursor = { pos: 0 };
    t.equal(decodeInteger(src, cursor, src.length, prefix), value, `decode ${value}`);
    t.equal(cursor.pos, bytes.length, 'cursor after the integer');
  }
  const cursor = { pos: 0 };
  t.equal(decodeInteger(Uint8Array.from([0x1f, 0x9a]), cursor, 2, 5), -1, 'truncated');
  t.equal(decodeInteger(Uint8Array.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0x0f]), { pos: 0 }, 6, 7), -1, 'past 2^31 - 1');
  t.equal(decodeInteger(Uint8Array.from([0x7f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), { pos: 0 }, 7, 7), -1, 'too many bytes');
  const max: number[] = [];
  encodeInteger(max, 2 ** 31 - 1, 7, 0);
  t.equal(decodeInteger(Uint8Array.from(max), { pos: 0 }, max.length, 7), 2 ** 31 - 1, 'largest accepted');
});

t.test('C.2 field representations', async (t) => {
  const d = new HpackDecoder();
  t.same(decode(d, hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), {
    status: 0,
    headers: { 'custom-key': 'custom-header' },
  });
  t.equal(d.tableSize, 55);
  const e = new HpackDecoder();
  t.same(decode(e, hex('040c 2f73 616d 706c 652f 7061 7468')), { status: 0, headers: {} }, 'pseudo-headers are not captured');
  t.same(decode(e, hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), { status: 0, headers: { password: 'secret' } });
  t.same(decode(e, hex('82')), { status: 0, headers: {} });
  t.equal(e.tableLength, 0, 'literals without indexing leave the table empty');
});

const REQUESTS = {
  plain: [
    '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
    '8286 84be 5808 6e6f 2d63 6163 6865',
    '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
  ],
  huffman: [
    '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
    '8286 84be 5886 a8eb 1064 9cbf',
    '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
  ],
};

for (const [section, kind] of [['C.3', 'plain'], ['C.4', 'huffman']] as const) {
  t.test(`${section} requests (${kind})`, async (t) => {
    const d = new HpackDecoder();
    const [first, second, third] = REQUESTS[kind].map(hex);
    t.same(decode(d, first!), { status: 0, headers: {} });
    t.same(table(d), [[':authority', 'www.example.com']]);
    t.equal(d.tableSize, 57);

    t.same(decode(d, second!), { status: 0, headers: { 'cache-control': 'no-cache' } });
    t.same(table(d), [
      ['cache-control', 'no-cache'],
      [':authority', 'www.example.com'],
    ]);
    t.equal(d.tableSize, 110);

    t.same(decode(d, third!), { status: 0, headers: { 'custom-key': 'custom-value' } });
    t.same(table(d), [
      ['custom-key', 'custom-value'],
      ['cache-control', 'no-cache'],
      [':authority', 'www.example.com'],
    ]);
    t.equal(d.tableSize, 164);
    t.same(d.entry(2), [':method', 'GET'], 'static entries');
    t.same(d.entry(61), ['www-authenticate', '']);
    t.equal(d.entry(65), undefined, 'past the dynamic table');
    t.equal(d.entry(0), undefined);
  });
}

const RESPONSES = {
  plain: [
    `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
     2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
     6c65 2e63 6f6d`,
    '4803 3330 37c1 c0bf',
    `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
     54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
     5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
     3d31`,
  ],
  huffman: [
    `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
     2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
    '4883 640e ffc1 c0bf',
    `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
     77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
     9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
  ],
};

const DATE_1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const DATE_2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const LOCATION = 'https://www.example.com';
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';

for (const [section, kind] of [['C.5', 'plain'], ['C.6', 'huffman']] as const) {
  t.test(`${section} responses with eviction (${kind})`, async (t) => {
    const d = new HpackDecoder(256);
    const [first, second, third] = RESPONSES[kind].map(hex);
    const regular = { 'cache-control': 'private', date: DATE_1, location: LOCATION };
    t.same(decode(d, first!), { status: 302, headers: regular });
    t.same(table(d), [
      ['location', LOCATION],
      ['date', DATE_1],
      ['cache-control', 'private'],
      [':status', '302'],
    ]);
    t.equal(d.tableSize, 222);

    t.same(decode(d, second!), { status: 307, headers: regular });
    t.same(table(d), [
      [':status', '307'],
      ['location', LOCATION],
      ['date', DATE_1],
      ['cache-control', 'private'],
    ]);
    t.equal(d.tableSize, 222);

    t.same(decode(d, third!), {
      status: 200,
      headers: { 'cache-control': 'private', date: DATE_2, location: LOCATION, 'content-encoding': 'gzip', 'set-cookie': COOKIE },
    });
    t.same(table(d), [
      ['set-cookie', COOKIE],
      ['content-encoding', 'gzip'],
      ['date', DATE_2],
    ]);
    t.equal(d.tableSize, 215);
  });

  t.test(`${section} responses without capture`, async (t) => {
    const d = new HpackDecoder(256);
    const statuses = RESPONSES[kind].map(hex).map((block) => d.decode(block, 0, block.length, undefined));
    t.same(statuses, [302, 307, 200]);
    t.equal(d.tableSize, 215);
  });
}

t.test('compression errors', async (t) => {
  const cases: [name: string, dump: string][] = [
    ['indexed 0', '80'],
    ['index past the table', 'be'],
    ['index past the table, multi-byte', 'ff 80 01'],
    ['literal name index past the table', '7e 01 61'],
    ['truncated string', '0f 27 05 6e 67 69'],
    ['truncated name', '00 05 61 62'],
    ['missing value', '40 01 61'],
    ['truncated integer', 'ff'],
    ['truncated integer in a length', '0f 27 7f 80'],
    ['integer overflow', 'ff ff ff ff ff 0f'],
    ['huffman with EOS', '40 01 61 84 ff ff ff ff'],
    ['huffman with 8 bits of padding', '40 01 61 81 ff'],
    ['huffman with 11 bits of padding', '40 01 61 82 1f ff'],
    ['huffman padding not all ones', '40 01 61 81 00'],
    ['size update above the maximum', '3f e2 1f'],
    ['size update after a field', '88 20'],
  ];
  for (const [name, dump] of cases) {
    const block = hex(dump);
    t.equal(new HpackDecoder().decode(block, 0, block.length, {}), -1, `${name} (capture)`);
  }
  // Without capture, skipped strings are never decoded, so only the errors on other paths remain.
  for (const [name, dump] of cases.filter(([name]) => !name.startsWith('huffman'))) {
    const block = hex(dump);
    t.equal(new HpackDecoder().decode(block, 0, block.length, undefined), -1, `${name} (no capture)`);
  }
  const eos = hex('0f 27 84 ff ff ff ff');
  t.equal(new HpackDecoder().decode(eos, 0, eos.length, undefined), 0, 'a skipped string is not decoded');
  t.equal(new HpackDecoder().decode(eos, 0, eos.length, {}), -1, 'but a captured one is');
});

t.test('dynamic table size updates', async (t) => {
  const d = new HpackDecoder();
  const fill = hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572');
  d.decode(fill, 0, fill.length, undefined);
  t.equal(d.tableLength, 1);
  const shrink = hex('20 3f e1 1f 88');
  t.equal(d.decode(shrink, 0, shrink.length, undefined), 200, 'two updates at the start: to 0, back to 4096');
  t.equal(d.tableSize, 0, 'the update to 0 evicted everything');
  const small = hex('3f 19'); // 56 octets: one custom-key entry (55) fits, two do not
  t.equal(d.decode(small, 0, small.length, undefined), 0);
  d.decode(fill, 0, fill.length, undefined);
  d.decode(fill, 0, fill.length, undefined);
  t.equal(d.tableLength, 1, 'the older entry was evicted');
  const tooBig = hex('3f 17 400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572');
  t.equal(d.decode(tooBig, 0, tooBig.length, undefined), 0);
  t.equal(d.tableLength, 0, 'an entry larger than the table empties it');
  t.equal(d.tableSize, 0);
  const limited = new HpackDecoder(100);
  const over = hex('3f 46'); // 101
  t.equal(limited.decode(over, 0, over.length, undefined), -1, 'above what we advertised');
  const at = hex('3f 45');
  t.equal(limited.decode(at, 0, at.length, undefined), 0, 'at what we advertised');
});

t.test(':status', async (t) => {
  const cases: [name: string, dump: string, status: number][] = [
    ['static 200', '88', 200],
    ['static 404', '8d', 404],
    ['static name, literal value', '08 03 353033', 503],
    ['never indexed', '18 03 353033', 503],
    ['literal name', '00 07 3a737461747573 03 323031', 201],
    ['huffman literal name and value', `00 ${huffmanHex(':status')} ${huffmanHex('418')}`, 418],
    ['no :status', '0f 27 05 6e67696e78', 0],
    ['two digits', '08 02 3230', -2],
    ['four digits', '08 04 32303030', -2],
    ['not digits', '08 03 32304f', -2],
    ['leading zero', '08 03 303939', -2],
    ['twice', '88 89', -2],
  ];
  for (const [name, dump, status] of cases) {
    const block = hex(dump);
    t.equal(new HpackDecoder().decode(block, 0, block.length, undefined), status, `${name} (no capture)`);
    t.equal(new HpackDecoder().decode(block, 0, block.length, {}), status, `${name} (capture)`);
  }
  const d = new HpackDecoder();
  const malformed = hex('48 02 3230 40 01 61 01 62');
  t.equal(d.decode(malformed, 0, malformed.length, undefined), -2);
  t.same(table(d), [
    ['a', 'b'],
    [':status', '20'],
  ], 'a malformed block is still decoded to its end');
  const indexed = hex('bf');
  t.equal(d.decode(indexed, 0, indexed.length, undefined), -2, ':status from the dynamic table is checked too');
  const named = hex('0f 30 03 323034');
  t.equal(d.decode(named, 0, named.length, undefined), 204, ':status named by a dynamic entry, not skipped');
});

function huffmanHex(text: string): string {
  const bytes = Buffer.from(text, 'latin1');
  const out = Buffer.alloc(huffmanEncodedLength(bytes));
  huffmanEncode(bytes, out, 0);
  return Buffer.concat([Buffer.from([0x80 | out.length]), out]).toString('hex');
}

t.test('fields stepped over without capture', async (t) => {
  const d = new HpackDecoder();
  // :status 200, server: nginx (without indexing), x-id: 7 (incremental indexing), a never-indexed
  // literal name, all Huffman-coded.
  const first = hex(`88 0f27 ${huffmanHex('nginx')} 40 ${huffmanHex('x-id')} ${huffmanHex('7')} 10 ${huffmanHex('secret')} 01 61`);
  t.equal(d.decode(first, 0, first.length, undefined), 200);
  t.same(table(d), [['x-id', '7']], 'the indexed literal was decoded and inserted');
  const second = hex('8d be');
  const headers: Record<string, string> = {};
  t.equal(d.decode(second, 0, second.length, headers), 404);
  t.same(headers, { 'x-id': '7' }, 'a later block references it');
  const again: Record<string, string> = {};
  t.equal(new HpackDecoder().decode(first, 0, first.length, again), 200);
  t.same(again, { server: 'nginx', 'x-id': '7', secret: 'a' });
});

t.test('capture', async (t) => {
  const d = new HpackDecoder();
  // 0x90: accept-encoding: gzip, deflate; 0x9c: content-length with its empty static value; 0xbe
  // is past the empty dynamic table.
  const block = hex(`88 0f28 01 61 0f28 01 62 00 ${huffmanHex('X-Up')} 01 31 90 be`);
  t.equal(d.decode(block, 0, block.length, {}), -1);
  const ok = hex(`88 0f28 01 61 0f28 01 62 00 ${huffmanHex('X-Up')} 01 31 90 9c`);
  const headers: Record<string, string> = {};
  t.equal(d.decode(ok, 0, ok.length, headers), 200);
  // set-cookie lines joined with a line feed (a cookie's Expires holds a comma), the others with ', '.
  t.same(headers, { 'set-cookie': 'a\nb', 'x-up': '1', 'accept-encoding': 'gzip, deflate', 'content-length': '' });
  t.equal(d.decode(ok, 5, ok.length, undefined), 0, 'decodes from start');
  t.equal(d.decode(ok, 0, 1, undefined), 200, 'and stops at end');
});

t.test('encodeHeaderBlock round trip', async (t) => {
  t.same([...encodeHeaderBlock([[':method', 'GET']])], [0x82]);
  t.same([...encodeHeaderBlock([[':path', '/']])], [0x84]);
  t.same([...encodeHeaderBlock([[':scheme', 'http']])], [0x86]);
  t.same([...encodeHeaderBlock([[':method', 'POST']])], [0x83]);
  t.same([...encodeHeaderBlock([[':status', '404']])], [0x8d]);
  t.same([...encodeHeaderBlock([['accept-encoding', 'gzip, deflate']])], [0x90]);
  // Literal without indexing, static name index 1, Huffman value ("www.example.com", C.4.1).
  t.same(encodeHeaderBlock([[':authority', 'www.example.com']]), hex('01 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'));
  // Raw when Huffman is not shorter.
  t.same(encodeHeaderBlock([['x', '{}']]), hex('00 01 78 02 7b7d'));

  const fields: [string, string][] = [
    [':method', 'GET'],
    [':scheme', 'https'],
    [':path', '/api/items?id=42&sort=desc'],
    [':authority', 'example.com:8443'],
    ['user-agent', 'salvo/0.1'],
    ['accept', '*/*'],
    ['accept-encoding', 'gzip, deflate'],
    ['x-request-id', 'aGVsbG8gd29ybGQ='],
    ['x-empty', ''],
    ['x-bytes', '\u00e9\u00ff\u0001~'],
    ['cookie', 'a=1'],
    ['cookie', 'b=2'],
  ];
  const block = encodeHeaderBlock(fields);
  const d = new HpackDecoder();
  const headers: Record<string, string> = {};
  t.equal(d.decode(block, 0, block.length, headers), 0);
  t.same(headers, {
    'user-agent': 'salvo/0.1',
    accept: '*/*',
    'accept-encoding': 'gzip, deflate',
    'x-request-id': 'aGVsbG8gd29ybGQ=',
    'x-empty': '',
    'x-bytes': '\u00e9\u00ff\u0001~',
    cookie: 'a=1, b=2',
  });
  t.equal(d.tableLength, 0, 'the encoder never adds to the dynamic table');
  t.equal(d.decode(block, 0, block.length, undefined), 0, 'decodes again, unchanged, without capture');
  t.equal(block[0], 0x82);
  t.equal(block[1], 0x87);
});

t.test('huffman', async (t) => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const encoded = new Uint8Array(huffmanEncodedLength(all));
  t.equal(huffmanEncode(all, encoded, 0), encoded.length);
  const out = new Uint8Array(Math.ceil((encoded.length * 8) / 5));
  const n = huffmanDecode(encoded, 0, encoded.length, out);
  t.same([...out.subarray(0, n)], [...all], 'every byte round-trips');
  t.equal(huffmanDecode(Uint8Array.of(), 0, 0, out), 0, 'empty');
  // 'a' is 00011: the remaining 3 bits pad with ones.
  t.equal(huffmanDecode(Uint8Array.of(0x1f), 0, 1, out), 1);
  t.equal(out[0], 0x61);
  t.equal(huffmanDecode(Uint8Array.of(0x1b), 0, 1, out), -1, 'padding with a zero bit');
  t.equal(huffmanDecode(Uint8Array.of(0xff), 0, 1, out), -1, '8 bits of padding');
  t.equal(huffmanDecode(Uint8Array.of(0x1f, 0xff), 0, 2, out), -1, '11 bits of padding');
  t.equal(huffmanDecode(Uint8Array.of(0xff, 0xff, 0xff, 0xfc), 0, 4, out), -1, 'EOS');
  const offset = huffmanEncode(Buffer.from('no-cache', 'latin1'), encoded, 3);
  t.same(Buffer.from(encoded.subarray(3, offset)), hex('a8eb 1064 9cbf'), 'encodes at an offset (C.4.2)');
});
