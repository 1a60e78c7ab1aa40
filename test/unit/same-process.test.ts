import t from 'tap';
import { sameProcess } from '../../src/monitor/same-process.js';
import type { Reading } from '../../src/monitor/reading.js';

/**
 * Readings a second apart of a process using `rate` cores, starting at `startCpu` s of CPU; the
 * read of sample i takes `lateMs(i)` ms and the counters are read at its end (a busy app answers late).
 */
function readings(rate: number, startCpu: number, lateMs: (i: number) => number, startS = 1_700_000_000): Reading[] {
  return Array.from({ length: 6 }, (_, i) => {
    const atMs = 1_700_000_100_000 + i * 1000;
    const readAt = atMs + lateMs(i);
    return { atMs, readMs: [atMs, readAt], cpuSeconds: startCpu + (rate * (readAt - 1_700_000_100_000)) / 1000, processStartS: startS };
  });
}

t.test('one busy process: the page counts from its registration (150 ms less) and answers up to 120 ms late', async (t) => {
  const pid = readings(0.25, 0.4, () => 1);
  const page = readings(0.25, 0.25, (i) => [120, 5, 80, 10, 60, 3][i]!);
  t.ok(sameProcess(pid, page, 2), 'the same process');
});

t.test('two processes with different CPU rates drift apart; the constant must not be negative', async (t) => {
  t.notOk(sameProcess(readings(0.25, 0.4, () => 1), readings(0.15, 0.25, () => 1), 2), '25% and 15% of a core: two processes');
  t.notOk(sameProcess(readings(0.25, 0.4, () => 1), readings(0.25, 0.6, () => 1), 2), 'a page that counts more CPU than the whole process is another process');
  t.notOk(sameProcess(readings(0.25, 0.4, () => 1), readings(0.25, 0.25, () => 1, 1_700_000_010), 2), 'started 10 s apart');
  t.notOk(sameProcess([], [], 2), 'no readings: not known to be the same');
});
