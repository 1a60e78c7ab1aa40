/** What steers a running load test: the handle `startLoad` returns, and the live page's controls. */
export interface RunControl {
  /** The new total rate, req/s over every worker and segment, from the next slot on (a rate run only). */
  setRate(rate: number): void;
  /** The connections to keep open (a closed loop's, or a rate run's cap), split over the workers. */
  setConnections(connections: number): void;
  /** Ends the run now; its result counts everything sent once. */
  stop(): Promise<void> | void;
}
