// The HTTP engine on its own, over a fake transport that answers when the test says: which lanes
// send and how often, `amount`, retries after errors, timeouts and the open-loop schedule.
import t from 'tap';
import { Engine } from '../../src/engine/engine.js';
import { planLoad } from '../../src/options.js';
import type { Lane, Transport, TransportConfig, TransportSink } from '../../src/transports/transport.js';
import type { ResolvedRequest } from '../../src/shared/exchange.js';
import type { LoadOptions } from '../../src/shared/load-options.js';

const url = 'http://127.0.0.1:9/';
const REQUEST_BYTES = 50;
const RESPONSE_BYTES = 100;

interface Send {
  lane: number;
  connection: number;
  at: number;
  intendedAt: number;
}

/** What the fake does with the n-th request (from 0): answer after `delayMs` (0: setImmediate), fail, or never answer. */
type Behaviour = (n: number, lane: Lane) => { answer: number } | { error: string } | 'hang';

class FakeTransport implements Transport<string> {
  readonly sends: Send[] = [];
  readonly #config: TransportConfig;
  readonly #sink: TransportSink;
  readonly #behaviour: Behaviour;
  readonly #lanesPerConnection: number | undefined;
  readonly #pending = new Map<Lane, NodeJS.Timeout | NodeJS.Immediate>();
  closed = false;

  constructor(config: TransportConfig, sink: TransportSink, behaviour: Behaviour, lanesPerConnection?: number) {
    this.#config = config;
    this.#sink = sink;
    this.#behaviour = behaviour;
    this.#lanesPerConnection = lanesPerConnection;
  }

  prepare(request: ResolvedRequest): string {
    return `${request.method} ${request.path}`;
  }

  send(lane: Lane, request: string): number {
    if (request !== 'GET /') throw new Error(`prepared ${request}`);
    const n = this.sends.length;
    this.sends.push({ lane: lane.id, connection: lane.connection, at: performance.now(), intendedAt: lane.intendedAt });
    const what = this.#behaviour(n, lane);
    if (what === 'hang') return REQUEST_BYTES;
    const settle = () => {
      this.#pending.delete(lane);
      if ('error' in what) this.#sink.onError(lane, what.error);
      else this.#sink.onResponse(lane, 200, RESPONSE_BYTES);
    };
    this.#pending.set(lane, 'answer' in what && what.answer > 0 ? setTimeout(settle, what.answer) : setImmediate(settle));
    return REQUEST_BYTES;
  }

  cancel(lane: Lane, code: string): void {
    const pending = this.#pending.get(lane);
    clearTimeout(pending as NodeJS.Timeout);
    clearImmediate(pending as NodeJS.Immediate);
    this.#pending.delete(lane);
    this.#sink.onError(lane, code);
  }

  connect(): Promise<void> {
    return Promise.resolve();
  }
  release(): void {}
  openConnections(): number {
    return this.#config.connections;
  }
  lanesPerConnection(): number | undefined {
    return this.#lanesPerConnection;
  }
  close(): Promise<void> {
    this.closed = true;
    for (const [, pending] of this.#pending) {
      clearTimeout(pending as NodeJS.Timeout);
      clearImmediate(pending as NodeJS.Immediate);
    }
    return Promise.resolve();
  }
}

async function runFake(options: Omit<LoadOptions, 'url'>, behaviour: Behaviour, lanesPerConnection?: number) {
  const { plan } = planLoad({ url, ...options });
  let transport!: FakeTransport;
  const engine = new Engine(plan, (config, sink) => (transport = new FakeTransport(config, sink, behaviour, lanesPerConnection)));
  const stats = await engine.run();
  const perLane = new Map<number, number>();
  for (const send of transport.sends) perLane.set(send.lane, (perLane.get(send.lane) ?? 0) + 1);
  return { stats, transport, perLane: [...perLane.entries()].sort(([a], [b]) => a - b) };
}

const answerAtOnce: Behaviour = () => ({ answer: 0 });

