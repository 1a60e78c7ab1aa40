import { SalvoOptionError } from '../shared/errors.js';
import type { PlannedOutput } from '../shared/plan.js';
import { parseHeaders } from '../shared/request-spec.js';
import { rejectUnknownKeys, show } from '../shared/validate.js';

const OUTPUT_TYPES = ['prometheus'] as const;
const PROMETHEUS_KEYS = ['type', 'url', 'labels', 'headers'] as const;
/** Label names salvo's own series use (`segment` in a segmented run): a user label would clash. */
const RESERVED_LABELS = ['status', 'code', 'quantile', 'segment'];
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseLabels(name: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SalvoOptionError(`${name} must be an object of label names to strings; got ${show(value)}`, {
      option: name,
      value,
    });
  }
  const labels: Record<string, string> = {};
  for (const [label, labelValue] of Object.entries(value)) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) {
      throw new SalvoOptionError(
        `${name} has an invalid Prometheus label name ${show(label)}: letters, digits and _, not starting with a digit or __`,
        { option: name, value: label },
      );
    }
    if (RESERVED_LABELS.includes(label)) {
      throw new SalvoOptionError(`${name}.${label} is a label salvo's own series carry; name it otherwise`, {
        option: `${name}.${label}`,
        value: labelValue,
      });
    }
    if (typeof labelValue !== 'string' || labelValue === '') {
      throw new SalvoOptionError(`${name}.${label} must be a non-empty string; got ${show(labelValue)}`, {
        option: `${name}.${label}`,
        value: labelValue,
      });
    }
    labels[label] = labelValue;
  }
  return labels;
}

function parseEndpoint(name: string, value: unknown): string {
  let url: URL | undefined;
  try {
    if (typeof value === 'string') url = new URL(value);
  } catch {
    // reported below
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new SalvoOptionError(
      `${name} must be an http: or https: URL of a remote-write endpoint (http://prometheus:9090/api/v1/write); got ${show(value)}`,
      { option: name, value },
    );
  }
  return url.href;
}

/** Validates `outputs`: a list of `{ type: 'prometheus', url, labels?, headers? }`; errors name the key (`outputs[0].url`). */
export function planOutputs(value: unknown): PlannedOutput[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw new SalvoOptionError(
      `outputs must be an array of outputs such as { type: 'prometheus', url }; got ${show(value)}`,
      { option: 'outputs', value },
    );
  return value.map((entry: unknown, index): PlannedOutput => {
    const name = `outputs[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new SalvoOptionError(`${name} must be an object such as { type: 'prometheus', url }; got ${show(entry)}`, {
        option: name,
        value: entry,
      });
    }
    const { type, url, labels, headers } = entry as Record<string, unknown>;
    if (!OUTPUT_TYPES.includes(type as (typeof OUTPUT_TYPES)[number])) {
      throw new SalvoOptionError(
        `${name}.type must be one of ${OUTPUT_TYPES.map((t) => `'${t}'`).join(', ')}; got ${show(type)}`,
        { option: `${name}.type`, value: type },
      );
    }
    rejectUnknownKeys(entry, PROMETHEUS_KEYS, name);
    return {
      type: 'prometheus',
      url: parseEndpoint(`${name}.url`, url),
      labels: parseLabels(`${name}.labels`, labels),
      headers: parseHeaders(`${name}.headers`, headers),
    };
  });
}
