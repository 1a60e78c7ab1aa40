import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { PlannedOutput } from '../shared/plan.js';
import { encodeWriteRequest, type Series } from './remote-write.js';
import type { Point } from './series.js';

/** Seconds of samples held while the endpoint fails (1.3 KB each, measured with a few status and error codes): the oldest go first beyond it. */
export const MAX_BUFFERED_SECONDS = 600;
/** Seconds of samples per write request. */
const SECONDS_PER_WRITE = 60;
/** A write that has not been answered in this long is abandoned and retried. */
const WRITE_TIMEOUT_MS = 10_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** Before the final flush's one retry of an endpoint that was answering until then. */
const CLOSING_BACKOFF_MS = 200;

/** Samples of one second, stamped with its timestamp. */
interface Batch {
  timestampMs: number;
  points: Point[];
}

type Outcome = { ok: true } | { ok: false; retry: boolean; reason: string };

/**
 * Writes one output's seconds to a Prometheus remote-write endpoint, one request at a time, in time
 * order (Prometheus rejects a sample older than its series' last). A failing endpoint is retried
 * with backoff while up to `MAX_BUFFERED_SECONDS` wait; the first failure is kept for the
 * `OUTPUT_FAILED` warning. Nothing here throws into the run.
 */
export class PrometheusWriter {
  readonly #output: PlannedOutput;
  readonly #labels: ReadonlyArray<readonly [string, string]>;
  readonly #compress: (bytes: Uint8Array) => Uint8Array;
  readonly #agent: HttpAgent;
  readonly #queue: Batch[] = [];
  #inFlight: { batches: Batch[]; request: ClientRequest } | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #pumpSoon: NodeJS.Immediate | undefined;
  #backoffMs = FIRST_BACKOFF_MS;
  /** The last write failed: the endpoint is down until a write succeeds. */
  #failing = false;
  #closing = false;
  /** The final flush gave up on a failing endpoint: what is queued stays unsent. */
  #gaveUp = false;
  /** Past the final flush's deadline: nothing more is sent, an abandoned write's end is ignored. */
  #closed = false;
  #idle: (() => void) | undefined;
  #firstFailure: string | undefined;
  #failedWrites = 0;
  #droppedSeconds = 0;

