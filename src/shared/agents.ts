// The shapes of a coordinated run (`agents`): what the coordinator is told, and what its result says of each agent.
import type { Segment } from './terms.js';

/**
 * `runLoad({ ..., agents })`: this process is the coordinator of `expect` agents (`salvo agent URL`)
 * and sends no load itself. It listens on `listen`, waits for them, hands each its segment of the
 * plan and merges their seconds live.
 */
export interface AgentsOptions {
  /** How many agents run the plan: it is split into this many exact segments. */
  expect: number;
  /** A port, or `host:port`, to listen on for agents; the host is 127.0.0.1 unless given. */
  listen: number | string;
  /** The shared secret both sides prove they know (HMAC over nonces; never sent). */
  token: string;
  /** How many agents may be lost while the run goes on (default 0: a lost agent fails the run). */
  tolerateLost?: number;
  /** How long to wait for `expect` agents to connect and prove the token (default 60 s). */
  readyTimeout?: number | string;
  /** An agent silent this long, or this far behind the others' seconds, is lost (default 5 s). */
  lostAfter?: number | string;
  /** Files the task module reads (paths relative to the working directory), sent to every agent. */
  files?: string[];
  /**
   * Listen with TLS (`wss:`): `https.createServer` options, `key` and `cert` at least. Agents verify the
   * certificate (a private CA: `NODE_EXTRA_CA_CERTS`, or `runAgent`'s `tls.ca`).
   */
  tls?: import('node:tls').SecureContextOptions & import('node:tls').TlsOptions;
}

/** What an agent had counted when it was lost: its last reported second and the totals up to it. */
export interface AgentLoss {
  /** Wall-clock time (epoch ms) the coordinator gave up on it. */
  atMs: number;
  /** Why: `'disconnected'`, `'silent'`, `'behind'` or `'failed: ...'`. */
  reason: string;
  /** Its last second the coordinator received (-1: none), kept in the result exactly once. */
  lastSecond: number;
  /** The share of the whole plan it did not run, 0..1. */
  notRunShare: number;
}

/** One agent of a coordinated run, in `result.agents`. */
export interface AgentResult {
  /** Its place in the fleet, from 0: also its segment's index. */
  id: number;
  /** The address it connected from. */
  address: string;
  segment: Segment;
  /** What it counted (for a lost agent, up to its last reported second). */
  requests: { sent: number; completed: number; errors: number };
  /** The codes of its own result's warnings (`GENERATOR_SATURATED`, `NO_SUCCESS`, ...): which machine said what. */
  warnings: string[];
  /** Present when it was lost during the run. */
  lost?: AgentLoss;
}

/** `runAgent` (`salvo agent URL`): where the coordinator is and the token it must prove. */
export interface AgentOptions {
  /** The coordinator's address: `ws://host:port` (or `wss:`; `http:`/`https:` are read as those). */
  url: string;
  token: string;
  /** Return after one run instead of waiting for the next. */
  once?: boolean;
  /** Stop waiting or running: the agent closes its connection and returns. */
  signal?: AbortSignal;
  /** Where the agent says what it does, a line at a time (default: stderr). */
  log?: (line: string) => void;
  /** `tls.connect` options for a `wss:` coordinator (`ca` for a private certificate). */
  tls?: import('node:tls').ConnectionOptions;
}
