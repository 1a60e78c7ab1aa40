/**
 * What steers a running load test: `startLoad`'s handle, and what the live page's controls call
 * (`live: { control: true }`).
 */
export interface RunControl {
  setRate(rate: number): void;
  setConnections(connections: number): void;
  stop(): Promise<void> | void;
}
