/**
 * Warnings for a `stream` run that measured nothing of what it was asked to, each naming the likely
 * cause: no events in any response, a `tokens` path that never matched, an `until` that never came.
 * And the reason a stream threshold has no value, where the run could not have given it one.
 */
import type { LoadResult } from '../shared/load-result.js';
import type { Plan } from '../shared/plan.js';
import { addWarning } from '../shared/warnings.js';

export const STREAM_NO_EVENTS = 'STREAM_NO_EVENTS';
export const STREAM_NO_TOKENS = 'STREAM_NO_TOKENS';
export const STREAM_UNTIL_NEVER = 'STREAM_UNTIL_NEVER';

/** Adds the warnings a stream run's merged result calls for. */
export function streamDiagnostics(result: LoadResult, plan: Plan): void {
  const stream = result.stream;
  const planned = plan.stream;
  if (stream === undefined || planned === undefined || planned.subscribe) return;
  const responses = stream.streams;
  if (stream.events === 0 && result.requests.completed > 0) {
    const framing =
      planned.format === 'sse'
        ? "no `data:` line ended by a blank line: a JSON endpoint (application/json) answers with one plain body; check the URL, that the request asks for a stream (OpenAI-style: \"stream\": true), or use format 'ndjson' or 'chunks'"
        : planned.format === 'ndjson'
          ? 'no non-blank line'
          : 'no body';
    addWarning(
      result.warnings,
      STREAM_NO_EVENTS,
      `${result.requests.completed} responses had no event with format '${planned.format}' (${framing}).`,
    );
    return;
  }
  if (stream.events === 0) return;
  if (planned.tokensPath !== undefined && (stream.outputTokens ?? 0) === 0) {
    addWarning(
      result.warnings,
      STREAM_NO_TOKENS,
      `stream.tokens '${planned.tokensPath.join('.')}' found no token in ${stream.events} events: ` +
        "the path matches no field of the events' JSON (a string, number or array there); check it against one event's data, " +
        "such as choices.0.delta.content for OpenAI-style chunks or message.content for Ollama's.",
    );
  }
  const until = planned.until !== undefined ? `'${planned.until}'` : planned.untilFunction ? 'the function' : undefined;
  if (until !== undefined && responses > 0 && stream.ended === 0) {
    addWarning(
      result.warnings,
      STREAM_UNTIL_NEVER,
      `stream.until ${until} matched no event of ${responses} streams: each ran to its body's end, ` +
        "so their durations and TPOT end there; check the marker against the last event the server sends (an SSE event's data, trimmed).",
    );
  }
}

const TOKEN_FIGURES = [
  'stream.ttft',
  'stream.itl',
  'stream.tpot',
  'stream.outputTokens',
  'stream.outputTokensPerSecond',
  'stream.outputTokensPerStream',
];

/** Why a stream threshold has no value when the run could not measure its figure: `{ message }`, or nothing. */
export function missingStreamFigure(
  metric: string,
  result: Partial<Pick<LoadResult, 'stream' | 'goodput'>>,
): { message?: string } {
  if (metric.startsWith('goodput.') && result.goodput === undefined)
    return { message: `${metric} needs the slo option ({ ttft, tpot, itl, e2e } in ms), the objectives it counts` };
  if (!metric.startsWith('stream.')) return {};
  if (result.stream === undefined)
    return { message: `${metric} needs the stream option: this run read no response as a stream` };
  if (
    TOKEN_FIGURES.some((figure) => metric === figure || metric.startsWith(`${figure}.`)) &&
    result.stream.ttft === undefined
  ) {
    return {
      message: `${metric} needs stream.tokens (a JSON path such as 'choices.0.delta.content', or a function) to count each event's tokens; this run counted none`,
    };
  }
  if (metric.startsWith('stream.delivery') && result.stream.delivery === undefined) {
    return { message: `${metric} needs stream.timestamp ({ field }), the send time each event carries` };
  }
  return {};
}
