import { lanesPerConnection, type Plan, type PlannedRequest } from '../shared/plan.js';
import { resolveRequestSpec } from '../shared/request-spec.js';
import { compileExpect, type ResponseChecker } from '../stats/checks.js';
import type { Lane, Transport } from '../transports/transport.js';
import type { ResponseDetails } from '../shared/exchange.js';
import type { RequestContext, RequestSpec } from '../shared/load-options.js';
import { SessionState } from './session-state.js';
import { LlmRequests } from './llm-requests.js';
import { Journeys } from './journeys.js';
import { stepOption, type PlannedJourney } from '../shared/journey.js';

const NO_CONTEXT: RequestContext = Object.freeze({ values: {}, connection: -1, iteration: 0 }) as RequestContext;
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * What the engine sends and what it makes of each answer: the run's requests in order, per
 * connection, each encoded once by the transport (or per send, through a `setupRequest` hook), and
 * the `expect` checks and `onResponse` hooks applied to the responses. The engine itself only moves
 * opaque prepared payloads between lanes and the transport; this is the HTTP side of an exchange.
 */
export class RequestSequence {
  /** What the last hook that failed threw (`next` returned undefined, or `answered` false), for `errors.samples`. */
  thrown: unknown;
  /** The transport must hand headers and bodies to `answered` (checks or hooks read them). */
  readonly captureResponses: boolean;
  readonly checker: ResponseChecker | undefined;
  /** With several request names, each name's own checks of the same `expect`. */
  readonly namedCheckers: ResponseChecker[] | undefined;
  /** `cookies` or `followRedirects`: every request is encoded per send, and each answer goes through `follow`. */
  readonly session: SessionState | undefined;
  readonly #requests: PlannedRequest[];
  readonly #specs: RequestSpec[] | undefined;
  /** Per connection: the index of the request it sends next. */
  readonly #cursor: Uint32Array;
  /** Per connection: what its hooks share (`RequestContext`); empty when no request has a hook. */
  readonly #contexts: RequestContext[];
  readonly #journey: PlannedJourney | undefined;
  #transport!: Transport;
  #prepared: unknown[] = [];
  /**
   * Closed loop with `amount` and a sequence of several requests: measured requests of the amount no
   * connection has reserved yet, and per connection those it reserved and has not sent. Undefined: no limit.
   */
  #unreserved: number | undefined;
  readonly #reserved: Uint32Array;
  /** `llm`: each request's body built per send, by lane. */
  readonly #llm: LlmRequests | undefined;
  /** `think`, `flows`, `feed`: each lane walks journeys, its hooks' context its own (by `lane.id`). */
  readonly journeys: Journeys | undefined;

  constructor(plan: Plan, specs: RequestSpec[] | undefined, connections: number, lanes = connections) {
    this.session =
      plan.cookies !== undefined || plan.followRedirects !== undefined ? new SessionState(plan) : undefined;
    this.#requests = this.session ? plan.requests.map((request) => ({ ...request, dynamic: true })) : plan.requests;
    // Not under connection stages: a connection parked by a ramp-down would keep its reservation.
    const steady = plan.loop === 'closed' && plan.stages === undefined;
    if (steady && plan.amount !== undefined && plan.requests.length > 1) this.#unreserved = plan.amount;
    this.#reserved = new Uint32Array(this.#unreserved === undefined ? 0 : connections);
    this.#specs = specs;
    this.checker = plan.expect ? compileExpect(plan.expect) : undefined;
    this.namedCheckers =
      plan.expect && plan.names.length > 1 ? plan.names.map(() => compileExpect(plan.expect!)) : undefined;
    if (plan.llm !== undefined)
      this.#llm = new LlmRequests(plan.llm, plan.requests[0]!, connections * lanesPerConnection(plan));
    this.captureResponses =
      (this.checker?.needsDetails ?? false) ||
      this.#requests.some((r) => r.capture) ||
      this.session !== undefined ||
      this.#llm?.needsAnswers === true;
    this.#cursor = new Uint32Array(connections);
    this.#journey = plan.journey;
    if (plan.journey !== undefined) this.journeys = new Journeys(plan.journey, lanes);
    this.#contexts = this.#requests.some((r) => r.dynamic || r.capture)
      ? Array.from({ length: plan.journey === undefined ? connections : lanes }, (_, connection) => ({
          values: {},
          connection,
          iteration: 0,
        }))
      : [];
  }

  /** Encodes every request without a `setupRequest` hook once, with the transport that sends them. */
  bind(transport: Transport): void {
    this.#transport = transport;
    this.#prepared = this.#requests.map((request) => (request.dynamic ? undefined : transport.prepare(request)));
  }

