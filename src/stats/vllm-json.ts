import type { LatencyStats, LoadResult } from '../shared/load-result.js';

/** The percentiles `LatencyStats` keeps, by the number vLLM's `--metric-percentiles` names them with. */
const PERCENTILES: ReadonlyArray<[number, keyof LatencyStats]> = [
  [50, 'p50'],
  [75, 'p75'],
  [90, 'p90'],
  [95, 'p95'],
  [99, 'p99'],
  [99.9, 'p999'],
];

export interface VllmJsonOptions {
  /** Which percentiles to write (`p99_ttft_ms`, ...), of 50, 75, 90, 95, 99 and 99.9; default [99], as `vllm bench serve`. */
  percentiles?: number[];
  /** Written as `model_id` (and `tokenizer_id`), as vLLM's file has them. */
  modelId?: string;
}

/**
 * A result in the field names of `vllm bench serve --save-result`'s JSON (see docs/llm.md for how
 * each is computed), so that dashboards and scripts written for vLLM read salvo's runs. Figures
 * salvo did not measure (no `tokens`, no `slo`) are `null`; vLLM's per-request lists (`ttfts`,
 * `itls`, `generated_texts`) are left out: salvo keeps histograms, not requests.
 */
export function toVllmJson(result: LoadResult, options: VllmJsonOptions = {}): Record<string, unknown> {
  const seconds = result.durationMs / 1000;
  const perSecond = (count: number): number => (seconds > 0 ? count / seconds : 0);
  const stream = result.stream;
  // vLLM's completed: requests that succeeded; failed: the others that ended (errors and failed statuses).
  const failed = result.failed.total;
  const completed = result.requests.completed - (failed - result.errors.total);
  const input = stream?.inputTokens;
  const output = stream?.outputTokens;
  const out: Record<string, unknown> = {
    date: new Date(result.startedAt ?? Date.now()).toISOString(),
    backend: 'salvo',
    ...(options.modelId !== undefined ? { model_id: options.modelId, tokenizer_id: options.modelId } : {}),
    num_prompts: result.requests.sent,
    request_rate: result.rate ?? 'inf',
    max_concurrency: result.connections,
    duration: seconds,
    completed,
    failed,
    total_input_tokens: input ?? null,
    total_output_tokens: output ?? null,
    request_throughput: perSecond(completed),
    request_goodput: result.goodput?.perSecond ?? null,
    output_throughput: output === undefined ? null : perSecond(output),
    total_token_throughput: input === undefined || output === undefined ? null : perSecond(input + output),
    max_output_tokens_per_s:
      stream === undefined ? null : Math.max(0, ...result.timeline.map((s) => s.stream?.outputTokens ?? 0)),
  };
  const percentiles = options.percentiles ?? [99];
  const figures: Array<[string, LatencyStats | undefined]> = [
    ['ttft', stream?.ttft],
    ['tpot', stream?.tpot],
    ['itl', stream?.itl],
    ['e2el', result.latency],
  ];
  for (const [name, stats] of figures) {
    out[`mean_${name}_ms`] = stats?.mean ?? null;
    out[`median_${name}_ms`] = stats?.p50 ?? null;
    out[`std_${name}_ms`] = stats?.stddev ?? null;
    for (const percentile of percentiles) {
      const field = PERCENTILES.find(([p]) => p === percentile)?.[1];
      if (field === undefined) continue;
      out[`p${String(percentile)}_${name}_ms`] = stats?.[field] ?? null;
    }
  }
  return out;
}
