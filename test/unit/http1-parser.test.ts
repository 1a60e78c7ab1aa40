import t, { type Test } from 'tap';
import { HeadTemplate } from '../../src/http1/head-template.js';
import { ResponseParser } from '../../src/http1/parser.js';
import type { ParseErrorCode, ResponseHandler } from '../../src/http1/response-handler.js';
import type { ResponseDetails } from '../../src/shared/exchange.js';

interface Reported {
  status: number;
  bytes: number;
  willClose: boolean;
  headers?: Record<string, string>;
  body?: string;
}

interface Expected {
  status: number;
  willClose?: boolean;
  headers?: Record<string, string>;
  body?: string;
}

interface Case {
  name: string;
  /** The raw bytes of each expected response, in order: its reported byte count is its length. */
  responses: string[];
  expected: Expected[];
  /** Bytes after the last expected response (the malformed part, or bytes left unparsed). */
  tail?: string;
  /** Which responses answer a HEAD request. */
  heads?: boolean[];
  /** The connection ends after the input. */
  eof?: boolean;
  error?: ParseErrorCode;
  maxHeaderBytes?: number;
}

/** Stands in for the transport: records responses and sets the HEAD flag for the next one. */
class Recorder implements ResponseHandler {
  readonly reported: Reported[] = [];
  parser!: ResponseParser;

  constructor(readonly heads: boolean[]) {}

  onResponse(status: number, bytes: number, willClose: boolean, details: ResponseDetails | undefined): boolean {
    const entry: Reported = { status, bytes, willClose };
    if (details !== undefined) {
      entry.headers = details.headers;
      entry.body = details.body.toString('latin1');
    }
    this.reported.push(entry);
    this.parser.headRequest = this.heads[this.reported.length] ?? false;
    return true;
  }
}

/**
 * Every piece goes through one reused buffer whose bytes past the piece are stale responses, as
 * with the transport's shared read buffer: a parser that looks past `end` trips over them.
 */
