// The options given as functions or module specifiers: what cannot cross to worker threads, and the
// one asynchronous step of validation, importing the modules named by `task`, `requests` and `onProgress`.
import { SalvoOptionError } from './shared/errors.js';
import { importExport, moduleUrl } from './workers/modules.js';
import type { LoadOptions, RequestSpec } from './shared/load-options.js';
import { show } from './shared/validate.js';
import { importTask, type ImportedTask } from './workers/task-module.js';

/**
 * With workers > 1 the plan is copied into each thread, and functions cannot be copied. Hooks come
 * from a module instead (`requests: './requests.mjs'`), which each worker imports for itself.
 * `onProgress` may stay a function: progress is merged and reported in this thread.
 */
export function rejectFunctionsForWorkers(
  options: LoadOptions,
  workers: number,
  requestsModule: string | undefined,
  taskModule: string | undefined,
): void {
  if (options.task !== undefined && taskModule === undefined) {
    throw new SalvoOptionError(
      `task is a function, which cannot be sent to worker threads (workers: ${workers}); export it from a module and pass its path instead ` +
        `(task: './task.mjs', default or 'task' export, or './task.mjs#name'), where setup and teardown may sit beside it, or use workers: 1`,
      { option: 'task', value: options.task, mentions: ['workers'] },
    );
  }
  if (Array.isArray(options.requests) && requestsModule === undefined) {
    options.requests.forEach((spec, index) => {
      for (const hook of ['setupRequest', 'onResponse'] as const) {
        if (typeof spec?.[hook] !== 'function') continue;
        throw new SalvoOptionError(
          `requests[${index}].${hook} is a function, which cannot be sent to worker threads (workers: ${workers}); ` +
            `export the request specs from a module and pass its path instead (requests: './requests.mjs', ` +
            `default or 'requests' export), or use workers: 1`,
          { option: `requests[${index}].${hook}`, value: spec[hook], mentions: ['workers', 'requests'] },
        );
      }
    });
  }
  if (Array.isArray(options.flows) && requestsModule === undefined) {
    options.flows.forEach((flow, index) => {
      const at =
        flow?.requests?.findIndex?.(
          (spec) => typeof spec?.setupRequest === 'function' || typeof spec?.onResponse === 'function',
        ) ?? -1;
      if (at < 0) return;
      throw new SalvoOptionError(
        `flows[${index}].requests[${at}] has a hook, a function, which cannot be sent to worker threads (workers: ${workers}); ` +
          `export the flows from a module and pass its path instead (flows: './flows.mjs', default or 'flows' export), or use workers: 1`,
        { option: `flows[${index}].requests[${at}]`, value: flow.requests[at], mentions: ['workers', 'flows'] },
      );
    });
  }
  for (const [key, value] of Object.entries(options.tls ?? {})) {
    if (typeof value !== 'function') continue;
    throw new SalvoOptionError(
      `tls.${key} is a function, which cannot be sent to worker threads (workers: ${workers}); use workers: 1`,
      { option: `tls.${key}`, value, mentions: ['workers'] },
    );
  }
}

/**
 * Before `planLoad` in `runLoad`: imports the options given as module specifiers, the one
 * asynchronous step of validation. `task: './task.mjs#name'` is imported here (a bad module fails
 * before any load) and again in each worker. `requests: './requests.mjs'` (default or `requests` export) is
 * imported here to plan the requests and again in each worker for its hooks (`requestsModule`, for
 * `planLoad`); `onProgress` (default or `onProgress` export) is only needed here, where progress is
 * reported.
 */
export async function importOptionModules(
  options: LoadOptions,
): Promise<{ options: LoadOptions; requestsModule?: string; task?: ImportedTask }> {
  if (typeof options !== 'object' || options === null) return { options };
  const { requests, onProgress, flows } = options;
  // `task` stays the specifier in the options (the result names the run by it); its functions travel beside them.
  const task = typeof options.task === 'string' ? await importTask(options.task) : undefined;
  if (typeof requests !== 'string' && typeof onProgress !== 'string' && typeof flows !== 'string')
    return task === undefined ? { options } : { options, task };
  const loaded: LoadOptions = { ...options };
  let requestsModule: string | undefined;
  if (typeof requests === 'string') {
    requestsModule = moduleUrl('requests', requests);
    loaded.requests = (await importExport('requests', requestsModule, ['default', 'requests'])) as RequestSpec[];
  }
  // Each worker imports a flows module for its hooks, as it does a requests module (worker.ts).
  if (typeof flows === 'string' && requests === undefined) {
    requestsModule = moduleUrl('flows', flows);
    loaded.flows = (await importExport('flows', requestsModule, ['default', 'flows'])) as LoadOptions['flows'];
  }
  if (typeof onProgress === 'string') {
    loaded.onProgress = (await importExport('onProgress', moduleUrl('onProgress', onProgress), [
      'default',
      'onProgress',
    ])) as LoadOptions['onProgress'];
    if (typeof loaded.onProgress !== 'function') {
      throw new SalvoOptionError(
        `onProgress: the module ${JSON.stringify(onProgress)} must export a function; got ${show(loaded.onProgress)}`,
        { option: 'onProgress', value: onProgress },
      );
    }
  }
  return { options: loaded, requestsModule, ...(task !== undefined ? { task } : {}) };
}
