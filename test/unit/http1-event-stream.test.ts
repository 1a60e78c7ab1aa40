import t from 'tap';
import { EventStream } from '../../src/http1/event-stream.js';
import type { StreamFormat } from '../../src/shared/stream.js';

interface Seen {
  data: string;
  type: string;
  id: string;
}

/** Frames `body` fed as `pieces` (byte ranges), keeping what each event said. */
function frame(format: StreamFormat, body: Buffer, cuts: number[], stopAt = Infinity): { seen: Seen[]; stream: EventStream; stopped: boolean } {
  const seen: Seen[] = [];
  const stream = new EventStream(
    format,
    {
      onEvent(s) {
        seen.push({ data: s.data(), type: format === 'sse' ? s.eventType() : '', id: s.lastEventId });
        return seen.length < stopAt;
      },
    },
    true,
  );
  let from = 0;
  let stopped = false;
  for (const cut of [...cuts, body.length]) {
    // A reused read buffer: bytes past `end` are stale and must not be read.
    const read = Buffer.alloc(body.length + 8, 0x41);
    body.copy(read, 3, from, cut);
    if (!stream.push(read, 3, 3 + cut - from)) {
      stopped = true;
      break;
    }
    from = cut;
  }
  if (!stopped) stream.end();
  return { seen, stream, stopped };
}

const SSE_EVENTS = (eol: string) =>
  `\ufeff: a comment${eol}event: greeting${eol}id: 7${eol}data: hello${eol}data:  two spaces${eol}${eol}` +
  `data${eol}${eol}` +
  `retry: 1500${eol}: keep-alive${eol}${eol}` +
  `data: {"choices":[{"delta":{"content":"é"}}]}${eol}unknown: field${eol}${eol}` +
  `data: [DONE]${eol}${eol}` +
  `data: unfinished`;

const SSE_EXPECTED: Seen[] = [
  { data: 'hello\n two spaces', type: 'greeting', id: '7' },
  { data: '', type: 'message', id: '7' },
  { data: '{"choices":[{"delta":{"content":"é"}}]}', type: 'message', id: '7' },
  { data: '[DONE]', type: 'message', id: '7' },
];

t.test('SSE events are the same however the bytes are cut, for every line end', async (t) => {
  for (const eol of ['\r\n', '\n', '\r']) {
    const body = Buffer.from(SSE_EVENTS(eol));
    const whole = frame('sse', body, []);
    t.same(whole.seen, SSE_EXPECTED, `whole, ${JSON.stringify(eol)}`);
    t.equal(whole.stream.retryMs, 1500);
    let failures = 0;
    for (let cut = 1; cut < body.length; cut++) {
      const { seen, stream } = frame('sse', body, [cut]);
      if (JSON.stringify(seen) !== JSON.stringify(SSE_EXPECTED) || stream.retryMs !== 1500) {
        failures++;
        t.fail(`cut at ${cut} of ${JSON.stringify(eol)}: ${JSON.stringify(seen)}`);
      }
    }
    // Every byte on its own: each line end split from the byte before and after it.
    const bytewise = frame('sse', body, Array.from({ length: body.length - 1 }, (_, i) => i + 1));
    t.same(bytewise.seen, SSE_EXPECTED, `one byte at a time, ${JSON.stringify(eol)}`);
    t.equal(failures, 0, `every single cut of ${body.length} bytes, ${JSON.stringify(eol)}`);
  }
});

t.test('a CR at the end of one read and the LF at the start of the next end one line, not two', async (t) => {
  const body = Buffer.from('data: a\r\n\r\ndata: b\r\n\r\n');
  for (let cut = 1; cut < body.length; cut++) {
    for (let second = cut + 1; second < body.length; second++) {
      const { seen } = frame('sse', body, [cut, second]);
      if (seen.map((s) => s.data).join() !== 'a,b') t.fail(`cuts ${cut}, ${second}: ${JSON.stringify(seen)}`);
    }
  }
  t.pass('every pair of cuts');
});

