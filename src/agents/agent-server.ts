// The coordinator's listening side: accepts agents, makes each prove the token and proves it back,
// and keeps the ready ones until a run takes them. An agent that fails the proof is refused and told so.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import { WebSocketServer, type WebSocket } from 'ws';
import { SalvoOptionError } from '../shared/errors.js';
import type { PlannedAgents } from './options.js';
import { AGENT_PROTOCOL, CLOSE, newNonce, parsePlain, sameProof, SealedChannel, tokenProof } from './channel.js';

/** An authenticated agent: its sealed channel and where it connected from. */
export interface AgentLink {
  address: string;
  socket: WebSocket;
  channel: SealedChannel;
  /** Its messages after `ready`, sealed and checked; replaced by the run that takes it. */
  onMessage: (message: { type: string } & Record<string, unknown>) => void;
  onClose: () => void;
  lastHeardMs: number;
}

/** How long an agent may take to answer the hello before it is dropped. */
const HANDSHAKE_MS = 5000;
/** A run's plan and files are far below this. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export class AgentServer {
  readonly #server: WebSocketServer;
  readonly #https: Server | undefined;
  readonly #planned: PlannedAgents;
  readonly #ready: AgentLink[] = [];
  /** Who was refused and why, for the error when too few agents are ready. */
  readonly refused: string[] = [];
  #onReady: (() => void) | undefined;
  /** Agents already in a run: a newcomer past `expect` is refused as `full`. */
  #taken = false;
  /** Ready agents hear a beat each second while they wait for the others, so that they know the coordinator lives. */
  readonly #beat = setInterval(() => {
    if (!this.#taken) for (const link of this.#ready) link.channel.send({ type: 'beat' });
  }, 1000);

  private constructor(server: WebSocketServer, planned: PlannedAgents, https: Server | undefined) {
    this.#server = server;
    this.#https = https;
    this.#planned = planned;
    server.on('connection', (socket, request) => this.#accept(socket, request.socket.remoteAddress ?? '?'));
  }

  /** Listens on `agents.listen`; rejects when the address cannot be bound. */
  static async listen(planned: PlannedAgents): Promise<AgentServer> {
    // With TLS the WebSocket server rides an HTTPS server that answers nothing else.
    const https = planned.tls === undefined ? undefined : createServer(planned.tls);
    const server =
      https === undefined
        ? new WebSocketServer({ host: planned.host, port: planned.port, maxPayload: MAX_MESSAGE_BYTES })
        : new WebSocketServer({ server: https, maxPayload: MAX_MESSAGE_BYTES });
    https?.listen(planned.port, planned.host);
    const listening = https ?? server;
    try {
      // `once` rejects with the 'error' event's error: the address in use, or not this machine's.
      await once(listening, 'listening');
    } catch (error) {
      server.close();
      const { code, message } = error as NodeJS.ErrnoException;
      throw new SalvoOptionError(
        `agents.listen: cannot listen on ${planned.host}:${planned.port}: ${code ?? message}`,
        {
          option: 'agents.listen',
          value: `${planned.host}:${planned.port}`,
        },
      );
    }
    return new AgentServer(server, planned, https);
  }

  /** The port it listens on (useful when `listen` was 0). */
  get port(): number {
    return ((this.#https ?? this.#server).address() as { port: number }).port;
  }

  #accept(socket: WebSocket, address: string): void {
    const coordinatorNonce = newNonce();
    const timer = setTimeout(() => socket.terminate(), HANDSHAKE_MS);
    socket.on('error', () => {});
    socket.send(JSON.stringify({ type: 'hello', protocol: AGENT_PROTOCOL, nonce: coordinatorNonce }));
    socket.once('message', (data) => {
      clearTimeout(timer);
      const message = parsePlain(data);
      const agentNonce = typeof message?.nonce === 'string' ? message.nonce : '';
      const expected = tokenProof(this.#planned.token, 'agent', coordinatorNonce, agentNonce);
      if (message?.type !== 'auth' || agentNonce.length < 32 || !sameProof(message.proof, expected)) {
        this.refused.push(`${address} (wrong token)`);
        socket.send(JSON.stringify({ type: 'refused', reason: 'wrong token' }));
        socket.close(CLOSE.wrongToken, 'wrong token');
        return;
      }
      if (this.#taken || this.#ready.length >= this.#planned.expect) {
        socket.send(JSON.stringify({ type: 'refused', reason: 'full' }));
        socket.close(CLOSE.full, 'full');
        return;
      }
      const proof = tokenProof(this.#planned.token, 'coordinator', coordinatorNonce, agentNonce);
      // The agent gives up on a coordinator silent twice as long as it gives up on an agent.
      socket.send(JSON.stringify({ type: 'welcome', proof, silenceMs: 2 * this.#planned.lostAfterMs }));
      const channel = new SealedChannel(socket, this.#planned.token, 'coordinator', coordinatorNonce, agentNonce);
      const link: AgentLink = {
        address,
        socket,
        channel,
        onMessage: () => {},
        onClose: () => {},
        lastHeardMs: Date.now(),
      };
      socket.on('message', (sealed) => {
        const opened = channel.open(sealed);
        if (opened === undefined) return socket.close(CLOSE.protocol, 'a message failed its MAC');
        link.lastHeardMs = Date.now();
        if (opened.type === 'ready' && !this.#ready.includes(link) && !this.#taken) {
          this.#ready.push(link);
          this.#onReady?.();
        }
        link.onMessage(opened);
      });
      socket.on('close', () => {
        const at = this.#ready.indexOf(link);
        if (at >= 0 && !this.#taken) this.#ready.splice(at, 1);
        link.onClose();
      });
    });
  }

  /** Resolves with `expect` ready agents, or undefined when `timeoutMs` passes (or `signal` aborts) first. */
  async take(timeoutMs: number, signal: AbortSignal | undefined): Promise<AgentLink[] | undefined> {
    const enough = () => this.#ready.length >= this.#planned.expect;
    if (!enough()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#onReady = undefined;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        this.#onReady = () => {
          if (enough()) done();
        };
      });
    }
    if (!enough()) return undefined;
    this.#taken = true;
    return this.#ready.slice(0, this.#planned.expect);
  }

  /** How many agents are ready now. */
  get readyCount(): number {
    return this.#ready.length;
  }

  /** Stops listening and closes every agent's connection. */
  async close(): Promise<void> {
    clearInterval(this.#beat);
    for (const client of this.#server.clients) client.close(1000, 'run over');
    // An agent that does not answer the close within a second is cut off.
    const cutOff = setTimeout(() => {
      for (const client of this.#server.clients) client.terminate();
    }, 1000);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    if (this.#https !== undefined) await new Promise<void>((resolve) => this.#https!.close(() => resolve()));
    clearTimeout(cutOff);
  }
}
