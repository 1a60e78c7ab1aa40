import type { LoadResult, ServerSecond } from '../shared/load-result.js';
import type { ChartSeries, ChartSpec } from './chart-spec.js';
import { timelineX } from './charts.js';

/**
 * The server processes' CPU and the machine's CPU and network over the run (`monitor`), on the load
 * charts' time axis: one point at the end of each second, a gap where no source answered. None when
 * nothing was monitored or the run was shorter than two seconds.
 */
export function serverCharts(result: LoadResult): ChartSpec[] {
  const timeline = result.timeline ?? [];
  if (result.server === undefined || timeline.length < 2) return [];
  // The monitor's last second ends with the run: its figures are per second already.
  const x = timelineX(result);
  const column = (read: (second: ServerSecond) => number | undefined) =>
    timeline.map((entry) => (entry.server === undefined ? null : (read(entry.server) ?? null)));
  const has = (values: Array<number | null>) => values.some((value) => value !== null);
  const charts: ChartSpec[] = [];
  const cores = (count: number | undefined) => (count === undefined ? '' : ` (${count} core${count === 1 ? '' : 's'})`);
  const cpu = column((s) => s.cpuPercent);
  if (has(cpu)) {
    charts.push({
      id: 'chart-server-cpu',
      title: `Server CPU${cores(result.server.cores)}`,
      xKind: 'seconds',
      x,
      yLabel: '% of one core',
      series: [{ label: 'server CPU', color: '#dc2626', scale: 'y', values: cpu, unit: '%' }],
    });
  }
  const machineCpu = column((s) => s.machine?.cpuPercent);
  if (has(machineCpu)) {
    charts.push({
      id: 'chart-machine-cpu',
      title: `Machine CPU${cores(result.server.machine?.cores)}`,
      xKind: 'seconds',
      x,
      yLabel: '% of one core',
      series: [{ label: 'machine CPU', color: '#6b7280', scale: 'y', values: machineCpu, unit: '%' }],
    });
  }
  const received = column((s) => s.machine?.receivedBytesPerSecond);
  const sent = column((s) => s.machine?.sentBytesPerSecond);
  if (has(received) || has(sent)) {
    const megabytes = (values: Array<number | null>) => values.map((value) => (value === null ? null : value / 1e6));
    const series: ChartSeries[] = [
      { label: 'received', color: '#2563eb', scale: 'y', values: megabytes(received), unit: ' MB/s' },
      { label: 'sent', color: '#ea580c', scale: 'y', values: megabytes(sent), unit: ' MB/s', dash: [4, 4] },
    ];
    charts.push({
      id: 'chart-machine-network',
      title: "Machine network (the monitor's scrapes left out)",
      xKind: 'seconds',
      x,
      yLabel: 'MB/s',
      series,
    });
  }
  return charts;
}
