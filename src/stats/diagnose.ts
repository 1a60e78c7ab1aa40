/**
 * Diagnostics on the merged result: a pattern in the numbers that has a known cause is turned into
 * a `result.warnings` entry that names the cause and what to do about it.
 */
import { lanesPerConnection, type Plan } from '../shared/plan.js';
import type { LoadResult } from '../shared/load-result.js';
import { openFileLimit } from './file-limit.js';
import { targetRateRange } from './format-rate.js';
import { addWarning } from '../shared/warnings.js';
import { failureAdvice } from './failure-advice.js';
import { streamDiagnostics } from './stream-diagnose.js';

/** Responses needed before a distribution says anything about the server. */
const MIN_RESPONSES = 10;
/**
 * Where a delayed ACK releases a Nagle-held segment, ms: Linux's minimum delayed-ACK timer is 40 ms
 * (TCP_DELACK_MIN; a stall measures 40-48 ms on loopback), macOS and the BSDs use about 100 ms,
 * Windows 200 ms (also Linux's maximum). A body that takes one of these and no other time is Nagle.
 */
const DELAYED_ACK_WINDOWS_MS: ReadonlyArray<readonly [number, number]> = [
  [38, 60],
  [95, 120],
  [195, 230],
];
/**
 * A rate run has missed its rate when more than this share of its slots, and at least MIN_MISSED,
 * went unsent. A few can be the last slots of a run on a stalled host, reached after the end.
 */
const MISSED_SHARE = 0.01;
const MIN_MISSED = 3;
/** Above this mean response size a slow `receive` is more likely bandwidth than Nagle. */
const NAGLE_MAX_RESPONSE_BYTES = 16 * 1024;

/** Adds every warning the merged result calls for (one per code). */
export function diagnose(result: LoadResult, plan: Plan): void {
  nagleDelay(result);
  fileLimit(result);
  portsExhausted(result, plan);
  rateNotMet(result, plan);
  failureAdvice(result);
  notTimed(result, plan);
  streamDiagnostics(result, plan);
}

/** Messages came and none was timed: the latency is absent, and the user needs to know why. */
function notTimed(result: LoadResult, plan: Plan): void {
  const received = result.messages?.received ?? 0;
  if (received === 0 || result.latency.count > 0) return;
  const field = plan.websocket?.timestampField ?? plan.socketio?.listen?.timestampField;
  const why =
    field !== undefined
      ? `no message carried the timestamp field \`${field}\` as a number of epoch ms at the top level of its JSON ` +
        '(a missing, nested or ISO-string field is not read)'
      : plan.websocket?.timestampFunction === true
        ? 'the timestamp function returned no number for any of them'
        : 'nothing in the run times a message: no reply was awaited and no timestamp was given';
  addWarning(
    result.warnings,
    'NOT_TIMED',
    `${received} messages were received and none was timed: ${why}. The latency statistics are absent (null), not 0. ` +
      'Point timestamp at the field the server fills with Date.now(), or give a function (data) => epoch ms.',
  );
}

function nagleDelay(result: LoadResult): void {
  const { ttfb, receive } = result.phases;
  // A streamed body is slow by design: its events are timed in result.stream.
  if (receive.count < MIN_RESPONSES || result.stream !== undefined) return;
  const stalled = DELAYED_ACK_WINDOWS_MS.some(([low, high]) => receive.p50 >= low && receive.p50 <= high);
  const smallResponses = result.bytes.received / Math.max(1, result.requests.completed) <= NAGLE_MAX_RESPONSE_BYTES;
  if (!stalled || !smallResponses || ttfb.p50 > receive.p50 / 2) return;
  addWarning(
    result.warnings,
    'SERVER_NAGLE_DELAY',
    `responses began after ${ttfb.p50.toFixed(1)} ms (ttfb p50) but took ${receive.p50.toFixed(1)} ms more to finish ` +
      `(receive p50), a delayed-ACK interval: the server writes each response in several small writes on a socket without ` +
      `TCP_NODELAY, so Nagle's algorithm holds the rest of the response until this client's delayed ACK. The latency is ` +
      `the server's socket setting, not its work: set TCP_NODELAY on its sockets (Node: socket.setNoDelay(true); ` +
      `nginx: tcp_nodelay on) or write each response in one write (one buffer, or cork/uncork around the writes). ` +
      `If the server really does stream its body this slowly, ignore this.`,
  );
}

