import { addWarning, type Warning } from '../shared/warnings.js';
import type { PlannedWebSocket, WebSocketHooks } from '../shared/websocket.js';

/** The `result.warnings` code for latencies that came out clearly negative: the clocks disagree. */
export const CLOCK_SKEW = 'CLOCK_SKEW';
/** A latency below this (ms) is more than the timestamps' own rounding: the server's clock is ahead. */
const SKEW_MS = -1;

/** When a received message says it was sent, epoch ms; undefined for a message without a timestamp. */
export type TimestampReader = (data: Buffer, isBinary: boolean) => number | undefined;

/** The `websocket.timestamp` option as a reader: the user's function, or a JSON field. */
export function timestampReader(
  planned: PlannedWebSocket,
  hooks: WebSocketHooks | undefined,
): TimestampReader | undefined {
  const read = hooks?.timestamp;
  if (read !== undefined) return (data, isBinary) => read(isBinary ? data : data.toString());
  const field = planned.timestampField;
  if (field === undefined) return undefined;
  return (data) => {
    try {
      const value: unknown = JSON.parse(data.toString())?.[field];
      return typeof value === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * A Unix timestamp in epoch ms, whatever unit it came in: seconds (Python's `time.time()`, below
 * 1e11, which in ms would be 1973), ms, µs (above 1e14) or ns (above 1e17). Read as ms, a timestamp in
 * seconds gave latencies of 55 years, pinned at the histogram's 1 h ceiling.
 */
export function epochMs(timestamp: number): number {
  if (timestamp < 1e11) return timestamp * 1000;
  if (timestamp > 1e17) return timestamp / 1e6;
  if (timestamp > 1e14) return timestamp / 1000;
  return timestamp;
}

/** Latencies from timestamps that came out negative: counted as 0, and a warning when clearly so. */
export class ClockSkew {
  #skewed = 0;
  #mostNegativeMs = 0;

  /** `latencyMs` clamped to 0; a measured one below -1 ms is remembered for the warning. */
  clamp(latencyMs: number, measured: boolean): number {
    if (latencyMs >= 0) return latencyMs;
    if (latencyMs < SKEW_MS && measured) {
      this.#skewed++;
      this.#mostNegativeMs = Math.min(this.#mostNegativeMs, latencyMs);
    }
    return 0;
  }

  /** Adds `CLOCK_SKEW` to `warnings` when any measured message came clearly before its timestamp. */
  warn(warnings: Warning[]): void {
    if (this.#skewed === 0) return;
    addWarning(
      warnings,
      CLOCK_SKEW,
      `${this.#skewed} messages arrived up to ${(-this.#mostNegativeMs).toFixed(1)} ms before the time they carry: the server's clock ` +
        "is ahead of this machine's, so the latencies from timestamps are off by about as much (those were counted as 0). " +
        'Synchronise the clocks (NTP, chrony), or run salvo on the same machine as the server.',
    );
  }
}