  /**
   * Whether `connection` may send its next measured request. Under a closed-loop `amount`, a connection
   * reserves the rest of its walk through the sequence (or what is left of the amount) before it sends,
   * so that every walk but one is whole and each request of the sequence gets an equal share, give or
   * take one; a connection with nothing reserved once the amount is all reserved sends no more.
   */
  mayMeasure(connection: number): boolean {
    if (this.#unreserved === undefined || this.#reserved[connection]! > 0) return true;
    if (this.#unreserved === 0) return false;
    const reserved = Math.min(this.#requests.length - this.#cursor[connection]!, this.#unreserved);
    this.#reserved[connection] = reserved;
    this.#unreserved -= reserved;
    return true;
  }

  /**
   * The payload for the next request on `lane`'s connection (its index goes to `lane.requestIndex`),
   * or undefined when its `setupRequest` hook threw or built an invalid request.
   */
  next(lane: Lane): unknown {
    if (this.journeys !== undefined) return this.#nextStep(lane, this.journeys);
    const index = this.#cursor[lane.connection]!;
    const wrapped = this.skip(lane);
    if (this.#llm !== undefined) return this.#transport.prepare(this.#llm.next(lane.id));
    const prepared = this.#requests[index]!.dynamic ? this.#prepareDynamic(lane, index) : this.#prepared[index];
    if (wrapped && this.#contexts.length > 0) this.#contexts[lane.connection]!.iteration++;
    return prepared;
  }

  /**
   * Moves `lane`'s connection past its next request (its index to `lane.requestIndex`) without
   * building it: a request counted as failed without being sent. True when the walk wrapped.
   */
  skip(lane: Lane): boolean {
    const index = this.#cursor[lane.connection]!;
    const following = index + 1;
    const wrapped = following === this.#requests.length;
    this.#cursor[lane.connection] = wrapped ? 0 : following;
    lane.requestIndex = index;
    // `lane.measured` last: a warm-up runs the same loads as measuring (see the engine's `#recorders`).
    if (this.#unreserved !== undefined && lane.measured && this.#reserved[lane.connection]! > 0)
      this.#reserved[lane.connection]!--;
    return wrapped;
  }

  /** `next` for a lane walking journeys: its journey's next step, its context told of a new journey. */
  #nextStep(lane: Lane, journeys: Journeys): unknown {
    const begins = journeys.beginsWith(lane);
    const index = (lane.requestIndex = journeys.take(lane));
    const context = this.#contexts[lane.id];
    if (begins && context !== undefined) Object.assign(context, journeys.describe(lane));
    return this.#requests[index]!.dynamic ? this.#prepareDynamic(lane, index, begins) : this.#prepared[index];
  }

  /** How the options name request `index`: `requests[3]`, or `flows[1].requests[0]` (for error messages). */
  stepOption(index: number): string {
    return stepOption(this.#journey, index);
  }

  /** Whose context and cookie jar a lane's request uses: its connection's walk, or with journeys its own. */
  #user(lane: Lane): number {
    return this.journeys === undefined ? lane.connection : lane.id;
  }

  #prepareDynamic(lane: Lane, index: number, begins = index === 0): unknown {
    const spec = this.#specs?.[index];
    const user = this.#user(lane);
    const context = this.#contexts[user] ?? NO_CONTEXT;
    try {
      const draft: RequestSpec = { ...spec, headers: { ...spec?.headers } };
      const built = spec?.setupRequest?.(draft, context) ?? draft;
      const request = resolveRequestSpec(this.stepOption(index), built, this.#requests[index]!);
      const session = this.session;
      if (session === undefined) return this.#transport.prepare(request);
      // A connection's walk of the sequence (or a lane's journey) is one user's: its start begins the next one.
      if (begins) session.begin(user);
      return this.#transport.prepare(session.sending(lane.id, user, request));
    } catch (error) {
      this.thrown = error;
      return undefined;
    }
  }

  /**
   * With `session`, before `answered`: stores a response's cookies, and gives the payload of the
   * redirect it is to follow on the same lane, or undefined when it is the request's answer.
   */
  follow(lane: Lane, status: number, details: ResponseDetails | undefined): unknown {
    const hop = this.session!.follow(lane.id, this.#user(lane), status, details);
    if (hop === undefined) return undefined;
    try {
      return this.#transport.prepare(hop);
    } catch {
      return undefined;
    }
  }

  /**
   * A response to `lane`'s request: checked when measured, then given to its `onResponse` hook.
   * False when the hook threw.
   */
  answered(lane: Lane, status: number, details: ResponseDetails | undefined): boolean {
    if (this.checker !== undefined && lane.measured) {
      this.checker.check(status, details);
      this.namedCheckers?.[this.#requests[lane.requestIndex]!.nameIndex]!.check(status, details);
    }
    this.#llm?.answered(lane.id, status, details?.body);
    if (!this.#requests[lane.requestIndex]!.capture) return true;
    try {
      this.#specs?.[lane.requestIndex]?.onResponse?.(
        status,
        details?.body ?? Buffer.alloc(0),
        this.#contexts[this.#user(lane)] ?? NO_CONTEXT,
        details?.headers ?? NO_HEADERS,
      );
      return true;
    } catch (error) {
      this.thrown = error;
      return false;
    }
  }
}
