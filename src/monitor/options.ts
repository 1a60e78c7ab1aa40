import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { MonitorOptions } from '../shared/load-options.js';
import type { PlannedMonitor } from '../shared/plan.js';
import { rejectUnknownKeys, show } from '../shared/validate.js';

/** Validates `monitor`; undefined when it watches nothing. */
export function planMonitor(value: unknown): PlannedMonitor | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(
      `monitor must be an object such as { processes: [pid], prometheus: ['http://127.0.0.1:9100/metrics'] }; got ${show(value)}`,
      { option: 'monitor', value },
    );
  }
  rejectUnknownKeys(value, ['processes', 'prometheus'], 'monitor');
  const options = value as MonitorOptions;
  const processes = listOf('monitor.processes', options.processes).map((pid, index) => {
    if (typeof pid !== 'number' || !Number.isInteger(pid))
      throw new SalvoOptionError(`monitor.processes[${index}] must be a pid (an integer); got ${show(pid)}`, {
        option: `monitor.processes[${index}]`,
        value: pid,
      });
    if (pid <= 0)
      throw new SalvoRangeError(`monitor.processes[${index}] must be a pid above 0; got ${show(pid)}`, {
        option: `monitor.processes[${index}]`,
        value: pid,
      });
    return pid;
  });
  const prometheus = listOf('monitor.prometheus', options.prometheus).map((source: unknown, index) => {
    const name = `monitor.prometheus[${index}]`;
    const spec = typeof source === 'string' ? { url: source } : source;
    if (typeof spec !== 'object' || spec === null)
      throw new SalvoOptionError(`${name} must be a metrics URL or { url, devices }; got ${show(source)}`, {
        option: name,
        value: source,
      });
    rejectUnknownKeys(spec, ['url', 'devices'], name);
    const { url, devices } = spec as { url: unknown; devices?: unknown };
    let parsed: URL | undefined;
    try {
      parsed = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new SalvoOptionError(`${name} must be an http: or https: metrics URL; got ${show(url)}`, {
        option: name,
        value: url,
      });
    }
    if (
      devices !== undefined &&
      (!Array.isArray(devices) || devices.length === 0 || devices.some((d) => typeof d !== 'string'))
    ) {
      throw new SalvoOptionError(
        `${name}.devices must be a non-empty list of network device names such as ['eth0']; got ${show(devices)}`,
        { option: `${name}.devices`, value: devices },
      );
    }
    return { url: parsed.href, devices: devices as string[] | undefined };
  });
  if (processes.length + prometheus.length === 0) {
    throw new SalvoOptionError('monitor must name at least one source: processes (pids) or prometheus (metrics URLs)', {
      option: 'monitor',
      value,
    });
  }
  return { processes, prometheus };
}

function listOf(name: string, value: unknown): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new SalvoOptionError(`${name} must be an array; got ${show(value)}`, { option: name, value });
  return value;
}
