// `runLoad` with `live`: the live page's server started before the run, fed each second the run
// reports, and turned into the report when the run ends.
import { importOptionModules } from '../option-modules.js';
import { renderReport } from '../report/render.js';
import { startLoad as startWithoutPage, type LoadHandle } from '../start-load.js';
import { liveSettings } from '../shared/live-settings.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { LoadResult, ProgressEvent } from '../shared/load-result.js';
import type { RunControl } from '../shared/run-control.js';
import type { RunKind } from '../shared/run-kind.js';
import { LiveServer } from './server.js';
import { liveView, type LiveRun } from './view.js';

/**
 * Starts a load test and returns its handle (see start-load.ts); with `live`, a page draws it as it
 * goes and its controls call this same handle (docs/live.md).
 */
export function startLoad(options: LoadOptions): LoadHandle {
  if (typeof options !== 'object' || options === null || options.live === undefined) return startWithoutPage(options);
  const started = startWithLive(options, startWithoutPage);
  return { ...started, stop: () => Promise.resolve(started.stop()) };
}

/**
 * Runs a load test and resolves with its result; with `live`, a page draws it as it goes (see
 * docs/live.md). Bad options reject with a SalvoOptionError or SalvoRangeError naming the option.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return startLoad(options).result;
}

/** What the page says of the run before its first second, from its options. */
function liveRun(options: LoadOptions): LiveRun {
  const first = Object.values(options.scenarios ?? {})[0] ?? {};
  const given = { ...first, ...options };
  const url = given.url ?? (typeof given.task === 'string' ? `task:${given.task}` : 'task');
  let kind: RunKind = 'http';
  if (given.task !== undefined) kind = 'task';
  else if (given.socketio !== undefined) kind = 'socketio';
  else if (/^wss?:/i.test(url)) kind = 'websocket';
  else if (given.stream?.subscribe === true) kind = 'subscription';
  const transport = {
    http: given.transport ?? 'net',
    subscription: given.transport ?? 'net',
    task: 'task',
    websocket: 'websocket',
    socketio: 'socket.io',
  }[kind];
  return { url, kind, transport };
}

/** A live page opened for a run (or a capacity search's runs), and what to run with it. */
export interface LivePage {
  /** The options without `live`: `onProgress` feeds the page too, and the page's stop aborts `signal`. */
  options: LoadOptions;
  /** The end: the open pages are sent `html`, the report, and the server closes. */
  finish(html: string): Promise<void>;
  /** A run that rejected: the open pages are told why, and the server closes. */
  fail(error: unknown): Promise<void>;
}

/**
 * Starts the page of `options.live`, or nothing without one. Its controls call `control`, the run's
 * handle; without one, the page can only stop the run, through its signal. Runs one after another
 * (a capacity search's steps) are drawn one after another: each run's seconds start at 0, and the
 * page places them after the last run's.
 */
export async function openLivePage(options: LoadOptions, control?: RunControl): Promise<LivePage | undefined> {
  if (options.live === undefined) return undefined;
  const { live, ...rest } = options;
  const settings = liveSettings(live);
  const { options: loaded } = await importOptionModules({ onProgress: options.onProgress } as LoadOptions);
  const progress = loaded.onProgress as ((event: ProgressEvent) => void) | undefined;
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (options.signal?.aborted === true) abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  const described = liveRun(options);
  const server = await LiveServer.start({
    port: settings.port,
    host: settings.host,
    control: settings.control,
    runControl: control ?? { stop: abort },
    view: (seconds) => liveView(described, seconds),
    title: `salvo: ${described.url} (live)`,
  });
  let offset = 0;
  let last = -1;
  const onProgress = (event: ProgressEvent) => {
    if (event.second + offset <= last) offset = last + 1;
    last = event.second + offset;
    server.second(offset === 0 ? event : { ...event, second: last });
    progress?.(event);
  };
  const done = () => options.signal?.removeEventListener('abort', abort);
  try {
    settings.onLive?.({ url: server.url });
  } catch (error) {
    done();
    await server.close();
    throw error;
  }
  return {
    options: { ...rest, signal: controller.signal, onProgress },
    finish: (html) => {
      done();
      return server.finish(html);
    },
    fail: (error) => {
      done();
      return server.fail(error instanceof Error ? error.message : String(error));
    },
  };
}

/** Runs `run` (runLoad without a page, or startLoad's) with the live page of `options.live`. */
export async function runLive(
  options: LoadOptions,
  run: (options: LoadOptions) => Promise<LoadResult>,
  control?: RunControl,
): Promise<LoadResult> {
  const page = (await openLivePage(options, control))!;
  let result: LoadResult;
  try {
    result = await run(page.options);
  } catch (error) {
    await page.fail(error);
    throw error;
  }
  await page.finish(renderReport(result));
  return result;
}

/** A started run: its result to come and its controls (`startLoad`'s handle). */
export interface StartedRun extends RunControl {
  readonly result: Promise<LoadResult>;
}

/**
 * `start` (startLoad) with the live page of `options.live`, whose controls call the run's own
 * handle. The page opens before the run starts, so a call made meanwhile waits for the handle and
 * is then made, in order; `stop` before the start ends the run as soon as it starts.
 */
export function startWithLive(options: LoadOptions, start: (options: LoadOptions) => StartedRun): StartedRun {
  let handle: StartedRun | undefined;
  const waiting: Array<(handle: StartedRun) => void> = [];
  const call = <T>(action: (handle: StartedRun) => T): T | undefined => {
    if (handle !== undefined) return action(handle);
    waiting.push(action);
    return undefined;
  };
  const control: RunControl = {
    setRate: (rate) => void call((run) => run.setRate(rate)),
    setConnections: (connections) => void call((run) => run.setConnections(connections)),
    stop: () =>
      call((run) => run.stop()) ??
      result.then(
        () => undefined,
        () => undefined,
      ),
  };
  const result = runLive(
    options,
    (withPage) => {
      handle = start(withPage);
      for (const action of waiting.splice(0)) {
        try {
          action(handle);
        } catch {
          // A call made before the start that the run refuses is dropped: no caller is left to hear it.
        }
      }
      return handle.result;
    },
    control,
  );
  return { result, ...control };
}