  constructor(output: PlannedOutput, labels: Record<string, string>, compress: (bytes: Uint8Array) => Uint8Array) {
    this.#output = output;
    this.#labels = Object.entries(labels);
    this.#compress = compress;
    const url = new URL(output.url);
    this.#agent =
      url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 1 })
        : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  /**
   * Queues one second's samples and writes them when the endpoint is free: on the next turn of the
   * event loop, as `push` is called from inside the recording of a response.
   */
  push(timestampMs: number, points: Point[]): void {
    this.#queue.push({ timestampMs, points });
    this.#bound();
    this.#pumpSoon ??= setImmediate(() => {
      this.#pumpSoon = undefined;
      this.#pump();
    });
  }

  /**
   * Writes what is queued (the final totals last), then closes the connection. An endpoint that was
   * failing gets one more try, one that was answering one retry; a write still unanswered at
   * `deadline` (epoch ms) is abandoned with the rest.
   */
  async close(deadline: number): Promise<void> {
    this.#closing = true;
    clearImmediate(this.#pumpSoon);
    this.#pumpSoon = undefined;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#pump();
    if (this.#inFlight !== undefined || this.#queue.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.#idle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timer);
    }
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    if (this.#inFlight !== undefined) {
      // A hung endpoint's only trace: nothing failed, the write is just not answered.
      this.#fail('a write was not answered by the end of the final flush');
      this.#inFlight.request.destroy();
    }
    this.#agent.destroy();
  }

  /** What went wrong, for the `OUTPUT_FAILED` warning; undefined when every write succeeded. */
  failure(): string | undefined {
    if (this.#firstFailure === undefined) return undefined;
    const unsent = this.#queue.length + (this.#inFlight?.batches.length ?? 0);
    const lost = [
      this.#droppedSeconds > 0
        ? `${this.#droppedSeconds} s of samples dropped (${MAX_BUFFERED_SECONDS} s are buffered)`
        : '',
      unsent > 0 ? `${unsent} s of samples, the final totals among them, not written by the end` : '',
    ].filter((part) => part !== '');
    return (
      `prometheus output ${this.#output.url} failed: ${this.#firstFailure} ` +
      `(${this.#failedWrites} failed write${this.#failedWrites === 1 ? '' : 's'}, retried with backoff${lost.length > 0 ? `; ${lost.join('; ')}` : ''}). ` +
      'The run and its result are unaffected'
    );
  }

  #bound(): void {
    while (this.#queue.length > MAX_BUFFERED_SECONDS) {
      this.#queue.shift();
      this.#droppedSeconds++;
    }
  }

  #pump(): void {
    if (this.#closed || this.#inFlight !== undefined || this.#retryTimer !== undefined) return;
    if (this.#queue.length === 0 || this.#gaveUp) {
      this.#idle?.();
      return;
    }
    const batches = this.#queue.splice(0, SECONDS_PER_WRITE);
    let body: Uint8Array;
    try {
      body = this.#compress(encodeWriteRequest(this.#series(batches)));
    } catch (error) {
      // Not the endpoint's fault and not worth a retry: these samples are lost, the next may go.
      this.#fail(`cannot encode the samples: ${String(error)}`);
      this.#droppedSeconds += batches.length;
      this.#pump();
      return;
    }
    const request = this.#post(body, (outcome) => {
      if (this.#closed) return;
      this.#inFlight = undefined;
      const wasFailing = this.#failing;
      this.#failing = !outcome.ok;
      if (outcome.ok) {
        this.#backoffMs = FIRST_BACKOFF_MS;
      } else {
        this.#fail(outcome.reason);
        if (outcome.retry) {
          this.#queue.unshift(...batches);
          this.#bound();
          // Retrying a down endpoint until the deadline would lengthen every run by all of it.
          if (this.#closing && wasFailing) {
            this.#gaveUp = true;
            this.#idle?.();
            return;
          }
          const delay = this.#closing ? CLOSING_BACKOFF_MS : this.#backoffMs;
          this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
          this.#retryTimer = setTimeout(() => {
            this.#retryTimer = undefined;
            this.#pump();
          }, delay);
          this.#retryTimer.unref();
          return;
        }
        this.#droppedSeconds += batches.length;
      }
      this.#pump();
    });
    this.#inFlight = { batches, request };
  }

  #fail(reason: string): void {
    this.#firstFailure ??= reason;
    this.#failedWrites++;
  }

  /** The batches' samples grouped by series, each series' samples in time order. */
  #series(batches: Batch[]): Series[] {
    const byKey = new Map<string, Series>();
    for (const { timestampMs, points } of batches) {
      for (const point of points) {
        const key = point.label === undefined ? point.name : `${point.name}\u0000${point.label[1]}`;
        let series = byKey.get(key);
        if (series === undefined) {
          const labels: Array<readonly [string, string]> = [...this.#labels];
          if (point.label !== undefined) labels.push(point.label);
          labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          series = { labels: [['__name__', point.name], ...labels], samples: [] };
          byKey.set(key, series);
        }
        series.samples.push({ value: point.value, timestampMs });
      }
    }
    return [...byKey.values()];
  }

  #post(body: Uint8Array, done: (outcome: Outcome) => void): ClientRequest {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      done(outcome);
    };
    const url = new URL(this.#output.url);
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: this.#agent,
      headers: {
        'user-agent': 'salvo',
        'content-type': 'application/x-protobuf',
        'content-encoding': 'snappy',
        'x-prometheus-remote-write-version': '0.1.0',
        ...this.#output.headers,
        'content-length': String(body.byteLength),
      },
    });
    request.setTimeout(WRITE_TIMEOUT_MS, () => {
      request.destroy();
      settle({ ok: false, retry: true, reason: `no answer in ${WRITE_TIMEOUT_MS / 1000} s` });
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({ ok: false, retry: true, reason: error.code ?? error.message }),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < 200) text += chunk;
      });
      response.on('error', () =>
        settle({ ok: false, retry: true, reason: `HTTP ${status}, then the response broke off` }),
      );
      response.on('end', () => {
        if (status >= 200 && status < 300) return settle({ ok: true });
        // 4xx but 429 is the samples' fault (out of order, too old, bad labels): sending them again fails again.
        const reason = `HTTP ${status}${text.trim() === '' ? '' : ` ${JSON.stringify(text.trim().slice(0, 200))}`}`;
        settle({ ok: false, retry: status >= 500 || status === 429, reason });
      });
    });
    request.end(body);
    return request;
  }
}
