export { runLoad } from './run.js';
export { formatResult } from './stats/format.js';
export { mergeResults, type MergeResultsOptions } from './stats/merge-results.js';
export { assertThresholds } from './stats/assert.js';
export { renderReport } from './report/render.js';
export { parseDuration } from './validate.js';
export { SalvoOptionError, SalvoRangeError } from './errors.js';
export { findCapacity } from './capacity/search.js';
export { formatCapacity, formatCapacityStep } from './capacity/format.js';
export type {
  CapacityLimit,
  CapacityOptions,
  CapacityPhase,
  CapacityResult,
  CapacityStep,
  CapacityStepEvent,
  StepLimit,
} from './capacity/types.js';
export type {
  CheckStats,
  Duration,
  ExpectOptions,
  GeneratorStats,
  LatencyStats,
  LoadOptions,
  LoadResult,
  PhaseStats,
  Phases,
  MergeInfo,
  MergePlan,
  MessageStats,
  MonitorOptions,
  OutputOptions,
  ProgressEvent,
  PrometheusOutput,
  PrometheusSource,
  ResultTransport,
  RequestBody,
  RequestContext,
  RequestSpec,
  Segment,
  ServerReadingSecond,
  ServerSecond,
  ServerSeries,
  ServerSourceStats,
  ServerStats,
  SocketIoOptions,
  Stage,
  ThresholdResult,
  Thresholds,
  TimelineEntry,
  TransportName,
  Warning,
  WebSocketMessage,
  WebSocketOptions,
  WebSocketStageStats,
  WebSocketStats,
} from './types.js';
export { compareResults } from './compare/compare-results.js';
export { runComparison } from './compare/run-comparison.js';
export { formatComparison } from './compare/format-comparison.js';
export { assertNoRegression } from './compare/assert-no-regression.js';
export type { CompareOptions, Comparison, ComparisonRow, Confidence, ConfidenceLevel } from './compare/compare-results.js';
export type { ComparisonOptions, ComparisonProgress, ComparisonRuns, ComparisonSide } from './compare/run-comparison.js';
export type { NoRegressionOptions } from './compare/assert-no-regression.js';