function fileLimit(result: LoadResult): void {
  const { EMFILE = 0, ENFILE = 0 } = result.errors.byCode;
  if (EMFILE + ENFILE === 0) return;
  const limit = openFileLimit();
  const which =
    EMFILE > 0
      ? `this process's open-file limit${limit === undefined ? '' : ` (ulimit -n ${limit})`}`
      : "the system's open-file table (fs.file-max)";
  addWarning(
    result.warnings,
    'FILE_LIMIT',
    `${EMFILE + ENFILE} requests failed with ${EMFILE > 0 ? 'EMFILE' : 'ENFILE'} (too many open files): salvo reached ` +
      `${which}, so those connections were never made and the numbers measure the limit, not the server. ` +
      `Raise it (\`ulimit -n\` in the shell that starts node, LimitNOFILE= in a systemd unit, --ulimit nofile= for Docker; ` +
      `fs.file-max for ENFILE) or use fewer connections; a server in the same process needs as many files again.`,
  );
}

function portsExhausted(result: LoadResult, plan: Plan): void {
  const failed = result.errors.byCode.EADDRNOTAVAIL ?? 0;
  if (failed === 0) return;
  const cause = plan.keepAlive
    ? 'connections were opened faster than closed ones left TIME_WAIT (a server that closes after each response, or timeouts replacing connections)'
    : 'with keepAlive: false every request opens a connection, and each closed one keeps its port in TIME_WAIT for 60 s, so the default ~28,000 ports last about 470 new connections per second';
  addWarning(
    result.warnings,
    'PORTS_EXHAUSTED',
    `${failed} connections failed with EADDRNOTAVAIL: the client's ephemeral ports ran out; ${cause}. ` +
      `Requests past that point measure the client's port table, not the server. Use keepAlive: true unless new ` +
      `connections are what you measure; otherwise lower the rate, widen net.ipv4.ip_local_port_range, set ` +
      `net.ipv4.tcp_tw_reuse=1, or spread the load over several client addresses or machines.`,
  );
}

/** A rate run that left slots unsent: the rate asked for was not the rate sent. */
function rateNotMet(result: LoadResult, plan: Plan): void {
  const { sent, missed = 0 } = result.requests;
  const due = sent + missed;
  // A saturated generator misses slots of its own accord, and GENERATOR_SATURATED says so.
  if (missed < MIN_MISSED || missed < MISSED_SHARE * due || result.generator.saturated) return;
  const rate = targetRateRange(result)?.[1] ?? 0;
  const inFlight = plan.connections * lanesPerConnection(plan);
  const latencyMs = result.latencyUncorrected.p99;
  const needed = Math.ceil((rate * latencyMs) / 1000);
  const why =
    result.requests.completed > 0 && needed > inFlight
      ? `at the server's p99 of ${latencyMs.toFixed(1)} ms, ${rate} requests/s need about ${needed} in flight and this run allowed ${inFlight} ` +
        `(connections × ${plan.transport === 'h2' ? 'h2Streams' : 'pipelining'}), so slots waited for a free connection until the end`
      : 'every connection was busy when they fell due (or the run ended before the generator reached them)';
  addWarning(
    result.warnings,
    'RATE_NOT_MET',
    `${missed} of ${due} slots (${((missed / due) * 100).toFixed(1)}%) were never sent: ${why}. The rate the server got is ` +
      `requests.perSecond, not the rate asked for; the corrected latency counts the wait of the slots that were sent late. ` +
      `Give the run more connections (about the rate × the latency you expect, in seconds), or a lower rate.`,
  );
}
