// The coordinator-agent wire: a WebSocket carrying JSON. Both sides prove the shared token by an HMAC
// over nonces of both (the token itself never crosses), then every message carries an HMAC under a
// key of that session over its direction and sequence number, so none can be injected, replayed or reflected.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebSocket } from 'ws';

/** The protocol's name and version: both sides refuse another. */
export const AGENT_PROTOCOL = 'salvo-agent/1';

/** WebSocket close codes the two sides use to say why. */
export const CLOSE = { wrongToken: 4401, coordinatorUnproven: 4403, full: 4409, protocol: 4400 } as const;

export type Role = 'agent' | 'coordinator';

/** A fresh random nonce. */
export const newNonce = (): string => randomBytes(32).toString('hex');

/** What `role` sends to prove it knows `token`, bound to both sides' nonces. */
export function tokenProof(token: string, role: Role, coordinatorNonce: string, agentNonce: string): string {
  return createHmac('sha256', token)
    .update(`${AGENT_PROTOCOL}\n${role}\n${coordinatorNonce}\n${agentNonce}`)
    .digest('hex');
}

/** Compares two hex proofs in constant time. */
export function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
}

/** Parses a handshake message (plain JSON, before the session is sealed); undefined when it is not one. */
export function parsePlain(data: unknown): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(String(data));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One authenticated session's messages: each sent with its MAC, each received checked in order. */
export class SealedChannel {
  readonly #socket: WebSocket;
  readonly #key: Buffer;
  readonly #role: Role;
  #sent = 0;
  #received = 0;

  constructor(socket: WebSocket, token: string, role: Role, coordinatorNonce: string, agentNonce: string) {
    this.#socket = socket;
    this.#role = role;
    this.#key = createHmac('sha256', token).update(`session\n${coordinatorNonce}\n${agentNonce}`).digest();
  }

  #mac(role: Role, sequence: number, body: string): string {
    return createHmac('sha256', this.#key).update(`${role}\n${sequence}\n${body}`).digest('hex');
  }

  /** Sends `message` sealed; a closed socket drops it (the other side's loss is noticed by its close). */
  send(message: { type: string } & Record<string, unknown>): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    const body = JSON.stringify(message);
    this.#socket.send(`${this.#mac(this.#role, this.#sent++, body)} ${body}`);
  }

  /** The message inside `data`, or undefined when its MAC is wrong (then the channel should be closed). */
  open(data: unknown): ({ type: string } & Record<string, unknown>) | undefined {
    const text = String(data);
    const space = text.indexOf(' ');
    if (space < 0) return undefined;
    const body = text.slice(space + 1);
    const from: Role = this.#role === 'agent' ? 'coordinator' : 'agent';
    if (!sameProof(text.slice(0, space), this.#mac(from, this.#received, body))) return undefined;
    this.#received++;
    const message = parsePlain(body);
    return typeof message?.type === 'string' ? (message as { type: string } & Record<string, unknown>) : undefined;
  }

  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason);
  }
}
