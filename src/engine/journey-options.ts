// `think`, `flows` and `feed` checked once and turned into the plan's journey (shared/journey.ts).
import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { PlannedFeed, PlannedFlow, PlannedJourney } from '../shared/journey.js';
import type { LoadOptions, RequestSpec } from '../shared/load-options.js';
import type { PlannedRequest } from '../shared/plan.js';
import { planRequests } from '../shared/request-spec.js';
import { durationOption, rejectUnknownKeys, show } from '../shared/validate.js';
import { readFeedFile } from './feed-file.js';

/** The run's requests and names, the journey they make (if any), and the specs whose hooks they call. */
export interface JourneyPlan {
  requests: PlannedRequest[];
  names: string[];
  journey: PlannedJourney | undefined;
  specs: RequestSpec[] | undefined;
}

function parseThink(option: string, value: unknown): [number, number] | null {
  if (value === undefined) return null;
  if (Array.isArray(value)) {
    if (value.length !== 2)
      throw new SalvoOptionError(`${option} must be a duration or [min, max]; got ${show(value)}`, { option, value });
    const min = durationOption(`${option}[0]`, value[0] as string, { allowZero: true });
    const max = durationOption(`${option}[1]`, value[1] as string, { allowZero: true });
    if (max < min)
      throw new SalvoRangeError(`${option} [min, max] must have min <= max; got ${show(value)}`, { option, value });
    return max === 0 ? null : [min, max];
  }
  const ms = durationOption(option, value as string, { allowZero: true });
  return ms === 0 ? null : [ms, ms];
}

/** `feed` as rows and whether they cycle. */
export function parseFeed(value: unknown): PlannedFeed | undefined {
  if (value === undefined) return undefined;
  let file: unknown;
  let rows: unknown;
  let reuse: unknown = true;
  if (typeof value === 'string') file = value;
  else if (Array.isArray(value)) rows = value;
  else if (typeof value === 'object' && value !== null) {
    rejectUnknownKeys(value, ['file', 'rows', 'reuse'], 'feed');
    ({ file, rows } = value as Record<string, unknown>);
    reuse = (value as Record<string, unknown>).reuse ?? true;
    if ((file === undefined) === (rows === undefined))
      throw new SalvoOptionError(`feed takes one of file and rows; got ${show(value)}`, { option: 'feed', value });
  } else {
    throw new SalvoOptionError(
      `feed must be a file's path, an array of rows or { file | rows, reuse }; got ${show(value)}`,
      {
        option: 'feed',
        value,
      },
    );
  }
  if (typeof reuse !== 'boolean')
    throw new SalvoOptionError(`feed.reuse must be true or false; got ${show(reuse)}`, {
      option: 'feed.reuse',
      value: reuse,
    });
  const option = typeof value === 'string' ? 'feed' : 'feed.file';
  if (file !== undefined && typeof file !== 'string')
    throw new SalvoOptionError(`${option} must be a file's path; got ${show(file)}`, { option, value: file });
  if (rows !== undefined && !Array.isArray(rows))
    throw new SalvoOptionError(`feed.rows must be an array; got ${show(rows)}`, { option: 'feed.rows', value: rows });
  const loaded = file !== undefined ? readFeedFile(option, file) : (rows as unknown[]);
  if (loaded.length === 0)
    throw new SalvoOptionError(`feed has no rows (${file === undefined ? 'an empty array' : `${file} is empty`})`, {
      option: file === undefined ? (Array.isArray(value) ? 'feed' : 'feed.rows') : option,
      value: file ?? rows,
    });
  return { rows: loaded, reuse, source: file ?? 'array' };
}

