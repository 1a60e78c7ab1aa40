// The values of single options, checked and resolved for `planLoad` (options.ts): each error names
// the option and the value it got.
import { availableParallelism } from 'node:os';
import { SalvoOptionError, SalvoRangeError } from './shared/errors.js';
import type { PlannedStage } from './shared/plan.js';
import type { LoadOptions, Stage } from './shared/load-options.js';
import type { TransportName } from './shared/terms.js';
import { durationOption, positiveInteger, show } from './shared/validate.js';
import { isWebSocketUrl } from './websocket/options.js';

/** The HTTP clients a run can use. */
export const TRANSPORTS: readonly TransportName[] = ['net', 'undici', 'http', 'h2'];

/** `url`, checked: http:, https:, or ws:/wss: for a WebSocket run. */
export function parseUrl(value: unknown): URL {
  if (typeof value !== 'string' || value === '') {
    throw new SalvoOptionError(
      `url is required and must be an http: or https: URL string (ws: or wss: for a WebSocket run); got ${show(value)}`,
      { option: 'url', value },
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SalvoOptionError(`url must be an absolute http: or https: URL; got ${show(value)}`, {
      option: 'url',
      value,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !isWebSocketUrl(url)) {
    throw new SalvoOptionError(`url must use http: or https: (ws: or wss: for a WebSocket run); got ${show(value)}`, {
      option: 'url',
      value,
    });
  }
  return url;
}

/** `stages`, checked: all of them ramp the rate, or all the connections. */
export function planStages(value: unknown): PlannedStage[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    throw new SalvoOptionError(
      `stages must be a non-empty array of { duration, rate } or { duration, connections }; got ${show(value)}`,
      { option: 'stages', value },
    );
  }
  const stages = value.map((stage: Stage, index): PlannedStage => {
    const name = `stages[${index}]`;
    if (typeof stage !== 'object' || stage === null)
      throw new SalvoOptionError(`${name} must be an object; got ${show(stage)}`, { option: name, value: stage });
    const durationMs = durationOption(`${name}.duration`, stage.duration);
    const hasRate = stage.rate !== undefined;
    const hasConnections = stage.connections !== undefined;
    if (hasRate === hasConnections) {
      throw new SalvoOptionError(`${name} must have exactly one of rate or connections; got ${show(stage)}`, {
        option: name,
        value: stage,
      });
    }
    if (hasRate) {
      if (typeof stage.rate !== 'number' || !Number.isFinite(stage.rate) || stage.rate < 0) {
        throw new SalvoRangeError(
          `${name}.rate must be a number of requests/s, zero or more; got ${show(stage.rate)}`,
          { option: `${name}.rate`, value: stage.rate },
        );
      }
      return { durationMs, rate: stage.rate };
    }
    return { durationMs, connections: positiveInteger(`${name}.connections`, stage.connections) };
  });
  if (stages.some((s) => s.rate !== undefined) && stages.some((s) => s.connections !== undefined)) {
    throw new SalvoOptionError('stages must all ramp the rate or all ramp the connections, not both', {
      option: 'stages',
      value,
    });
  }
  return stages;
}

/** Requests in flight per connection: `pipelining` for HTTP/1.1, `h2Streams` for HTTP/2; the other is 1. */
export function planInFlight(options: LoadOptions, transport: TransportName): { pipelining: number; streams: number } {
  // Either at its default (1) is what the other protocol does anyway, and is accepted with it.
  if (transport === 'h2') {
    if (options.pipelining !== undefined && options.pipelining !== 1) {
      throw new SalvoOptionError(
        `pipelining is HTTP/1.1; with transport 'h2' give h2Streams (concurrent streams per connection) instead; got pipelining ${show(options.pipelining)}`,
        { option: 'pipelining', value: options.pipelining, mentions: ['transport', 'h2Streams'] },
      );
    }
    const streams = options.h2Streams === undefined ? 1 : positiveInteger('h2Streams', options.h2Streams);
    return { pipelining: 1, streams };
  }
  if (options.h2Streams !== undefined && options.h2Streams !== 1) {
    throw new SalvoOptionError(
      `h2Streams needs transport 'h2' (HTTP/2); for HTTP/1.1 use pipelining; got h2Streams ${show(options.h2Streams)} with transport ${show(transport)}`,
      { option: 'h2Streams', value: options.h2Streams, mentions: ['transport', 'pipelining'] },
    );
  }
  return {
    pipelining: options.pipelining === undefined ? 1 : positiveInteger('pipelining', options.pipelining),
    streams: 1,
  };
}

/** `workers`: a count, or `'auto'` for one per core less one. */
export function parseWorkers(value: unknown): number {
  if (value === undefined) return 1;
  if (value === 'auto') {
    const cores = availableParallelism();
    return cores > 1 ? cores - 1 : 1;
  }
  return positiveInteger('workers', value);
}
