// `runLoad` with `live`: the live page's server started before the run, fed each second the run
// reports, and turned into the report when the run ends.
import { importOptionModules } from '../option-modules.js';
import { renderReport } from '../report/render.js';
import { runLoad as runWithoutPage } from '../run.js';
import { liveSettings } from '../shared/live-settings.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { LoadResult, ProgressEvent } from '../shared/load-result.js';
import type { RunControl } from '../shared/run-control.js';
import type { RunKind } from '../shared/run-kind.js';
import { LiveServer } from './server.js';
import { liveView, type LiveRun } from './view.js';

/**
 * Runs a load test and resolves with its result; with `live`, a page draws it as it goes (see
 * docs/live.md). Bad options reject with a SalvoOptionError or SalvoRangeError naming the option.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (typeof options !== 'object' || options === null || options.live === undefined) return runWithoutPage(options);
  return runLive(options, runWithoutPage);
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

/**
 * Runs `run` (runLoad without a page, or startLoad's) with the live page of `options.live`. Its
 * controls call `control`, the run's handle; without one, the page can only stop the run, through
 * its signal. The page's server closes when the run ends, once the open pages have the report.
 */
export async function runLive(
  options: LoadOptions,
  run: (options: LoadOptions) => Promise<LoadResult>,
  control?: RunControl,
): Promise<LoadResult> {
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
  let result: LoadResult;
  try {
    settings.onLive?.({ url: server.url });
    result = await run({
      ...rest,
      signal: controller.signal,
      onProgress: (event: ProgressEvent) => {
        server.second(event);
        progress?.(event);
      },
    });
  } catch (error) {
    await server.fail(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  await server.finish(renderReport(result));
  return result;
}
