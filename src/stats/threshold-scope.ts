import type { LoadResult, NameStats, TimelineEntry } from '../shared/load-result.js';

/** What a threshold's `{name:...}` or `{scenario:...}` selects, as k6 selects a sub-metric by tag. */
export interface ThresholdScope {
  kind: 'name' | 'scenario';
  key: string;
}

const SCOPED = /^([^{}]+)\{\s*(name|scenario)\s*:\s*([^{}]*?)\s*\}$/;

/** `latency.p99{name:checkout}` as its metric and its scope; a metric without braces has none. */
export function splitScope(metric: string): { metric: string; scope?: ThresholdScope } | undefined {
  if (!metric.includes('{')) return { metric };
  const match = SCOPED.exec(metric);
  if (match === null || match[3] === '') return undefined;
  return { metric: match[1]!, scope: { kind: match[2] as ThresholdScope['kind'], key: match[3]! } };
}

/** A result's part that a scope selects (any partial result: a running snapshot too), or undefined when it has none by that key. */
export function scoped<T extends { byName?: unknown; byScenario?: unknown }>(
  result: T,
  scope: ThresholdScope,
): T | undefined {
  const parts = (scope.kind === 'name' ? result.byName : result.byScenario) as Record<string, T> | undefined;
  return parts !== undefined && Object.hasOwn(parts, scope.key) ? parts[scope.key] : undefined;
}

/** Why a scoped threshold has nothing to judge: the result has no such name or scenario. */
export function missingScope(result: LoadResult, scope: ThresholdScope): string {
  const known = Object.keys((scope.kind === 'name' ? result.byName : result.byScenario) ?? {});
  const what = scope.kind === 'name' ? 'request named' : 'scenario';
  return `no ${what} ${JSON.stringify(scope.key)} in this run (${scope.kind === 'name' ? 'names' : 'scenarios'}: ${known.length === 0 ? 'none' : known.map((key) => JSON.stringify(key)).join(', ')})`;
}

/** A name's seconds as a result's timeline, with its per-second histograms: what a windowed threshold reads. */
export function nameTimeline(
  result: LoadResult,
  name: string,
  stats: NameStats,
): Pick<LoadResult, 'timeline' | 'durationMs' | 'merge'> {
  const timeline = result.timeline.map((entry): TimelineEntry => {
    const second = entry.byName?.[name] ?? { sent: 0, completed: 0, errors: 0, p50: NaN, p99: NaN };
    return { ...entry, ...second, retried: 0 };
  });
  return { timeline, durationMs: result.durationMs, merge: { ...result.merge, timeline: stats.merge.timeline } };
}
