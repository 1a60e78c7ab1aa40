// What `monitor` adds to a result: the watched server's seconds and totals, and the readings merged results need.
/** One monitored source's readings, one per timeline second (`null` where it did not answer). */
export interface ServerSeries {
  source: string;
  scope: 'process' | 'machine';
  /** The cores its CPU is out of: the machine's (node_exporter's CPUs; this machine's for a pid); absent when unknown. */
  cores?: number;
  /** The first failure, if any. */
  error?: string;
  /** Another source that watched the same process (the same start time and CPU): this one is not counted. */
  sameProcessAs?: string;
  /** Wall-clock start of its first second, epoch ms (the run's `startedAt`). */
  startedAt: number;
  seconds: Array<ServerReadingSecond | null>;
}

/** What one source said over one second: counters as differences, gauges at the second's end. */
export interface ServerReadingSecond {
  wallMs: number;
  cpuMs?: number;
  /** A process's resident memory, or the machine's memory in use. */
  rssBytes?: number;
  /** The machine's network bytes, less the monitor's own scrapes of it. */
  receivedBytes?: number;
  sentBytes?: number;
  eventLoopLagMs?: number;
}

/**
 * One second of the watched server (`timeline[i].server`): the watched processes (pids, prom-client
 * apps) added up, and the machine (node_exporter) apart; a field no source gave is absent.
 */
export interface ServerSecond {
  /** The processes' CPU, 100 = one core. */
  cpuPercent?: number;
  /** The processes' resident memory at the end of the second, bytes. */
  rssBytes?: number;
  /** A prom-client app's event-loop lag (its p99 when it exports one), ms. */
  eventLoopLagMs?: number;
  /** The whole machine, from node_exporter: load generator included when it runs there. */
  machine?: MachineSecond;
}

/** One second of the machine (`timeline[i].server.machine`), from node_exporter. */
export interface MachineSecond {
  /** Busy CPU over all its cores, 100 = one core. */
  cpuPercent?: number;
  /** Memory in use (MemTotal - MemAvailable) at the end of the second, bytes. */
  usedBytes?: number;
  /** Network bytes received and sent per second, on the chosen devices, less the monitor's own scrapes. */
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
}

/** One source `monitor` read (`result.server.sources`). */
export interface ServerSourceStats {
  /** `pid 1234`, or the metrics URL. */
  source: string;
  /** `process`: a pid or a prom-client app; `machine`: node_exporter. */
  scope: 'process' | 'machine';
  /** Whether it answered every sample of the run. */
  answered: boolean;
  /** The first failure, when it did not. */
  error?: string;
  /** Another source that watched the same process: this one's figures are not added to the server's. */
  sameProcessAs?: string;
  /** Measured seconds it answered. */
  seconds: number;
  /** CPU over the seconds it answered, 100 = one core. */
  cpuPercent?: number;
  /** Mean and highest resident memory (machine: memory in use), bytes. */
  rssBytes?: number;
  peakRssBytes?: number;
  receivedBytesPerSecond?: number;
  sentBytesPerSecond?: number;
  /** Highest event-loop lag of a second, ms (prom-client). */
  eventLoopLagMs?: number;
}

/**
 * The system under test over the measured run (`result.server`), from `monitor`. The figures at the
 * top are the watched processes (pids, prom-client apps), each process counted once; the machine
 * (node_exporter) is `machine`, never the server's figures. A field no source gave is absent, never zero.
 */
export interface ServerStats {
  /** The processes' CPU, 100 = one core. */
  cpuPercent?: number;
  /**
   * The processes' CPU per completed request (per received message in a WebSocket or Socket.IO run),
   * ms: over the seconds the CPU sources answered.
   */
  cpuPerRequestMs?: number;
  /** The processes' resident memory, added up: mean and highest, bytes. */
  memory?: { rssBytes: number; peakRssBytes: number };
  /** Highest event-loop lag of a second, ms (prom-client apps). */
  eventLoopLagMs?: number;
  /** The cores the processes' CPU is out of (`cpuPercent` 100 × cores is all of them), when the sources say. */
  cores?: number;
  /** The machine, from node_exporter (its CPU and network include salvo's own when salvo runs there). */
  machine?: MachineStats;
  /** What was read, and whether it answered. */
  sources: ServerSourceStats[];
}

/** `result.server.machine`: what node_exporter said of the whole machine over the measured run. */
export interface MachineStats {
  /** Busy CPU over all its cores, 100 = one core. */
  cpuPercent?: number;
  /** Its cores (node_exporter machines added up). */
  cores?: number;
  /** Memory in use (MemTotal - MemAvailable): mean and highest, bytes. */
  memory?: { usedBytes: number; peakUsedBytes: number };
  /** Network bytes per second on the chosen devices, less the monitor's own scrapes. */
  network?: { receivedBytesPerSecond: number; sentBytesPerSecond: number };
}
