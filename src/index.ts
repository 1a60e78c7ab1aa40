export { runLoad } from './run.js';
export { formatResult } from './stats/format.js';
export { assertThresholds } from './stats/assert.js';
export { SalvoOptionError, SalvoRangeError } from './errors.js';
export type {
  CheckStats,
  Duration,
  ExpectOptions,
  LatencyStats,
  LoadOptions,
  LoadResult,
  ProgressEvent,
  RequestBody,
  RequestContext,
  RequestSpec,
  Stage,
  ThresholdResult,
  Thresholds,
  TimelineEntry,
  TransportName,
} from './types.js';
