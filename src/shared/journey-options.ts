// The public types of `flows` and `feed` (docs/journeys.md), beside load-options.ts.

/** One flow of `flows` (`FlowSpec`): a journey's steps, walked in order, chosen by `weight` among the flows. */
export interface JourneyFlow<Step> {
  /** Its name in `byName` (`name/step`) and `context.flow`. Default `flow1`, `flow2`, ... */
  name?: string;
  /** Its share of the journeys, relative to the other flows' weights. Default 1. */
  weight?: number;
  /** Its steps, as `requests` takes them. */
  requests: Step[];
}

/**
 * `feed`: a file's path (`.csv` with a header row, or `.jsonl`/`.ndjson`), an array of rows, or an
 * object with one of them and `reuse`.
 */
export type FeedOptions =
  | string
  | unknown[]
  | {
      /** A `.csv` (header row) or `.jsonl`/`.ndjson` file, read once when the run is planned. */
      file?: string;
      /** The rows themselves. */
      rows?: unknown[];
      /** Start again from the first row once every row was used (default true); false ends the run then. */
      reuse?: boolean;
    };
