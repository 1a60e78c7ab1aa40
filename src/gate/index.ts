// `salvo/gate`: the CI gate: a history of runs in the repository, a run compared with it, and what a
// CI job prints (JUnit, a Markdown summary, labels of the build), and the history's trend report.
// See docs/ci-gates.md.
export { addToHistory, readHistory, acceptInHistory, baselineEntries, historyTestIds } from './history.js';
export { compareWithHistory, compareWithEntries, DEFAULT_MARGINS } from './history-compare.js';
export { ciLabels } from './ci-labels.js';
export { formatJUnit } from './junit.js';
export { formatSummary, writeSummary } from './summary.js';
export { gateChecks, gatePassed } from './outcome.js';
export { runGate } from './remeasure.js';
export { renderTrendReport, type RenderTrendReportOptions } from '../report/trend-report.js';
export type { AddToHistoryOptions, HistoryEntry, StoredRun } from './history.js';
export type { BaselineEntry, CompareWithHistoryOptions, GateMetric, HistoryComparison } from './history-compare.js';
export type { BuildLabels } from './ci-labels.js';
export type { GateCheck, GateOutcome } from './outcome.js';
export type { GateRun, RunGateOptions } from './remeasure.js';
export type { Measured } from './measured.js';
export type { NoBaseline } from './no-baseline.js';
