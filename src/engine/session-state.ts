// What a journey (one walk of `requests` by a connection) keeps from one request to the next beyond
// the hooks' `context`: its cookie jar (`cookies`) and the redirects it follows (`followRedirects`).
// Runs without either never build one, so their requests stay encoded once.
import type { CookieJar } from 'tough-cookie';
import type { ResolvedRequest, ResponseDetails } from '../shared/exchange.js';
import type { Plan } from '../shared/plan.js';

/** tough-cookie, loaded only by a run with `cookies` (`loadSessionLibraries`). */
let Jar: typeof CookieJar | undefined;

/** Loads what the plan's journeys need before an engine is built (its constructor is synchronous). */
export async function loadSessionLibraries(plan: Plan): Promise<void> {
  if (plan.cookies !== undefined) Jar ??= (await import('tough-cookie')).CookieJar;
}

/** The statuses with a `Location` to follow (RFC 9110 15.4); 300 and 304 are answers. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Fields that describe a body, dropped with it when a redirect turns the request into a GET (Fetch's "request-body-header names"). */
const BODY_FIELDS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/**
 * The request that follows a `status` redirect of `request` to `path`, by RFC 9110 15.4's method
 * rules as browsers apply them: 303 turns any method but HEAD into a GET without a body, 301 and
 * 302 turn a POST into one, and 307 and 308 keep the method and the body.
 */
export function redirectRequest(status: number, request: ResolvedRequest, path: string): ResolvedRequest {
  const toGet =
    status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST';
  if (!toGet) return { ...request, path };
  const headers = { ...request.headers };
  for (const field of BODY_FIELDS) delete headers[field];
  return { method: 'GET', path, headers, body: undefined };
}

/**
 * Per user (whose journeys share a jar: a connection, walking `requests`), its jar; per lane, the
 * request it sent last and the redirects followed since its step.
 */
export class SessionState {
  readonly #origin: string;
  readonly #maxRedirects: number;
  /** Keeps a user's jar across its journeys (`cookies: { keep: true }`). */
  readonly #keep: boolean;
  /** Per user; empty without `cookies`. */
  readonly #jars: CookieJar[] = [];
  readonly #cookies: boolean;
  /** Per lane: the request it sent last (a step or a hop), without the jar's `cookie` field. */
  readonly #sent: ResolvedRequest[] = [];
  readonly #hops: number[] = [];

  constructor(plan: Plan) {
    this.#origin = new URL(plan.url).origin;
    this.#maxRedirects = plan.followRedirects ?? 0;
    this.#cookies = plan.cookies !== undefined;
    this.#keep = plan.cookies === 'connection';
    if (this.#cookies && Jar === undefined) throw new Error('cookies need loadSessionLibraries() first');
  }

  /** `user` begins a journey: a new, empty jar, unless it keeps its jar. */
  begin(user: number): void {
    if (this.#cookies && (this.#jars[user] === undefined || !this.#keep)) this.#jars[user] = new Jar!();
  }

  /** A step of `user`'s journey goes out on `lane`: the request with the jar's cookies for its URL. */
  sending(lane: number, user: number, request: ResolvedRequest): ResolvedRequest {
    this.#sent[lane] = request;
    this.#hops[lane] = 0;
    if (!this.#cookies) return request;
    this.#jars[user] ??= new Jar!();
    return this.#withCookies(user, request);
  }

  /**
   * A response to `lane`'s last request: its cookies stored, then the next hop when it is a
   * redirect to follow (same origin, under the limit), with the jar's cookies for its path.
   */
  follow(
    lane: number,
    user: number,
    status: number,
    details: ResponseDetails | undefined,
  ): ResolvedRequest | undefined {
    const request = this.#sent[lane];
    if (request === undefined || details === undefined) return undefined;
    const url = `${this.#origin}${request.path}`;
    const setCookie = details.headers['set-cookie'];
    if (setCookie !== undefined && this.#cookies) {
      const jar = this.#jars[user]!;
      for (const line of setCookie.split('\n')) jar.setCookieSync(line, url, { ignoreError: true });
    }
    const location = details.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined || this.#hops[lane]! >= this.#maxRedirects)
      return undefined;
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      return undefined;
    }
    // Another origin is not what this run's connections reach: the redirect is the request's answer.
    if (target.origin !== this.#origin) return undefined;
    const hop = redirectRequest(status, request, `${target.pathname}${target.search}`);
    this.#sent[lane] = hop;
    this.#hops[lane]!++;
    return this.#cookies ? this.#withCookies(user, hop) : hop;
  }

  #withCookies(user: number, request: ResolvedRequest): ResolvedRequest {
    const cookies = this.#jars[user]!.getCookieStringSync(`${this.#origin}${request.path}`);
    if (cookies === '') return request;
    const own = request.headers.cookie;
    return { ...request, headers: { ...request.headers, cookie: own === undefined ? cookies : `${own}; ${cookies}` } };
  }
}
