// Tests of the metrics log behind the plots and the CSV download
// (client-web/record/metrics_log.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { METRICS, MetricsLog, formatMetric } from '../../../client-web/record/metrics_log.js';

const sample = (tick, extra = {}) => ({
  type: 'metrics', tick, agents: 300, polarization: 0.5, milling: 0.1, mean_nn_distance: 14.2,
  clusters: 3, largest_cluster: 200, collisions: 2, penetrations: 0, min_clearance: null, oscillation: 0.4, ...extra,
});

test('every field the server writes into `metrics` has a plot', () => {
  // The C encoder is the authority on the fields (server/src/protocol/metrics_json.c).
  const c = readFileSync(fileURLToPath(new URL('../../../server/src/protocol/metrics_json.c', import.meta.url)), 'utf8');
  const fields = new Set([...c.matchAll(/\\"([a-z_]+)\\":/g)].map((m) => m[1]));
  for (const f of ['polarization', 'milling', 'mean_nn_distance', 'min_clearance', 'oscillation']) fields.add(f); // put_real's
  fields.delete('type');
  fields.delete('tick');
  fields.delete('past'); // the flag of the metrics of a tick of the past, not a metric
  assert.deepEqual([...fields].sort(), METRICS.map((m) => m.key).sort());
});

test('the CSV has a header and one row per message, unknown values empty', () => {
  const log = new MetricsLog();
  log.add(sample(10), Date.UTC(2026, 10, 22, 13, 0, 0));
  log.add(sample(20, { clusters: null, polarization: 0.75 }), Date.UTC(2026, 10, 22, 13, 0, 0, 250));
  const lines = log.toCsv().split('\r\n');
  assert.equal(lines.at(-1), '', 'ends with a line break');
  assert.equal(lines[0], ['time', 'tick', ...METRICS.map((m) => m.key)].join(','));
  assert.equal(lines.length, 4);
  assert.equal(lines[1], '2026-11-22T13:00:00.000Z,10,300,0.5,0.1,14.2,3,200,2,0,,0.4');
  assert.equal(lines[2], '2026-11-22T13:00:00.250Z,20,300,0.75,0.1,14.2,,200,2,0,,0.4');
});

test('the plots get the rows of their window only; the log keeps at most maxRows', () => {
  const log = new MetricsLog(100);
  for (let i = 0; i < 150; i++) log.add(sample(i, { polarization: i / 150 }), i * 1000);
  assert.equal(log.length, 100, 'the oldest rows were dropped');
  assert.equal(log.tick[0], 50);
  const polar = METRICS.findIndex((m) => m.key === 'polarization');
  const [t, v] = log.series(polar, 149000, 10);
  assert.deepEqual(t, [139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149]);
  assert.equal(v.at(-1), 149 / 150);
  assert.equal(log.latest(polar), 149 / 150);
});

test('values are shown with their unit and a sensible precision', () => {
  const by = (k) => METRICS.find((m) => m.key === k);
  assert.equal(formatMetric(by('polarization'), 0.91234), '0.912');
  assert.equal(formatMetric(by('mean_nn_distance'), 14.26), '14.3 u');
  assert.equal(formatMetric(by('agents'), 12000), '12,000');
  assert.equal(formatMetric(by('min_clearance'), null), '—');
});

test('the moment of a scrubbed tick: the newest row at or before it, placed in time between its rows', () => {
  const log = new MetricsLog();
  const polar = METRICS.findIndex((m) => m.key === 'polarization');
  for (let i = 0; i < 10; i++) log.add(sample(100 + 15 * i, { polarization: i / 10 }), 1000 * i);
  assert.equal(log.atTick(99), null, 'older than the first row: the page opened later');
  assert.equal(log.firstTick(), 100);
  const exact = log.atTick(130);
  assert.equal(exact.tick, 130);
  assert.equal(exact.values[polar], 0.2);
  assert.equal(exact.t, 2);
  const between = log.atTick(137);
  assert.equal(between.tick, 130, 'the metrics a viewer read at tick 137');
  assert.equal(between.values[polar], 0.2);
  assert.ok(Math.abs(between.t - (2 + 7 / 15)) < 1e-9, 'placed between the rows by its tick');
  const after = log.atTick(10000);
  assert.equal(after.tick, 235, 'past the newest row: the newest');
  assert.equal(after.t, 9);
});

test('a reset starts the ticks again: the moment is looked up in the newest run only', () => {
  const log = new MetricsLog();
  const polar = METRICS.findIndex((m) => m.key === 'polarization');
  for (let i = 0; i < 5; i++) log.add(sample(1000 + 10 * i, { polarization: 0.9 }), 1000 * i);
  for (let i = 0; i < 5; i++) log.add(sample(10 * i, { polarization: 0.1 }), 5000 + 1000 * i);
  assert.equal(log.firstTick(), 0);
  assert.equal(log.atTick(1020).values[polar], 0.1, 'tick 1020 of the old run is gone with it: the newest run\'s newest row');
  assert.equal(log.atTick(20).row, 7);
  // Trimming the oldest rows keeps the run's start in place.
  const small = new MetricsLog(6);
  for (let i = 0; i < 5; i++) small.add(sample(1000 + i), i);
  for (let i = 0; i < 3; i++) small.add(sample(i), 5 + i);
  assert.equal(small.runStart, 3);
  assert.equal(small.atTick(1).tick, 1);
  assert.equal(small.atTick(1004).tick, 2);
});
