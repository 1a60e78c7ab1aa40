import { performance } from 'node:perf_hooks';
import type { GeneratorMonitor } from '../stats/generator.js';
import type { ClosedLoop, LoopSlot } from './closed-loop.js';
import type { Measuring } from './measuring.js';
import { Pacer } from './pacer.js';
import type { SlotSchedule } from './arrival-schedule.js';
import { FreeLanes } from './free-lanes.js';

/** A lane of the open loop: an HTTP transport's lane, a task's call slot. */
export interface OpenLoopLane extends LoopSlot {
  /** When it last became free to take a slot, performance.now() ms. */
  freedAt: number;
  /** Its exchange counts in the statistics (set by `send`: not a warm-up slot). */
  measured: boolean;
}

/** What the open loop needs of the protocol whose lanes it paces: the HTTP engine, the task runner. */
export interface OpenLoopOwner<L> {
  /** Starts the next exchange on `lane`, due at `intendedAt`. */
  send(lane: L, intendedAt: number, now: number): void;
  /** Ends the run (the end passed, or the amount is done). */
  stop(): void;
}

/**
 * The open loop of every protocol (`rate`, rate `stages`): slots fall due on the schedule and go on
 * whichever lane was freed longest ago; the pacer wakes the pump when the next slot is due. Counts
 * toward `amount` (sent, missed, in flight) are the `ClosedLoop`'s, shared with the closed loop. A
 * protocol whose `send` runs user code (a task) sets `userCode`, and the clock is read again after
 * each send, since that code may have taken time.
 */
export class OpenLoop<L extends OpenLoopLane> {
  readonly #schedule: SlotSchedule;
  readonly #loop: ClosedLoop<L>;
  readonly #owner: OpenLoopOwner<L>;
  readonly #userCode: boolean;
  /** Lanes free to take a slot, least recently freed first. */
  readonly #freeLanes: FreeLanes<L>;
  /** Free lanes taken out above a new cap, parked once it is set. */
  readonly #parkedFree: L[] = [];
  /** Wakes the pump when slots fall due (see pacer.ts); its thread starts in `ready`. */
  #pacer: Pacer | undefined;
  #monitor!: GeneratorMonitor;
  #startAt = 0;
  #measureAt = 0;
  #endAt = Infinity;
  #slot = 0;
  #started = false;
  /** The last exchange to end failed: none succeeded since (the server may be down). */
  failing = false;

  constructor(schedule: SlotSchedule, lanes: number, loop: ClosedLoop<L>, owner: OpenLoopOwner<L>, userCode = false) {
    this.#schedule = schedule;
    this.#loop = loop;
    this.#owner = owner;
    this.#userCode = userCode;
    this.#freeLanes = new FreeLanes(lanes);
  }

  ready(): Promise<void> {
    this.#pacer = new Pacer(this.#pump);
    return this.#pacer.ready();
  }

  begin(measuring: Measuring): void {
    this.#startAt = measuring.startAt;
    this.#measureAt = measuring.measureAt;
    this.#endAt = measuring.endAt;
    this.#monitor = measuring.monitor;
  }

  /** The slots the schedule has in the run's `second` (the `targetRate` gauge). */
  slotsInSecond(second: number): number {
    return this.#schedule.slotsInSecond(this.#measureAt - this.#startAt, second);
  }

