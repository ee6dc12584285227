// Watching one run of a sweep live: a tiny experiment runs, one of its runs
// is written as a scenario (`swarmcast experiment scenario DIR RUN_ID`), and
// the real server serves it (`swarmcast --scenario FILE`). A real `ws`
// client must see the scenario's world in the hello and the snapshots, the
// live metrics must be the headless run's at the same ticks, and the world
// paused at tick T must be the headless world after T steps, byte for byte
// (--final). Bad scenario files: a message, exit 2, nothing served.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/live-scenario.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { spawnServer, webRoot } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { runOk, runSwarmcast } from '../lib/headless.mjs';

const T = { timeout: 60000 };
const WAIT = { timeoutMs: 20000 }; // a busy 2-core machine: conditions, not speed
const HEADLESS_STEPS = 3000; // covers the live ticks the tests look at (50 s at 60 Hz)

// Small enough to run in a moment; a world, a model, parameters, an obstacle
// and a target that differ from the server's defaults, so that each must
// come from the scenario.
const EXPERIMENT = {
  scenario: {
    agents: 150, model: 'olfati2', world: { width: 800, height: 600 },
    params: { border: 'bounce' },
    obstacles: [{ x: 400, y: 300, radius: 40 }],
    targets: [{ x: 600, y: 300 }],
  },
  factors: [{ param: 'max_speed', values: [60, 90] }],
  replicates: 2, master_seed: 3, steps: 60, record_every: 30, metrics: ['polarization'],
};

let dir;
let scenarioPath;
let run; // the run's row of `experiment plan`: { id, seed, maxSpeed }
let headlessRows; // tick → CSV row of the headless run of the same scenario

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-live-scenario-'));
  const file = path.join(dir, 'exp.json');
  writeFileSync(file, JSON.stringify(EXPERIMENT));
  await runOk(['experiment', 'run', file, '--out', path.join(dir, 'out'), '--workers', '1']);
  // The last run of the plan (the second point's second replicate).
  const plan = (await runOk(['experiment', 'plan', file])).stdout.trim().split('\n');
  const [id, , , seed, maxSpeed] = plan[plan.length - 1].split(',');
  run = { id, seed: Number(seed), maxSpeed: Number(maxSpeed) };
  const written = await runOk(['experiment', 'scenario', path.join(dir, 'out'), id]);
  scenarioPath = path.join(dir, 'run.json');
  writeFileSync(scenarioPath, written.stdout);

  const csv = path.join(dir, 'headless.csv');
  await runOk(['--headless', '--scenario', scenarioPath, '--steps', String(HEADLESS_STEPS), '--csv', csv],
    { timeoutMs: 120000 });
  const [header, ...lines] = readFileSync(csv, 'utf8').trim().split('\n');
  const names = header.split(',');
  headlessRows = new Map(lines.map((l) => {
    const cells = l.split(',');
    return [Number(cells[0]), Object.fromEntries(names.map((n, i) => [n, cells[i]]))];
  }));
});

after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** The server with exactly these flags and no --agents/--seed (they would win over the scenario). */
function serve(args, env = {}) {
  return spawnServer(['--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot, '--metrics-listen', 'off',
    '--threads', '2', ...args], { env });
}

function param(hello, name) {
  const p = hello.params.find((e) => e.name === name);
  assert.ok(p, `hello names the parameter ${name}`);
  return p.value;
}

// The live message has six significant digits (metrics_json.c), the CSV nine.
function assertSameMetrics(live, row) {
  for (const k of ['agents', 'clusters', 'largest_cluster', 'collisions', 'penetrations']) {
    assert.equal(live[k], Number(row[k]), `tick ${live.tick}: ${k}`);
  }
  for (const k of ['polarization', 'milling', 'mean_nn_distance', 'min_clearance', 'oscillation']) {
    if (row[k] === '') { assert.equal(live[k], null, `tick ${live.tick}: ${k} is unknown in both`); continue; }
    const want = Number(row[k]);
    assert.ok(Math.abs(live[k] - want) <= 6e-6 * Math.abs(want) + 1e-12,
      `tick ${live.tick}: ${k} live ${live[k]}, headless ${row[k]}`);
  }
}

