#!/usr/bin/env node
// Collects the results of a finished Indexed Job from its pods' logs and merges them:
//   node gather.mjs --job salvo-load [--namespace default] [--dir results]
// Waits for the Job to complete, writes results/segment-<index>.json for each pod, then runs the
// merge (see merge.mjs): merged summary on stdout, merged.json, exit 1 when a threshold failed.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { report } from './merge.mjs';

const { values } = parseArgs({
  options: {
    job: { type: 'string', default: 'salvo-load' },
    namespace: { type: 'string', default: 'default' },
    dir: { type: 'string', default: 'results' },
    timeout: { type: 'string', default: '30m' },
  },
});
const kubectl = (...args) => execFileSync('kubectl', ['--namespace', values.namespace, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });

kubectl('wait', '--for=condition=complete', `job/${values.job}`, `--timeout=${values.timeout}`);
const pods = JSON.parse(kubectl('get', 'pods', '--selector', `batch.kubernetes.io/job-name=${values.job}`, '--output', 'json')).items
  .filter((pod) => pod.status.phase === 'Succeeded');
await mkdir(values.dir, { recursive: true });
const results = [];
for (const pod of pods) {
  const line = kubectl('logs', pod.metadata.name).split('\n').find((l) => l.startsWith('SALVO_RESULT '));
  if (line === undefined) throw new Error(`pod ${pod.metadata.name} logged no SALVO_RESULT line`);
  const result = JSON.parse(line.slice('SALVO_RESULT '.length));
  await writeFile(join(values.dir, `segment-${result.merge.segment.index}.json`), JSON.stringify(result));
  results.push(result);
}
// Throws, naming them, when a segment is missing (a pod that failed) or there twice.
await report(results, { out: join(values.dir, 'merged.json') });
