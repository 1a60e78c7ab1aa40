// `salvo`: what a test file needs: runLoad, formatting, thresholds, merging, comparison, capacity and
// the types of the options and the result. The CI gate is `salvo/gate`, the HTML reports
// `salvo/report`, the test servers `salvo/testing`.
export { runLoad, startLoad } from './live/run-load.js';
export type { LoadHandle } from './start-load.js';
export type { SteerStep } from './shared/load-result.js';
export { runAgent } from './agents/agent.js';
export type { AgentOptions, AgentsOptions, AgentResult, AgentLoss } from './shared/agents.js';
export { formatResult } from './stats/format.js';
export { toVllmJson, type VllmJsonOptions } from './stats/vllm-json.js';
export { mergeResults, type MergeResultsOptions } from './stats/merge-results.js';
export { assertThresholds } from './stats/assert.js';
export { parseDuration } from './shared/validate.js';
export {
  SalvoAgentsError,
  SalvoOptionError,
  SalvoRangeError,
  SalvoTaskSetupError,
  type SalvoErrorDetail,
} from './shared/errors.js';
export type { TaskContext, TaskFunction, TaskSetupContext } from './shared/task.js';
export { findCapacity } from './capacity/search.js';
export { formatCapacity, formatCapacityStep } from './capacity/format.js';
export { sweep } from './capacity/sweep.js';
export { formatSweep, formatSweepPoint } from './capacity/sweep-format.js';
export type { SweepLoads, SweepOptions, SweepPoint, SweepPointEvent, SweepResult } from './capacity/sweep-types.js';
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
  FlowSpec,
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
export type { FormBody, FormFile, FormValue } from './shared/form.js';
export type { FeedOptions, JourneyFlow } from './shared/journey-options.js';
export type {
  MachineSecond,
  MachineStats,
  ServerReadingSecond,
  ServerSecond,
  ServerSeries,
  ServerSourceStats,
  ServerStats,
} from './shared/load-result.js';
export type { Segment, ThresholdSetting, Thresholds, TransportName } from './shared/terms.js';
export type { RunKind } from './shared/run-kind.js';
export type { ArrivalDistribution, Arrivals } from './shared/arrivals.js';
export type { LiveOptions } from './shared/live.js';
export type { RunControl } from './shared/run-control.js';
export type { Warning } from './shared/warnings.js';
export type {
  ShardGoodput,
  StreamEvent,
  StreamFormat,
  StreamHistograms,
  StreamMergeInfo,
  StreamOptions,
} from './shared/stream.js';
export type { StreamSecond, StreamStats, SubscriptionStats } from './shared/load-result.js';
export type { GoodputStats, LlmApi, LlmOptions, SloOptions, SyntheticPrompts, TokenCount } from './shared/llm.js';
export { compareResults, DEFAULT_METRICS } from './compare/compare-results.js';
export { runComparison } from './compare/run-comparison.js';
export { formatComparison } from './compare/format-comparison.js';
export { assertNoRegression, parseMargin } from './compare/assert-no-regression.js';
export type {
  CompareResultsOptions,
  Comparison,
  ComparisonRow,
  Confidence,
  ConfidenceLevel,
} from './compare/compare-results.js';
export type {
  RunComparisonOptions,
  ComparisonProgress,
  ComparisonRuns,
  ComparisonSide,
} from './compare/run-comparison.js';
export type { AssertNoRegressionOptions } from './compare/assert-no-regression.js';
export { isMetric, KNOWN_METRICS } from './stats/thresholds.js';
