import { SalvoOptionError } from '../shared/errors.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { PlannedTask, TaskFunctions, TaskSource } from '../shared/task.js';
import { durationOption, positiveInteger, show } from '../shared/validate.js';

/** `setupTimeout` when not given: k6's bound on `setup` too. */
export const DEFAULT_SETUP_TIMEOUT_MS = 60_000;

/** Options about a request to a url: a task run has none, and rejects each by name. */
const REQUEST_OPTIONS = [
  'url',
  'transport',
  'pipelining',
  'h2Streams',
  'keepAlive',
  'method',
  'headers',
  'body',
  'requests',
  'expect',
  'tls',
  'tlsSessionReuse',
  'retry',
  'websocket',
  'socketio',
  'stream',
  'name',
  'compressed',
] as const satisfies ReadonlyArray<keyof LoadOptions>;

/** What a task run's options come to, beside what every run has. */
export interface TaskPlanParts {
  task: PlannedTask;
  functions: TaskFunctions;
  /** `concurrency`, or `connections`: call slots over all workers. */
  connections: number | undefined;
  /** The run's `url` in its result: `task:` and the function's name or the module as given. */
  url: string;
}

/**
 * Validates a task run's own options: `task` (a function here, or the module it was imported from:
 * `imported`), `concurrency` as another name for `connections`, and none of the request options.
 */
export function planTaskOptions(
  options: LoadOptions,
  imported: { planned: TaskSource; functions: TaskFunctions } | undefined,
): TaskPlanParts {
  for (const name of REQUEST_OPTIONS) {
    if (options[name] === undefined) continue;
    throw new SalvoOptionError(
      `${name} is about requests to a url and has no meaning in a task run (task); got ${name} ${show(options[name])}`,
      {
        option: name,
        value: options[name],
        mentions: ['task'],
      },
    );
  }
  if (options.concurrency !== undefined && options.connections !== undefined) {
    throw new SalvoOptionError(
      `concurrency and connections are one option under two names; give one; got concurrency ${show(options.concurrency)} and connections ${show(options.connections)}`,
      {
        option: 'concurrency',
        value: options.concurrency,
        mentions: ['connections'],
      },
    );
  }
  const connections =
    options.concurrency !== undefined
      ? positiveInteger('concurrency', options.concurrency)
      : options.connections === undefined
        ? undefined
        : positiveInteger('connections', options.connections);
  const setupTimeoutMs =
    options.setupTimeout === undefined
      ? DEFAULT_SETUP_TIMEOUT_MS
      : durationOption('setupTimeout', options.setupTimeout, { secondsLikely: true });
  if (options.backoff !== undefined && typeof options.backoff !== 'boolean') {
    throw new SalvoOptionError(
      `backoff must be true or false (false: a failed call's slot calls again at once); got ${show(options.backoff)}`,
      { option: 'backoff', value: options.backoff },
    );
  }
  const shape = { setupTimeoutMs, backoff: options.backoff !== false };
  if (imported !== undefined) {
    return {
      task: { ...imported.planned, ...shape },
      functions: imported.functions,
      connections,
      url: `task:${options.task as string}`,
    };
  }
  const task = options.task;
  if (typeof task !== 'function') {
    throw new SalvoOptionError(
      `task must be an async function (or a module specifier such as './task.mjs' or './task.mjs#checkout'); got ${show(task)}`,
      { option: 'task', value: task },
    );
  }
  return {
    task: { module: undefined, exportName: undefined, ...shape },
    functions: { task },
    connections,
    url: `task:${task.name || 'anonymous'}`,
  };
}

/** `concurrency`, `setupTimeout` and `backoff` belong to task runs. */
export function rejectConcurrencyWithoutTask(options: LoadOptions): void {
  for (const name of ['setupTimeout', 'backoff'] as const) {
    if (options[name] === undefined) continue;
    throw new SalvoOptionError(
      `${name} is a task run's option (with task); a run of a url has none; got ${name} ${show(options[name])}`,
      { option: name, value: options[name], mentions: ['task'] },
    );
  }
  if (options.concurrency === undefined) return;
  throw new SalvoOptionError(
    `concurrency is a task run's calls in flight (with task); a run of a url has connections; got concurrency ${show(options.concurrency)}`,
    {
      option: 'concurrency',
      value: options.concurrency,
      mentions: ['task', 'connections'],
    },
  );
}
