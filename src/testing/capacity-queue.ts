import type { Socket } from 'node:net';

/**
 * Service time the line may bank during a lull and spend at once. A busy host can stop the process
 * for tens of ms, and the load generator then sends the requests due meanwhile in a burst: a line
 * with no slack at all would turn that into a backlog that takes seconds to drain just below capacity.
 */
const SLACK_MS = 20;

interface Waiting {
  /** When the request's own delay (and any stall) has passed and it may be served. */
  readyAt: number;
  socket: Socket;
  deliver: () => void;
}

/**
 * The test server's `capacity` mode: one service line that starts at most `perSecond` requests a
 * second, spaced 1 / perSecond apart (after a lull, up to 20 ms of them at once), in order of
 * readiness over all connections; the rest wait.
 * Below capacity a request is served as soon as it is ready; past it the queue, and so the latency,
 * grows for as long as the overload lasts: the knee a capacity search must find. A request whose
 * connection has closed is dropped without using a slot, like a server that notices its client left,
 * so an overloaded step leaves no backlog behind for the next one.
 */
export class CapacityQueue {
  readonly #intervalMs: number;
  /** How far the line's clock may fall behind a request: what it can serve at once after a lull. */
  readonly #slackMs: number;
  readonly #waiting: Waiting[] = [];
  /** The line's clock: each request served moves it on by one interval. */
  #nextServiceAt = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(perSecond: number) {
    this.#intervalMs = 1000 / perSecond;
    this.#slackMs = Math.max(this.#intervalMs, SLACK_MS);
  }

  /** Queues a request ready at `readyAt`; `deliver` runs when it is served. */
  admit(readyAt: number, socket: Socket, deliver: () => void): void {
    const waiting = this.#waiting;
    let at = waiting.length;
    // Fixed delays arrive in order: almost always an append.
    while (at > 0 && waiting[at - 1]!.readyAt > readyAt) at--;
    waiting.splice(at, 0, { readyAt, socket, deliver });
    if (at === 0) this.#wake();
  }

  /** Stops the service line: nothing queued is delivered after this. */
  close(): void {
    this.#waiting.length = 0;
    this.#disarm();
  }

  #disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #wake = (): void => {
    this.#disarm();
    const waiting = this.#waiting;
    for (;;) {
      const head = waiting[0];
      if (head === undefined) return;
      if (head.socket.destroyed) {
        waiting.shift();
        continue;
      }
      const now = performance.now();
      // The line's clock lags the request by up to the slack after a lull: that many go out at once.
      const clock = Math.max(this.#nextServiceAt, head.readyAt - this.#slackMs);
      const startAt = Math.max(head.readyAt, clock);
      // A timer that fires late delays this request, not the line: its clock moves on by intervals,
      // so what fell due meanwhile goes out on this wake. No spinning for the exact moment, which
      // under overload would keep the core busy that the load generator in this process needs.
      if (startAt > now) {
        this.#timer = setTimeout(this.#wake, Math.max(1, Math.floor(startAt - now)));
        return;
      }
      waiting.shift();
      this.#nextServiceAt = clock + this.#intervalMs;
      head.deliver();
    }
  };
}