/** `flows` flattened into one request list, each step named `flow/step`, with each flow's range of it. */
function flattenFlows(
  value: unknown,
  options: LoadOptions,
  url: URL,
): { specs: RequestSpec[]; labels: string[]; flows: PlannedFlow[] } {
  if (options.requests !== undefined)
    throw new SalvoOptionError('requests cannot be combined with flows; give each flow its requests', {
      option: 'requests',
      value: options.requests,
      mentions: ['flows'],
    });
  // As with requests, a step has its own body and name (the messages say flows: the user gave no requests).
  for (const key of ['body', 'name'] as const)
    if (options[key] !== undefined)
      throw new SalvoOptionError(`${key} cannot be combined with flows; give each step of a flow its own ${key}`, {
        option: key,
        value: options[key],
        mentions: ['flows'],
      });
  if (!Array.isArray(value) || value.length === 0)
    throw new SalvoOptionError(
      `flows must be a non-empty array of { name, weight, requests } (or a module's path); got ${show(value)}`,
      {
        option: 'flows',
        value,
      },
    );
  const specs: RequestSpec[] = [];
  const labels: string[] = [];
  const flows: PlannedFlow[] = [];
  value.forEach((flow: unknown, index) => {
    const option = `flows[${index}]`;
    if (typeof flow !== 'object' || flow === null)
      throw new SalvoOptionError(`${option} must be { name, weight, requests }; got ${show(flow)}`, {
        option,
        value: flow,
      });
    rejectUnknownKeys(flow, ['name', 'weight', 'requests'], option);
    const { name = `flow${index + 1}`, weight = 1, requests } = flow as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '' || name.includes('/'))
      throw new SalvoOptionError(`${option}.name must be a non-empty string without '/'; got ${show(name)}`, {
        option: `${option}.name`,
        value: name,
      });
    if (flows.some((other) => other.name === name))
      throw new SalvoOptionError(`${option}.name ${show(name)} is another flow's name too`, {
        option: `${option}.name`,
        value: name,
      });
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0)
      throw new SalvoRangeError(`${option}.weight must be a positive number; got ${show(weight)}`, {
        option: `${option}.weight`,
        value: weight,
      });
    if (!Array.isArray(requests) || requests.length === 0)
      throw new SalvoOptionError(
        `${option}.requests must be a non-empty array of request specs; got ${show(requests)}`,
        {
          option: `${option}.requests`,
          value: requests,
        },
      );
    flows.push({ name, weight, first: specs.length, count: requests.length });
    requests.forEach((spec: RequestSpec, step) => {
      labels.push(`${option}.requests[${step}]`);
      if (typeof spec !== 'object' || spec === null) return void specs.push(spec);
      const method = String(spec.method ?? options.method ?? 'GET').toUpperCase();
      const path = String(spec.path ?? `${url.pathname}${url.search}`).split('?', 1)[0];
      // A name that is not a non-empty string stays as given, for planRequests to refuse under its label.
      const own = spec.name === undefined ? `${method} ${path}` : spec.name;
      specs.push({ ...spec, name: typeof own === 'string' && own.trim() !== '' ? `${name}/${own}` : own });
    });
  });
  return { specs, labels, flows };
}

/**
 * The run's requests with what makes them journeys: `flows` flattened (or `requests` as given),
 * each step's `think`, and `feed`'s rows. The journey is undefined when none of them is given, so
 * that a plain sequence runs as before.
 */
export function planJourneys(options: LoadOptions, url: URL): JourneyPlan {
  const flowed = options.flows === undefined ? undefined : flattenFlows(options.flows, options, url);
  const { requests, names } = flowed
    ? planRequests({ ...options, requests: flowed.specs }, url, flowed.labels)
    : planRequests(options, url);
  const specs = flowed?.specs ?? (Array.isArray(options.requests) ? options.requests : undefined);
  const thinkMs = requests.map((_, index) =>
    parseThink(`${flowed?.labels[index] ?? `requests[${index}]`}.think`, specs?.[index]?.think),
  );
  const thinking = thinkMs.findIndex((think) => think !== null);
  // A subscription is held for the run, not walked step after step: a think time would never be waited.
  if (options.stream?.subscribe === true && thinking >= 0) {
    const option = `${flowed?.labels[thinking] ?? `requests[${thinking}]`}.think`;
    throw new SalvoOptionError(
      `${option} has no meaning in an SSE subscription run (stream.subscribe): each connection holds one subscription for the run and sends no next step; remove the think time or stream.subscribe`,
      { option, value: specs?.[thinking]?.think, mentions: ['stream.subscribe'] },
    );
  }
  const feed = parseFeed(options.feed);
  if (flowed === undefined && feed === undefined && thinkMs.every((think) => think === null))
    return { requests, names, journey: undefined, specs };
  if (options.amount !== undefined) {
    const by = flowed !== undefined ? 'flows' : feed !== undefined ? 'feed' : 'think';
    throw new SalvoOptionError(
      `amount cannot be combined with ${by}: a journey sends several requests; bound the run with duration (or feed: { reuse: false })`,
      { option: 'amount', value: options.amount, mentions: [by] },
    );
  }
  const flows = flowed?.flows ?? [{ name: '', weight: 1, first: 0, count: requests.length }];
  return { requests, names, journey: { flows, thinkMs, feed, first: 0, stride: 1 }, specs };
}
