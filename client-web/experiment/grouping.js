// A summary's design points arranged for a picture: a metric against one
// factor (one line per value of a second), or over two factors (a grid),
// with every other factor held at a chosen value. Pure: no DOM.
(function (ns) {
  'use strict';

  const isNumber = (s) => ns.cellNumber(s) !== null;

  // The values a factor takes among the points, as strings: in numeric
  // order when all are numbers, else in order of first appearance (an enum
  // parameter's values in the design's order).
  function distinctValues(points, factor) {
    const values = [...new Set(points.map((p) => p.factors[factor]))];
    if (values.every(isNumber)) values.sort((a, b) => Number(a) - Number(b));
    return values;
  }

  // A held factor's value meaning "whatever it is": a sampled design (Latin
  // hypercube, a table) gives each point its own values, so no value of
  // one factor leaves more than one point; with ANY_VALUE every point counts.
  const ANY_VALUE = '(any)';

  // Points whose factors equal every value of `fixed` ({ factor: value }).
  function pointsWhere(points, fixed) {
    const entries = Object.entries(fixed ?? {}).filter(([, v]) => v !== ANY_VALUE);
    return points.filter((p) => entries.every(([f, v]) => p.factors[f] === v));
  }

  // The metric against factor `x`, one line per value of factor `by` (or a
  // single line when `by` is null), the other factors held at `fixed`.
  // Returns { xs: the x values (strings), numericX, lines: [{ value (of
  // `by`, or null), mean[], lo[], hi[] }], ambiguous } where lo/hi are
  // mean ∓ the 95% half-width (the mean itself when there is no interval:
  // one replicate), null where no point has a value. `ambiguous` says two
  // points fell on one place (a factor was left free): the first is kept.
  function seriesAgainst(table, { metric, x, by = null, fixed = {} }) {
    const points = pointsWhere(table.points, fixed);
    const xs = distinctValues(points, x);
    const lineValues = by ? distinctValues(points, by) : [null];
    const empty = () => xs.map(() => null);
    const lines = lineValues.map((value) => ({ value, mean: empty(), lo: empty(), hi: empty() }));
    const xAt = new Map(xs.map((v, i) => [v, i]));
    const lineAt = new Map(lineValues.map((v, i) => [v, i]));
    let ambiguous = false;
    for (const p of points) {
      const line = lines[lineAt.get(by ? p.factors[by] : null)];
      const i = xAt.get(p.factors[x]);
      const s = p.stats[metric];
      if (!s || s.mean === null) continue;
      if (line.mean[i] !== null) { ambiguous = true; continue; }
      const half = s.ci95 ?? 0;
      line.mean[i] = s.mean;
      line.lo[i] = s.mean - half;
      line.hi[i] = s.mean + half;
    }
    return { xs, numericX: xs.every(isNumber), lines, ambiguous };
  }

  // The metric's mean over factors `x` (columns) and `y` (rows), the other
  // factors held at `fixed`: { xs, ys, cells[row][column] (null where there
  // is no value), min, max, ambiguous } (min/max null when no cell has a
  // value; ambiguous as in seriesAgainst).
  function heatGrid(table, { metric, x, y, fixed = {} }) {
    const points = pointsWhere(table.points, fixed);
    const xs = distinctValues(points, x);
    const ys = distinctValues(points, y);
    const cells = ys.map(() => xs.map(() => null));
    const xAt = new Map(xs.map((v, i) => [v, i]));
    const yAt = new Map(ys.map((v, i) => [v, i]));
    let min = null;
    let max = null;
    let ambiguous = false;
    for (const p of points) {
      const mean = p.stats[metric]?.mean ?? null;
      const row = cells[yAt.get(p.factors[y])];
      const col = xAt.get(p.factors[x]);
      if (mean === null) continue;
      if (row[col] !== null) { ambiguous = true; continue; }
      row[col] = mean;
      min = min === null ? mean : Math.min(min, mean);
      max = max === null ? mean : Math.max(max, mean);
    }
    return { xs, ys, cells, min, max, ambiguous };
  }

  ns.ANY_VALUE = ANY_VALUE;
  ns.distinctValues = distinctValues;
  ns.pointsWhere = pointsWhere;
  ns.seriesAgainst = seriesAgainst;
  ns.heatGrid = heatGrid;
})(globalThis.SwarmcastExperiment ??= {});
