/**
 * The report page's own script: reads the chart specs (see chart-spec.ts) from the JSON block and draws
 * each with uPlot, sized to its container and redrawn on resize. Kept free of template-literal syntax
 * so it can live in this string; the browser test runs it and fails on any console error.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var specs = JSON.parse(document.getElementById('salvo-data').textContent).charts;
  var HEIGHT = 240;
  var SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  // Steps, clients and rates are whole numbers: no gridline at step 2.5.
  var INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 1e4, 2e4, 2.5e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6];

  function round(value) {
    if (value == null || isNaN(value)) return '';
    if (Number.isInteger(value)) return value.toLocaleString('en-US');
    var abs = Math.abs(value);
    return abs >= 1000 ? Math.round(value).toLocaleString('en-US') : abs >= 10 ? value.toFixed(1) : value.toFixed(3).replace(/\.?0+$/, '');
  }

  // x = 1 / (1 - p): 1 is the minimum, 2 the median, 10 p90, 100 p99 ...
  function percentileOf(x) {
    var p = 100 - 100 / x;
    var digits = x >= 100 ? Math.min(6, Math.ceil(Math.log10(x)) - 2) : 0;
    return p.toFixed(Math.max(0, digits)) + '%';
  }

  function percentileSplits(u, axisIndex, min, max) {
    // On a phone's width the 50% label would run into the 0% one.
    var splits = u.width < 480 ? [1] : [1, 2];
    for (var x = 10; x <= max * 1.0001; x *= 10) splits.push(x);
    return splits.filter(function (s) { return s >= min * 0.9999; });
  }

  function xValue(spec, v) {
    if (v == null) return '';
    if (spec.xKind === 'percentile') return percentileOf(v);
    return spec.xKind === 'seconds' ? v + ' s' : round(v) + (spec.xUnit || '');
  }

  function xAxis(spec) {
    if (spec.xKind === 'percentile') {
      // A log axis labels only powers of ten unless its filter keeps every split.
      return { label: 'percentile', splits: percentileSplits, filter: function (u, splits) { return splits; }, values: function (u, splits) { return splits.map(percentileOf); } };
    }
    if (spec.xKind === 'seconds') return { label: 'elapsed', incrs: SECOND_STEPS, values: function (u, splits) { return splits.map(function (v) { return v + ' s'; }); } };
    var integers = spec.x.every(function (v) { return Number.isInteger(v); });
    return { label: spec.xLabel, incrs: integers ? INTEGER_STEPS : undefined, values: function (u, splits) { return splits.map(round); } };
  }

  function options(spec, width) {
    var percentile = spec.xKind === 'percentile';
    var series = [{
      label: percentile ? 'percentile' : spec.xKind === 'seconds' ? 'elapsed' : spec.xLabel,
      value: function (u, v) { return xValue(spec, v); },
    }];
    spec.series.forEach(function (s) {
      series.push({
        label: s.label,
        stroke: s.color,
        width: 2,
        dash: s.dash,
        scale: s.scale,
        spanGaps: true,
        points: { show: s.points || s.pointsOnly || spec.x.length < 3, size: s.pointsOnly ? 9 : 6, fill: s.pointsOnly ? s.color : undefined },
        paths: s.pointsOnly ? function () { return null; } : undefined,
        value: function (u, v) { return v == null ? '' : round(v) + s.unit; },
      });
    });
    var axes = [
      xAxis(spec),
      { label: spec.yLabel, scale: 'y', size: 60, values: function (u, splits) { return splits.map(round); } },
    ];
    var scales = {
      // One step alone still needs a width: its point sits in the middle of a range around it.
      x: percentile ? { time: false, distr: 3, log: 10 } : spec.x.length === 1 ? { time: false, range: function (u, min, max) { return [min - 1, max + 1]; } } : { time: false },
      y: spec.yLog ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } },
    };
    if (spec.y2Label) {
      axes.push({ label: spec.y2Label, scale: 'y2', side: 1, size: 60, grid: { show: false }, values: function (u, splits) { return splits.map(round); } });
      scales.y2 = { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } };
    }
    return { width: width, height: HEIGHT, series: series, axes: axes, scales: scales, cursor: { drag: { x: true, y: false } } };
  }

  // The uPlot instances by chart id, for the tests that read back what was drawn.
  var plots = window.salvoPlots = {};
  var drawn = [];
  // Draws the charts, replacing those drawn before: the live page draws each second's anew.
  function draw(list) {
    drawn.forEach(function (d) { d.plot.destroy(); delete plots[d.id]; });
    drawn = [];
    list.forEach(function (spec) {
      var container = document.getElementById(spec.id);
      var data = [spec.x].concat(spec.series.map(function (s) { return s.values; }));
      var plot = new uPlot(options(spec, container.clientWidth), data, container);
      plots[spec.id] = plot;
      drawn.push({ id: spec.id, container: container, plot: plot });
    });
    document.body.setAttribute('data-charts', String(drawn.length));
  }
  window.salvoDraw = draw;
  draw(specs);

  var pending = 0;
  window.addEventListener('resize', function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () {
      drawn.forEach(function (d) { d.plot.setSize({ width: d.container.clientWidth, height: HEIGHT }); });
    });
  });
})();
`;
