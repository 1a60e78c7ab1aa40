import type { ProgressEvent } from '../index.js';
import type { CommandIO } from './command.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const BAR_WIDTH = 20;

function ms(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value)} ms`;
}

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
}

/**
 * The live progress of `salvo URL` on stderr, from the run's once-a-second progress events. On a
 * terminal one line is rewritten in place (cut to the terminal's width, or the rewrite would scroll);
 * elsewhere (a CI log, a pipe) each second is a line of its own.
 */
export class ProgressLine {
  readonly #stderr: CommandIO['stderr'];
  readonly #plannedMs: number | undefined;
  readonly #plannedAmount: number | undefined;
  readonly #unit: string;
  readonly #lanes: string;
  /** SSE subscriptions: a second counts events; its latencies would be those of the few streams that ended. */
  readonly #subscriptions: boolean;
  #written = false;
  #stopped = false;

  constructor(
    stderr: CommandIO['stderr'],
    planned: {
      plannedMs?: number;
      plannedAmount?: number;
      options?: {
        url?: unknown;
        socketio?: unknown;
        websocket?: unknown;
        task?: unknown;
        stream?: { subscribe?: boolean };
      };
    },
  ) {
    this.#stderr = stderr;
    this.#plannedMs = planned.plannedMs;
    this.#plannedAmount = planned.plannedAmount;
    // A WebSocket or Socket.IO run's seconds count messages received, not requests; a task run's count
    // calls, and its gauge is the calls in flight, not connections.
    const { url, socketio, websocket, task, stream } = planned.options ?? {};
    this.#subscriptions = stream?.subscribe === true;
    const messages =
      socketio !== undefined || websocket !== undefined || (typeof url === 'string' && /^wss?:/i.test(url));
    this.#unit = task !== undefined ? 'calls/s' : messages ? 'msg/s' : 'req/s';
    this.#lanes = task !== undefined ? 'in flight' : 'conns';
  }

  /** The line for one progress event. */
  format(event: ProgressEvent): string {
    const elapsed = event.second + 1;
    let position: string;
    if (this.#plannedMs !== undefined) {
      const total = this.#plannedMs / 1000;
      position = `${elapsed}s/${Number(total.toFixed(1))}s ${bar(elapsed / total)}`;
    } else if (this.#plannedAmount !== undefined) {
      position = `${elapsed}s ${COUNT.format(event.totals.sent)}/${COUNT.format(this.#plannedAmount)} ${bar(event.totals.sent / this.#plannedAmount)}`;
    } else {
      position = `${elapsed}s`;
    }
    return [
      position,
      ...(this.#subscriptions
        ? [`${COUNT.format(event.stream?.events ?? 0)} events/s`]
        : [`${COUNT.format(event.completed)} ${this.#unit}`, `p50 ${ms(event.p50)}`, `p99 ${ms(event.p99)}`]),
      `errors ${COUNT.format(event.totals.errors)}`,
      `${COUNT.format(event.connections)} ${this.#lanes}`,
      ...(event.server?.cpuPercent === undefined ? [] : [`server CPU ${COUNT.format(event.server.cpuPercent)}%`]),
    ].join('  ');
  }

  /** Shows one second; the run's `onProgress`. */
  readonly update = (event: ProgressEvent): void => {
    if (this.#stopped) return;
    const line = this.format(event);
    if (this.#stderr.isTTY === true) {
      const width = this.#stderr.columns;
      const fitted = width !== undefined && width > 1 && line.length >= width ? line.slice(0, width - 1) : line;
      this.#stderr.write(`\r\x1b[K${fitted}`);
    } else {
      this.#stderr.write(`${line}\n`);
    }
    this.#written = true;
  };

  /**
   * Ends the rewritten line so that what follows starts on a line of its own, and shows no more
   * seconds (a run being stopped still reports the second it ends in).
   */
  end(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#written && this.#stderr.isTTY === true) this.#stderr.write('\n');
  }
}
