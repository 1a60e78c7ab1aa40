// One pod of the Indexed Job: runs its segment of the load test and writes its result as JSON.
//   JOB_COMPLETION_INDEX  this pod's segment (set by Kubernetes for `completionMode: Indexed`)
//   SEGMENTS              how many segments the run is split into (the Job's completions)
//   START_AT              the common start, epoch ms or an ISO time (the same for every pod)
//   SALVO_OPTIONS         runLoad options as JSON: { "url": ..., "connections": ..., "rate": ..., ... }
//   RESULTS_DIR           optional: also write segment-<index>.json there (a shared volume)
//   SALVO_OUTPUT_AUTHORIZATION  optional: the `authorization` header of every output (from a Secret)
// The result goes to stdout as one line `SALVO_RESULT <json>`, which `gather.mjs` reads back from the
// pods' logs; the summary goes to stderr. Exits 0 whether or not thresholds pass: they are judged
// on the merged result, never on one segment.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatResult, runLoad } from 'salvo';

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

const index = Number(required('JOB_COMPLETION_INDEX'));
const count = Number(required('SEGMENTS'));
const startAtText = required('START_AT');
const startAt = /^\d+$/.test(startAtText) ? Number(startAtText) : Date.parse(startAtText);
const options = JSON.parse(required('SALVO_OPTIONS'));
// Each pod writes its seconds to the options' outputs itself, labelled with its segment.
const authorization = process.env.SALVO_OUTPUT_AUTHORIZATION;
if (authorization && Array.isArray(options.outputs)) {
  options.outputs = options.outputs.map((output) => ({ ...output, headers: { ...output.headers, authorization } }));
}

const result = await runLoad({ ...options, segment: { index, count }, startAt });
process.stderr.write(`segment ${index} of ${count}\n${formatResult(result)}\n`);
const json = JSON.stringify(result);
if (process.env.RESULTS_DIR) {
  await mkdir(process.env.RESULTS_DIR, { recursive: true });
  await writeFile(join(process.env.RESULTS_DIR, `segment-${index}.json`), json);
}
process.stdout.write(`SALVO_RESULT ${json}\n`);
