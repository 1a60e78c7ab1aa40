// From per-round reports to one line per contender: median, min and max over rounds, and ratios.

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Derived numbers of one round's report. */
export function deriveRound(report) {
  if (report.failed) return report;
  const seconds = report.durationMs / 1000;
  return {
    ...report,
    reqPerSec: seconds > 0 ? report.completed / seconds : 0,
    cpuUsPerReq: report.cpuMs !== undefined && report.completed > 0 ? (report.cpuMs * 1000) / report.completed : undefined,
    // Share of its one core the generator used: well under 100% in a closed-loop run means it
    // waited on the target, or that other processes on this machine took the core.
    corePct: report.cpuMs !== undefined && report.durationMs > 0 ? (report.cpuMs / report.durationMs) * 100 : undefined,
  };
}

/** One contender's rounds in one scenario, summarised. */
export function summariseContender({ name, resolution }, rounds) {
  const ok = rounds.filter((round) => !round.failed);
  const rates = ok.map((round) => round.reqPerSec);
  const mid = median(rates);
  return {
    name,
    resolution,
    rounds: rounds.length,
    failures: rounds.filter((round) => round.failed).map((round) => round.failed),
    reqPerSec: mid,
    reqPerSecMin: rates.length ? Math.min(...rates) : undefined,
    reqPerSecMax: rates.length ? Math.max(...rates) : undefined,
    // Spread of the rounds around their median: the noise of this measurement on this machine.
    spreadPct: rates.length > 1 && mid ? ((Math.max(...rates) - Math.min(...rates)) / mid) * 100 : undefined,
    p50Ms: median(ok.map((round) => round.p50Ms)),
    p99Ms: median(ok.map((round) => round.p99Ms)),
    cpuUsPerReq: median(ok.map((round) => round.cpuUsPerReq)),
    corePct: median(ok.map((round) => round.corePct)),
    errors: ok.reduce((sum, round) => sum + (round.errors ?? 0), 0),
    non2xx: ok.reduce((sum, round) => sum + (round.non2xx ?? 0), 0),
  };
}

/**
 * Adds `vsWrk` and `vsAutocannon` to every line of a scenario: the median over rounds of the ratio
 * of the two tools' req/s in the same round. Rounds alternate the contenders, so the two runs of a
 * round are next to each other in time; a stall of the machine that slows both (this VM shares its
 * host) leaves their ratio alone, where it would drag one median and not the other. Falls back to
 * the ratio of medians when no round has both.
 */
export function addRatios(lines, roundsByName) {
  const ratioTo = (line, name) => {
    const reference = lines.find((other) => other.name === name);
    if (!reference || line.reqPerSec === undefined || reference.reqPerSec === undefined) return undefined;
    const mine = roundsByName?.get(line.name) ?? [];
    const theirs = roundsByName?.get(name) ?? [];
    const paired = mine
      .map((round, i) => (round.failed || !theirs[i] || theirs[i].failed || !theirs[i].reqPerSec ? undefined : round.reqPerSec / theirs[i].reqPerSec))
      .filter((ratio) => ratio !== undefined);
    return paired.length > 0 ? median(paired) : line.reqPerSec / reference.reqPerSec;
  };
  return lines.map((line) => ({
    ...line,
    vsWrk: ratioTo(line, 'wrk'),
    vsAutocannon: ratioTo(line, 'autocannon'),
  }));
}
