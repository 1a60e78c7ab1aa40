import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { gunzip } from 'node:zlib';
import { wallClockMs } from '../runner/start-gate.js';
import type { MonitorSource, Reading } from './reading.js';

/** A metric family as parse-prometheus-text-format gives it (counters and gauges: `value` as text). */
interface MetricFamily {
  name: string;
  metrics: Array<{ value?: string; labels?: Record<string, string>; quantiles?: Record<string, string> }>;
}

/** Loaded on the first scrape: runs without `monitor` never need it. */
let parseText: ((text: string) => MetricFamily[]) | undefined;
function parse(text: string): MetricFamily[] {
  parseText ??= createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => MetricFamily[];
  return parseText(text);
}

/** node_cpu_seconds_total modes that are not work: the rest (user, nice, system, irq, softirq) is busy time. */
const NOT_BUSY = new Set(['idle', 'iowait', 'steal']);
/** A metrics page larger than this is not what a monitor should read each second. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

function sum(
  family: MetricFamily | undefined,
  keep: (labels: Record<string, string>) => boolean = () => true,
): number | undefined {
  if (family === undefined) return undefined;
  let total = 0;
  for (const metric of family.metrics) if (keep(metric.labels ?? {})) total += Number(metric.value);
  return Number.isFinite(total) ? total : undefined;
}

/**
 * What a metrics page says about the server. node_exporter (it has `node_cpu_seconds_total`) is the
 * machine: busy CPU over all cores, memory in use (MemTotal - MemAvailable), network bytes of the
 * chosen devices. Anything else is one process, as prom-client (and most clients) export it:
 * `process_cpu_seconds_total`, `process_resident_memory_bytes`, and Node's event-loop lag.
 */
