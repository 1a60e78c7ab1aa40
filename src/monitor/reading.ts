/** What a source says at one instant: cumulative counters and current gauges; a field it lacks is absent. */
export interface Reading {
  /** Wall-clock instant the reading stands for, epoch ms. */
  atMs: number;
  /** When the read began and ended, epoch ms: the source read its counters somewhere in between. */
  readMs?: [number, number];
  cpuSeconds?: number;
  rssBytes?: number;
  receivedBytes?: number;
  sentBytes?: number;
  eventLoopLagMs?: number;
  /** The cores the CPU is out of, when the source knows. */
  cores?: number;
  /** When the process started, epoch seconds: with its CPU, what tells that two sources watch one process. */
  processStartS?: number;
  /**
   * The bytes this read's own exchange added to the network counters it read (a scrape of
   * node_exporter over a counted device): before the exporter read them (the request), and after (the response).
   */
  ownBytes?: { before: ByteCounts; after: ByteCounts };
}

/** Network bytes received and sent. */
export interface ByteCounts {
  received: number;
  sent: number;
}

/** One watched thing: read it now, within `timeoutMs`, or reject with why not. */
export interface MonitorSource {
  readonly name: string;
  readonly scope: 'process' | 'machine';
  read(timeoutMs: number): Promise<Omit<Reading, 'atMs'> & { atMs?: number }>;
  close(): void;
}
