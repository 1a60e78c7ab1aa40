// One coordinated run, live: hands out the segments, merges each second over the agents as it
// arrives, stops every agent on an abort (the signal, an abortOnFail threshold on the fleet's
// numbers or in one agent, more agents lost than tolerated), and notices agents that are lost.
import type { PlannedAgents } from './options.js';
import type { AgentLink } from './agent-server.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { Plan } from '../shared/plan.js';
import type { OnRolledSecond } from '../stats/progress-event.js';
import type { RunningTotals, SecondSummary } from '../stats/shard-stats.js';
import { abortOnFailCheck } from '../stats/thresholds.js';
import { decodeHistogram, slotTop } from '../stats/histogram.js';
import { ProgressMerger } from '../workers/progress.js';
import type { ResultMessage, RunFile } from './messages.js';
import { keepSecond, notRunShare, type FleetAgent } from './fleet-result.js';

/** How often the coordinator beats to its agents and looks for lost ones. */
const BEAT_MS = 1000;

export class FleetRun {
  readonly #whole: Plan;
  readonly #planned: PlannedAgents;
  readonly #agents: FleetAgent[];
  readonly #links: AgentLink[];
  readonly #merger: ProgressMerger;
  readonly #abortCheck: ReturnType<typeof abortOnFailCheck>;
  #latencyMaxMs = 0;
  #newestSecond = -1;
  #runId = '';
  #aborted = false;
  #settle: () => void = () => {};

  constructor(
    whole: Plan,
    planned: PlannedAgents,
    agents: FleetAgent[],
    links: AgentLink[],
    route: OnRolledSecond | undefined,
  ) {
    this.#whole = whole;
    this.#planned = planned;
    this.#agents = agents;
    this.#links = links;
    this.#abortCheck = abortOnFailCheck(whole.thresholds);
    this.#merger = new ProgressMerger(agents.length, (summary, totals) => {
      route?.(summary, totals);
      this.#judge(summary as SecondSummary, totals);
    });
  }

  /** Runs the plan on every agent and resolves once each has sent its result or is lost. */
  async run(
    runId: string,
    options: LoadOptions,
    files: RunFile[],
    startAtMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    this.#runId = runId;
    const done = new Promise<void>((resolve) => (this.#settle = resolve));
    const onAbort = () => this.#abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#links.forEach((link, id) => {
      link.onMessage = (message) => this.#onMessage(id, message);
      link.onClose = () => this.#lose(id, 'disconnected');
      if (link.socket.readyState !== link.socket.OPEN) return this.#lose(id, 'disconnected');
      const segment = this.#agents[id]!.segment;
      link.channel.send({ type: 'run', runId, options: { ...options, segment, startAt: startAtMs }, files });
    });
    const watch = setInterval(() => this.#watch(), BEAT_MS);
    if (signal?.aborted === true) this.#abort();
    this.#checkDone();
    try {
      await done;
    } finally {
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      this.#merger.flush();
    }
  }

  #active(id: number): boolean {
    const agent = this.#agents[id]!;
    return agent.result === undefined && agent.lost === undefined;
  }

  #onMessage(id: number, message: { type: string } & Record<string, unknown>): void {
    if (!this.#active(id) || (message.runId !== undefined && message.runId !== this.#runId)) return;
    const agent = this.#agents[id]!;
    if (message.type === 'second') {
      const { summary, totals } = message as unknown as { summary: SecondSummary; totals: RunningTotals };
      keepSecond(agent, summary, totals);
      this.#newestSecond = Math.max(this.#newestSecond, summary.second);
      this.#merger.add(id, summary, totals);
    } else if (message.type === 'result') {
      const { result } = message as unknown as ResultMessage;
      agent.result = result;
      this.#merger.finish(id);
      // An agent that stopped early on its own abortOnFail, or was aborted, stops the fleet.
      if (result.aborted) this.#abort();
      this.#checkDone();
    } else if (message.type === 'failed') {
      this.#lose(id, `failed: ${String(message.message)}`);
    }
  }

  /** Gives up on agent `id`: what it counted up to its last second stays; later messages are ignored. */
  #lose(id: number, reason: string): void {
    if (!this.#active(id)) return;
    const agent = this.#agents[id]!;
    agent.lost = {
      atMs: Date.now(),
      reason,
      lastSecond: agent.seconds.at(-1)?.second ?? -1,
      notRunShare: notRunShare(this.#whole, agent),
    };
    this.#links[id]!.socket.terminate();
    this.#merger.finish(id);
    const lost = this.#agents.filter((each) => each.lost !== undefined).length;
    if (lost > this.#planned.tolerateLost) this.#abort();
    this.#checkDone();
  }

  /** Beats to every agent still running, and loses those silent or behind for `lostAfter`. */
  #watch(): void {
    const now = Date.now();
    const behindSeconds = Math.ceil(this.#planned.lostAfterMs / 1000);
    this.#links.forEach((link, id) => {
      if (!this.#active(id)) return;
      const last = this.#agents[id]!.seconds.at(-1)?.second ?? -1;
      if (now - link.lastHeardMs > this.#planned.lostAfterMs) this.#lose(id, 'silent');
      else if (this.#newestSecond - last > behindSeconds) this.#lose(id, 'behind');
      else link.channel.send({ type: 'beat' });
    });
  }

  /** The fleet's abortOnFail thresholds, on its merged counts and the highest latency so far. */
  #judge(summary: SecondSummary, totals: RunningTotals): void {
    if (this.#abortCheck === undefined || this.#aborted) return;
    if (summary.histogram !== undefined && summary.histogram !== '') {
      const histogram = decodeHistogram(summary.histogram);
      if (histogram.maxValue > 0) this.#latencyMaxMs = Math.max(this.#latencyMaxMs, slotTop(histogram.maxValue) / 1000);
      histogram.destroy();
    }
    const partial = {
      requests: { sent: totals.sent, completed: totals.completed, retried: totals.retried },
      latency: { max: this.#latencyMaxMs },
      statusCodes: totals.statusCodes,
      errors: { total: totals.errors, byCode: totals.errorsByCode },
      failed: { total: totals.failed },
    };
    if (this.#abortCheck(partial)) this.#abort();
  }

  /** Tells every agent still running to stop; each sends its result as an aborted run does. */
  #abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#links.forEach((link, id) => {
      if (this.#active(id)) link.channel.send({ type: 'abort', runId: this.#runId });
    });
  }

  #checkDone(): void {
    if (this.#agents.every((_, id) => !this.#active(id))) this.#settle();
  }
}
