// The HTTP requests a run sends, from the options: the request line, headers and body of `method`,
// `headers`, `body` and each of `requests`, checked once. The engine resolves a `setupRequest` hook's
// spec with the same code on every send.
import { optionKey, SalvoOptionError } from './errors.js';
import type { PlannedRequest } from './plan.js';
import type { ResolvedRequest } from './exchange.js';
import type { LoadOptions, RequestBody, RequestSpec } from './load-options.js';
import { rejectUnknownKeys, show } from './validate.js';
import { encodeForm } from './form-body.js';

/** The keys of a `requests` spec (`RequestSpec`). */
const REQUEST_SPEC_KEYS = [
  'name',
  'method',
  'path',
  'headers',
  'body',
  'form',
  'setupRequest',
  'onResponse',
  'think',
] as const;

/** What `compressed: true` asks for, as curl's `--compressed` does. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `headers` (or a request spec's) as lower-case names to strings, each checked. */
export function parseHeaders(name: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(`${name} must be an object of header names to strings; got ${show(value)}`, {
      option: name,
      value,
    });
  }
  const headers: Record<string, string> = {};
  for (const [key, headerValue] of Object.entries(value)) {
    if (!TOKEN.test(key))
      throw new SalvoOptionError(`${name} has an invalid header name ${show(key)}`, { option: name, value: key });
    if (typeof headerValue !== 'string' && typeof headerValue !== 'number') {
      throw new SalvoOptionError(`${optionKey(name, key)} must be a string; got ${show(headerValue)}`, {
        option: optionKey(name, key),
        value: headerValue,
      });
    }
    const text = String(headerValue);
    if (/[\r\n\0]/.test(text)) {
      throw new SalvoOptionError(`${optionKey(name, key)} must not contain CR, LF or NUL characters`, {
        option: optionKey(name, key),
        value: text,
      });
    }
    headers[key.toLowerCase()] = text;
  }
  return headers;
}

/**
 * Whether a string body is a JSON object or array (its first character past any white space is `{`
 * or `[`, and it parses): such a body goes out as `application/json` when no content-type is given,
 * as an object body does, so that a server that reads JSON by its content-type (express.json())
 * reads it. Another string (`'42'`, `'ok'`) is sent without one, as before.
 */
function isJsonText(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function encodeBody(name: string, body: RequestBody | undefined, headers: Record<string, string>): Buffer | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') {
    if (headers['content-type'] === undefined && isJsonText(body)) headers['content-type'] = 'application/json';
    return Buffer.from(body);
  }
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'object' && body !== null) {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(body));
  }
  throw new SalvoOptionError(`${name} must be a string, a Buffer or an object to send as JSON; got ${show(body)}`, {
    option: name,
    value: body,
  });
}

function parseMethod(name: string, value: unknown): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    throw new SalvoOptionError(`${name} must be an HTTP method such as 'GET'; got ${show(value)}`, {
      option: name,
      value,
    });
  }
  return value.toUpperCase();
}

function parsePath(name: string, value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || /[\s\0]/.test(value)) {
    throw new SalvoOptionError(`${name} must be a path starting with '/' without spaces; got ${show(value)}`, {
      option: name,
      value,
    });
  }
  return value;
}

function parseName(option: string, value: unknown, request: ResolvedRequest): string {
  if (value === undefined) return `${request.method} ${request.path.split('?', 1)[0]}`;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SalvoOptionError(`${option} must be a non-empty string; got ${show(value)}`, { option, value });
  }
  return value;
}

/** Gives each distinct name an index, in order of first use: `Plan.names`, and each request's `nameIndex`. */
function indexNames(requests: Array<Omit<PlannedRequest, 'nameIndex'>>): {
  requests: PlannedRequest[];
  names: string[];
} {
  const names: string[] = [];
  return {
    requests: requests.map((request) => {
      let nameIndex = names.indexOf(request.name);
      if (nameIndex < 0) nameIndex = names.push(request.name) - 1;
      return { ...request, nameIndex };
    }),
    names,
  };
}

/**
 * The run's request sequence: one request from `method`/`headers`/`body` (named `name`), or one per
 * `requests` spec; with the distinct names they go by. `labels` names each spec in messages
 * (`flows[1].requests[0]`) when `requests` was built from other options.
 */
