// The shipped experiments of the seeds' findings (experiments/delay.json,
// fov.json, olfati.json), each run by the runner at a reduced size (fewer
// factor values, replicates and steps, written as a derived file), and the
// direction of its finding read from the runner's own summary.csv. The
// margins are a good part of the measured effect, not all of it: a build
// with other instructions (ASan, another CPU level) rounds differently and
// its runs part ways, the replicates' means stay.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/experiment-seeds.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runOk } from '../lib/headless.mjs';

const experiments = fileURLToPath(new URL('../../experiments/', import.meta.url));
const T = { timeout: 600000 };

let dir;
before(() => { dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-seeds-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function readCsv(file) {
  const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const names = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, k) => [names[k], v])));
}

/** The shipped file with `changes` over it, its table design (if any)
 * filtered by `keepRow`, run; its summary.csv's rows. */
async function runReduced(name, changes, keepRow = () => true) {
  const shipped = JSON.parse(readFileSync(path.join(experiments, `${name}.json`), 'utf8'));
  const reduced = { ...shipped, ...changes };
  if (shipped.design && shipped.design.table) {
    const [head, ...rows] = readFileSync(path.join(experiments, shipped.design.table), 'utf8')
      .split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    const table = path.join(dir, `${name}-points.csv`);
    writeFileSync(table, [head, ...rows.filter((r) => keepRow(Object.fromEntries(
      r.split(',').map((v, k) => [head.split(',')[k], v]))))].join('\n') + '\n');
    reduced.design = { table };
  }
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(reduced));
  const out = path.join(dir, `${name}-out`);
  await runOk(['experiment', 'run', file, '--out', out, '--workers', '2'], { timeoutMs: 550000 });
  return readCsv(path.join(out, 'summary.csv'));
}

const report = (rows, keys) => rows.map((r) => keys.map((k) => `${k} ${r[k]}`).join(', ')).join('\n');

test('delay.json: the flock fragments more as the delay grows (seed 001, 5.3)', T, async () => {
  const rows = await runReduced('delay', {
    factors: [{ param: 'delay_ticks', values: [0, 30] }], replicates: 8, steps: 1800, record_every: 'end',
  });
  const why = report(rows, ['delay_ticks', 'clusters_mean', 'largest_cluster_mean', 'polarization_mean']);
  const at = (d) => rows.find((r) => Number(r.delay_ticks) === d);
  assert.equal(rows.length, 2);
  // Measured at this size: about 4.5 groups without delay, 10 with 30 ticks.
  assert.ok(Number(at(30).clusters_mean) > Number(at(0).clusters_mean) + 2, `more groups with 30 ticks of delay\n${why}`);
});

test('fov.json: a narrow field of view fragments or crushes the flock, a wide one holds it (seed 001, 5.1.1 and 5.2)', T, async () => {
  const rows = await runReduced('fov', { replicates: 10, steps: 1800 }, (r) => r.fov_ali === '60' || r.fov_ali === '360');
  const why = report(rows, ['personal_space', 'fov_ali', 'border', 'clusters_mean', 'largest_cluster_mean', 'collisions_mean']);
  assert.equal(rows.length, 8, 'two angles, two borders, with and without contact');
  const at = (space, border, fov) => rows.find((r) => Number(r.personal_space) === space && r.border === border
    && Number(r.fov_ali) === fov);
  const num = (space, border, fov, metric) => Number(at(space, border, fov)[`${metric}_mean`]);
  // The seed's bare rules. Measured full size: bounced 10.9 groups at 60
  // degrees, 1.4 at 360; collisions 209 (wrap) and 50 (bounce) at 60, 0-1 at 360.
  assert.ok(num(0, 'bounce', 60, 'clusters') > num(0, 'bounce', 360, 'clusters') + 2,
    `bare rules, bounce: more groups at 60 degrees than at 360\n${why}`);
  for (const border of ['wrap', 'bounce'])
    assert.ok(num(0, border, 60, 'collisions') > num(0, border, 360, 'collisions') + 5,
      `bare rules, ${border}: agents collide at 60 degrees, not at 360\n${why}`);
  // The contact rule: nothing collides, bounced fragmentation milder but
  // the same way (4.6 groups at 60 degrees, 1.5 at 360).
  for (const border of ['wrap', 'bounce'])
    assert.ok(num(14, border, 60, 'collisions') < 0.5, `contact, ${border}: no collisions\n${why}`);
  assert.ok(num(14, 'bounce', 60, 'clusters') > num(14, 'bounce', 360, 'clusters') + 1,
    `contact, bounce: more groups at 60 degrees than at 360\n${why}`);
});

test('olfati.json: Algorithm 1 ends in fragments, Algorithm 2 with its position feedback in one group (seed 004)', T, async () => {
  const rows = await runReduced('olfati', { replicates: 6, steps: 1200, record_every: 'end' });
  const why = report(rows, ['model', 'agents', 'os_c1_gamma', 'clusters_mean', 'largest_cluster_mean', 'polarization_mean']);
  assert.equal(rows.length, 6, 'two set-ups, three ways each');
  for (const agents of ['27', '35']) {
    const of = (model, c1) => rows.find((r) => r.agents === agents && r.model === model && Number(r.os_c1_gamma) === c1);
    const alg1 = of('olfati1', 0), velocityOnly = of('olfati2', 0), alg2 = of('olfati2', 0.0625);
    assert.ok(Number(alg1.clusters_mean) > 1.5 && Number(alg1.largest_cluster_mean) < Number(agents) - 1,
      `${agents} agents: Algorithm 1 leaves several groups\n${why}`);
    assert.ok(Number(alg1.polarization_mean) < 0.97, `${agents} agents: … flying different ways\n${why}`);
    assert.equal(Number(alg2.clusters_mean), 1, `${agents} agents: Algorithm 2 gathers one group\n${why}`);
    assert.equal(Number(alg2.largest_cluster_mean), Number(agents));
    // As the seed's code runs it (no position feedback), the groups stop
    // drifting apart (polarization 1) but do not meet again.
    assert.ok(Number(velocityOnly.clusters_mean) > 1.5 && Number(velocityOnly.polarization_mean) > 0.99,
      `${agents} agents: velocity feedback alone aligns the groups without gathering them\n${why}`);
  }
});
