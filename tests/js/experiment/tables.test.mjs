// Tests of reading the runner's tables and arranging them for the pictures
// (client-web/experiment/tables.js, grouping.js), on rows written by a real
// `swarmcast experiment run` (the cells shortened).
//   node --test tests/js/experiment/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadClassicScripts } from '../../lib/classic_scripts.mjs';

const X = loadClassicScripts(['experiment/csv.js', 'experiment/tables.js', 'experiment/grouping.js'], 'SwarmcastExperiment');

const SUMMARY = `point,w_ali,border,runs,polarization_mean,polarization_sd,polarization_ci95,min_clearance_mean,min_clearance_sd,min_clearance_ci95
0,0.5,wrap,3,0.1,0.06,0.15,,,
1,0.5,bounce,3,0.2,0.09,0.25,,,
2,1.5,wrap,3,0.3,0.05,0.13,,,
3,1.5,bounce,1,0.4,,,,,
4,10,wrap,3,0.5,0.1,0.2,,,
`;

const RESULTS = `run_id,point,replicate,seed,w_ali,border,stage,tick,polarization,clusters
30442f789204ed62,0,0,346586415,0.5,wrap,0,20,0.06,35
30442f789204ed62,0,0,346586415,0.5,wrap,0,40,0.03,33
2ad87e1ca7c57f61,0,1,2971053642,0.5,wrap,0,20,0.15,
`;

const summary = () => X.readTable(X.parseCsv(SUMMARY));

test('a summary: its factors, its metrics, empty statistics as null', () => {
  const t = summary();
  assert.equal(t.kind, 'summary');
  assert.deepEqual(t.factors, ['w_ali', 'border']);
  assert.deepEqual(t.metrics, ['polarization', 'min_clearance']);
  assert.equal(t.continuation, false);
  assert.deepEqual(t.points[1], {
    point: 1, factors: { w_ali: '0.5', border: 'bounce' }, stage: null, runs: 3,
    stats: { polarization: { mean: 0.2, sd: 0.09, ci95: 0.25 }, min_clearance: { mean: null, sd: null, ci95: null } },
  });
});

test('results: one entry per run, in file order, its ticks and metric values', () => {
  const t = X.readTable(X.parseCsv(RESULTS));
  assert.equal(t.kind, 'results');
  assert.deepEqual(t.factors, ['w_ali', 'border']);
  assert.deepEqual(t.metrics, ['polarization', 'clusters']);
  assert.equal(t.runs.length, 2);
  assert.deepEqual(t.runs[0].ticks, [20, 40]);
  assert.deepEqual(t.runs[0].values, { polarization: [0.06, 0.03], clusters: [35, 33] });
  assert.deepEqual(t.runs[1].values.clusters, [null]);
  assert.equal(t.runs[1].replicate, 1);
  assert.equal(t.runs[1].seed, '2971053642');
});

test('another CSV is refused with what it expected', () => {
  assert.throws(() => X.readTable(X.parseCsv('tick,polarization\n1,0.5\n')), /not a summary\.csv or results\.csv/);
});

test('distinct values: numeric order for numbers (10 after 1.5), first-seen order for names', () => {
  const t = summary();
  assert.deepEqual(X.distinctValues(t.points, 'w_ali'), ['0.5', '1.5', '10']);
  assert.deepEqual(X.distinctValues(t.points, 'border'), ['wrap', 'bounce']);
});

test('a metric against a factor, one line per value of another; the interval is mean ∓ ci95', () => {
  const s = X.seriesAgainst(summary(), { metric: 'polarization', x: 'w_ali', by: 'border' });
  assert.deepEqual(s.xs, ['0.5', '1.5', '10']);
  assert.equal(s.numericX, true);
  assert.equal(s.ambiguous, false);
  assert.deepEqual(s.lines.map((l) => l.value), ['wrap', 'bounce']);
  const [wrap, bounce] = s.lines;
  assert.deepEqual(wrap.mean, [0.1, 0.3, 0.5]);
  assert.deepEqual(wrap.lo.map((v) => +v.toFixed(6)), [-0.05, 0.17, 0.3]);
  assert.deepEqual(wrap.hi.map((v) => +v.toFixed(6)), [0.25, 0.43, 0.7]);
  assert.deepEqual(bounce.mean, [0.2, 0.4, null], 'no bounce point at w_ali=10');
  assert.deepEqual(bounce.lo.slice(0, 2), [0.2 - 0.25, 0.4], 'one replicate: no interval, the mean');
});

test('holding a factor at a value; leaving it free is reported as ambiguous', () => {
  const t = summary();
  const held = X.seriesAgainst(t, { metric: 'polarization', x: 'w_ali', fixed: { border: 'bounce' } });
  assert.deepEqual(held.lines.map((l) => l.mean), [[0.2, 0.4]]);
  assert.equal(held.ambiguous, false);
  const free = X.seriesAgainst(t, { metric: 'polarization', x: 'w_ali' });
  assert.equal(free.ambiguous, true);
  const byName = X.seriesAgainst(t, { metric: 'polarization', x: 'border', fixed: { w_ali: '1.5' } });
  assert.equal(byName.numericX, false);
  assert.deepEqual(byName.lines[0].mean, [0.3, 0.4]);
});

test('a heat map grid over two factors, with its range; a metric with no values has none', () => {
  const g = X.heatGrid(summary(), { metric: 'polarization', x: 'w_ali', y: 'border' });
  assert.deepEqual(g.xs, ['0.5', '1.5', '10']);
  assert.deepEqual(g.ys, ['wrap', 'bounce']);
  assert.deepEqual(g.cells, [[0.1, 0.3, 0.5], [0.2, 0.4, null]]);
  assert.equal(g.min, 0.1);
  assert.equal(g.max, 0.5);
  const none = X.heatGrid(summary(), { metric: 'min_clearance', x: 'w_ali', y: 'border' });
  assert.equal(none.min, null);
  assert.deepEqual(none.cells, [[null, null, null], [null, null, null]]);
});

test('a sampled design: "(any)" lets every point count; two in one place are reported', () => {
  const lhs = X.readTable(X.parseCsv(`point,w_ali,fov_ali,runs,p_mean,p_sd,p_ci95
0,0.7,200,2,0.3,0.1,0.9
1,2.1,95,2,0.6,0.1,0.9
2,1.4,330,2,0.5,0.1,0.9
`));
  const s = X.seriesAgainst(lhs, { metric: 'p', x: 'w_ali', fixed: { fov_ali: X.ANY_VALUE } });
  assert.deepEqual(s.xs, ['0.7', '1.4', '2.1']);
  assert.deepEqual(s.lines[0].mean, [0.3, 0.5, 0.6]);
  assert.equal(s.ambiguous, false);
  assert.equal(X.pointsWhere(lhs.points, { fov_ali: '95' }).length, 1);
  const t = summary();
  assert.equal(X.heatGrid(t, { metric: 'polarization', x: 'w_ali', y: 'border' }).ambiguous, false);
  const collapsed = X.readTable(X.parseCsv('point,a,b,c,runs,m_mean,m_sd,m_ci95\n0,1,1,1,1,5,,\n1,1,1,2,1,6,,\n'));
  const g = X.heatGrid(collapsed, { metric: 'm', x: 'a', y: 'b', fixed: { c: X.ANY_VALUE } });
  assert.equal(g.ambiguous, true);
  assert.deepEqual(g.cells, [[5]]);
});