t.test('SSE: fields as the standard says', async (t) => {
  const events = (text: string) => frame('sse', Buffer.from(text), []).seen;
  t.same(events('data: x\n\n').map((e) => e.data), ['x'], 'one space after the colon is dropped');
  t.same(events('data:x\n\n').map((e) => e.data), ['x'], 'no space');
  t.same(events('data:  x\n\n').map((e) => e.data), [' x'], 'only one space');
  t.same(events('event: only\n\n'), [], 'an event without data is not dispatched');
  t.same(events('event: a\n\ndata: b\n\n').map((e) => e.type), ['message'], 'its type is forgotten');
  t.same(events('id: 1\ndata: a\n\nid\ndata: b\n\n').map((e) => e.id), ['1', ''], 'a bare id resets it');
  t.same(events('id: 1\ndata: a\n\nid: 2\u0000\ndata: b\n\n').map((e) => e.id), ['1', '1'], 'an id with NUL is ignored');
  const cut = frame('sse', Buffer.from('id: 1\ndata: a\n\nid: 2\ndata: b\n'), []).stream;
  t.equal(cut.lastEventId, '1', "an id takes effect at its event's end: a stream cut before it keeps the one before");
  t.equal(frame('sse', Buffer.from('id: 3\n\n'), []).stream.lastEventId, '3', 'an event without data still sets it');
  cut.forget();
  t.same([cut.lastEventId, cut.retryMs], ['', -1], 'a new subscription starts without');
  t.same(events('data: a\nDATA: b\n\n').map((e) => e.data), ['a'], 'names are case-sensitive');
  t.same(events('dataa: b\ndat: c\n\n'), [], 'other names are ignored');
  t.same(events('data: a\n\ndata: b'), [{ data: 'a', type: 'message', id: '' }], 'an unfinished event at the end is dropped');
  for (const [text, retry] of [['retry: 12\n', 12], ['retry: 1x\n', -1], ['retry:\n', -1], ['retry\n', -1], ['retry: 3\nretry: x\n', 3]] as const) {
    t.equal(frame('sse', Buffer.from(text), []).stream.retryMs, retry, JSON.stringify(text));
  }
  t.same(events('\ufeff\ufeffdata: a\n\n'), [], 'only one BOM is skipped: the second makes the line a field named "\\ufeffdata"');
});

t.test('NDJSON lines, cut anywhere, the last one without its newline', async (t) => {
  const body = Buffer.from('{"a":1}\n\n  \r\n{"b":"é"}\r\n{"c":3}');
  const expected = ['{"a":1}', '{"b":"é"}\r', '{"c":3}'];
  for (let cut = 0; cut < body.length; cut++) {
    const { seen } = frame('ndjson', body, cut === 0 ? [] : [cut]);
    if (JSON.stringify(seen.map((s) => s.data)) !== JSON.stringify(expected)) t.fail(`cut at ${cut}: ${JSON.stringify(seen)}`);
  }
  t.pass('every cut');
});

t.test('chunks: each non-empty piece is an event', async (t) => {
  const { seen } = frame('chunks', Buffer.from('abcdef'), [2, 2, 5]);
  t.same(seen.map((s) => s.data), ['ab', 'cde', 'f']);
});

t.test('the handler stops the stream: push returns false and nothing after is framed', async (t) => {
  const body = Buffer.from('data: 1\n\ndata: [DONE]\n\ndata: 3\n\n');
  const { seen, stopped } = frame('sse', body, [], 2);
  t.ok(stopped);
  t.same(seen.map((s) => s.data), ['1', '[DONE]']);
});

t.test('without keepText nothing is copied, and events are still counted', async (t) => {
  let events = 0;
  const stream = new EventStream('sse', { onEvent: () => ++events > 0 });
  const body = Buffer.from(SSE_EVENTS('\n'));
  t.ok(stream.push(body, 0, body.length));
  t.equal(events, 4);
  t.equal(stream.events, 4);
  t.equal(stream.lastEventId, '7', 'the id is kept: a reconnection sends it');
  stream.reset();
  t.equal(stream.events, 0);
  t.equal(stream.lastEventId, '7');
});
