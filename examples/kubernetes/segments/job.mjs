#!/usr/bin/env node
// The Kubernetes Indexed Job that runs a salvo load test as N segments, one pod each:
//   node job.mjs --segments 8 --image registry.example.com/salvo-load:1 --options options.json \
//     [--lead 120] [--name salvo-load] [--cpu 2] [--output-secret NAME/KEY] | kubectl apply -f -
// prints the manifest (JSON, which kubectl reads as YAML) with START_AT set `lead` seconds from now:
// enough for the scheduler to place every pod, pull the image and open the connections.
// Built with kubernetes-models, so a wrong type or value fails `validate()` here and in salvo's tests,
// and a misspelt field fails the type check (tsconfig.json next to this file; npm test runs it).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Job } from 'kubernetes-models/batch/v1/Job';

/**
 * `outputSecret`: the Secret key holding the `authorization` header of the options' `outputs`
 * (a remote-write token), so that it stays out of the manifest; segment.mjs adds it.
 * @param {{ name: string, image: string, segments: number, startAt: number, options: object, cpu?: string, outputSecret?: { name: string, key: string } }} spec
 * @returns {Job}
 */
export function indexedJob({ name, image, segments, startAt, options, cpu = '2', outputSecret }) {
  const job = new Job({
    metadata: { name, labels: { app: 'salvo-load' } },
    spec: {
      completionMode: 'Indexed',
      // Every segment runs at once: parallelism = completions = the number of segments.
      completions: segments,
      parallelism: segments,
      // A retried pod would start after START_AT and skew the merged seconds: rerun the Job instead.
      backoffLimit: 0,
      ttlSecondsAfterFinished: 24 * 3600,
      template: {
        metadata: { labels: { app: 'salvo-load' } },
        spec: {
          restartPolicy: 'Never',
          // One generator per node where the cluster allows it, so they do not share a NIC or CPU.
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'salvo-load' } } },
          ],
          containers: [
            {
              name: 'salvo',
              image,
              command: ['node', 'segment.mjs'],
              env: [
                { name: 'SEGMENTS', value: String(segments) },
                { name: 'START_AT', value: String(startAt) },
                { name: 'SALVO_OPTIONS', value: JSON.stringify(options) },
                ...(outputSecret === undefined
                  ? []
                  : [{ name: 'SALVO_OUTPUT_AUTHORIZATION', valueFrom: { secretKeyRef: { name: outputSecret.name, key: outputSecret.key } } }]),
              ],
              // Guaranteed QoS: a throttled generator measures its own stalls as latency.
              resources: { requests: { cpu, memory: '512Mi' }, limits: { cpu, memory: '512Mi' } },
            },
          ],
        },
      },
    },
  });
  job.validate();
  return job;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      segments: { type: 'string', default: '4' },
      image: { type: 'string' },
      options: { type: 'string' },
      lead: { type: 'string', default: '120' },
      name: { type: 'string', default: 'salvo-load' },
      cpu: { type: 'string', default: '2' },
      'output-secret': { type: 'string' },
    },
  });
  if (values.image === undefined || values.options === undefined) {
    console.error('usage: job.mjs --image IMAGE --options options.json [--segments 4] [--lead 120] [--name salvo-load] [--cpu 2] [--output-secret NAME/KEY]');
    process.exit(2);
  }
  const job = indexedJob({
    name: values.name,
    image: values.image,
    segments: Number(values.segments),
    startAt: Date.now() + Number(values.lead) * 1000,
    options: JSON.parse(readFileSync(values.options, 'utf8')),
    cpu: values.cpu,
    ...(values['output-secret'] === undefined
      ? {}
      : { outputSecret: { name: values['output-secret'].split('/')[0], key: values['output-secret'].split('/')[1] ?? 'authorization' } }),
  });
  console.log(JSON.stringify(job.toJSON(), null, 2));
}
