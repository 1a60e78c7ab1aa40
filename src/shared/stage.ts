// A connection stage as one thread measured it: WebSocket runs and SSE subscriptions ramp by stage.

/** One connection stage as one thread measured it. */
export interface ShardStage {
  /** Time spent in the stage, ms. */
  durationMs: number;
  /** This thread's share of the stage's connections. */
  connections: number;
  /** This thread's connections open at the stage's end. */
  open: number;
  sent: number;
  received: number;
  /** Latencies timed during the stage (µs, compressed base64). */
  histogram: string;
}
