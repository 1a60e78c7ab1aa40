// `salvo/report`: the HTML reports, each one self-contained page: of a run, a capacity search and a
// comparison (the trend of a history of runs is `salvo/gate`'s). See docs/reports.md.
export { renderReport } from './render.js';
export { renderCapacityReport } from './capacity-report.js';
export { renderSweepReport } from './sweep-report.js';
export { renderComparisonReport } from './comparison-report.js';
export type { ComparisonReportInput, RenderComparisonReportOptions } from './comparison-report.js';
export { toVllmJson, type VllmJsonOptions } from '../stats/vllm-json.js';
