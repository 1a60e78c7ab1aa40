/**
 * A run in which nothing worked, or most requests failed, says so: a warning that names the most
 * common failure and what to check or which option to set. The error codes alone do not tell a new
 * user that `DEPTH_ZERO_SELF_SIGNED_CERT` wants `tls.ca`, or that `HPE_UNEXPECTED_EOF` against an
 * HTTP/2-only server wants `transport: 'h2'`.
 */
import type { LoadResult } from '../shared/load-result.js';
import { addWarning } from '../shared/warnings.js';
import { resultKind } from '../shared/run-kind.js';

/** Above this share of failed requests (of those that ended) a run gets `MOSTLY_FAILED`. */
export const MOSTLY_FAILED_SHARE = 0.5;

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);
/** What an HTTP/1.1 client reads from an HTTP/2-only (h2c) server: its GOAWAY frame, then the close. */
const H2_ONLY_CODES = new Set(['HPE_UNEXPECTED_EOF', 'HPE_INVALID_CONSTANT', 'HTTPParserError']);

/** Whether no request of an HTTP run succeeded (every one failed or was unanswered); a message run received nothing. */
export function nothingSucceeded(result: LoadResult): boolean {
  if (result.messages !== undefined) return result.messages.received === 0 && result.errors.total > 0;
  // A subscription is held, not answered: its success is being subscribed and receiving events.
  const subscriptions = result.stream?.subscriptions;
  if (subscriptions !== undefined)
    return (
      result.requests.sent > 0 && subscriptions.subscribed + subscriptions.open === 0 && result.stream!.events === 0
    );
  const { sent, completed } = result.requests;
  const failedResponses = result.failed.total - result.errors.total;
  return sent > 0 && completed - failedResponses === 0;
}

/** The share of the requests that ended (responses and errors) that failed; 0 when none ended. */
export function failedShare(result: LoadResult): number {
  const ended = endedRequests(result);
  return ended === 0 ? 0 : result.failed.total / ended;
}

/** Requests that ended (responses and errors); of a subscription run every request sent, as those held to the end are its successes. */
function endedRequests(result: LoadResult): number {
  return result.stream?.subscriptions !== undefined
    ? result.requests.sent
    : result.requests.completed + result.errors.total;
}

/** Adds `NO_SUCCESS` (nothing worked) or `MOSTLY_FAILED` (over half failed), with advice. */
export function failureAdvice(result: LoadResult): void {
  if (result.failed === undefined) return;
  const none = nothingSucceeded(result);
  const share = failedShare(result);
  if (!none && share <= MOSTLY_FAILED_SHARE) return;
  const ended = endedRequests(result);
  const unit = resultKind(result) === 'task' ? 'call' : 'request';
  const what = none
    ? `no ${unit} succeeded: of ${result.requests.sent} sent, ${result.failed.total} failed` +
      (result.requests.unfinished > 0 ? ` and ${result.requests.unfinished} had no answer by the end` : '')
    : `${result.failed.total} of ${ended} ${unit}s failed (${(share * 100).toFixed(1)}%)`;
  addWarning(
    result.warnings,
    none ? 'NO_SUCCESS' : 'MOSTLY_FAILED',
    `${what}. ${advice(result)} The latency measures the failures, not the server's work.`,
  );
}

/** What the most common failure usually means, and what to do. */
function advice(result: LoadResult): string {
  const [code, count] = mostCommon(result.errors.byCode);
  // A task's errors are whatever its own client threw: the samples say more than any advice could.
  if (resultKind(result) === 'task') {
    if (code === '')
      return `None of the calls ended within the run (${result.requests.unfinished} still running at its end): check what the task waits for, or run it for longer.`;
    return code === 'TIMEOUT'
      ? 'Most failed with TIMEOUT: the calls took longer than timeout; check what the task waits for, or give a longer timeout.'
      : `Most failed with ${code}: the task threw or rejected; errors.samples has the messages and stacks.`;
  }
  const [status, statusCount] = mostCommon(result.failed.byStatus);
  if (statusCount > count) {
    const accepted = `If ${status} is what this endpoint should answer, accept it with expect: { status: ${status} } (CLI: --expect-status ${status}).`;
    if (status.startsWith('5'))
      return `Most failed with status ${status}: the server failed or shed the load (check its logs; a 503 under load is a capacity limit). ${accepted}`;
    if (status === '401' || status === '403')
      return `Most failed with status ${status}: the requests lack credentials (headers: { authorization }). ${accepted}`;
    if (status === '404' || status === '405')
      return `Most failed with status ${status}: check the URL's path and the method. ${accepted}`;
    return `Most failed with status ${status}. ${accepted}`;
  }
  const host = hostOf(result.url);
  if (code === 'ECONNREFUSED')
    return `Most failed with ECONNREFUSED: nothing is listening at ${host}; check that the server runs and the URL's port.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Most failed with ${code}: the host name in ${host} does not resolve; check its spelling, or use 127.0.0.1.`;
  if (CERTIFICATE_CODES.has(code)) {
    return (
      `Most failed with ${code}: the server's certificate is not trusted. Give its CA with tls: { ca } (CLI: --ca file.pem), ` +
      `or for a test server with a self-signed certificate accept any with tls: { rejectUnauthorized: false } (CLI: -k).`
    );
  }
  if (H2_ONLY_CODES.has(code) && result.transport !== 'h2') {
    return `Most failed with ${code}: the server did not answer HTTP/1.1, as an HTTP/2-only (h2c) server does; use transport: 'h2' (CLI: --transport h2).`;
  }
  if (code === 'TIMEOUT')
    return 'Most failed with TIMEOUT: the server did not answer within timeout; check that it answers at all (curl), or give a longer timeout.';
  if (code === 'SETUP_REQUEST_FAILED' || code === 'ON_RESPONSE_FAILED')
    return `Most failed with ${code}: a hook of yours threw; errors.samples has the messages and stacks.`;
  if (code === 'H2_NOT_SUPPORTED')
    return "Most failed with H2_NOT_SUPPORTED: the server does not speak HTTP/2; use transport: 'net'.";
  if (code !== '') return `Most failed with ${code}.`;
  return `Nothing was answered within the run: check that the server answers at all (curl ${result.url}).`;
}

function mostCommon(counts: Record<string, number>): [string, number] {
  let best: [string, number] = ['', 0];
  for (const [key, count] of Object.entries(counts)) if (count > best[1]) best = [key, count];
  return best;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