export function readMetrics(
  text: string,
  devices: readonly string[] | undefined,
): { scope: 'process' | 'machine'; reading: Omit<Reading, 'atMs'> } {
  const families = new Map(parse(text).map((family) => [family.name, family]));
  const reading: Omit<Reading, 'atMs'> = {};
  const set = (field: Exclude<keyof Reading, 'atMs' | 'ownBytes' | 'readMs'>, value: number | undefined) => {
    if (value !== undefined && Number.isFinite(value)) reading[field] = value;
  };
  const cpu = families.get('node_cpu_seconds_total');
  if (cpu !== undefined) {
    set(
      'cpuSeconds',
      sum(cpu, (labels) => !NOT_BUSY.has(labels.mode ?? '')),
    );
    set('cores', new Set(cpu.metrics.map((metric) => metric.labels?.cpu)).size);
    const total = sum(families.get('node_memory_MemTotal_bytes'));
    const available = sum(families.get('node_memory_MemAvailable_bytes'));
    if (total !== undefined && available !== undefined) set('rssBytes', total - available);
    const device = (labels: Record<string, string>) => devices === undefined || devices.includes(labels.device ?? '');
    set('receivedBytes', sum(families.get('node_network_receive_bytes_total'), device));
    set('sentBytes', sum(families.get('node_network_transmit_bytes_total'), device));
    return { scope: 'machine', reading };
  }
  set('cpuSeconds', sum(families.get('process_cpu_seconds_total')));
  set('rssBytes', sum(families.get('process_resident_memory_bytes')));
  set('processStartS', sum(families.get('process_start_time_seconds')));
  const lag = families.get('nodejs_eventloop_lag_p99_seconds') ?? families.get('nodejs_eventloop_lag_seconds');
  const lagSeconds = sum(lag);
  if (lagSeconds !== undefined) set('eventLoopLagMs', lagSeconds * 1000);
  return { scope: 'process', reading };
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/i;

/** A Prometheus text endpoint, scraped over one kept-alive connection, gzipped when it can. */
export class PrometheusSource implements MonitorSource {
  readonly name: string;
  scope: 'process' | 'machine' = 'process';
  readonly #url: URL;
  readonly #devices: readonly string[] | undefined;
  readonly #agent: HttpAgent;

  constructor(url: string, devices: readonly string[] | undefined) {
    this.name = url;
    this.#url = new URL(url);
    this.#devices = devices;
    this.#agent =
      this.#url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 1 })
        : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  async read(timeoutMs: number): Promise<Omit<Reading, 'atMs'> & { atMs: number }> {
    const sentAt = wallClockMs();
    const { text, requestBytes, responseBytes } = await this.#fetch(timeoutMs);
    // The page stands for the middle of the exchange, when the exporter most likely read its counters.
    const atMs = (sentAt + wallClockMs()) / 2;
    const { scope, reading } = readMetrics(text, this.#devices);
    this.scope = scope;
    if (reading.cpuSeconds === undefined && reading.rssBytes === undefined && reading.receivedBytes === undefined) {
      throw new Error(
        'its metrics have none of node_cpu_seconds_total, process_cpu_seconds_total, process_resident_memory_bytes',
      );
    }
    const ownBytes = scope === 'machine' ? this.#ownBytes(requestBytes, responseBytes) : undefined;
    return { ...reading, ...(ownBytes !== undefined ? { ownBytes } : {}), atMs };
  }

  /**
   * Where the scrape's own bytes land in the exporter's network counters: over loopback (counted
   * when `lo` is) each byte is both received and sent; to another machine (counted when every device
   * is) its request is received and its response sent. The TCP/IP headers are not known here.
   */
  #ownBytes(requestBytes: number, responseBytes: number): Reading['ownBytes'] {
    if (LOOPBACK.test(this.#url.hostname)) {
      if (this.#devices !== undefined && !this.#devices.includes('lo')) return undefined;
      return {
        before: { received: requestBytes, sent: requestBytes },
        after: { received: responseBytes, sent: responseBytes },
      };
    }
    if (this.#devices !== undefined) return undefined;
    return { before: { received: requestBytes, sent: 0 }, after: { received: 0, sent: responseBytes } };
  }

  #fetch(timeoutMs: number): Promise<{ text: string; requestBytes: number; responseBytes: number }> {
    const request = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let written = 0;
      let read = 0;
      // node_exporter's page is about 6 times smaller gzipped: less of the monitor in the network it reports.
      const req = request(
        this.#url,
        { agent: this.#agent, headers: { accept: 'text/plain', 'accept-encoding': 'gzip' } },
        (response: IncomingMessage) => {
          if (response.statusCode !== 200) {
            response.resume();
            reject(new Error(`HTTP ${response.statusCode}`));
            return;
          }
          const chunks: Buffer[] = [];
          let length = 0;
          response.on('data', (chunk: Buffer) => {
            length += chunk.length;
            if (length > MAX_BODY_BYTES) req.destroy(new Error(`metrics page over ${MAX_BODY_BYTES} bytes`));
            else chunks.push(chunk);
          });
          response.on('end', () => {
            clearTimeout(timer);
            const requestBytes = req.socket === null ? 0 : req.socket.bytesWritten - written;
            const responseBytes = req.socket === null ? 0 : req.socket.bytesRead - read;
            const body = Buffer.concat(chunks);
            if (response.headers['content-encoding'] !== 'gzip')
              return resolve({ text: body.toString('utf8'), requestBytes, responseBytes });
            gunzip(body, { maxOutputLength: MAX_BODY_BYTES }, (error, text) => {
              if (error !== null) reject(new Error(`its gzipped page does not inflate: ${error.message}`));
              else resolve({ text: text.toString('utf8'), requestBytes, responseBytes });
            });
          });
          response.on('error', reject);
        },
      );
      req.on('socket', (socket) => {
        written = socket.bytesWritten;
        read = socket.bytesRead;
      });
      // A slow scrape is abandoned: the next second's is due.
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(error.code ?? error.message));
      });
      req.end();
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
