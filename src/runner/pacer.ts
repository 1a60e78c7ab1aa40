import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/*
 * Rate mode wakes the loop from a small thread: Node's timers fire up to 2 ms late and polling costs
 * a core, while Atomics.wait takes fractional milliseconds (measurements: benchmarks/README.md,
 * "Measurements behind the code"). The loop writes the due times of the next RING_SIZE slots into
 * shared memory; the thread sleeps until one falls due, skips slots already sent, and posts again
 * only once the loop has taken its last message, so a blocked loop does not pile them up.
 */

/** The thread posts at most once per this many ms: slots closer together leave in one wake-up, at most this late. */
const MIN_WAKE_GAP_MS = 0.5;
/** Slots whose due times the loop keeps in shared memory ahead of the next one to send. */
const RING_SIZE = 256;
/** Int32 slots of the control block. */
const GENERATION = 0; // bumped when the loop wants the thread to look again
const PENDING = 1; // 1: a wake-up is posted and not yet taken
const STOP = 2;
const OWNER = 3; // bumped when another Pacer takes the thread: it starts again from slot 0
/** Float64 slots after the control block. */
const NEXT_SLOT = 0; // the next slot the loop will send; Infinity while paused
const WRITTEN = 1; // slots [0, WRITTEN) have their due times in the ring
const CONTROL_BYTES = 16;
const HEADER_DOUBLES = 2;

