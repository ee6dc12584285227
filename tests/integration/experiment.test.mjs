// `swarmcast experiment plan FILE`, as a researcher runs it: the plan of a
// good file on stdout as CSV (one row per run, the same seeds every time),
// the summary on stderr, and a bad file refused with exit status 2 and a
// message naming the field, with nothing on stdout.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/experiment.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

import { runSwarmcast } from '../lib/headless.mjs';
import { serverBin, waitUntil } from '../lib/server.mjs';

const T = { timeout: 30000 };

let dir;
before(() => { dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-experiment-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function write(name, content) {
  const p = path.join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
}

const DELAY = {
  scenario: { agents: 300, model: 'reynolds', params: { border: 'wrap' } },
  factors: [
    { param: 'delay_ticks', values: [0, 4, 8, 16] },
    { param: 'w_ali', first: 0.5, step: 0.5, last: 2 },
  ],
  replicates: 5, master_seed: 1, steps: 3000, warmup: 600, record_every: 100,
  metrics: ['polarization', 'clusters'],
};

test('plan lists every run once, with stable seeds, as CSV', T, async () => {
  const file = write('delay.json', DELAY);
  const a = await runSwarmcast(['experiment', 'plan', file]);
  assert.equal(a.code, 0, a.stderr);
  const rows = a.stdout.trim().split('\n');
  assert.equal(rows[0], 'run_id,point,replicate,seed,delay_ticks,w_ali');
  assert.equal(rows.length - 1, 4 * 4 * 5);
  const runs = rows.slice(1).map((r) => r.split(','));
  assert.equal(new Set(runs.map((r) => r[0])).size, 80, 'every run id differs');
  assert.ok(runs.every((r) => /^[0-9a-f]{16}$/.test(r[0])));
  // every (delay, weight) pair has replicates 0..4, each with its own seed
  const points = new Map();
  for (const [, point, rep, seed, delay, w] of runs) {
    const key = `${delay}/${w}`;
    if (!points.has(key)) points.set(key, { point, reps: new Set(), seeds: new Set() });
    assert.equal(points.get(key).point, point);
    points.get(key).reps.add(rep);
    points.get(key).seeds.add(seed);
  }
  assert.equal(points.size, 16);
  for (const p of points.values()) {
    assert.deepEqual([...p.reps].sort(), ['0', '1', '2', '3', '4']);
    assert.equal(p.seeds.size, 5);
  }
  assert.match(a.stderr, /80 runs \(16 design points × 5 replicates\), 3000 steps each/);
  // the same file, the same plan, byte for byte
  const b = await runSwarmcast(['experiment', 'plan', file]);
  assert.equal(b.stdout, a.stdout);
});

test('a design table is read relative to the experiment file', T, async () => {
  write('points.csv', 'w_ali,border\n0.25,wrap\n1.5,bounce\n');
  const file = write('table.json', {
    factors: [{ param: 'w_ali', lo: 0, hi: 3 }, { param: 'border' }],
    design: { table: 'points.csv' }, replicates: 2, steps: 100,
  });
  const r = await runSwarmcast(['experiment', 'plan', file], {});
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(rows.slice(1).map((x) => x.slice(1, 3).concat(x.slice(4))),
    [['0', '0', '0.25', 'wrap'], ['0', '1', '0.25', 'wrap'], ['1', '0', '1.5', 'bounce'], ['1', '1', '1.5', 'bounce']]);
});

test('a bad file is refused with exit status 2, naming the field, and prints no plan', T, async () => {
  const cases = [
    [{ ...DELAY, factors: [{ param: 'w_ali', values: [1, 99] }] }, /factors\[0\]\.values\[1\]: w_ali/],
    [{ ...DELAY, metrics: ['order'] }, /metrics\[0\]: unknown metric order/],
    [{ ...DELAY, factors: [{ param: 'delay_ticks', values: [0, 8] }, DELAY.factors[1]], design: 'zip' },
      /factors\[1\] \(w_ali\): 4 values, but zip needs as many as the others \(2\)/],
    [{ ...DELAY, replicates: 0 }, /replicates:/],
    ['{"steps": 10,', /not valid JSON/],
  ];
  for (const [content, says] of cases) {
    const r = await runSwarmcast(['experiment', 'plan', write('bad.json', content)]);
    assert.equal(r.code, 2, `${JSON.stringify(content)}: ${r.stderr}`);
    assert.match(r.stderr, says);
    assert.equal(r.stdout, '');
  }
  const missing = await runSwarmcast(['experiment', 'plan', path.join(dir, 'nope.json')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read/);
  const usage = await runSwarmcast(['experiment', 'frobnicate']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: swarmcast experiment plan FILE/);
});

// ---- experiment run, resume, shards, merge -------------------------------

const SMALL = {
  scenario: { agents: 60, world: { width: 400, height: 300 }, params: { border: 'wrap' } },
  factors: [
    { param: 'delay_ticks', values: [0, 6] },
    { param: 'w_ali', values: [0.5, 1.5] },
  ],
  replicates: 3, master_seed: 11, steps: 120, warmup: 40, record_every: 20,
  metrics: ['polarization', 'mean_nn_distance', 'clusters'],
};

async function runExperiment(file, out, ...flags) {
  return runSwarmcast(['experiment', 'run', file, '--out', out, ...flags], { timeoutMs: 120000 });
}

const read = (dir, name) => readFileSync(path.join(dir, name), 'utf8');

test('a sweep gives the same tables with one worker or two, and each run is the headless run by hand', { timeout: 240000 }, async () => {
  const file = write('small.json', SMALL);
  const one = path.join(dir, 'one'), two = path.join(dir, 'two');
  const a = await runExperiment(file, one, '--workers', '1');
  assert.equal(a.code, 0, a.stderr);
  const b = await runExperiment(file, two, '--workers', '2');
  assert.equal(b.code, 0, b.stderr);
  assert.equal(read(one, 'results.csv'), read(two, 'results.csv'));
  assert.equal(read(one, 'summary.csv'), read(two, 'summary.csv'));

  const rows = read(one, 'results.csv').trim().split('\n');
  assert.equal(rows[0], 'run_id,point,replicate,seed,delay_ticks,w_ali,stage,tick,polarization,mean_nn_distance,clusters');
  // 12 runs × ticks 60, 80, 100, 120 (past the warm-up of 40, every 20)
  assert.equal(rows.length - 1, 12 * 4);
  assert.deepEqual([...new Set(rows.slice(1).map((r) => r.split(',')[7]))], ['60', '80', '100', '120']);

  // Run 7 by hand: the same numbers at the same ticks.
  const run = rows.slice(1).map((r) => r.split(',')).filter((r) => r[0] === rows[1 + 7 * 4].split(',')[0]);
  const [, , , seed, delay, w] = run[0];
  const hand = await runSwarmcast(['--headless', '--scenario', path.join(one, 'scenario.json'), '--seed', seed,
    '--steps', '120', '--set', `delay_ticks=${delay}`, '--set', `w_ali=${w}`, '--csv', '-', '--metrics-every', '20']);
  assert.equal(hand.code, 0, hand.stderr);
  const handRows = hand.stdout.trim().split('\n').slice(1).map((r) => r.split(','))
    .filter((r) => Number(r[0]) > 40).map((r) => [r[0], r[2], r[4], r[5]].join(','));
  assert.deepEqual(run.map((r) => r.slice(7).join(',')), handRows);

  // `experiment scenario` gives a file that runs it again.
  const sc = await runSwarmcast(['experiment', 'scenario', one, run[0][0]]);
  assert.equal(sc.code, 0, sc.stderr);
  const again = await runSwarmcast(['--headless', '--scenario', write('again.json', sc.stdout), '--csv', '-', '--metrics-every', '20']);
  assert.equal(again.stdout, hand.stdout);

  // The summary: per point, the mean over its replicates of each run's last row.
  const summary = read(one, 'summary.csv').trim().split('\n').map((r) => r.split(','));
  assert.equal(summary.length - 1, 4);
  const last = rows.slice(1).map((r) => r.split(',')).filter((r) => r[7] === '120' && r[1] === '0');
  const mean = last.reduce((s, r) => s + Number(r[8]), 0) / last.length;
  assert.equal(summary[1][3], '3');
  assert.ok(Math.abs(Number(summary[1][4]) - mean) < 1e-8, `mean ${summary[1][4]} vs ${mean}`);

  const manifest = JSON.parse(read(one, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 12, ok: 12, failed: 0, not_done: 0 });
  assert.match(manifest.machine.instruction_set, /x86-64|portable/);
  assert.match(manifest.machine.kernels, /x86-64|no clones/);
  assert.equal(manifest.experiment.master_seed, 11);
});

test('an interrupted sweep resumes to exactly the files of an uninterrupted one', { timeout: 240000 }, async () => {
  const file = write('small.json', SMALL);
  const whole = path.join(dir, 'whole'), cut = path.join(dir, 'cut');
  assert.equal((await runExperiment(file, whole)).code, 0);
  // Half the runs, then a block torn in the middle (as a kill mid-write leaves it).
  assert.equal((await runExperiment(file, cut, '--shard', '0/2')).code, 0);
  const journal = path.join(cut, 'runs.journal');
  const text = readFileSync(journal, 'utf8');
  writeFileSync(journal, text + text.slice(0, text.indexOf('@end')).split('\n').slice(0, 3).join('\n') + '\n');
  const r = await runExperiment(file, cut);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /holds 6 of these 12 runs already; running the other 6/);
  assert.equal(read(cut, 'results.csv'), read(whole, 'results.csv'));
  assert.equal(read(cut, 'summary.csv'), read(whole, 'summary.csv'));
  // Again: nothing left to run.
  const again = await runExperiment(file, cut);
  assert.match(again.stderr, /0 runs ran/);
});

test('shards 0/3, 1/3 and 2/3 merged equal one run byte for byte', { timeout: 240000 }, async () => {
  const file = write('small.json', SMALL);
  const whole = path.join(dir, 'whole3');
  assert.equal((await runExperiment(file, whole)).code, 0);
  const shards = [];
  for (let i = 0; i < 3; i++) {
    const out = path.join(dir, `shard${i}`);
    const r = await runExperiment(file, out, '--shard', `${i}/3`);
    assert.equal(r.code, 0, r.stderr);
    shards.push(out);
  }
  // The last run alone, as a job array's task runs it.
  const single = path.join(dir, 'single');
  assert.equal((await runExperiment(file, single, '--index', '11')).code, 0);
  assert.equal(read(single, 'results.csv').trim().split('\n').length - 1, 4);

  const merged = path.join(dir, 'merged');
  const m = await runSwarmcast(['experiment', 'merge', '--out', merged, ...shards]);
  assert.equal(m.code, 0, m.stderr);
  // (the journals hold the same blocks; a sweep's in the order its runs ended)
  for (const name of ['results.csv', 'summary.csv', 'experiment.json'])
    assert.equal(read(merged, name), read(whole, name), name);

  // Folders of another experiment are refused.
  const other = path.join(dir, 'other');
  assert.equal((await runExperiment(write('other.json', { ...SMALL, master_seed: 12 }), other, '--index', '0')).code, 0);
  const bad = await runSwarmcast(['experiment', 'merge', '--out', path.join(dir, 'm2'), shards[0], other]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /holds another experiment/);
});

test('a run that fails is recorded with why and the others finish', { timeout: 120000 }, async () => {
  const file = write('poison.json', {
    scenario: { world: { width: 400, height: 300 } },
    factors: [{ param: 'agents', values: [40, 9000000, 50] }], replicates: 2, steps: 30,
  });
  const out = path.join(dir, 'poison');
  const r = await runExperiment(file, out);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /failed: 9000000 agents is above --max-agents/);
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 6, ok: 4, failed: 2, not_done: 0 });
  assert.deepEqual(manifest.runs.map((x) => x.status), ['ok', 'ok', 'failed', 'failed', 'ok', 'ok']);
  const rows = read(out, 'results.csv').trim().split('\n').slice(1);
  assert.deepEqual([...new Set(rows.map((x) => x.split(',')[1]))], ['0', '2']);
});