  /** Takes `lanes` as free, in that order, and sends what is due. */
  start(lanes: Iterable<L>): void {
    // Lanes above a cap the run's handle set before the start park at once.
    for (const lane of lanes)
      if (lane.connection < this.#loop.active || this.#loop.admits(lane)) this.#freeLanes.push(lane);
    this.#started = true;
    this.#pump();
  }

  /**
   * The run's handle set this thread's share of the rate, from `at` (performance.now() ms, not
   * before now) on: the schedule holds it from there (`holdFrom`), the pacer rewrites its due times,
   * and the slots go out at the new spacing from the next one. Latencies count from the new due times.
   */
  setRate(rate: number, at: number): void {
    this.#schedule.holdFrom(at - this.#startAt, rate);
    this.#pacer?.rewrite();
    if (this.#started && !this.#loop.stopped) this.#pump();
  }

  /** `lane` is free again (its exchange ended): it takes the next slot due. */
  free(lane: L, now: number): void {
    if (this.#loop.stopped) return;
    lane.freedAt = now;
    // Above the connections the run's handle set (never so otherwise): the lane parks, its connection closes.
    if (lane.connection >= this.#loop.active && !this.#loop.admits(lane)) return;
    this.#freeLanes.push(lane);
    if (!this.#loop.done()) this.#pump();
  }

  /**
   * The run's handle capped this thread's connections: free lanes above the cap park at once (their
   * connections close), busy ones when their exchange ends; parked ones below it come back.
   */
  setConnections(connections: number, now: number): void {
    const free = this.#freeLanes;
    for (let left = free.size; left > 0; left--) {
      const lane = free.shift()!;
      if (lane.connection < connections) free.push(lane);
      else this.#parkedFree.push(lane);
    }
    this.#loop.setConnections(connections, now);
    for (const lane of this.#parkedFree.splice(0)) this.#loop.admits(lane);
    if (this.#started && !this.#loop.stopped) this.#pump();
  }

  /** When slot `slot` is due, performance.now() ms. */
  #dueAt = (slot: number): number => this.#startAt + this.#schedule.timeOf(slot);

  /**
   * Sends every slot that is due on a free lane, then waits for the next slot or lane. Called from
   * the pacer's wake-up and from every freed lane; the pacer is told the next slot each time (a plain
   * store), and paused while nothing could be sent.
   */
  #pump = (): void => {
    const loop = this.#loop;
    if (loop.stopped) return;
    let now = performance.now();
    // Woken after the end (the host stalled this process): what is still due was missed, not sent late.
    if (now >= this.#endAt) {
      this.#owner.stop();
      return;
    }
    while (!loop.amountReached()) {
      const due = this.#dueAt(this.#slot);
      if (due >= this.#endAt) break;
      if (due > now) {
        this.#pacer!.waitFor(this.#slot, this.#dueAt);
        return;
      }
      const lane = this.#freeLanes.shift();
      if (lane === undefined) {
        // Every lane busy: the next exchange to end pumps again, and the slot's latency counts its wait.
        if (loop.inFlight > 0 && !this.failing) break;
        // None free and nothing succeeding since the last failure: the lanes are backing off (the
        // server is down). The slot is missed rather than kept for a burst when the server is back,
        // as k6 drops an iteration it cannot start.
        if (due >= this.#measureAt) loop.skipped++;
        this.#slot++;
        continue;
      }
      this.#slot++;
      this.#owner.send(lane, due, now);
      // The generator's own lateness: a slot that waited for a free lane was late because of the
      // lanes (its latency counts from `due` all the same), not because of salvo.
      this.#monitor.recordSendLag(now - Math.max(due, lane.freedAt), lane.measured ? 1 : 0);
      if (this.#userCode) {
        // The user's function ran synchronously up to its first await (and may have ended the run).
        if (loop.stopped) return;
        now = performance.now();
      }
    }
    this.#pacer!.pause();
    if (loop.inFlight === 0 && loop.amountReached()) this.#owner.stop();
  };

  /**
   * At the end: the slots due in its last millisecond may not have had their wake-up yet (1-9 of them
   * at 5,000-20,000/s were `missed`). They go now, and end `unfinished` like any exchange in flight;
   * a slot due earlier that no lane could take stays missed. Returns the slots missed in all.
   */
  halt(now: number, endAt: number): number {
    while (!this.#loop.amountReached()) {
      const due = this.#dueAt(this.#slot);
      if (due >= endAt || due < endAt - 1) break;
      const lane = this.#freeLanes.shift();
      if (lane === undefined) break;
      this.#slot++;
      this.#owner.send(lane, due, now);
    }
    this.#pacer?.close();
    return (
      this.#schedule.missedSlots(
        this.#measureAt - this.#startAt,
        endAt - this.#startAt,
        this.#loop.amount,
        this.#slot,
      ) + this.#loop.skipped
    );
  }
}
