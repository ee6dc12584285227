// `swarmcast experiment plan FILE`, as a researcher runs it: the plan of a
// good file on stdout as CSV (one row per run, the same seeds every time),
// the summary on stderr, and a bad file refused with exit status 2 and a
// message naming the field, with nothing on stdout.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/experiment.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runSwarmcast } from '../lib/headless.mjs';

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