test('a continuation carries the world along the path, up and back down', { timeout: 120000 }, async () => {
  const file = write('cont.json', {
    scenario: { agents: 80, world: { width: 400, height: 300 } },
    factors: [{ param: 'w_ali', values: [0, 2], sweep: 'up_down' }],
    replicates: 2, steps: 100, warmup: 50, record_every: 50, metrics: ['polarization'],
  });
  const out = path.join(dir, 'cont');
  const r = await runExperiment(file, out);
  assert.equal(r.code, 0, r.stderr);
  const rows = read(out, 'results.csv').trim().split('\n').slice(1).map((x) => x.split(','));
  const first = rows.filter((x) => x[2] === '0');
  // stages 0 (w_ali 0), 1 (2), 2 (0 again); the tick goes on from stage to stage
  assert.deepEqual(first.map((x) => [x[4], x[5], x[6]].join(' ')), ['0 0 100', '2 1 200', '0 2 300']);
  const summary = read(out, 'summary.csv').trim().split('\n');
  assert.equal(summary[0], 'point,w_ali,stage,runs,polarization_mean,polarization_sd,polarization_ci95');
  assert.equal(summary.length - 1, 3);
});

test('a second runner on the same folder is refused while the first writes it', { timeout: 120000 }, async () => {
  const file = write('long.json', { ...SMALL, replicates: 200, steps: 2000 });
  const out = path.join(dir, 'locked');
  const first = spawn(serverBin, ['experiment', 'run', file, '--out', out, '--workers', '1'], { stdio: 'ignore' });
  const ended = new Promise((resolve) => first.on('exit', resolve));
  try {
    await waitUntil(() => existsSync(path.join(out, 'experiment.json')), 'the first runner to take the folder', { timeoutMs: 30000 });
    const second = await runExperiment(file, out);
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /another `swarmcast experiment` is writing this folder/);
  } finally {
    first.kill('SIGKILL');
    await ended;
  }
  // The lock went with the process: the folder can be resumed.
  const again = await runExperiment(write('short.json', SMALL), out);
  assert.equal(again.code, 0, again.stderr);
});
