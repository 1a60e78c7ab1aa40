import type { Plan } from '../shared/plan.js';
import { ConnectionRamp } from './ramp.js';

/** A slot of the closed loop: an HTTP lane, a task's call slot. */
export interface LoopSlot {
  /** The connection it rides (a task's call slot is its own): ramps park and bring back slots by it. */
  readonly connection: number;
}

/** What the closed loop needs of the runner whose slots it admits: the HTTP engine, the task runner. */
export interface ClosedLoopOwner<S> {
  /** `slot` was parked: its connection is above the ramp's target. */
  parked(slot: S): void;
  /** A ramp brought `slot`'s connection back: it sends again. */
  resume(slot: S, now: number): void;
  /** The amount is reached and nothing is in flight: the run ends. */
  stop(): void;
}

/**
 * What counts toward `amount`, whatever the protocol: the measured exchanges sent (requests, calls,
 * messages) and the measured slots given up, which end the run as surely.
 */
export class AmountCounter {
  /** Measured requests (calls, messages) sent. */
  sent = 0;
  /** Measured slots given up: an open loop's missed while nothing could carry them, a failed WebSocket connection's messages. */
  skipped = 0;
  readonly amount: number | undefined;

  constructor(amount: number | undefined) {
    this.amount = amount;
  }

  amountReached(): boolean {
    return this.amount !== undefined && this.sent + this.skipped >= this.amount;
  }
}

/**
 * The state and decisions a closed loop shares between the HTTP engine and the task runner: what
 * counts toward `amount`, whether a slot may send again (not once stopped, not above a connection
 * ramp's target, not past `amount`), and the ramp of `stages` that parks and brings back slots. The
 * open loop counts here too (sent, missed, in flight), so `amount` is one count in both.
 */
export class ClosedLoop<S extends LoopSlot> extends AmountCounter {
  inFlight = 0;
  /** Connections (call slots) in use: `connections`, then a ramp's target (a plain field: read on every send). */
  active: number;
  stopped = false;
  readonly #ramp: ConnectionRamp;
  readonly #owner: ClosedLoopOwner<S>;
  /** Slots idle because connections were ramped down. */
  readonly #parked = new Set<S>();

  constructor(plan: Plan, owner: ClosedLoopOwner<S>) {
    super(plan.amount);
    this.#ramp = new ConnectionRamp(plan);
    this.active = this.#ramp.active;
    this.#owner = owner;
  }

  /** True once the amount is reached; the run ends then if nothing is in flight. */
  done(): boolean {
    if (!this.amountReached()) return false;
    if (this.inFlight === 0) this.#owner.stop();
    return true;
  }

  /** Whether `slot` may send now: not once stopped, not above a ramp's target (it is parked), not past `amount`. */
  admits(slot: S): boolean {
    if (this.stopped) return false;
    if (slot.connection >= this.active) {
      this.#parked.add(slot);
      this.#owner.parked(slot);
      return false;
    }
    return !this.done();
  }

  /** Closed-loop `stages`: moves the connections in use linearly toward each stage's target. */
  ramp(now: number, measureAt: number): void {
    const before = this.#ramp.step(now, measureAt);
    if (before !== undefined) this.#moveTo(this.#ramp.active, before, now);
  }

  /** The run's handle set this thread's connections: they hold there, whatever the stages said. */
  setConnections(connections: number, now: number): void {
    this.#ramp.steered = true;
    const before = this.active;
    this.#ramp.active = connections;
    if (connections !== before) this.#moveTo(connections, before, now);
  }

  #moveTo(target: number, before: number, now: number): void {
    this.active = target;
    if (target < before) return; // slots above the target park themselves when their answer arrives
    for (const slot of [...this.#parked]) {
      if (slot.connection < target) {
        this.#parked.delete(slot);
        this.#owner.resume(slot, now);
      }
    }
  }
}
