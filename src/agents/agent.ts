// `salvo agent URL`: connects to a coordinator (retrying until it is up), proves the token and makes
// the coordinator prove it back, then runs the segments it is handed, sending each closed second and
// the final result. It never runs anything before the coordinator has proven the token.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { SalvoOptionError } from '../shared/errors.js';
import type { AgentOptions } from '../shared/agents.js';
import type { LoadOptions } from '../shared/load-options.js';
import { show } from '../shared/validate.js';
import { runLoadTapped } from '../run.js';
import { AGENT_PROTOCOL, CLOSE, newNonce, parsePlain, sameProof, SealedChannel, tokenProof } from './channel.js';
import type { RunMessage } from './messages.js';

/** How an agent's connection ended. */
type Outcome = 'unreachable' | 'closed' | 'refused' | 'done';

const BEAT_MS = 1000;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2000;
/** Far above any plan and data a run is handed. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

function coordinatorUrl(url: unknown): string {
  if (typeof url === 'string') {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:')
        parsed.protocol = parsed.protocol.replace('http', 'ws');
      if (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') return parsed.href;
    } catch {
      // below
    }
  }
  throw new SalvoOptionError(`agent: the coordinator's url must be ws://host:port (or wss:); got ${show(url)}`, {
    option: 'url',
    value: url,
  });
}

/** Writes the files a run came with into `dir`, at their relative paths (never outside it). */
async function writeFiles(dir: string, files: RunMessage['files']): Promise<void> {
  for (const { path, content } of files) {
    if (isAbsolute(path) || path.split(/[\\/]/).includes('..'))
      throw new Error(`refused a file outside the run: ${path}`);
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, Buffer.from(content, 'base64'));
  }
}

/** Runs one segment in a directory of its own, sending its seconds and its result (or why it failed). */
async function runSegment(
  channel: SealedChannel,
  message: RunMessage,
  signal: AbortSignal,
  beforeReport: () => void,
): Promise<void> {
  const { runId } = message;
  const dir = await mkdtemp(join(tmpdir(), 'salvo-agent-'));
  const cwd = process.cwd();
  try {
    await writeFiles(dir, message.files);
    // The task module and its data sit at the paths they had beside the coordinator.
    if (message.files.length > 0) process.chdir(dir);
    const options: LoadOptions = { ...message.options, signal };
    const result = await runLoadTapped(options, (summary, totals) =>
      channel.send({ type: 'second', runId, summary, totals }),
    );
    beforeReport();
    channel.send({ type: 'result', runId, result });
  } catch (error) {
    const { message: text, code } = error as { message?: unknown; code?: unknown };
    beforeReport();
    channel.send({
      type: 'failed',
      runId,
      message: String(text ?? error),
      code: typeof code === 'string' ? code : undefined,
    });
  } finally {
    if (message.files.length > 0) process.chdir(cwd);
    await rm(dir, { recursive: true, force: true });
  }
}

