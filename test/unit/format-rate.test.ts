// stats/format-rate.ts: a rate run's range of target rates, and its rate stages in words.
import t from 'tap';
import type { LoadResult } from '../../src/shared/load-result.js';
import { rateStagesText, targetRateRange } from '../../src/stats/format-rate.js';

const result = (over: { rate?: number; stages?: Array<{ rate?: number; durationMs: number }>; targets?: Array<number | undefined>; byScenario?: Record<string, { rate?: number }> }) =>
  ({
    rate: over.rate,
    timeline: (over.targets ?? []).map((targetRate, second) => ({ second, targetRate })),
    merge: { plan: { stages: over.stages } },
    byScenario: over.byScenario,
  }) as unknown as LoadResult;

t.test('targetRateRange: the stages as written, else the seconds’ targets, with the run’s rate', async (t) => {
  t.same(targetRateRange(result({ rate: 0, stages: [{ rate: 200, durationMs: 2000 }, { rate: 600, durationMs: 2000 }, { rate: 100, durationMs: 1000 }], targets: [100, 300, 500] })), [0, 600], 'a ramp’s seconds hold its means; the stage’s 600 is the top');
  t.same(targetRateRange(result({ rate: 250, targets: [250, undefined, 250] })), [250, 250]);
  t.same(targetRateRange(result({ rate: 100, targets: [100, 400, 50] })), [50, 400]);
  t.equal(targetRateRange(result({ targets: [100] })), undefined, 'closed loop');
  t.equal(targetRateRange(result({ rate: 100, byScenario: { a: { rate: 100 }, b: {} } })), undefined, 'a closed-loop scenario: no target of the whole run');
  t.same(targetRateRange(result({ rate: 100, byScenario: { a: { rate: 100 }, b: { rate: 50 } } })), [100, 100]);
});

t.test('rateStagesText: each stage from where the previous one ended', async (t) => {
  t.equal(rateStagesText(result({ rate: 0, stages: [{ rate: 200, durationMs: 2000 }, { rate: 600, durationMs: 2500 }, { rate: 600, durationMs: 2000 }] })), '0/s → 200/s in 2 s → 600/s in 2.5 s then holds 2 s');
  t.equal(rateStagesText(result({ rate: 1500, stages: [{ rate: 12000, durationMs: 60000 }] })), '1,500/s → 12,000/s in 60 s');
  t.equal(rateStagesText(result({ rate: 0, stages: [{ durationMs: 1000 }] })), undefined, 'connection stages are no rate stages');
  t.equal(rateStagesText(result({ rate: 100 })), undefined);
  t.equal(rateStagesText(result({ stages: [{ rate: 5, durationMs: 1000 }] })), undefined, 'closed loop');
});
