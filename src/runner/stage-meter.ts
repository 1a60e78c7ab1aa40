import type { PlannedStage } from '../shared/plan.js';
import { createHistogram, encodeHistogram } from '../stats/histogram.js';
import { PendingLatencies } from '../stats/pending-latencies.js';
import type { ShardStage } from '../shared/websocket.js';

interface StageCounts {
  sent: number;
  received: number;
  open: number;
  durationMs: number;
  histogram: string;
}

/**
 * Per connection stage, what one thread sent and received and the latencies it timed, so that a
 * ramp's results read by step (`result.websocket.stages`; for SSE subscriptions, requests and events
 * in `result.stream.subscriptions.stages`). The stage is found by comparing the time with the
 * current stage's end: one comparison per message.
 */
export class StageMeter {
  readonly #stages: readonly PlannedStage[];
  readonly #openConnections: () => number;
  readonly #closed: StageCounts[] = [];
  readonly #pending = new PendingLatencies();
  #stageStartAt: number;
  #stageEndAt: number;
  #sent = 0;
  #received = 0;

  constructor(stages: readonly PlannedStage[], measureAt: number, openConnections: () => number) {
    this.#stages = stages;
    this.#openConnections = openConnections;
    this.#stageStartAt = measureAt;
    this.#stageEndAt = measureAt + stages[0]!.durationMs;
  }

  /** Moves to the stage `now` falls in. */
  at(now: number): void {
    while (now >= this.#stageEndAt && this.#closed.length < this.#stages.length - 1) this.#close(this.#stageEndAt);
  }

  recordSent(now: number): void {
    if (now >= this.#stageEndAt) this.at(now);
    this.#sent++;
  }

  /** `latencyUs` negative when the message was not timed. */
  recordReceived(now: number, latencyUs: number): void {
    if (now >= this.#stageEndAt) this.at(now);
    this.#received++;
    if (latencyUs >= 0) this.#pending.record(latencyUs);
  }

  #close(endAt: number): void {
    const histogram = createHistogram();
    this.#pending.flushInto(histogram);
    this.#closed.push({
      sent: this.#sent,
      received: this.#received,
      open: this.#openConnections(),
      durationMs: Math.max(0, endAt - this.#stageStartAt),
      histogram: encodeHistogram(histogram),
    });
    histogram.destroy();
    this.#sent = this.#received = 0;
    this.#stageStartAt = endAt;
    const next = this.#stages[this.#closed.length];
    this.#stageEndAt = next === undefined ? Infinity : endAt + next.durationMs;
  }

  /** Every stage: the one running at `endAt` closed there, the ones never reached empty. */
  finish(endAt: number): ShardStage[] {
    this.at(endAt);
    if (this.#closed.length < this.#stages.length) this.#close(Math.min(endAt, this.#stageEndAt));
    return this.#stages.map((stage, index) => {
      const closed = this.#closed[index];
      return {
        durationMs: closed?.durationMs ?? 0,
        connections: stage.connections!,
        open: closed?.open ?? 0,
        sent: closed?.sent ?? 0,
        received: closed?.received ?? 0,
        histogram: closed?.histogram ?? '',
      };
    });
  }
}