export function planRequests(
  options: LoadOptions,
  url: URL,
  labels?: readonly string[],
): { requests: PlannedRequest[]; names: string[] } {
  const method = options.method === undefined ? 'GET' : parseMethod('method', options.method);
  const headers = parseHeaders('headers', options.headers);
  if (options.compressed === true && headers['accept-encoding'] === undefined)
    headers['accept-encoding'] = ACCEPT_ENCODING;
  // Credentials in the url are sent as Basic authentication, as node:http and curl send them,
  // unless the headers carry their own.
  if ((url.username !== '' || url.password !== '') && headers.authorization === undefined) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  const defaultPath = `${url.pathname}${url.search}`;
  if (options.requests === undefined) {
    const ownHeaders = { ...headers };
    const body = encodeBody('body', options.body, ownHeaders);
    const request = { method, path: defaultPath, headers: ownHeaders, body, dynamic: false, capture: false };
    return indexNames([{ ...request, name: parseName('name', options.name, request) }]);
  }
  if (!Array.isArray(options.requests) || options.requests.length === 0) {
    throw new SalvoOptionError(
      `requests must be a non-empty array of request specs (or the path of a module exporting one); got ${show(options.requests)}`,
      { option: 'requests', value: options.requests },
    );
  }
  if (options.body !== undefined) {
    throw new SalvoOptionError('body cannot be combined with requests; give each request its own body', {
      option: 'body',
      value: options.body,
      mentions: ['requests'],
    });
  }
  if (options.name !== undefined) {
    throw new SalvoOptionError('name cannot be combined with requests; give each request its own name', {
      option: 'name',
      value: options.name,
      mentions: ['requests'],
    });
  }
  return indexNames(
    options.requests.map((spec, index) => {
      const name = labels?.[index] ?? `requests[${index}]`;
      if (typeof spec !== 'object' || spec === null) {
        throw new SalvoOptionError(`${name} must be an object; got ${show(spec)}`, { option: name, value: spec });
      }
      rejectUnknownKeys(spec, REQUEST_SPEC_KEYS, name);
      for (const hook of ['setupRequest', 'onResponse'] as const) {
        if (spec[hook] !== undefined && typeof spec[hook] !== 'function') {
          throw new SalvoOptionError(`${name}.${hook} must be a function; got ${show(spec[hook])}`, {
            option: `${name}.${hook}`,
            value: spec[hook],
          });
        }
      }
      const resolved = resolveRequestSpec(name, spec, { method, path: defaultPath, headers, body: undefined });
      return {
        ...resolved,
        dynamic: spec.setupRequest !== undefined,
        capture: spec.onResponse !== undefined,
        name: parseName(`${name}.name`, spec.name, resolved),
      };
    }),
  );
}

/**
 * Resolves one request spec over `base` (the run's defaults, or the planned request when a
 * `setupRequest` hook rebuilds it per send).
 */
export function resolveRequestSpec(name: string, spec: RequestSpec, base: ResolvedRequest): ResolvedRequest {
  const headers = { ...base.headers, ...parseHeaders(`${name}.headers`, spec.headers) };
  return {
    method: spec.method === undefined ? base.method : parseMethod(`${name}.method`, spec.method),
    path: spec.path === undefined ? base.path : parsePath(`${name}.path`, spec.path),
    headers,
    body:
      spec.form !== undefined
        ? formBody(name, spec, headers)
        : spec.body === undefined
          ? base.body
          : encodeBody(`${name}.body`, spec.body, headers),
  };
}

/** A spec's `form` as its body, with its content type (a URL-encoded one unless the headers give one). */
function formBody(name: string, spec: RequestSpec, headers: Record<string, string>): Buffer {
  if (spec.body !== undefined) {
    throw new SalvoOptionError(`${name}.form cannot be combined with ${name}.body; give one of them`, {
      option: `${name}.form`,
      value: spec.form,
      mentions: [`${name}.body`],
    });
  }
  const { body, contentType } = encodeForm(`${name}.form`, spec.form);
  // A multipart body is read by its boundary: its own content type replaces any given (a rebuilt spec's too).
  if (contentType.startsWith('multipart/')) headers['content-type'] = contentType;
  else headers['content-type'] ??= contentType;
  return body;
}
