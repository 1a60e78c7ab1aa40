// A journey: one pass of a lane through a flow's steps (`think` between them, a `feed` row for it),
// as a plan carries it: plain data that crosses to worker threads.

/** One of `flows`, resolved: its steps are `Plan.requests[first .. first + count)`. */
export interface PlannedFlow {
  name: string;
  weight: number;
  first: number;
  count: number;
}

/** `feed`, loaded: one row per journey, journey k of the whole run taking row k mod rows (or none past the end). */
export interface PlannedFeed {
  rows: unknown[];
  /** false: the run ends once every row was handed out (`FEED_EXHAUSTED`). */
  reuse: boolean;
  /** Where the rows came from (a file's path, or 'array'), for the messages. */
  source: string;
}

/**
 * What turns a request sequence into journeys: present when some step has `think`, or `flows` or
 * `feed` is given. A lane then walks one flow from its first step to its last (its journey), and in
 * rate mode a slot of the schedule starts a journey rather than sending one request.
 */
export interface PlannedJourney {
  /** One flow covering every request when `flows` was not given. */
  flows: PlannedFlow[];
  /** Per request (by its index in `Plan.requests`): the pause after its answer, `[min, max]` ms, or null. */
  thinkMs: Array<[number, number] | null>;
  feed: PlannedFeed | undefined;
  /**
   * Journey k of this share of the run is journey `first + k * stride` of the whole run: the
   * arithmetic that splits rate slots over workers and segments (see `splitPlan`).
   */
  first: number;
  stride: number;
}

/**
 * How the options name request `index` of a plan: `requests[3]`, or with `flows` the step of its
 * flow, `flows[1].requests[0]` (the plan's requests are the flows' steps end to end).
 */
export function stepOption(journey: PlannedJourney | undefined, index: number): string {
  // Without `flows` a journey has one flow, named ''; a flow's own name is never empty.
  const flows = journey?.flows.length === 1 && journey.flows[0]!.name === '' ? [] : (journey?.flows ?? []);
  const flow = flows.findIndex(({ first, count }) => index >= first && index < first + count);
  return flow < 0 ? `requests[${index}]` : `flows[${flow}].requests[${index - flows[flow]!.first}]`;
}
