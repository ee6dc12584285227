// Tests of splitting a continuation sweep into its branches
// (client-web/experiment/continuation.js), on a summary shaped like a real
// `"sweep": "up_down"` run's: ali_radius 10→40 and back, two populations.
//   node --test tests/js/experiment/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadClassicScripts } from '../../lib/classic_scripts.mjs';

const X = loadClassicScripts(['experiment/csv.js', 'experiment/tables.js', 'experiment/grouping.js',
  'experiment/continuation.js'], 'SwarmcastExperiment');

const PATH = [10, 20, 30, 40, 30, 20, 10];
function summaryCsv() {
  const lines = ['point,ali_radius,agents,stage,runs,polarization_mean,polarization_sd,polarization_ci95'];
  for (const [point, agents] of [[0, 30], [1, 40]]) {
    // Up: order rises with the radius; down: it stays high (the memory).
    PATH.forEach((r, stage) => {
      const mean = stage <= 3 ? r / 100 : 0.5 + r / 100 + point;
      lines.push(`${point},${r},${agents},${stage},2,${mean},0.01,0.05`);
    });
  }
  return lines.join('\n') + '\n';
}
const table = () => X.addBranches(X.readTable(X.parseCsv(summaryCsv())));

test('branch labels: a turning point belongs to the stretch that reached it', () => {
  assert.deepEqual(X.branchLabels(PATH), ['up', 'up', 'up', 'up', 'down', 'down', 'down']);
  assert.deepEqual(X.branchLabels(['40', '30', '20']), ['down', 'down', 'down']);
  assert.deepEqual(X.branchLabels([1, 2, 3]), ['up', 'up', 'up']);
  assert.deepEqual(X.branchLabels([5]), ['up']);
  assert.deepEqual(X.branchLabels([1, 2, 1, 2]), ['up', 'up', 'down', 'up 2']);
});

test('a continuation summary gets the swept factor, the turn and a branch per row', () => {
  const t = table();
  assert.equal(t.continuation, true);
  assert.equal(t.swept, 'ali_radius');
  assert.deepEqual(t.turns, ['40']);
  assert.deepEqual(t.factors, ['ali_radius', 'agents', 'branch']);
  assert.deepEqual(t.points.filter((p) => p.point === 1).map((p) => p.factors.branch),
    ['up', 'up', 'up', 'up', 'down', 'down', 'down']);
});

test('rows given out of stage order are ordered by stage first', () => {
  const parsed = X.parseCsv(summaryCsv());
  parsed.rows.reverse();
  const t = X.addBranches(X.readTable(parsed));
  assert.deepEqual(t.points.filter((p) => p.point === 0).sort((a, b) => a.stage - b.stage).map((p) => p.factors.branch),
    ['up', 'up', 'up', 'up', 'down', 'down', 'down']);
});

test('hysteresis: the up and the down branch as two lines over the swept values, meeting at the turn', () => {
  const s = X.hysteresis(table(), { metric: 'polarization', fixed: { agents: '40' } });
  assert.deepEqual(s.xs, ['10', '20', '30', '40']);
  const [up, down] = s.lines;
  assert.equal(up.value, 'up');
  assert.equal(down.value, 'down');
  assert.deepEqual(up.mean, [0.1, 0.2, 0.3, 0.4]);
  assert.deepEqual(down.mean, [1.6, 1.7, 1.8, 0.4], 'the top is not repeated: the up value is drawn there');
  assert.equal(s.ambiguous, false);
});

test('a summary without stages is left as it is', () => {
  const t = X.readTable(X.parseCsv('point,w_ali,runs,p_mean,p_sd,p_ci95\n0,1,1,0.5,,\n'));
  assert.equal(X.addBranches(t), t);
});
