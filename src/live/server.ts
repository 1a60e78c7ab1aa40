// The live page's server: a small HTTP server in the main thread that serves the page, sends each
// second as a server-sent event to every open page, and takes the controls when the run allows them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProgressEvent } from '../shared/load-result.js';
import type { RunControl } from '../shared/run-control.js';
import { renderLivePage } from './page.js';
import type { LiveView } from './view.js';

export interface LiveServerOptions {
  port: number;
  host: string;
  /** Whether the page may steer the run (`live.control`): without it the controls answer 403. */
  control: boolean;
  /** The run's handle; a control it lacks answers 501. */
  runControl?: Partial<RunControl>;
  /** The page's content for the seconds so far, drawn once per second however many pages are open. */
  view: (seconds: readonly ProgressEvent[]) => LiveView;
  title: string;
}

/** A page that reads nothing while this much waits for it is dropped (a tab frozen in the background). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** How long the end of a run waits for the open pages to take the final report. */
const FINAL_FLUSH_MS = 2000;
const MAX_BODY_BYTES = 1024;
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.startsWith('127.');
}

export class LiveServer {
  readonly #server: Server;
  readonly #options: LiveServerOptions;
  /** Every second so far, each as its `second` event: a page opened late is sent them all. */
  readonly #frames: string[] = [];
  readonly #seconds: ProgressEvent[] = [];
  readonly #clients = new Set<ServerResponse>();
  #view: { count: number; frame: string } | undefined;
  #final: string | undefined;
  #url = '';

  private constructor(options: LiveServerOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => this.#handle(request, response));
    // Nothing here keeps the process alive: the run does while it goes, and `close` ends the rest.
    this.#server.on('connection', (socket) => socket.unref());
  }

  /** Listens on `host:port` (0: a free port); rejects when the address cannot be bound. */
  static async start(options: LiveServerOptions): Promise<LiveServer> {
    const live = new LiveServer(options);
    await new Promise<void>((resolve, reject) => {
      live.#server.once('error', reject);
      live.#server.listen(options.port, options.host, () => {
        live.#server.off('error', reject);
        resolve();
      });
    });
    live.#server.unref();
    const { address, port } = live.#server.address() as AddressInfo;
    live.#url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
    return live;
  }

  /** The page's address: `http://127.0.0.1:PORT/`. */
  get url(): string {
    return this.#url;
  }

  /** Pages open now. */
  get pages(): number {
    return this.#clients.size;
  }

  /** One closed second of the run: kept for pages opened later, sent with the redrawn view to the open ones. */
  second(event: ProgressEvent): void {
    this.#seconds.push(event);
    const frame = `event: second\ndata: ${JSON.stringify(event)}\n\n`;
    this.#frames.push(frame);
    if (this.#clients.size === 0) return;
    const view = this.#viewFrame();
    for (const client of this.#clients) this.#send(client, frame + view);
  }

  /**
   * The run's end: every open page is sent `html` (the report, which replaces it) and the server
   * closes, once the pages took it or after 2 s. A page opened after this finds nothing.
   */
  async finish(html: string): Promise<void> {
    this.#final = html;
    await this.#endAll(`event: final\ndata: ${JSON.stringify(html)}\n\n`);
    await this.close();
  }

  /** A run that rejected: the open pages say so, and the server closes. */
  async fail(message: string): Promise<void> {
    await this.#endAll(`event: failed\ndata: ${JSON.stringify(message)}\n\n`);
    await this.close();
  }

  close(): Promise<void> {
    for (const client of this.#clients) client.destroy();
    this.#clients.clear();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #endAll(frame: string): Promise<void> {
    const ends = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          client.once('close', resolve);
          client.end(frame, resolve);
        }),
    );
    this.#clients.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FINAL_FLUSH_MS);
      timer.unref();
    });
    return Promise.race([Promise.all(ends).then(() => undefined), late]).finally(() => clearTimeout(timer));
  }

  #viewFrame(): string {
    if (this.#view?.count !== this.#seconds.length) {
      const view = this.#options.view(this.#seconds);
      this.#view = { count: this.#seconds.length, frame: `event: view\ndata: ${JSON.stringify(view)}\n\n` };
    }
    return this.#view.frame;
  }

  #send(client: ServerResponse, text: string): void {
    if (client.writableLength > MAX_BUFFERED_BYTES) {
      this.#clients.delete(client);
      client.destroy();
      return;
    }
    client.write(text);
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    this.#route(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!response.headersSent) response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: message }));
    });
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Bound to loopback, a page reached under another name is a DNS-rebinding site's: refused.
    const hostName = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (isLoopback(this.#options.host) && !isLoopback(hostName))
      throw new HttpError(403, 'this page answers only on a loopback address');
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      const html =
        this.#final ?? renderLivePage(this.#options.title, this.#options.view(this.#seconds), this.#options.control);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : html);
      return;
    }
    // The page has no icon: an empty answer, not a 404 in the browser's console.
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    if (path === '/events' && request.method === 'GET') return this.#subscribe(response);
    if (path?.startsWith('/control/') && request.method === 'POST')
      return this.#control(path.slice('/control/'.length), request, response);
    throw new HttpError(404, `no ${request.method} ${path} here`);
  }

  #subscribe(response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    if (this.#final !== undefined) {
      response.end(`event: final\ndata: ${JSON.stringify(this.#final)}\n\n`);
      return;
    }
    // Every second so far, then the page drawn for them: a late page misses nothing.
    response.write(this.#frames.join('') + (this.#seconds.length > 0 ? this.#viewFrame() : ''));
    this.#clients.add(response);
    // A page that goes away is forgotten: nothing more is written for it.
    response.once('close', () => this.#clients.delete(response));
  }

  async #control(action: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!this.#options.control)
      throw new HttpError(403, 'this run does not allow controls: start it with live: { control: true }');
    // A JSON content type makes a browser ask first (CORS preflight), which no other page gets past.
    if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
      throw new HttpError(415, 'a control is a POST of application/json');
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`)
      throw new HttpError(403, `controls are taken from this page only, not from ${origin}`);
    const body = await readBody(request);
    const control = this.#options.runControl ?? {};
    if (action === 'stop') {
      if (control.stop === undefined) throw new HttpError(501, 'this run cannot be stopped from here');
      await control.stop();
    } else if (action === 'rate' || action === 'connections') {
      const value = (body as { value?: unknown } | undefined)?.value;
      const whole = action === 'connections';
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value)))
        throw new HttpError(
          400,
          `${action} must be a ${whole ? 'whole ' : ''}number above 0; got ${JSON.stringify(value)}`,
        );
      const set = action === 'rate' ? control.setRate : control.setConnections;
      if (set === undefined) throw new HttpError(501, `this run's ${action} cannot be changed (startLoad's can)`);
      try {
        set.call(control, value);
      } catch (error) {
        throw new HttpError(400, error instanceof Error ? error.message : String(error));
      }
    } else throw new HttpError(404, `no control ${action}: stop, rate or connections`);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: true }));
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > MAX_BODY_BYTES) throw new HttpError(413, 'a control is a small JSON body');
  }
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}
