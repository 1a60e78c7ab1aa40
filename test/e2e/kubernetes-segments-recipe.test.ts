// examples/kubernetes/segments: the Indexed Job manifest is checked against the Kubernetes API schema
// (kubernetes-models' validate) and its field names against the API types (tsc on job.mjs), so a
// typo in the recipe fails CI rather than a user's cluster.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { Job, type IJob } from 'kubernetes-models/batch/v1/Job';
// @ts-expect-error: a plain .mjs example without declarations
import { indexedJob } from '../../examples/kubernetes/segments/job.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

t.test('the Indexed Job manifest is valid and runs one pod per segment', async (t) => {
  const startAt = 1_800_000_000_000;
  const options = { url: 'http://target.internal/', connections: 100, rate: 5000, duration: '5m', thresholds: { 'latency.p99': '< 50' } };
  const job = (indexedJob({ name: 'salvo-load', image: 'registry.example.com/salvo-load:1', segments: 5, startAt, options }) as Job).toJSON() as IJob;
  t.doesNotThrow(() => new Job(job).validate(), 'valid against the batch/v1 Job schema');
  t.equal(job.spec!.completionMode, 'Indexed', 'each pod gets JOB_COMPLETION_INDEX, its segment');
  t.equal(job.spec!.completions, 5);
  t.equal(job.spec!.parallelism, 5, 'parallelism = completions: every segment runs at once');
  t.equal(job.spec!.backoffLimit, 0, 'a retried (late) segment is never merged silently');
  const container = job.spec!.template.spec!.containers[0]!;
  const env = Object.fromEntries(container.env!.map(({ name, value }) => [name, value]));
  t.same(env, { SEGMENTS: '5', START_AT: String(startAt), SALVO_OPTIONS: JSON.stringify(options) }, 'N, the common start and the options');
  t.same(container.command, ['node', 'segment.mjs']);
  t.equal(job.spec!.template.spec!.restartPolicy, 'Never');

  t.throws(() => indexedJob({ name: 'salvo-load', image: 'x', segments: 2.5, startAt, options }), /completions must be integer/, 'a wrong type fails validation');
});

t.test('outputs: every pod writes to one Prometheus, the token from a Secret', async (t) => {
  const options = { url: 'http://target.internal/', rate: 5000, duration: '5m', outputs: [{ type: 'prometheus', url: 'http://prometheus.monitoring:9090/api/v1/write', labels: { testid: 'orders' } }] };
  const job = (
    indexedJob({ name: 'salvo-load', image: 'x', segments: 3, startAt: 1_800_000_000_000, options, outputSecret: { name: 'salvo-remote-write', key: 'authorization' } }) as Job
  ).toJSON() as IJob;
  t.doesNotThrow(() => new Job(job).validate());
  const env = job.spec!.template.spec!.containers[0]!.env!;
  t.same(JSON.parse(env.find(({ name }) => name === 'SALVO_OPTIONS')!.value!).outputs, options.outputs, 'the outputs travel in the options');
  t.same(env.find(({ name }) => name === 'SALVO_OUTPUT_AUTHORIZATION'), {
    name: 'SALVO_OUTPUT_AUTHORIZATION',
    valueFrom: { secretKeyRef: { name: 'salvo-remote-write', key: 'authorization' } },
  }, 'the token is a secretKeyRef, not in the manifest');
});

t.test('job.mjs type-checks against the Kubernetes API types (a misspelt field fails)', async (t) => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const { stdout } = await run(process.execPath, [tsc, '-p', 'examples/kubernetes/segments'], { cwd: root });
  t.equal(stdout, '', 'no type errors');
});