/** One connection to the coordinator, from its handshake to its close. */
function session(url: string, options: AgentOptions, log: (line: string) => void): Promise<Outcome> {
  const socket = new WebSocket(url, { handshakeTimeout: 5000, maxPayload: MAX_MESSAGE_BYTES, ...options.tls });
  const agentNonce = newNonce();
  let coordinatorNonce = '';
  let channel: SealedChannel | undefined;
  let opened = false;
  let outcome: Outcome = 'closed';
  let running: AbortController | undefined;
  let lastHeard = Date.now();
  let silenceMs = 10_000;
  let beat: NodeJS.Timeout | undefined;
  const onAbort = () => socket.close(1000, 'agent stopped');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const refuse = (code: number, why: string) => {
    log(`refused: ${why}`);
    outcome = 'refused';
    socket.close(code, why);
  };
  return new Promise((resolve) => {
    socket.on('open', () => {
      opened = true;
      lastHeard = Date.now();
    });
    socket.on('error', () => {}); // its close follows, and says what became of the session
    socket.on('close', (code) => {
      clearInterval(beat);
      running?.abort();
      options.signal?.removeEventListener('abort', onAbort);
      if (code === CLOSE.wrongToken) outcome = 'refused';
      resolve(opened ? outcome : 'unreachable');
    });
    socket.on('message', (data) => {
      lastHeard = Date.now();
      if (channel === undefined) {
        const message = parsePlain(data);
        if (coordinatorNonce === '') {
          if (message?.type !== 'hello' || message.protocol !== AGENT_PROTOCOL || typeof message.nonce !== 'string')
            return refuse(CLOSE.protocol, `not a salvo coordinator speaking ${AGENT_PROTOCOL}`);
          coordinatorNonce = message.nonce;
          const proof = tokenProof(options.token, 'agent', coordinatorNonce, agentNonce);
          socket.send(JSON.stringify({ type: 'auth', nonce: agentNonce, proof }));
          return;
        }
        if (message?.type === 'refused') {
          log(`the coordinator refused this agent: ${show(message.reason)}`);
          if (message.reason !== 'full') outcome = 'refused';
          return;
        }
        const expected = tokenProof(options.token, 'coordinator', coordinatorNonce, agentNonce);
        if (message?.type !== 'welcome' || !sameProof(message.proof, expected))
          return refuse(CLOSE.coordinatorUnproven, 'the coordinator did not prove the token; nothing runs');
        if (typeof message.silenceMs === 'number') silenceMs = message.silenceMs;
        channel = new SealedChannel(socket, options.token, 'agent', coordinatorNonce, agentNonce);
        channel.send({ type: 'ready', host: hostname(), pid: process.pid });
        log(`connected to ${url}: waiting for a run`);
        beat = setInterval(() => {
          // A coordinator that went silent cannot take what this agent counts: stop and connect again.
          if (Date.now() - lastHeard > silenceMs) socket.terminate();
          else channel!.send({ type: 'beat' });
        }, BEAT_MS);
        return;
      }
      const message = channel.open(data);
      if (message === undefined) {
        // Tampering on the path, not a wrong token: drop this connection and make a new one.
        log('a message failed its MAC: closing this connection');
        return socket.close(CLOSE.protocol, 'a message failed its MAC');
      }
      if (message.type === 'abort') running?.abort();
      if (message.type !== 'run' || running !== undefined) return;
      const run = message as unknown as RunMessage;
      const controller = (running = new AbortController());
      log(`running segment ${run.options.segment!.index + 1} of ${run.options.segment!.count}`);
      // With `once`, the coordinator may close as soon as it has the result: that close is the end, not a loss.
      const finished = () => {
        if (options.once === true) outcome = 'done';
      };
      void runSegment(channel, run, controller.signal, finished).then(() => {
        running = undefined;
        log(controller.signal.aborted ? 'run stopped' : 'run done');
        if (options.once === true) {
          outcome = 'done';
          socket.close(1000, 'done');
        } else channel!.send({ type: 'ready', host: hostname(), pid: process.pid });
      });
    });
  });
}

/**
 * Serves a coordinator (`runLoad({ agents })`) at `url`: connects, retrying until it is up, and runs
 * the segments it hands out, one at a time, until `signal` aborts (or after one run with `once`).
 * Rejects when the token is refused, by either side.
 */
export async function runAgent(options: AgentOptions): Promise<void> {
  const url = coordinatorUrl(options.url);
  if (typeof options.token !== 'string' || options.token === '')
    throw new SalvoOptionError('agent: a token is required (--token, --token-file or SALVO_AGENT_TOKEN)', {
      option: 'token',
      value: '(hidden)',
    });
  const log = options.log ?? ((line: string) => process.stderr.write(`salvo agent: ${line}\n`));
  let waitMs = RETRY_MIN_MS;
  let said = false;
  while (options.signal?.aborted !== true) {
    const outcome = await session(url, options, log);
    if (outcome === 'done') return;
    if (outcome === 'refused')
      throw new SalvoOptionError(
        `agent: the token was refused by ${url}, or its coordinator's by this agent; nothing ran`,
        {
          option: 'token',
          value: '(hidden)',
        },
      );
    if (outcome === 'unreachable' && !said) log(`waiting for the coordinator at ${url}`);
    said = outcome === 'unreachable';
    waitMs = outcome === 'unreachable' ? Math.min(RETRY_MAX_MS, waitMs * 2) : RETRY_MIN_MS;
    await delay(waitMs, undefined, { signal: options.signal }).catch(() => {});
  }
}
