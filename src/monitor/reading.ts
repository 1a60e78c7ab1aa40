/** What a source says at one instant: cumulative counters and current gauges; a field it lacks is absent. */
export interface Reading {
  /** Wall-clock instant the reading stands for, epoch ms. */
  atMs: number;
  cpuSeconds?: number;
  rssBytes?: number;
  receivedBytes?: number;
  sentBytes?: number;
  eventLoopLagMs?: number;
  /** The cores the CPU is out of, when the source knows. */
  cores?: number;
}

/** One watched thing: read it now, within `timeoutMs`, or reject with why not. */
export interface MonitorSource {
  readonly name: string;
  readonly scope: 'process' | 'machine';
  read(timeoutMs: number): Promise<Omit<Reading, 'atMs'> & { atMs?: number }>;
  close(): void;
}
