// The load-test gate a CI job runs (see github-workflow.yml and gitlab-ci.yml beside it):
//   node gate.mjs --url http://127.0.0.1:3000/ --id api [--add] [--history .salvo-history] [--out reports] [--remeasure 2] [--require-baseline]
// It runs the load a few times, compares the runs with the history's latest baseline builds (runGate:
// a regression is measured again, --remeasure times, before it counts), writes each run's HTML report, JUnit XML and a
// Markdown summary (to $GITHUB_STEP_SUMMARY when set), draws the trend, and with --add (on the main branch) stores the runs as a new build. Exit status:
// 0 passed, 1 a threshold failed, 3 a metric regressed, 7 no baseline with --require-baseline.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from 'salvo';
import { addToHistory, formatJUnit, formatSummary, readHistory, renderTrendReport, runGate, writeSummary } from 'salvo/gate';
import { renderReport } from 'salvo/report';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:3000/' },
    id: { type: 'string', default: 'api' },
    history: { type: 'string', default: '.salvo-history' },
    out: { type: 'string', default: 'reports' },
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5s' },
    add: { type: 'boolean', default: false },
    remeasure: { type: 'string', default: '2' },
    'require-baseline': { type: 'boolean', default: false },
  },
});

/** The service may still be starting when the job gets here: wait for its first answer (10 s at most). */
async function waitFor(url) {
  for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
    try {
      await fetch(url);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within 10 s: ${error.cause?.code ?? error.message}`);
    }
  }
}

async function measure() {
  const results = [];
  for (let run = 1; run <= Number(values.runs); run++) {
    results.push(await runLoad({
      url: values.url,
      connections: 10,
      duration: values.duration,
      warmup: '1s',
      // Every 2-second window of the run, not only the whole: a stall shows even when the whole run hides it.
      thresholds: { 'latency.p99': { threshold: '< 500', window: '2s' }, 'errors.rate': '< 0.01' },
    }));
  }
  return results;
}

await waitFor(values.url);
await mkdir(values.out, { recursive: true });
const { results, comparison } = await runGate(values.history, values.id, measure, {
  remeasure: Number(values.remeasure),
  requireBaseline: values['require-baseline'],
  // A runner that slows down for the whole of one build looks like a regression: it is measured again, and fails only if it holds.
  onRemeasure: (_, regressed) => console.log(`regressed (${regressed.metrics.filter((metric) => metric.regressed).map((metric) => metric.message).join('; ')}); measuring again`),
});
if (comparison.noBaseline !== undefined) console.log(`${comparison.requireBaseline ? 'error' : 'warning'}: ${comparison.noBaseline.message}`);
for (const [index, result] of results.entries()) await writeFile(join(values.out, `run-${index + 1}.html`), renderReport(result));
const thresholdsPassed = results.every((result) => result.ok);
if (values.add) {
  // On the main branch: the build joins the baseline only when it passed; `salvo history accept` takes in a slowdown that was meant.
  // The commit, branch and job link come from the CI's variables.
  const regressed = !comparison.ok && comparison.noBaseline === undefined;
  const entry = await addToHistory(values.history, values.id, results, { baseline: !regressed && thresholdsPassed });
  console.log(`stored ${entry.id}`);
}
await writeFile(join(values.out, 'trend.html'), renderTrendReport(values.id, await readHistory(values.history, values.id)));
const reports = [...results.map((_, index) => ({ title: `run ${index + 1}`, href: `run-${index + 1}.html` })), { title: 'trend', href: 'trend.html' }];
const outcome = { testId: values.id, results, comparison, reports };
await writeFile(join(values.out, 'junit.xml'), formatJUnit(outcome));
const summary = formatSummary(outcome);
// GitHub Actions shows $GITHUB_STEP_SUMMARY on the run's page; elsewhere the file is an artifact.
if ((await writeSummary(summary)) === undefined) await writeFile(join(values.out, 'summary.md'), summary);
console.log(summary);
process.exitCode = !thresholdsPassed ? 1 : comparison.noBaseline !== undefined && !comparison.ok ? 7 : comparison.ok ? 0 : 3;