t.test('closed loop: every lane sends in turn, and amount stops at exactly amount', async (t) => {
  const { stats, transport, perLane } = await runFake({ connections: 3, pipelining: 2, amount: 61 }, answerAtOnce);
  t.equal(transport.sends.length, 61);
  t.same(perLane, [[0, 11], [1, 10], [2, 10], [3, 10], [4, 10], [5, 10]], 'lanes take turns; the first lane takes the 61st');
  t.same(
    transport.sends.slice(0, 6).map((send) => send.connection),
    [0, 0, 1, 1, 2, 2],
    'lanes 2k and 2k+1 ride connection k',
  );
  t.equal(stats.sent, 61);
  t.equal(stats.completed, 61);
  t.equal(stats.bytesSent, 61 * REQUEST_BYTES);
  t.equal(stats.bytesReceived, 61 * RESPONSE_BYTES);
  t.equal(stats.errors, 0);
  t.equal(stats.aborted, false);
  t.ok(transport.closed, 'the transport is closed at the end');
});

t.test('lanes above what the server allows per connection stay idle', async (t) => {
  const { transport, perLane } = await runFake({ connections: 2, pipelining: 3, amount: 20 }, answerAtOnce, 1);
  t.equal(transport.sends.length, 20);
  t.same(perLane, [[0, 10], [3, 10]], 'only the first lane of each connection');
});

t.test('an error is counted, and the lane backs off 5, 10, 20 ms before sending again', async (t) => {
  const { stats, transport } = await runFake({ connections: 1, amount: 5 }, (n) => (n < 3 ? { error: 'ECONNREFUSED' } : { answer: 0 }));
  t.equal(transport.sends.length, 5, 'amount counts the failed requests too');
  t.equal(stats.errors, 3);
  t.same(stats.errorsByCode, { ECONNREFUSED: 3 });
  t.equal(stats.completed, 2);
  const gaps = transport.sends.slice(1, 4).map((send, i) => send.at - transport.sends[i]!.at);
  // A timer may fire up to a millisecond before performance.now() says it is due.
  t.ok(gaps[0]! >= 4 && gaps[1]! >= 9 && gaps[2]! >= 19, `gaps ${gaps.map((gap) => gap.toFixed(1)).join(', ')} ms: at least the backoff`);
});

t.test('a request with no answer is cancelled as TIMEOUT by the tick, and the lane goes on', async (t) => {
  const { stats, transport } = await runFake({ connections: 1, amount: 3, timeout: '50ms' }, (n) => (n === 0 ? 'hang' : { answer: 0 }));
  t.equal(transport.sends.length, 3);
  t.same(stats.errorsByCode, { TIMEOUT: 1 });
  t.equal(stats.completed, 2);
  t.ok(transport.sends[1]!.at - transport.sends[0]!.at >= 49, 'not before the timeout');
});

t.test('open loop: slots 1 / rate apart, sent no earlier than due, amount exactly', async (t) => {
  const { stats, transport } = await runFake({ connections: 2, rate: 200, amount: 12 }, answerAtOnce);
  t.equal(transport.sends.length, 12);
  const first = transport.sends[0]!.intendedAt;
  const offsets = transport.sends.map((send) => Math.round((send.intendedAt - first) * 1e6) / 1e6);
  t.same(offsets, [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55], 'slot k is due 5k ms after the first');
  t.ok(transport.sends.every((send) => send.at >= send.intendedAt), 'no slot sent before it was due');
  t.equal(stats.sent, 12);
  t.equal(stats.missed, 0);
});

t.test('open loop with one lane that never frees: the other slots are missed, none sent twice', async (t) => {
  const { stats, transport } = await runFake({ connections: 1, rate: 100, duration: 300, timeout: 10_000 }, () => 'hang');
  t.equal(transport.sends.length, 1, 'one lane, busy for the whole run');
  t.equal(stats.sent, 1);
  t.equal(stats.missed, 29, '30 slots due in 300 ms at 100/s, one sent');
});
