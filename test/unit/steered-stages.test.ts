import t from 'tap';
import type { LoadResult, TimelineEntry } from '../../src/index.js';
import { steeredStages } from '../../src/report/steered-stages.js';
import { stepFigures } from '../../src/report/steps.js';

function second(index: number, completed: number): TimelineEntry {
  return { second: index, sent: completed, completed, errors: 0, targetRate: completed } as TimelineEntry;
}

const steeredRate = {
  url: 'http://127.0.0.1:3000/',
  rate: 1000,
  connections: 40,
  durationMs: 6000,
  steps: [
    { atMs: 2015.5, rate: 3000 },
    { atMs: 4012.6, rate: 1000 },
  ],
  timeline: [1000, 1000, 2950, 3000, 1025, 1000].map((n, i) => second(i, n)),
  merge: { plan: { rate: 1000, connections: 40 } },
} as unknown as LoadResult;

t.test('a steered rate run reads as stages that each hold the rate set, from one change to the next', async (t) => {
  t.same(steeredStages(steeredRate), {
    kind: 'rate',
    start: 1000,
    stages: [
      { durationMs: 2015.5, target: 1000 },
      { durationMs: 4012.6 - 2015.5, target: 3000 },
      { durationMs: 6000 - 4012.6, target: 1000 },
    ],
  });
  const figures = stepFigures(steeredRate)!;
  t.same(
    figures.steps.map(({ target, from, sent }) => ({ target, from, sent })),
    [
      { target: 1000, from: 1000, sent: 2000 },
      { target: 3000, from: 3000, sent: 3000 },
      { target: 1000, from: 1000, sent: 1000 },
    ],
    "each step counts the whole seconds inside it: 0-1, 3, 5",
  );
  t.match(figures.source, /startLoad's setRate/);
});

t.test('a closed loop steers connections; a change made before the start replaces the first value', async (t) => {
  const result = {
    ...steeredRate,
    rate: undefined,
    connections: 8,
    steps: [
      { atMs: 0, connections: 4 },
      { atMs: 1000, connections: 2 },
    ],
    merge: { plan: { connections: 8 } },
  } as unknown as LoadResult;
  t.same(steeredStages(result), {
    kind: 'connections',
    start: 8,
    stages: [
      { durationMs: 1000, target: 4 },
      { durationMs: 5000, target: 2 },
    ],
  });
  t.equal(steeredStages({ ...result, steps: [{ atMs: 10, rate: 5 }] } as LoadResult), undefined, 'no change of its kind: no steps');
  t.equal(steeredStages({ ...result, steps: undefined } as LoadResult), undefined);
});