// Plain CommonJS run with `eval`, so the thread needs no file of its own in every build (ESM, CJS,
// tsx). Times cross threads as the loop's performance.now(): `delta` turns this thread's clock into it.
const THREAD_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { buffer, originMs, ringSize, minGapMs } = workerData;
const control = new Int32Array(buffer, 0, 4);
const header = new Float64Array(buffer, ${CONTROL_BYTES}, ${HEADER_DOUBLES});
const ring = new Float64Array(buffer, ${CONTROL_BYTES + HEADER_DOUBLES * 8}, ringSize);
const delta = performance.timeOrigin - originMs;
let next = 0;
let postedAt = -Infinity;
let owner = Atomics.load(control, ${OWNER});
while (Atomics.load(control, ${STOP}) === 0) {
  const generation = Atomics.load(control, ${GENERATION});
  if (Atomics.load(control, ${OWNER}) !== owner) {
    owner = Atomics.load(control, ${OWNER});
    next = 0;
    postedAt = -Infinity;
  }
  const sending = header[${NEXT_SLOT}];
  if (sending > next && sending !== Infinity) next = sending;
  if (sending === Infinity || next >= header[${WRITTEN}]) {
    Atomics.wait(control, ${GENERATION}, generation);
    continue;
  }
  const now = performance.now() + delta;
  const left = Math.max(ring[next % ringSize], postedAt + minGapMs) - now;
  if (left > 0) {
    Atomics.wait(control, ${GENERATION}, generation, left);
    continue;
  }
  if (Atomics.compareExchange(control, ${PENDING}, 0, 1) === 0) {
    parentPort.postMessage(owner);
    postedAt = now;
  }
  next++;
}
`;

/** A pacing thread and its shared memory; kept, once its Pacer closes, for the next Pacer of this thread. */
interface PacerThread {
  worker: Worker;
  control: Int32Array;
  header: Float64Array;
  ring: Float64Array;
  /** Resolves once the thread runs, or has ended. */
  online: Promise<void>;
  /** The Pacer that has it: wake-ups posted for an earlier one (another `OWNER`) are dropped. */
  owner: number;
  onWake: (() => void) | undefined;
  exited: boolean;
}

/**
 * The thread a closed Pacer left: the next one (the run after a pre-warm, the next step of a
 * capacity search) takes it with its isolate warm, instead of a new thread whose start-up work
 * (its first garbage collections, its loop not yet optimised) falls in the run's first second.
 */
let idleThread: PacerThread | undefined;

function startThread(): PacerThread {
  const buffer = new SharedArrayBuffer(CONTROL_BYTES + (HEADER_DOUBLES + RING_SIZE) * 8);
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { buffer, originMs: performance.timeOrigin, ringSize: RING_SIZE, minGapMs: MIN_WAKE_GAP_MS },
    // Not the parent's loaders (tsx): the thread is plain JavaScript.
    execArgv: [],
    stdout: false,
    stderr: false,
  });
  const thread: PacerThread = {
    worker,
    control: new Int32Array(buffer, 0, 4),
    header: new Float64Array(buffer, CONTROL_BYTES, HEADER_DOUBLES),
    ring: new Float64Array(buffer, CONTROL_BYTES + HEADER_DOUBLES * 8, RING_SIZE),
    online: Promise.race([once(worker, 'online'), once(worker, 'exit')])
      .catch(() => undefined)
      .then(() => void worker.unref()),
    owner: 0,
    onWake: undefined,
    exited: false,
  };
  worker.on('message', (owner: number) => {
    Atomics.store(thread.control, PENDING, 0);
    if (owner === thread.owner) thread.onWake?.();
  });
  worker.on('error', (error) => process.emitWarning(`salvo: the pacing thread failed: ${String(error)}`));
  worker.on('exit', () => {
    thread.exited = true;
    if (idleThread === thread) idleThread = undefined;
  });
  return thread;
}

/**
 * Wakes the event loop when open-loop slots fall due, within a fraction of a millisecond, from a
 * thread that sleeps between them (see the measurements above). One per engine in rate mode, on
 * the thread the last closed one left when there is one.
 */
export class Pacer {
  readonly #thread: PacerThread;
  readonly #control: Int32Array;
  readonly #header: Float64Array;
  readonly #ring: Float64Array;
  #written = 0;
  #paused = true;
  #closed = false;

  /** `onWake` runs on this thread's loop when a slot is due; it should send what is due, then call `waitFor`. */
  constructor(onWake: () => void) {
    const thread = idleThread ?? startThread();
    idleThread = undefined;
    this.#thread = thread;
    this.#control = thread.control;
    this.#header = thread.header;
    this.#ring = thread.ring;
    this.#header[NEXT_SLOT] = Infinity;
    this.#header[WRITTEN] = 0;
    thread.owner = Atomics.add(this.#control, OWNER, 1) + 1;
    thread.onWake = onWake;
    Atomics.add(this.#control, GENERATION, 1);
    Atomics.notify(this.#control, GENERATION);
  }

  /**
   * Resolves once the thread runs, or has ended (closed by an abort while connecting, or failed).
   * Until then the thread keeps the process alive, since connections refused at once leave nothing
   * else that would; from then on the engine's own timers and sockets do.
   */
  ready(): Promise<void> {
    return this.#thread.online;
  }

  /**
   * The loop will send `slot` next, due at `dueAt(slot)` (performance.now() ms); `dueAt` must be
   * nondecreasing in the slot. Cheap when called again for the same slot (a plain store).
   */
  waitFor(slot: number, dueAt: (slot: number) => number): void {
    this.#header[NEXT_SLOT] = slot;
    let wake = this.#paused;
    this.#paused = false;
    if (this.#written < slot + RING_SIZE / 2) {
      for (let k = Math.max(this.#written, slot); k < slot + RING_SIZE; k++) this.#ring[k % RING_SIZE] = dueAt(k);
      this.#written = slot + RING_SIZE;
      this.#header[WRITTEN] = this.#written;
      wake = true;
    }
    if (wake) {
      Atomics.add(this.#control, GENERATION, 1);
      Atomics.notify(this.#control, GENERATION);
    }
  }

  /** The due times changed from the next slot on (a new rate): `waitFor` writes them again. */
  rewrite(): void {
    this.#written = 0;
  }

  /** Nothing can be sent until the loop calls `waitFor` again (no free lane, the end reached). */
  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#header[NEXT_SLOT] = Infinity;
  }

  /** No more wake-ups: the thread sleeps until the next Pacer takes it, or ends when one is kept already. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const thread = this.#thread;
    this.pause();
    thread.onWake = undefined;
    // Wake-ups already posted for this Pacer are dropped.
    thread.owner = Atomics.add(this.#control, OWNER, 1) + 1;
    if (idleThread === undefined && !thread.exited) {
      idleThread = thread;
      return;
    }
    Atomics.store(this.#control, STOP, 1);
    Atomics.add(this.#control, GENERATION, 1);
    Atomics.notify(this.#control, GENERATION);
    void thread.worker.terminate();
  }
}
