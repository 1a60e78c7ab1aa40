// A HAR recording (a browser's "Save all as HAR", Playwright's `recordHar`) turned into the options
// of a load file: the recorded requests as named steps, the pauses between them as `think`.

/** The parts of a HAR 1.2 entry read here. */
interface HarEntry {
  startedDateTime: string;
  time?: number;
  _resourceType?: string;
  request: {
    method: string;
    url: string;
    headers?: Array<{ name: string; value: string }>;
    postData?: { mimeType?: string; text?: string };
  };
  response?: { status?: number; headers?: Array<{ name: string; value: string }>; content?: { mimeType?: string } };
}

/** What `salvo import` keeps and drops. */
export interface HarImportOptions {
  /** The host (`host` or `host:port`) whose requests are kept; default the first page's. */
  host?: string;
  /** Keep static assets (stylesheets, scripts, images, fonts, media). Default true. */
  static?: boolean;
  /** Pauses shorter than this are not kept as `think`, ms (a browser's own gaps between requests). */
  minThinkMs?: number;
  /** The load file's `url` (a staging copy of the recorded site); default the recorded origin. */
  url?: string;
}

/** A step of the load file: `requests`' spec, plain data. */
export interface ImportedStep {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  think?: number;
}

export interface HarImport {
  options: { url: string; connections: number; requests: ImportedStep[]; cookies?: true; compressed?: true };
  kept: number;
  otherHosts: number;
  staticAssets: number;
}

/**
 * Headers a replay must not send as recorded: the connection's own (salvo writes them), HTTP/2
 * pseudo-headers, the recorded session's cookies (`cookies: true` keeps a jar per journey instead),
 * `accept-encoding` (`compressed: true` asks for the same codings) and validators that would turn
 * first visits into 304s.
 */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'proxy-authorization',
  'cookie',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
]);

const STATIC_TYPES = new Set(['stylesheet', 'script', 'image', 'font', 'media', 'manifest', 'texttrack']);
const STATIC_PATH =
  /\.(?:css|js|mjs|map|png|jpe?g|gif|svg|ico|webp|avif|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|ogg|wav)$/i;
const STATIC_MIME = /^(?:image\/|font\/|audio\/|video\/|text\/css|(?:text|application)\/(?:x-)?javascript)/i;

/** Whether an entry is a static asset: by the browser's resource type, its path's extension or its response's type. */
export function isStaticAsset(entry: HarEntry): boolean {
  if (entry._resourceType !== undefined && STATIC_TYPES.has(entry._resourceType)) return true;
  if (STATIC_PATH.test(new URL(entry.request.url).pathname)) return true;
  return STATIC_MIME.test(entry.response?.content?.mimeType ?? '');
}

function entriesOf(har: unknown): HarEntry[] {
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) throw new Error('not a HAR file: it has no log.entries');
  for (const entry of entries as HarEntry[]) {
    if (typeof entry?.request?.url !== 'string' || typeof entry.request.method !== 'string')
      throw new Error('not a HAR file: an entry has no request.url or request.method');
  }
  return (entries as HarEntry[])
    .filter((entry) => /^https?:/i.test(entry.request.url))
    .map((entry, index) => ({ entry, index, at: Date.parse(entry.startedDateTime) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ entry }) => entry);
}

/** The first page's host: the first HTML document's, else the first request's. */
function firstPageHost(entries: HarEntry[]): string {
  const page =
    entries.find((entry) => entry._resourceType === 'document') ??
    entries.find((entry) => /html/i.test(entry.response?.content?.mimeType ?? '')) ??
    entries[0]!;
  return new URL(page.request.url).host;
}

/** The options of a load file replaying `har`'s requests to the kept hosts, in order, with their pauses. */
export function importHar(har: unknown, options: HarImportOptions = {}): HarImport {
  const entries = entriesOf(har);
  if (entries.length === 0) throw new Error('the recording has no http: or https: requests');
  const host = options.host ?? firstPageHost(entries);
  const minThinkMs = options.minThinkMs ?? 100;
  const onHost = entries.filter((entry) => new URL(entry.request.url).host === host);
  const kept = options.static === false ? onHost.filter((entry) => !isStaticAsset(entry)) : onHost;
  if (kept.length === 0)
    throw new Error(`no request left: none to ${host}${options.static === false ? ' that is not a static asset' : ''}`);
  const origin = options.url ?? new URL(kept[0]!.request.url).origin;
  let cookies = false;
  let compressed = false;
  const requests = kept.map((entry, index): ImportedStep => {
    const url = new URL(entry.request.url);
    const headers: Record<string, string> = {};
    for (const { name, value } of entry.request.headers ?? []) {
      const lower = name.toLowerCase();
      if (lower === 'cookie') cookies = true;
      if (lower === 'accept-encoding') compressed = true;
      if (lower.startsWith(':') || DROPPED_HEADERS.has(lower)) continue;
      headers[lower] = value;
    }
    if (entry.response?.headers?.some((header) => header.name.toLowerCase() === 'set-cookie')) cookies = true;
    const path = `${url.pathname}${url.search}`;
    const step: ImportedStep = { name: `${entry.request.method} ${url.pathname}`, method: entry.request.method, path };
    if (Object.keys(headers).length > 0) step.headers = headers;
    if (entry.request.postData?.text !== undefined) step.body = entry.request.postData.text;
    // The pause from this answer's end to the next request's start: the user reading the page.
    const next = kept[index + 1];
    if (next !== undefined) {
      const pause = Date.parse(next.startedDateTime) - (Date.parse(entry.startedDateTime) + (entry.time ?? 0));
      if (pause >= minThinkMs) step.think = Math.round(pause);
    }
    return step;
  });
  return {
    options: {
      url: origin,
      connections: 1,
      requests,
      ...(cookies ? { cookies: true as const } : {}),
      ...(compressed ? { compressed: true as const } : {}),
    },
    kept: kept.length,
    otherHosts: entries.length - onHost.length,
    staticAssets: onHost.length - kept.length,
  };
}

/** A load file (an ES module) exporting `imported`'s options. */
export function loadFileText(imported: HarImport, source: string): string {
  return (
    `// Imported from ${source} by \`salvo import\`: ${imported.kept} requests, recorded pauses as think.\n` +
    `// Run it with \`salvo run ${'<this file>'} -d 1m -c 10\` (flags override what is here).\n` +
    `export default ${JSON.stringify(imported.options, null, 2)};\n`
  );
}
