// A line chart drawn by uPlot (npm package `uplot`, its classic build
// loaded by experiment.html, which defines the global `uPlot`): lines over
// x with, for each line that has one, its interval over replicates as a
// translucent band with whiskers at the points. uPlot has no error bars of
// its own, so the intervals are drawn on its canvas from a hook, under the
// lines and clipped to the plot area. Categorical x values (an enum
// parameter's names) are placed at 0, 1, 2… and named on the axis.
(function (ns) {
  'use strict';

  // Okabe and Ito's colours, told apart with colour-blindness too.
  const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];
  const HEIGHT = 320;
  // Up to this many x values each get a tick of their own.
  const MAX_NAMED_X = 12;
  // container → { chart, observer } of what lineChart drew there.
  const drawn = new WeakMap();

  function withAlpha(hex, alpha) {
    const n = parseInt(hex.slice(1), 16);
    return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
  }

  // The y range covering every mean and interval, padded a little.
  function yRange(lines) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const l of lines) {
      for (const arr of [l.values, l.lo, l.hi]) {
        for (const v of arr ?? []) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
    }
    if (lo === Infinity) return [0, 1];
    if (lo === hi) return [lo - 1, hi + 1];
    const pad = (hi - lo) * 0.08;
    return [lo - pad, hi + pad];
  }

  function drawIntervals(u, lines) {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    const xs = u.data[0];
    lines.forEach((l, k) => {
      if (!l.lo) return;
      const color = COLORS[k % COLORS.length];
      const px = (i) => u.valToPos(xs[i], 'x', true);
      const py = (v) => u.valToPos(v, 'y', true);
      // The band, one polygon per run of points that all have an interval.
      ctx.fillStyle = withAlpha(color, 0.16);
      let i = 0;
      while (i < xs.length) {
        if (l.lo[i] === null) { i++; continue; }
        let j = i;
        while (j + 1 < xs.length && l.lo[j + 1] !== null) j++;
        ctx.beginPath();
        for (let a = i; a <= j; a++) ctx.lineTo(px(a), py(l.hi[a]));
        for (let a = j; a >= i; a--) ctx.lineTo(px(a), py(l.lo[a]));
        ctx.closePath();
        ctx.fill();
        i = j + 1;
      }
      // Whiskers.
      ctx.strokeStyle = withAlpha(color, 0.7);
      ctx.lineWidth = Math.max(1, devicePixelRatio);
      const cap = 4 * devicePixelRatio;
      for (let a = 0; a < xs.length; a++) {
        if (l.lo[a] === null || l.lo[a] === l.hi[a]) continue;
        const x = px(a);
        ctx.beginPath();
        ctx.moveTo(x, py(l.lo[a])); ctx.lineTo(x, py(l.hi[a]));
        ctx.moveTo(x - cap, py(l.lo[a])); ctx.lineTo(x + cap, py(l.lo[a]));
        ctx.moveTo(x - cap, py(l.hi[a])); ctx.lineTo(x + cap, py(l.hi[a]));
        ctx.stroke();
      }
    });
    ctx.restore();
  }

  // Draws into `container` (replacing what was there):
  // { xs: number[] or strings with names: true, xLabel, yLabel,
  //   lines: [{ label, values[], lo[]?, hi[]? }], points: whether to mark
  //   each value }. Returns the uPlot instance, or null when uPlot is not
  // loaded (then says so in the container).
  function lineChart(container, spec) {
    // The chart drawn here before: its listeners and observer go with it.
    const before = drawn.get(container);
    before?.chart.destroy();
    before?.observer?.disconnect();
    drawn.delete(container);
    container.replaceChildren();
    if (typeof uPlot !== 'function') {
      container.textContent = 'plots need uPlot: run `npm ci` in client-web';
      return null;
    }
    const names = spec.names ? spec.xs : null;
    const x = names ? spec.xs.map((_, i) => i) : spec.xs.map(Number);
    const axis = { stroke: '#3d4450', grid: { stroke: 'rgba(0, 0, 0, 0.08)' } };
    const xAxis = { ...axis, label: spec.xLabel };
    if (names) {
      xAxis.splits = () => x;
      xAxis.values = (u, splits) => splits.map((i) => names[i] ?? '');
    } else if (x.length <= MAX_NAMED_X) {
      // A factor's few values: a tick at each, not at round numbers between.
      xAxis.splits = () => x;
    }
    const opts = {
      width: Math.max(320, Math.floor(container.clientWidth)),
      height: HEIGHT,
      // The legend names the lines; values under the cursor would say
      // only the mean.
      legend: { live: false },
      scales: {
        x: names ? { time: false, range: [-0.5, names.length - 0.5] } : { time: false },
        y: { range: () => yRange(spec.lines) },
      },
      axes: [xAxis, { ...axis, label: spec.yLabel, size: 60 }],
      series: [{ label: spec.xLabel }, ...spec.lines.map((l, k) => ({
        label: l.label,
        stroke: COLORS[k % COLORS.length],
        width: 2,
        spanGaps: spec.spanGaps ?? false,
        points: { show: spec.points ?? true, size: 6 },
      }))],
      hooks: { drawAxes: [(u) => drawIntervals(u, spec.lines)] },
    };
    const chart = new uPlot(opts, [x, ...spec.lines.map((l) => l.values)], container);
    let observer = null;
    if (typeof ResizeObserver === 'function') {
      observer = new ResizeObserver(() => {
        const w = Math.max(320, Math.floor(container.clientWidth));
        if (w !== chart.width) chart.setSize({ width: w, height: HEIGHT });
      });
      observer.observe(container);
    }
    drawn.set(container, { chart, observer });
    return chart;
  }

  ns.LINE_COLORS = COLORS;
  ns.lineChart = lineChart;
})(globalThis.SwarmcastExperiment ??= {});
