/**
 * What a pre-warm cost (`result.generator.prewarm`): the run's HTTP path exercised against a
 * loopback server in each thread before its connections open, so that V8's cold start stays out of
 * the measured run. Nothing of it reaches the server under test or any count of the result.
 */
export interface PrewarmStats {
  /** Start-up time it added, ms: the slowest thread's, from its loopback server's start to its close. */
  durationMs: number;
  /** CPU the whole process used meanwhile, ms (every thread; the largest reading over threads, as `cpuPercent`). */
  cpuMs: number;
  /** Requests answered by the loopback server, over every thread. */
  requests: number;
}
