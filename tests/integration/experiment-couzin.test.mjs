// The shipped experiments/couzin.json (Couzin et al. 2002: the collective
// states along the zone of orientation, and collective memory between the
// up and the down sweep), run as shipped but with 4 replicates instead of
// 20: the order of its states in summary.csv.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/experiment-couzin.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runOk } from '../lib/headless.mjs';

const experiments = fileURLToPath(new URL('../../experiments/', import.meta.url));

let dir;
before(() => { dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-couzin-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function readCsv(file) {
  const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const names = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, k) => [names[k], v])));
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('couzin.json: swarm, torus, then parallel going up, and the parallel group kept coming down', { timeout: 900000 }, async () => {
  const shipped = JSON.parse(readFileSync(path.join(experiments, 'couzin.json'), 'utf8'));
  const reduced = { ...shipped, scenario: path.join(experiments, shipped.scenario), replicates: 4 };
  const file = path.join(dir, 'couzin.json');
  writeFileSync(file, JSON.stringify(reduced));
  const out = path.join(dir, 'out');
  await runOk(['experiment', 'run', file, '--out', out, '--workers', '2'], { timeoutMs: 850000 });

  const rows = readCsv(path.join(out, 'summary.csv'));
  assert.equal(rows.length, 31, 'Δr_o 0 … 150 and back: 31 stages');
  const at = (stage) => rows.find((r) => Number(r.stage) === stage);
  const p = (stage) => Number(at(stage).polarization_mean);
  const m = (stage) => Number(at(stage).milling_mean);
  const report = rows.map((r) => `${r.stage}:${r.cz_dr_o} p ${Number(r.polarization_mean).toFixed(2)} m ${Number(r.milling_mean).toFixed(2)}`);
  const why = report.join('\n');

  // Up: stage k is Δr_o = k body lengths (10 u each).
  assert.ok(p(0) < 0.3 && m(0) < 0.4, `a swarm at Δr_o = 0\n${why}`);
  const torus = [1, 2, 3, 4, 5, 6, 7];
  assert.ok(mean(torus.map(m)) > 0.6 && mean(torus.map(p)) < 0.3, `a torus at Δr_o 1-7 going up\n${why}`);
  assert.ok(p(15) > 0.9, `highly parallel at Δr_o = 15\n${why}`);
  // Down: stage 30 − k is Δr_o = k again. Over the middle of the range
  // the group stays parallel where going up it milled.
  const middle = [4, 5, 6, 7, 8, 9];
  const up = mean(middle.map(p)), down = mean(middle.map((k) => p(30 - k)));
  assert.equal(Number(at(30 - 6).cz_dr_o), 60);
  assert.ok(down - up > 0.3, `hysteresis: p up ${up.toFixed(2)}, down ${down.toFixed(2)} over Δr_o 4-9\n${why}`);
});