const readBuffer = Buffer.alloc(256 * 1024, 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n\n\r\n', 'latin1');

function run(c: Case, pieces: Buffer[], capture: boolean): { reported: Reported[]; error: string | undefined } {
  const recorder = new Recorder(c.heads ?? []);
  const parser = new ResponseParser(recorder, { capture, maxHeaderBytes: c.maxHeaderBytes ?? 64 * 1024 });
  recorder.parser = parser;
  parser.headRequest = c.heads?.[0] ?? false;
  let error: string | undefined;
  for (const piece of pieces) {
    piece.copy(readBuffer, 0);
    error = parser.execute(readBuffer, 0, piece.length);
    if (error !== undefined) break;
  }
  if (error === undefined && c.eof === true) error = parser.finish();
  return { reported: recorder.reported, error };
}

function expectedReports(c: Case, capture: boolean): Reported[] {
  return c.expected.map((e, i) => {
    const entry: Reported = { status: e.status, bytes: c.responses[i]!.length, willClose: e.willClose ?? false };
    if (capture) {
      entry.headers = e.headers ?? {};
      entry.body = e.body ?? '';
    }
    return entry;
  });
}

/** Deterministic PRNG (mulberry32) so that a failing split can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

const OK5 = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
const bigHeader = `X-Big: ${'a'.repeat(70 * 1024)}\r\n`;

const cases: Case[] = [
  {
    name: 'content-length body',
    responses: [OK5],
    expected: [{ status: 200, headers: { 'content-length': '5' }, body: 'hello' }],
  },
  {
    name: 'no reason phrase, lower-case names, repeated headers joined, whitespace around values',
    responses: ['HTTP/1.1 404\r\ncontent-length:  3 \r\nX-A: 1\r\nx-a: 2\r\n\r\nabc'],
    expected: [{ status: 404, headers: { 'content-length': '3', 'x-a': '1, 2' }, body: 'abc' }],
  },
  {
    name: 'several responses in one packet',
    responses: [OK5, 'HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno'],
    expected: [
      { status: 200, headers: { 'content-length': '5' }, body: 'hello' },
      { status: 201, headers: { 'content-length': '0' } },
      { status: 500, headers: { 'content-length': '2' }, body: 'no' },
    ],
  },
  {
    name: 'chunked with extensions, upper-case hex, sizes of several digits and trailers',
    responses: [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6 ; a="b"\r\n world\r\nA\r\n0123456789\r\n' +
        `10\r\n${'x'.repeat(16)}\r\n0\r\nX-Trailer: yes\r\nX-Other: 1\r\n\r\n`,
      OK5,
    ],
    expected: [
      { status: 200, headers: { 'transfer-encoding': 'chunked' }, body: `hello world0123456789${'x'.repeat(16)}` },
      { status: 200, headers: { 'content-length': '5' }, body: 'hello' },
    ],
  },
  {
    name: 'chunked wins over content-length',
    responses: ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
    expected: [{ status: 200, headers: { 'content-length': '100', 'transfer-encoding': 'chunked' }, body: 'abc' }],
  },
  {
    name: 'close-delimited body ends at EOF',
    responses: ['HTTP/1.1 200 OK\r\nX-A: b\r\n\r\nall of this\r\nHTTP/1.1 200 OK\r\n\r\nis body'],
    expected: [{ status: 200, willClose: true, headers: { 'x-a': 'b' }, body: 'all of this\r\nHTTP/1.1 200 OK\r\n\r\nis body' }],
    eof: true,
  },
  {
    name: 'close-delimited body is not reported before EOF',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\n\r\nbody so far',
  },
  {
    name: 'a final coding other than chunked runs to the close',
    responses: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n3\r\nabc'],
    expected: [{ status: 200, willClose: true, headers: { 'transfer-encoding': 'chunked, gzip' }, body: '3\r\nabc' }],
    eof: true,
  },
  {
    name: 'HEAD, 204 and 304 have no body whatever their content-length',
    responses: [
      'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n',
      'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n',
      'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n',
      OK5,
    ],
    heads: [true, false, false, false],
    expected: [
      { status: 200, headers: { 'content-length': '100' } },
      { status: 204, headers: { 'content-length': '10' } },
      { status: 304, headers: { 'content-length': '10', 'transfer-encoding': 'chunked' } },
      { status: 200, headers: { 'content-length': '5' }, body: 'hello' },
    ],
  },
  {
    name: '100 Continue and 103 Early Hints are counted into the final response, not reported',
    responses: [
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n' +
        'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    ],
    expected: [{ status: 200, headers: { 'content-length': '2' }, body: 'ok' }],
  },
  {
    name: '101 is final and ends HTTP on the connection',
    responses: ['HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'],
    tail: 'binary frames',
    expected: [{ status: 101, willClose: true, headers: { upgrade: 'websocket' } }],
  },
  {
    name: 'Connection: close, in any case and among other tokens; later bytes ignored',
    responses: ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: Keep-Alive, CLOSE\r\n\r\nhello'],
    tail: 'garbage that is never parsed',
    expected: [{ status: 200, willClose: true, headers: { 'content-length': '5', connection: 'Keep-Alive, CLOSE' }, body: 'hello' }],
  },
  {
    name: 'HTTP/1.0 closes unless keep-alive',
    responses: ['HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'],
    expected: [
      { status: 200, headers: { 'content-length': '2', connection: 'keep-alive' }, body: 'ok' },
      { status: 200, willClose: true, headers: { 'content-length': '2' }, body: 'ok' },
    ],
  },
  {
    name: 'bare LF line endings and a stray CRLF between responses',
    responses: ['HTTP/1.1 200 OK\nContent-Length: 2\n\nok', '\r\nHTTP/1.1 202 OK\r\nContent-Length: 0\r\n\r\n'],
    expected: [
      { status: 200, headers: { 'content-length': '2' }, body: 'ok' },
      { status: 202, headers: { 'content-length': '0' } },
    ],
  },
  {
    name: 'obs-fold continues a header value',
    responses: ['HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: 0\r\n\r\n'],
    expected: [{ status: 200, headers: { 'x-folded': 'a b', 'content-length': '0' } }],
  },
  {
    name: 'a repeated identical content-length is accepted',
    responses: ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok'],
    expected: [{ status: 200, headers: { 'content-length': '2, 2' }, body: 'ok' }],
  },
  {
    // undici and node:http accept these; only significant digits count toward the precision limits.
    name: 'framing values padded with leading zeros past the digit limits',
    responses: [
      `HTTP/1.1 200 OK\r\nContent-Length: ${'0'.repeat(20)}5\r\n\r\nhello`,
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${'0'.repeat(20)}5\r\nhello\r\n${'0'.repeat(20)}\r\n\r\n`,
    ],
    expected: [
      { status: 200, headers: { 'content-length': `${'0'.repeat(20)}5` }, body: 'hello' },
      { status: 200, headers: { 'transfer-encoding': 'chunked' }, body: 'hello' },
    ],
  },
  {
    name: 'content-length of 16 significant digits',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n',
    error: 'HPE_INVALID_CONTENT_LENGTH',
  },
  {
    name: 'chunk size of 14 significant hex digits',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000\r\n',
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  { name: 'not HTTP', responses: [], expected: [], tail: 'HTTX/1.1 200 OK\r\n\r\n', error: 'HPE_INVALID_CONSTANT' },
  { name: 'HTTP/2.0 status line', responses: [], expected: [], tail: 'HTTP/2.0 200 OK\r\n\r\n', error: 'HPE_INVALID_VERSION' },
  { name: 'status with a letter', responses: [], expected: [], tail: 'HTTP/1.1 20x OK\r\n\r\n', error: 'HPE_INVALID_STATUS' },
  { name: 'status below 100', responses: [], expected: [], tail: 'HTTP/1.1 099 Low\r\n\r\n', error: 'HPE_INVALID_STATUS' },
  { name: 'status of four digits', responses: [], expected: [], tail: 'HTTP/1.1 2000 OK\r\n\r\n', error: 'HPE_INVALID_STATUS' },
  { name: 'truncated status line', responses: [], expected: [], tail: 'HTTP/1.1 20\r\n\r\n', error: 'HPE_INVALID_STATUS' },
  {
    name: 'a good response, then a header name with a space',
    responses: [OK5],
    expected: [{ status: 200, headers: { 'content-length': '5' }, body: 'hello' }],
    tail: 'HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n',
    error: 'HPE_INVALID_HEADER_TOKEN',
  },
  { name: 'header without colon', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nNoColon\r\n\r\n', error: 'HPE_INVALID_HEADER_TOKEN' },
  { name: 'space before colon', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx', error: 'HPE_INVALID_HEADER_TOKEN' },
  { name: 'folded framing header', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\nx', error: 'HPE_INVALID_HEADER_TOKEN' },
  { name: 'content-length not a number', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n', error: 'HPE_INVALID_CONTENT_LENGTH' },
  { name: 'empty content-length', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n', error: 'HPE_INVALID_CONTENT_LENGTH' },
  {
    name: 'conflicting content-lengths',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx',
    error: 'HPE_INVALID_CONTENT_LENGTH',
  },
  {
    name: 'chunk size not hex',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  {
    name: 'chunk longer than its size',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n',
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  {
    name: 'chunk size too large',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n',
    error: 'HPE_INVALID_CHUNK_SIZE',
  },
  {
    name: 'headers over the limit',
    responses: [],
    expected: [],
    tail: `HTTP/1.1 200 OK\r\n${bigHeader}\r\n`,
    error: 'HPE_HEADER_OVERFLOW',
  },
  {
    name: 'headers over the limit without a line end yet',
    responses: [],
    expected: [],
    tail: `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(2000)}`,
    maxHeaderBytes: 1024,
    error: 'HPE_HEADER_OVERFLOW',
  },
  {
    name: 'headers of exactly the limit',
    responses: [`HTTP/1.1 200 OK\r\nX-Pad: ${'p'.repeat(1024 - 47)}\r\nContent-Length: 0\r\n\r\n`],
    expected: [{ status: 200, headers: { 'x-pad': 'p'.repeat(1024 - 47), 'content-length': '0' } }],
    maxHeaderBytes: 1024,
  },
  {
    name: 'headers one byte over the limit',
    responses: [],
    expected: [],
    tail: `HTTP/1.1 200 OK\r\nX-Pad: ${'p'.repeat(1024 - 46)}\r\nContent-Length: 0\r\n\r\n`,
    maxHeaderBytes: 1024,
    error: 'HPE_HEADER_OVERFLOW',
  },
  { name: 'EOF inside a body', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhalf', eof: true, error: 'HPE_UNEXPECTED_EOF' },
  { name: 'EOF inside the headers', responses: [], expected: [], tail: 'HTTP/1.1 200 OK\r\nContent-Le', eof: true, error: 'HPE_UNEXPECTED_EOF' },
  { name: 'EOF after only a 100 Continue', responses: [], expected: [], tail: 'HTTP/1.1 100 Continue\r\n\r\n', eof: true, error: 'HPE_UNEXPECTED_EOF' },
  {
    name: 'EOF inside chunks',
    responses: [],
    expected: [],
    tail: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n',
    eof: true,
    error: 'HPE_UNEXPECTED_EOF',
  },
  { name: 'EOF between responses is clean', responses: [OK5], expected: [{ status: 200, headers: { 'content-length': '5' }, body: 'hello' }], eof: true },
];

function checkCase(t: Test, c: Case, pieces: Buffer[], label: string): boolean {
  let ok = true;
  for (const capture of [false, true]) {
    const { reported, error } = run(c, pieces, capture);
    const expected = expectedReports(c, capture);
    if (JSON.stringify(reported) !== JSON.stringify(expected) || error !== c.error) {
      t.same({ reported, error }, { reported: expected, error: c.error }, `${c.name}: ${label}, capture ${capture}`);
      ok = false;
    }
  }
  return ok;
}

for (const c of cases) {
  t.test(c.name, async (t) => {
    const bytes = Buffer.from(c.responses.join('') + (c.tail ?? ''), 'latin1');
    for (const capture of [false, true]) {
      t.same(run(c, [bytes], capture), { reported: expectedReports(c, capture), error: c.error }, `whole, capture ${capture}`);
    }
    // Exhaustive single splits are checked quietly (one assertion per case) so that a failure names
    // its split point without thousands of passing assertions.
    let failures = 0;
    const step = bytes.length > 4096 ? 97 : 1;
    for (let cut = 1; cut < bytes.length && failures < 3; cut += step) {
      if (!checkCase(t, c, splitAt(bytes, [cut]), `split at ${cut}`)) failures++;
    }
    t.equal(failures, 0, 'every single split point gives the same result');
    const next = random(bytes.length);
    for (let round = 0; round < 50 && failures < 3; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => 1 + Math.floor(next() * (bytes.length - 1)));
      if (!checkCase(t, c, splitAt(bytes, cuts), `random cuts ${cuts.join(',')}`)) failures++;
    }
    t.equal(failures, 0, 'random multi-piece splits give the same result');
    // Byte at a time is the worst case for the carried partial line.
    t.ok(checkCase(t, c, splitAt(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)), 'byte at a time'));
  });
}

t.test('a failed parser keeps its error until reset, then parses again', async (t) => {
  const recorder = new Recorder([]);
  const parser = new ResponseParser(recorder);
  recorder.parser = parser;
  t.equal(parser.execute(Buffer.from('nonsense\r\n'), 0, 10), 'HPE_INVALID_CONSTANT');
  t.equal(parser.execute(Buffer.from(OK5), 0, OK5.length), 'HPE_INVALID_CONSTANT');
  t.equal(parser.finish(), 'HPE_INVALID_CONSTANT');
  t.equal(recorder.reported.length, 0);
  parser.reset();
  t.equal(parser.execute(Buffer.from(OK5), 0, OK5.length), undefined);
  t.same(recorder.reported, [{ status: 200, bytes: OK5.length, willClose: false }]);
});

t.test('a handler returning false stops the parse at once', async (t) => {
  const statuses: number[] = [];
  const parser = new ResponseParser({
    onResponse(status) {
      statuses.push(status);
      return false;
    },
  });
  const two = Buffer.from(OK5 + OK5);
  t.equal(parser.execute(two, 0, two.length), undefined);
  t.same(statuses, [200], 'the second response in the same buffer is not parsed');
});

t.test('inMessage is true only between the first and the last byte of a response', async (t) => {
  const parser = new ResponseParser({ onResponse: () => true });
  t.equal(parser.inMessage, false);
  parser.execute(Buffer.from(OK5), 0, 20);
  t.equal(parser.inMessage, true);
  parser.execute(Buffer.from(OK5), 20, OK5.length);
  t.equal(parser.inMessage, false);
});

function fuzz(t: Test, inputs: Buffer[], seed: number): void {
  const next = random(seed);
  let errors = 0;
  let responses = 0;
  for (const input of inputs) {
    let reportedBytes = 0;
    const parser = new ResponseParser(
      {
        onResponse(_status, bytes) {
          reportedBytes += bytes;
          responses++;
          parser.headRequest = next() < 0.1;
          return true;
        },
      },
      { capture: next() < 0.5, maxHeaderBytes: 4096 },
    );
    let error: string | undefined;
    let from = 0;
    while (from < input.length && error === undefined) {
      const to = Math.min(input.length, from + 1 + Math.floor(next() * 64));
      input.copy(readBuffer, 0, from, to);
      error = parser.execute(readBuffer, 0, to - from);
      from = to;
    }
    if (error === undefined) error = parser.finish();
    if (error !== undefined) {
      errors++;
      if (!/^HPE_[A-Z_]+$/.test(error)) t.fail(`unexpected error code ${error}`);
    }
    // A response never claims more bytes than arrived.
    if (reportedBytes > input.length) t.fail(`reported ${reportedBytes} bytes of ${input.length}`);
  }
  t.pass(`${inputs.length} inputs: ${responses} responses, ${errors} errors, no throw, no hang`);
}

t.test('fuzz: random bytes never throw or hang', async (t) => {
  const next = random(42);
  const alphabet = Buffer.from('HTTP/1.0 200\r\n:;, \tabcdefABCDEF0123456789-chunkedcontent-lengthtransfer-encodingconnectionclose');
  const inputs: Buffer[] = [];
  for (let i = 0; i < 3000; i++) {
    const input = Buffer.alloc(Math.floor(next() * 300));
    for (let j = 0; j < input.length; j++) {
      input[j] = next() < 0.5 ? alphabet[Math.floor(next() * alphabet.length)]! : Math.floor(next() * 256);
    }
    inputs.push(input);
  }
  fuzz(t, inputs, 7);
});

t.test('fuzz: mutated valid responses never throw or hang', async (t) => {
  const next = random(1234);
  const valid = cases.filter((c) => c.error === undefined).map((c) => Buffer.from(c.responses.join('') + (c.tail ?? ''), 'latin1'));
  const inputs: Buffer[] = [];
  for (let i = 0; i < 5000; i++) {
    const base = valid[Math.floor(next() * valid.length)]!;
    let bytes = Array.from(base);
    const mutations = 1 + Math.floor(next() * 4);
    for (let m = 0; m < mutations; m++) {
      const at = Math.floor(next() * (bytes.length + 1));
      const kind = next();
      if (kind < 0.4) bytes[at] = Math.floor(next() * 256);
      else if (kind < 0.7) bytes.splice(at, 1);
      else if (kind < 0.9) bytes.splice(at, 0, [13, 10, 48, 58, 32, 59][Math.floor(next() * 6)]!);
      else bytes = bytes.concat(bytes.slice(0, at));
    }
    inputs.push(Buffer.from(bytes));
  }
  fuzz(t, inputs, 99);
});

t.test('head template: matches only heads that parse the same', async (t) => {
  const head = 'HTTP/1.1 200 OK\r\nDate: Sun, 22 Nov 2026 06:31:38 GMT\r\nContent-Length: 12\r\nConnection: keep-alive\r\nX-Id: abc\r\n\r\n';
  const facts = { status: 200, http10: false, contentLength: 12, transferEncoding: false, chunked: false, connectionClose: false, connectionKeepAlive: true };
  const template = new HeadTemplate();
  template.learn(Buffer.from(head, 'latin1'), 0, head.length, facts);
  t.equal(template.length, head.length);
  const variants: Array<[string, boolean, string]> = [
    [head, true, 'the same head'],
    [head.replace('06:31:38', '06:31:39'), true, 'another Date'],
    [head.replace('200 OK', '200 XY'), true, 'another reason phrase'],
    [head.replace('abc', 'a;:'), true, 'any value bytes but LF in a non-framing header'],
    [head.replace('abc', 'a\nc'), false, 'LF inside a value splits the line'],
    [head.replace('Length: 12', 'Length: 13'), false, 'a framing value'],
    [head.replace('keep-alive', 'close-abcd'), false, 'the Connection value'],
    [head.replace('200 OK', '500 OK'), false, 'the status'],
    [head.replace('HTTP/1.1', 'HTTP/1.0'), false, 'the version'],
    [head.replace('X-Id', 'X-iD'), false, 'a name, even in another case'],
    [head.replace('Date: ', 'Date:\t'), false, 'whitespace around a value'],
    [head.replace('X-Id: abc', 'X-Id: abcd').slice(0, head.length), false, 'a longer head'],
  ];
  for (const [text, expected, name] of variants) {
    // At an odd offset too: pipelined heads start anywhere in the read buffer.
    for (const offset of [0, 3]) {
      const data = Buffer.alloc(offset + text.length + 8, 'x');
      data.write(text, offset, 'latin1');
      t.equal(template.matches(data, new DataView(data.buffer, data.byteOffset, data.byteLength), offset), expected, `${name} (offset ${offset})`);
    }
  }
  const informational = 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n';
  template.learn(Buffer.from(informational, 'latin1'), 0, informational.length, { ...facts, status: 103 });
  t.equal(template.length, head.length, 'an informational head is not kept: the final one before it stays');
  const same = Buffer.from(head, 'latin1');
  t.equal(template.matches(same, new DataView(same.buffer, same.byteOffset, same.byteLength), 0), true);
  t.equal(template.facts.status, 200);
  const folded = 'HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n';
  template.learn(Buffer.from(folded, 'latin1'), 0, folded.length, { ...facts, contentLength: 0 });
  t.equal(template.length, 0, 'a head with a folded line is not kept, nor the one before it');
  template.learn(Buffer.from(informational, 'latin1'), 0, informational.length, { ...facts, status: 103 });
  t.equal(template.length, 0, 'nor an informational head');
});

t.test('a 1xx before each final response leaves the final head in the template', async (t) => {
  const final = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n';
  const exchange = Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${final}ok`, 'latin1');
  const template = new HeadTemplate();
  const recorder = new Recorder([]);
  const parser = new ResponseParser(recorder, { template });
  recorder.parser = parser;
  for (let i = 0; i < 3; i++) {
    exchange.copy(readBuffer);
    t.equal(parser.execute(readBuffer, 0, exchange.length), undefined);
    t.equal(template.length, final.length, `after exchange ${i + 1}: the 200's head`);
  }
  t.same(recorder.reported.map(({ status, bytes }) => [status, bytes]), Array(3).fill([200, exchange.length]), 'each exchange one 200, its bytes counted whole');
});

t.test('differential: a parser using its head template reports what a full parse does', async (t) => {
  // A capturing parser never uses the template: it is the reference. Each response is a variant of
  // a base with same-length byte changes, so that most heads are candidates for the template and
  // some changes must be refused by it (a framing digit, a name, an LF in a value).
  const next = random(2026);
  const bases = [
    'HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sun, 22 Nov 2026 06:31:38 GMT\r\nContent-Type: application/octet-stream\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nxx',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Request-Id: 0123456789\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    'HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc',
    'HTTP/1.1 204 No Content\r\nContent-Length: 7\r\nETag: "abc"\r\n\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\nX-A: b\r\n\r\nz',
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-B: c\r\n\r\nok',
  ];
  const alphabet = Buffer.from('\r\n: ;,0123456789abcXYZ\t');
  const heads: boolean[] = [];
  const stream: Buffer[] = [];
  for (let i = 0; i < 4000; i++) {
    const bytes = Buffer.from(bases[Math.floor(next() * bases.length)]!, 'latin1');
    const changes = next() < 0.5 ? 0 : 1 + Math.floor(next() * 3);
    for (let c = 0; c < changes; c++) {
      bytes[Math.floor(next() * bytes.length)] = alphabet[Math.floor(next() * alphabet.length)]!;
    }
    stream.push(bytes);
    heads.push(next() < 0.05);
  }
  const runBoth = (capture: boolean): { reported: Reported[]; errors: string[] } => {
    const recorder = new Recorder(heads);
    const parser = new ResponseParser(recorder, { capture, maxHeaderBytes: 4096 });
    recorder.parser = parser;
    parser.headRequest = heads[0]!;
    const errors: string[] = [];
    const pick = random(77);
    let i = 0;
    while (i < stream.length) {
      // A connection of a few reads, each of one to three responses, sometimes cut in two. A
      // changed framing byte can swallow what follows; the connection's end brings the next fresh.
      const reads = 1 + Math.floor(pick() * 8);
      let error: string | undefined;
      for (let read = 0; read < reads && error === undefined && i < stream.length; read++) {
        const count = 1 + Math.floor(pick() * 3);
        const chunk = Buffer.concat(stream.slice(i, i + count));
        i += count;
        const cut = pick() < 0.2 ? Math.floor(pick() * chunk.length) : chunk.length;
        for (const [from, to] of [[0, cut], [cut, chunk.length]] as const) {
          if (from === to || error !== undefined) continue;
          chunk.copy(readBuffer, 0, from, to);
          error = parser.execute(readBuffer, 0, to - from);
        }
      }
      error ??= parser.finish();
      if (error !== undefined) errors.push(`${i}: ${error}`);
      parser.reset();
      parser.headRequest = heads[recorder.reported.length] ?? false;
    }
    return { reported: recorder.reported.map(({ status, bytes, willClose }) => ({ status, bytes, willClose })), errors };
  };
  const fast = runBoth(false);
  const reference = runBoth(true);
  t.same(fast.errors, reference.errors, 'the same errors at the same places');
  t.same(fast.reported, reference.reported, 'the same responses: status, bytes, close');
  t.ok(reference.reported.length > 1000 && reference.errors.length > 50, `${reference.reported.length} responses, ${reference.errors.length} errors`);
});

t.test('heads: each final head goes to onHead with its content-type, and refusing it ends the response', async (t) => {
  const heads: Array<[number, string | undefined]> = [];
  const responses: Array<[number, boolean]> = [];
  let accept = true;
  const parser = new ResponseParser(
    {
      onHead: (status, contentType) => (heads.push([status, contentType]), accept),
      onResponse: (status, _bytes, willClose) => (responses.push([status, willClose]), true),
      onBody: () => true,
    },
    { heads: true, body: true, template: new HeadTemplate() },
  );
  const sse = Buffer.from('HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\ncontent-length: 2\r\n\r\nok');
  t.equal(parser.execute(sse, 0, sse.length), undefined);
  const html = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n\r\nok');
  t.equal(parser.execute(html, 0, html.length), undefined);
  accept = false;
  const refused = Buffer.from('HTTP/1.1 503 Busy\r\ncontent-length: 4\r\n\r\nbusy');
  t.equal(parser.execute(refused, 0, refused.length), undefined);
  t.same(heads, [[200, 'text/event-stream; charset=utf-8'], [200, 'text/html'], [503, undefined]], 'the final heads only, each with its own content-type (none read from the one before)');
  t.same(responses, [[200, false], [200, false], [503, true]], 'a refused head ends its response there, closing the connection');
});
