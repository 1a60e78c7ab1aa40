import t from 'tap';
import { runLoad } from '../../src/index.js';
import { arrivalServer } from '../fixtures/arrival-server.js';
import { inSomeRun } from '../fixtures/timing.js';
import { coefficientOfVariation, exponentialCdf, gaps, ksCritical01, ksStatistic, mean } from '../fixtures/statistics.js';

// 50/s: the pacer sends slots closer than 0.5 ms together in one wake-up (pacer.ts), so a gap under
// 0.5 ms reaches the server as about 0.5 ms; at 50/s that is 2.5% of exponential gaps, well inside
// the critical value (9.3% at n = 300), and at 400/s it would be 18%.
const RATE = 50;
const DURATION_MS = 6000;

t.test('poisson arrivals at the server: exponential gaps at the rate, the same count over 1 and 4 workers', async (t) => {
  const server = await arrivalServer(t);
  for (const workers of [1, 4]) {
    await inSomeRun(t, 3, async (timing) => {
      const result = await runLoad({ url: server.url, rate: RATE, duration: DURATION_MS, connections: 8, workers, arrivals: { distribution: 'poisson', seed: 5 } });
      const arrived = await server.arrivals(result.requests.sent);
      t.equal(arrived.length, result.requests.sent, `${workers} worker(s): the server saw every request sent`);
      t.equal(result.requests.sent + result.requests.missed, RATE * DURATION_MS / 1000, 'sent and missed make rate × duration exactly, as at a constant rate');
      timing.ok(result.requests.missed === 0, `none missed (${result.requests.missed})`);
      const observed = gaps(arrived);
      const d = ksStatistic(observed, exponentialCdf(RATE / 1000));
      const critical = ksCritical01(observed.length);
      timing.ok(d < critical, `${workers} worker(s): KS D ${d.toFixed(4)} < ${critical.toFixed(4)} (exponential at ${RATE}/s, alpha 0.01, n ${observed.length})`);
      timing.ok(Math.abs(mean(observed) - 1000 / RATE) < 0.1 * (1000 / RATE), `mean gap ${mean(observed).toFixed(2)} ms`);
      const even = ksStatistic(observed.map(() => 1000 / RATE), exponentialCdf(RATE / 1000));
      t.ok(even > critical, `the test tells: even gaps give D ${even.toFixed(3)}`);
    });
  }
});

t.test('gamma arrivals of shape 0.25 are burstier at the server: CV about 2 at the same mean', async (t) => {
  const server = await arrivalServer(t);
  await inSomeRun(t, 3, async (timing) => {
    const result = await runLoad({ url: server.url, rate: RATE, duration: 4000, connections: 8, arrivals: { distribution: 'gamma', shape: 0.25, seed: 5 } });
    const arrived = await server.arrivals(result.requests.sent);
    t.equal(arrived.length, result.requests.sent, 'the server saw every request sent');
    t.equal(result.requests.sent + result.requests.missed, RATE * 4, 'sent and missed make rate × duration exactly');
    const observed = gaps(arrived);
    const cv = coefficientOfVariation(observed);
    timing.ok(cv > 1.5, `gap CV ${cv.toFixed(2)} > 1.5 (Poisson's is 1; shape 0.25 gives 1 / sqrt(0.25) = 2)`);
    // The mean of the gaps between the first and the last arrival: bursty gaps leave a long stretch
    // before the first and after the last (2.5 mean gaps each at CV 2), so the bound is looser here.
    timing.ok(Math.abs(mean(observed) - 1000 / RATE) < 0.15 * (1000 / RATE), `mean gap ${mean(observed).toFixed(2)} ms, ${1000 / RATE} ms set`);
  });
});
