/** One line of a chart. `values` line up with the chart's `x`; `null` leaves a gap. */
export interface ChartSeries {
  label: string;
  color: string;
  /** `'y'` (left axis) or `'y2'` (right axis). */
  scale: 'y' | 'y2';
  values: Array<number | null>;
  /** Unit shown after the value in the legend. */
  unit: string;
  dash?: number[];
  /** Mark each point (per-step charts: every point is a measurement). */
  points?: boolean;
  /** Draw no line, only the points (failed capacity steps). */
  pointsOnly?: boolean;
}

/** What the report's script draws with uPlot: one chart. */
export interface ChartSpec {
  id: string;
  title: string;
  /**
   * `'seconds'`: x is seconds since the run began (at each second's end); `'percentile'`: x is
   * 1 / (1 - p), log-scaled; `'linear'`: a plain number named by `xLabel` (clients, req/s, step).
   */
  xKind: 'seconds' | 'percentile' | 'linear';
  x: number[];
  /** Axis name of a `'linear'` x. */
  xLabel?: string;
  /** Unit after a `'linear'` x value in the legend. */
  xUnit?: string;
  yLabel: string;
  /** A log-scaled y axis: values far apart (a 20 ms objective beside a 443 ms failure) both in view. */
  yLog?: boolean;
  y2Label?: string;
  series: ChartSeries[];
}

export const COLORS = {
  blue: '#2563eb',
  orange: '#ea580c',
  green: '#16a34a',
  red: '#dc2626',
  grey: '#6b7280',
  purple: '#7c3aed',
  teal: '#0d9488',
};
