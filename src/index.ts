export { runLoad } from './run.js';
export { formatResult } from './stats/format.js';
export { mergeResults, type MergeResultsOptions } from './stats/merge-results.js';
export { assertThresholds } from './stats/assert.js';
export { renderReport } from './report/render.js';
export { renderCapacityReport } from './report/capacity-report.js';
export { renderComparisonReport, type ComparisonReportInput, type RenderComparisonReportOptions } from './report/comparison-report.js';
export { parseDuration } from './shared/validate.js';
export { SalvoOptionError, SalvoRangeError, SalvoTaskSetupError, type SalvoErrorDetail } from './shared/errors.js';
export type { TaskContext, TaskFunction, TaskSetupContext } from './shared/task.js';
export { findCapacity } from './capacity/search.js';
export { formatCapacity, formatCapacityStep } from './capacity/format.js';
export type {
  CapacityLimit,
  FindCapacityOptions,
  CapacityPhase,
  CapacityResult,
  CapacityStep,
  CapacityStepEvent,
  StepLimit,
} from './capacity/types.js';
export type {
  CheckStats,
  ErrorSample,
  FailedStats,
  GeneratorStats,
  PrewarmStats,
  LatencyStats,
  LoadResult,
  PhaseStats,
  Phases,
  MergeInfo,
  MergePlan,
  MergeSocketIo,
  MessageStats,
  PhaseHistograms,
  ProgressEvent,
  ResultTransport,
  ThresholdResult,
  ThresholdWindows,
  TimelineEntry,
  NameSecond,
  NameStats,
  WebSocketStageStats,
  WebSocketStats,
} from './shared/load-result.js';
export type {
  Duration,
  ExpectOptions,
  LoadOptions,
  RequestBody,
  RequestContext,
  RequestSpec,
  ScenarioOptions,
  SocketIoOptions,
  Stage,
  WebSocketMessage,
  WebSocketOptions,
  MonitorOptions,
  OutputOptions,
  PrometheusOutput,
  PrometheusSource,
} from './shared/load-options.js';
export type { MachineSecond, MachineStats, ServerReadingSecond, ServerSecond, ServerSeries, ServerSourceStats, ServerStats } from './shared/load-result.js';
export type { Segment, ThresholdSetting, Thresholds, TransportName } from './shared/terms.js';
export type { Warning } from './shared/warnings.js';
export type { StreamEvent, StreamFormat, StreamHistograms, StreamMergeInfo, StreamOptions } from './shared/stream.js';
export type { StreamSecond, StreamStats, SubscriptionStats } from './shared/load-result.js';
export { compareResults, DEFAULT_METRICS } from './compare/compare-results.js';
export { runComparison } from './compare/run-comparison.js';
export { formatComparison } from './compare/format-comparison.js';
export { assertNoRegression, parseMargin } from './compare/assert-no-regression.js';
export type { CompareResultsOptions, Comparison, ComparisonRow, Confidence, ConfidenceLevel } from './compare/compare-results.js';
export type { RunComparisonOptions, ComparisonProgress, ComparisonRuns, ComparisonSide } from './compare/run-comparison.js';
export type { AssertNoRegressionOptions } from './compare/assert-no-regression.js';
export { addToHistory, readHistory, acceptInHistory, baselineEntries, historyTestIds, storedRun, HISTORY_FORMAT } from './gate/history.js';
export { compareWithHistory, compareWithEntries, DEFAULT_MARGINS } from './gate/history-compare.js';
export { ciLabels } from './gate/ci-labels.js';
export { formatJUnit } from './gate/junit.js';
export { formatSummary, writeSummary } from './gate/summary.js';
export { gateChecks, gatePassed } from './gate/outcome.js';
export type { AddToHistoryOptions, HistoryEntry, StoredRun } from './gate/history.js';
export type { BaselineEntry, CompareWithHistoryOptions, GateMetric, HistoryComparison } from './gate/history-compare.js';
export type { BuildLabels } from './gate/ci-labels.js';
export type { GateCheck, GateOutcome } from './gate/outcome.js';
export { renderTrendReport, type RenderTrendReportOptions } from './report/trend-report.js';
export { isMetric, KNOWN_METRICS } from './stats/thresholds.js';
