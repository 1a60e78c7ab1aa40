// What merging segment results costs: the size of one segment's result JSON, and the time
// mergeResults takes (CPU time) for 100 and 1,000 of them (examples/kubernetes/segments/README.md quotes it).
//
//   node benchmarks/merge-cost.mjs [--seconds 60,600] [--segments 100,1000] [--rounds 3]
//
// Each result is a real runLoad result whose histograms are replaced by ones holding `perSecond`
// latencies a second, spread over 0.5 ms to ~200 ms (a realistic, wide distribution: wider ones
// encode larger), for `seconds` seconds. Ten distinct bodies are reused across the segments.
import { parseArgs } from 'node:util';
import * as hdr from 'hdr-histogram-js';
import { mergeResults, runLoad } from '../dist/index.js';
import { createTestServer } from '../dist/testing.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60,600' },
    segments: { type: 'string', default: '100,1000' },
    rounds: { type: 'string', default: '3' },
    perSecond: { type: 'string', default: '1000' },
  },
});
const list = (text) => text.split(',').map(Number);
const perSecond = Number(values.perSecond);
const histogram = () =>
  hdr.build({ bitBucketSize: 32, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });

let seed = 1;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
/** Log-normal around 5 ms, in µs. */
const latencyUs = () => Math.round(5000 * Math.exp(0.9 * Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random())));

const server = await createTestServer();
const template = await runLoad({ url: server.url, connections: 2, amount: 20 });
await server.close();

function segmentResult(seconds, index, count) {
  const total = histogram();
  const timeline = [];
  const encoded = [];
  for (let second = 0; second < seconds; second++) {
    const h = histogram();
    for (let i = 0; i < perSecond; i++) h.recordValue(latencyUs());
    total.add(h);
    timeline.push({ second, sent: perSecond, completed: perSecond, errors: 0, p50: h.getValueAtPercentile(50) / 1000, p99: h.getValueAtPercentile(99) / 1000, connections: 10 });
    encoded.push(hdr.encodeIntoCompressedBase64(h));
    h.destroy();
  }
  const all = hdr.encodeIntoCompressedBase64(total);
  total.destroy();
  return {
    ...template,
    requests: { sent: perSecond * seconds, completed: perSecond * seconds, perSecond, missed: 0 },
    durationMs: seconds * 1000,
    timeline,
    histogram: all,
    histogramUncorrected: all,
    merge: { ...template.merge, segment: { index, count }, timeline: encoded },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| seconds | result JSON (bytes) | segments | merge, CPU ms, median [min-max] | JSON.parse of all (ms) |`);
console.log('|---|---|---|---|---|');
for (const seconds of list(values.seconds)) {
  const bodies = Array.from({ length: 10 }, () => segmentResult(seconds, 0, 1));
  const bytes = JSON.stringify(bodies[0]).length;
  for (const count of list(values.segments)) {
    const texts = Array.from({ length: count }, (_, index) =>
      JSON.stringify({ ...bodies[index % 10], merge: { ...bodies[index % 10].merge, segment: { index, count } } }),
    );
    const times = [];
    let parseMs = 0;
    for (let round = 0; round < Number(values.rounds); round++) {
      const parseStart = performance.now();
      const results = texts.map((text) => JSON.parse(text));
      parseMs = performance.now() - parseStart;
      // CPU time of this process: on a shared host the wall clock also counts other processes' turns.
      const start = process.cpuUsage();
      const merged = mergeResults(results);
      const used = process.cpuUsage(start);
      times.push((used.user + used.system) / 1000);
      if (merged.requests.completed !== perSecond * seconds * count) throw new Error('merge lost requests');
    }
    console.log(`| ${seconds} | ${bytes.toLocaleString('en-US')} | ${count} | ${median(times).toFixed(0)} [${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)}] | ${parseMs.toFixed(0)} |`);
  }
}