test('the scenario of one run is served from tick 0: its world, and the headless run\'s metrics and state', T, async () => {
  const liveFinal = path.join(dir, 'live-final.json');
  const server = await serve(['--scenario', scenarioPath, '--final', liveFinal]);
  try {
    // A viewer that comes and goes first: it must not take the scenario's
    // target (client_id 1) with it when it leaves.
    const passer = await connect(server.wsUrl);
    assert.ok(passer.hello.client_id > 1, `viewers are numbered above the scenario's target: ${passer.hello.client_id}`);
    passer.close();
    await passer.closed;

    const c = await connect(server.wsUrl);
    const h = c.hello;
    assert.deepEqual(h.world, { width: 800, height: 600 });
    assert.equal(param(h, 'model'), 'olfati2');
    assert.equal(param(h, 'border'), 'bounce');
    assert.equal(param(h, 'max_speed'), run.maxSpeed, "the run's own value of the factor");
    const snap = await c.nextSnapshot(() => true, 'a snapshot', WAIT);
    assert.equal(snap.agents.count, 150);
    assert.equal(snap.obstacles.length, 1);
    assert.equal(snap.targets.length, 1);

    // Metrics messages (about 4 a second) against the headless rows of the same tick.
    const isMetrics = (m) => m.type === 'metrics';
    await c.waitFor(() => c.texts.filter(isMetrics).length >= 4, 'four metrics messages', WAIT);
    const metrics = c.texts.filter(isMetrics);
    for (const m of metrics) {
      assert.ok(headlessRows.has(m.tick), `tick ${m.tick} is within the headless run`);
      assertSameMetrics(m, headlessRows.get(m.tick));
    }

    // Paused: the world at tick T is the headless world after T steps.
    const paused = await c.command({ type: 'pause' }, WAIT);
    c.close();
    const { code } = await server.stop();
    assert.equal(code, 0, server.output());
    const headlessFinal = path.join(dir, 'headless-final.json');
    await runOk(['--headless', '--scenario', scenarioPath, '--steps', String(paused.tick), '--final', headlessFinal]);
    assert.ok(readFileSync(liveFinal).equals(readFileSync(headlessFinal)),
      `the live world at tick ${paused.tick} differs from the headless run's`);
    assert.match(server.output(), /serving scenario .*run\.json from tick 0 \(model olfati2, 150 agents, 800x600/);
  } finally {
    await server.stop();
  }
});

test('--agents, --seed and --set given with --scenario win over the file, as headless', T, async () => {
  const server = await serve(['--scenario', scenarioPath, '--agents', '40', '--set', 'border=wrap']);
  try {
    const c = await connect(server.wsUrl);
    assert.equal(param(c.hello, 'border'), 'wrap');
    assert.equal(param(c.hello, 'model'), 'olfati2');
    const snap = await c.nextSnapshot(() => true, 'a snapshot', WAIT);
    assert.equal(snap.agents.count, 40);
    c.close();
  } finally {
    await server.stop();
  }
});

test('a scenario wins over a saved --state-file at start, which then keeps the scenario\'s world (SWARMCAST_SCENARIO)', T, async () => {
  const state = path.join(dir, 'state.json');
  // A set-up of another world saved first.
  const first = await serve(['--state-file', state, '--world', '800x600', '--agents', '25', '--model', 'couzin']);
  assert.equal((await first.stop()).code, 0, first.output());
  assert.ok(existsSync(state));

  const server = await serve(['--state-file', state], { SWARMCAST_SCENARIO: scenarioPath });
  try {
    const c = await connect(server.wsUrl);
    assert.equal(param(c.hello, 'model'), 'olfati2');
    const snap = await c.nextSnapshot(() => true, 'a snapshot', WAIT);
    assert.equal(snap.agents.count, 150);
    c.close();
    assert.equal((await server.stop()).code, 0, server.output());
    assert.match(server.output(), /--scenario replaces the set-up saved in .*state\.json/);
  } finally {
    await server.stop();
  }
  // Without the scenario, the next start resumes the scenario's set-up (a
  // state file belongs to one world size: --world says it, as always).
  const again = await serve(['--state-file', state, '--world', '800x600']);
  try {
    const c = await connect(again.wsUrl);
    assert.equal(param(c.hello, 'model'), 'olfati2');
    assert.equal(param(c.hello, 'max_speed'), run.maxSpeed);
    const snap = await c.nextSnapshot(() => true, 'a snapshot', WAIT);
    assert.equal(snap.agents.count, 150);
    c.close();
  } finally {
    await again.stop();
  }
});

test('a bad scenario file: a clear message, exit 2, nothing served', T, async () => {
  const bad = (name, text) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const cases = [
    [path.join(dir, 'missing.json'), /missing\.json/],
    [bad('notjson.json', '{"agents": 10,'), /notjson\.json/],
    [bad('param.json', '{"params": {"no_such_param": 1}}'), /no_such_param/],
    [bad('obstacle.json', '{"world": {"width": 400, "height": 300}, "obstacles": [{"x": 900, "y": 10, "radius": 5}]}'),
      /obstacles/],
    [bad('target.json', '{"targets": [{"x": 10, "y": 10, "client_id": 70000}]}'), /client_id 70000 is above 65535/],
  ];
  for (const [file, why] of cases) {
    const r = await runSwarmcast(['--scenario', file, '--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot,
      '--metrics-listen', 'off']);
    assert.equal(r.code, 2, `${file}: exit 2\n${r.stderr}`);
    assert.equal(r.stdout, '', `${file}: nothing served`);
    assert.match(r.stderr, /^swarmcast: scenario /m);
    assert.match(r.stderr, why);
  }
  // A relay has no world to set up.
  const relay = await runSwarmcast(['relay', '--nats', 'nats://127.0.0.1:1', '--scenario', scenarioPath]);
  assert.equal(relay.code, 2);
  assert.match(relay.stderr, /--scenario is the simulation's/);
});
