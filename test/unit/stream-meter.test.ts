// engine/stream-meter.ts over fake lanes: each lane's body framed into events and timed against its
// request, until ends a stream at its marker, tokens counted, a function that throws warned once,
// a gzip body decoded before framing, and warm-up responses left out.
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { planStream } from '../../src/engine/stream-options.js';
import { StreamMeter } from '../../src/engine/stream-meter.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import type { Lane } from '../../src/transports/transport.js';

const lanes = (n: number) => Array.from({ length: n }, (_, id) => ({ id, requestIndex: 0, sentAt: 0, intendedAt: 0, measured: true }) as unknown as Lane & { intendedAt: number; measured: boolean });
const names = { nameOf: new Uint16Array(1), count: 1 };
const bytes = (text: string) => Buffer.from(text);
const chunk = (i: number) => `data: {"choices":[{"delta":{"content":"t${i}"}}]}\n\n`;

function meter(stream: Record<string, unknown>, laneCount = 2) {
  const { planned, hooks } = planStream(stream, { workers: 1, webSocket: false })!;
  const warnings: Array<[string, string]> = [];
  const all = lanes(laneCount);
  const m = new StreamMeter(planned, hooks, all, names, (code, message) => warnings.push([code, message]), false);
  const startAt = performance.now() - 10;
  m.begin(startAt, startAt + 60_000);
  return { m, lanes: all, warnings };
}

t.test('events framed across reads, tokens counted, until ends the stream at the marker', async (t) => {
  const { m, lanes: [a, b] } = meter({ format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' });
  for (const lane of [a!, b!]) {
    lane.intendedAt = performance.now() - 5;
    m.sent(lane);
  }
  const body = `${chunk(0)}${chunk(1)}${chunk(2)}data: [DONE]\n\n`;
  for (let i = 0; i < body.length; i += 7) t.ok(m.body(a!, bytes(body), i, Math.min(i + 7, body.length)) || i + 7 >= body.length);
  m.end(a!, performance.now(), true);
  const other = `${chunk(0)}${chunk(1)}`;
  m.body(b!, bytes(other), 0, other.length);
  m.end(b!, performance.now(), true);
  const { stream } = m.finish(performance.now())!;
  t.same({ streams: stream.streams, ended: stream.ended, events: stream.events, outputTokens: stream.outputTokens }, { streams: 2, ended: 1, events: 5, outputTokens: 5 }, 'the marker is no event; one stream ended by until');
  t.equal(decodeHistogram(stream.histograms.firstEvent).totalCount, 2);
  t.equal(decodeHistogram(stream.histograms.gap).totalCount, 3);
  t.ok(decodeHistogram(stream.histograms.firstEvent).minNonZeroValue >= 4000, 'the first event timed from the request’s intended time (5 ms before)');
  t.equal(decodeHistogram(stream.histograms.ttft!).totalCount, 2);
});

t.test('a warm-up response and a body without events are no streams', async (t) => {
  const { m, lanes: [a, b] } = meter({ format: 'ndjson' });
  a!.measured = false;
  m.sent(a!);
  m.body(a!, bytes('{"x":1}\n{"x":2}\n'), 0, 16);
  m.end(a!, performance.now(), false);
  m.sent(b!);
  m.end(b!, performance.now(), true);
  const { stream } = m.finish(performance.now())!;
  t.same([stream.streams, stream.events], [0, 0]);
});

t.test('a gzip body is decoded before framing; an unknown coding is undecodable', async (t) => {
  const { m, lanes: [a, b] } = meter({ format: 'sse' });
  m.sent(a!);
  t.ok(m.encoding(a!, 'gzip'));
  const coded = gzipSync(`${chunk(0)}${chunk(1)}${chunk(2)}${chunk(3)}`);
  m.body(a!, coded, 0, coded.length);
  m.end(a!, performance.now(), true);
  m.sent(b!);
  t.notOk(m.encoding(b!, 'compress'));
  t.equal(m.undecodable(b!), 'UNSUPPORTED_ENCODING');
  t.equal(m.finish(performance.now())!.stream.events, 4);
});

t.test('a tokens function that throws counts its fallback (0) and warns under its code', async (t) => {
  let calls = 0;
  const { m, lanes: [a], warnings } = meter({ format: 'sse', tokens: () => { calls++; throw new Error('bad tokenizer'); } }, 1);
  m.sent(a!);
  const body = `${chunk(0)}${chunk(1)}${chunk(2)}`;
  m.body(a!, bytes(body), 0, body.length);
  m.end(a!, performance.now(), true);
  t.equal(calls, 3);
  // The run's warnings keep one per code (addWarning): the meter tells each failure.
  t.ok(warnings.length > 0 && warnings.every(([code]) => code === 'STREAM_FUNCTION_FAILED'));
  t.equal(warnings[0]![1], 'stream.tokens threw for an event (Error: bad tokenizer); such events counted as 0');
  const { stream } = m.finish(performance.now())!;
  t.same([stream.events, stream.outputTokens], [3, 0]);
});
