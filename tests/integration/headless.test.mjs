// The headless runner (`swarmcast --headless`): reproducible CSV and final
// JSON, independent of the thread count, scenario files, and clear refusals
// (exit code 2) of bad arguments and bad scenarios.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/headless.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { repoRoot } from '../lib/server.mjs';
import { runOk, runSwarmcast } from '../lib/headless.mjs';

const T = { timeout: 30000 };
const CSV_HEADER = 'tick,agents,polarization,milling,mean_nn_distance,clusters,largest_cluster,collisions,penetrations,min_clearance,oscillation';

let dir;
before(() => { dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-headless-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const file = (name) => path.join(dir, name);

function writeScenario(name, content) {
  const p = file(name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
}

/** Runs headless with outputs named after tag; returns { csv, json, text, stderr }. */
async function headless(tag, args) {
  const csv = file(`${tag}.csv`);
  const json = file(`${tag}.json`);
  const r = await runOk(['--headless', '--csv', csv, '--final', json, ...args]);
  return { csv: readFileSync(csv), json: readFileSync(json), state: JSON.parse(readFileSync(json, 'utf8')), stderr: r.stderr };
}

test('the same arguments give byte-identical CSV and final JSON', T, async () => {
  const args = ['--steps', '120', '--agents', '300', '--seed', '5', '--world', '800x600', '--set', 'border=bounce',
    '--set', 'fov_sep=270', '--threads', '2'];
  const one = await headless('same-1', args);
  const two = await headless('same-2', args);
  assert.ok(one.csv.equals(two.csv), 'the CSV files are identical');
  assert.ok(one.json.equals(two.json), 'the final JSON files are identical');

  const rows = one.csv.toString('utf8').trimEnd().split('\n');
  assert.equal(rows[0], CSV_HEADER);
  assert.equal(rows.length, 1 + 121, 'a row for the start and one per step');
  assert.deepEqual(rows.slice(1).map((r) => Number(r.split(',')[0])), [...Array(121).keys()]);
  for (const r of rows.slice(1)) {
    const f = r.split(',');
    assert.equal(f.length, 11);
    assert.equal(f[1], '300');
    assert.equal(f[9], '', 'min_clearance is empty without obstacles');
  }

  const s = one.state;
  assert.equal(s.tick, 120);
  assert.equal(s.seed, 5);
  assert.equal(s.params.border, 'bounce');
  assert.equal(s.params.fov_sep, 270);
  assert.equal(s.agents.length, 300);
  s.agents.forEach((ag, i) => {
    assert.equal(ag.id, i, 'agents in id order');
    for (const k of ['x', 'y', 'vx', 'vy']) assert.ok(Number.isFinite(ag[k]));
    assert.ok(ag.x >= 0 && ag.x <= 800 && ag.y >= 0 && ag.y <= 600);
  });
  assert.deepEqual(s.obstacles, []);
  assert.deepEqual(s.targets, []);
  assert.match(one.stderr, /headless: 120 steps in [\d.]+ s; tick 120, 300 agents, polarization/);

  const other = await headless('same-3', args.map((v, i) => (args[i - 1] === '--seed' ? '6' : v)));
  assert.ok(!other.json.equals(one.json), 'another seed gives another world');
});

test('--threads 1 and 2 give identical files (a population large enough to split)', T, async () => {
  const args = ['--steps', '8', '--agents', '17000', '--seed', '3', '--metrics-every', '4'];
  const one = await headless('threads-1', [...args, '--threads', '1']);
  const two = await headless('threads-2', [...args, '--threads', '2']);
  assert.ok(one.csv.equals(two.csv), 'the CSV files are identical');
  assert.ok(one.json.equals(two.json), 'the final JSON files are identical');
  const ticks = one.csv.toString('utf8').trimEnd().split('\n').slice(1).map((r) => Number(r.split(',')[0]));
  assert.deepEqual(ticks, [0, 4, 8], 'a row every --metrics-every steps');
});

test('a scenario file sets up the world: seed, agents, params, obstacles, targets', T, async () => {
  const scenario = writeScenario('obstacles.json', {
    seed: 21,
    agents: 250,
    world: { width: 1000, height: 700 },
    params: { border: 'bounce', w_avoid: 3 },
    obstacles: [{ x: 300, y: 200, radius: 50 }, { x: 700, y: 500, radius: 80.5, vx: 10, vy: -5 }],
    targets: [{ x: 900, y: 350 }, { x: 100, y: 600, client_id: 42 }],
    steps: 60,
  });
  const r = await headless('scenario', ['--scenario', scenario]);
  const s = r.state;
  assert.equal(s.tick, 60, 'steps from the file');
  assert.equal(s.seed, 21);
  assert.equal(s.agents.length, 250);
  assert.equal(s.params.border, 'bounce');
  assert.equal(s.params.w_avoid, 3);
  assert.equal(s.obstacles.length, 2);
  assert.deepEqual(s.obstacles[0], { id: 0, x: 300, y: 200, radius: 50, vx: 0, vy: 0 });
  assert.equal(s.obstacles[1].radius, 80.5);
  assert.notEqual(s.obstacles[1].x, 700, 'the moving obstacle moved');
  assert.deepEqual(s.targets, [{ client_id: 1, x: 900, y: 350 }, { client_id: 42, x: 100, y: 600 }]);
  const last = r.csv.toString('utf8').trimEnd().split('\n').pop().split(',');
  assert.notEqual(last[9], '', 'min_clearance is a number with obstacles');

  // Command-line flags win over the file.
  const o = await headless('scenario-override', ['--scenario', scenario, '--seed', '22', '--agents', '100', '--steps', '5']);
  assert.equal(o.state.seed, 22);
  assert.equal(o.state.agents.length, 100);
  assert.equal(o.state.tick, 5);
  assert.equal(o.state.obstacles.length, 2);
});

test('agent_list places agents exactly; the example scenario runs', T, async () => {
  const agents = [{ x: 10, y: 20, vx: 30, vy: -40 }, { x: 500.5, y: 400.25, vx: 0, vy: 12.5 }, { x: 0, y: 0, vx: 1, vy: 1 }];
  const p = writeScenario('placed.json', { agent_list: agents, steps: 0 });
  const r = await headless('placed', ['--scenario', p]);
  assert.deepEqual(r.state.agents, agents.map((a, id) => ({ id, ...a, flags: 0 })));

  const example = path.join(repoRoot, 'protocol/scenarios/obstacles.json');
  const e = await headless('example', ['--scenario', example, '--steps', '30']);
  const spec = JSON.parse(readFileSync(example, 'utf8'));
  assert.equal(e.state.obstacles.length, spec.obstacles.length);
  assert.equal(e.state.agents.length, spec.agents);
  assert.equal(e.state.tick, 30);
});

test('spawn starts the drawn agents inside its rectangle, at speeds in its range, the same for the same seed', T, async () => {
  const spawn = { x: 95, y: 95, width: 13, height: 13, speed_min: 0.5, speed_max: 2 };
  const p = writeScenario('spawn.json', { agents: 200, world: { width: 200, height: 200 }, spawn, steps: 0 });
  const r = await headless('spawned', ['--scenario', p, '--seed', '9']);
  assert.equal(r.state.agents.length, 200);
  const xs = r.state.agents.map((a) => a.x), ys = r.state.agents.map((a) => a.y);
  const speeds = r.state.agents.map((a) => Math.hypot(a.vx, a.vy));
  for (const [v, lo, hi] of [[xs, 95, 108], [ys, 95, 108], [speeds, 0.5 - 1e-4, 2 + 1e-4]])
    assert.ok(Math.min(...v) >= lo && Math.max(...v) <= hi, `${Math.min(...v)} … ${Math.max(...v)} inside [${lo}, ${hi}]`);
  // Spread over the whole rectangle and the whole range, not bunched.
  assert.ok(Math.max(...xs) - Math.min(...xs) > 11 && Math.max(...speeds) - Math.min(...speeds) > 1.2);
  const again = await headless('spawned-again', ['--scenario', p, '--seed', '9']);
  assert.deepEqual(again.state.agents, r.state.agents);
  const other = await headless('spawned-other', ['--scenario', p, '--seed', '10']);
  assert.notDeepEqual(other.state.agents, r.state.agents);
});

test("a replayed log holds visitors to their own obstacles, and the server's leave takes them away", T, async () => {
  // A log as a live server with visitors 5 and 6 and operator 7 writes it.
  const header = { swarmcast_record: 1, server: 'test', seed: 4, agents: 50, world: { width: 800, height: 600 },
    tick_hz: 60, max_agents: 1000, max_targets: 8, params: { border: 'bounce' } };
  const at = (tick, cmd) => ({ tick, cmd });
  const lines = [
    header,
    at(1, { type: 'add_obstacle', client_id: 5, visitor: true, x: 100, y: 100, radius: 20 }), // id 0, 5's
    at(1, { type: 'add_obstacle', client_id: 7, x: 200, y: 100, radius: 20 }), // id 1, nobody's
    at(2, { type: 'add_obstacle', client_id: 6, visitor: true, x: 300, y: 100, radius: 20 }), // id 2, 6's
    at(2, { type: 'move_obstacle', client_id: 5, visitor: true, obstacle_id: 1, x: 10, y: 10 }), // refused: not 5's
    at(3, { type: 'add_obstacle', client_id: 5, visitor: true, x: 400, y: 100, radius: 20 }), // id 3
    at(3, { type: 'add_obstacle', client_id: 5, visitor: true, x: 500, y: 100, radius: 20 }), // id 4
    at(3, { type: 'add_obstacle', client_id: 5, visitor: true, x: 600, y: 100, radius: 20 }), // refused: 5 has 3
    at(4, { type: 'set_target', client_id: 5, visitor: true, x: 50, y: 50 }),
    at(4, { type: 'set_target', client_id: 6, visitor: true, x: 60, y: 60 }),
    at(5, { type: 'leave', client_id: 5, visitor: true }),
    at(6, { type: 'move_obstacle', client_id: 6, visitor: true, obstacle_id: 2, x: 350, y: 150 }),
    at(6, { type: 'move_obstacle', client_id: 7, obstacle_id: 1, x: 250, y: 150 }),
    { end_tick: 10 },
  ];
  const log = file('visitors.jsonl');
  writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const final = file('visitors.json');
  const r = await runOk(['--headless', '--replay', log, '--final', final]);
  assert.match(r.stderr, /12 commands replayed \(2 refused\)/);
  const s = JSON.parse(readFileSync(final, 'utf8'));
  assert.equal(s.tick, 10);
  assert.deepEqual(s.obstacles.map((o) => [o.id, o.owner]), [[1, undefined], [2, 6]],
    "the leaver's obstacles are gone; the operator's has no owner");
  assert.deepEqual(s.obstacles.map((o) => [o.x, o.y]), [[250, 150], [350, 150]], 'the allowed moves were applied');
  assert.deepEqual(s.targets.map((t) => t.client_id), [6], "the leaver's target is gone");
});

test('bad arguments and bad scenarios exit with 2 and say what is wrong', T, async () => {
  const cases = [
    [['--headless'], /--steps/],
    [['--headless', '--steps', '-1'], /--steps/],
    [['--headless', '--steps', 'ten'], /--steps/],
    [['--steps', '10'], /needs --headless/],
    [['--headless', '--steps', '5', '--set', 'no_such_param=1'], /no parameter named 'no_such_param'/],
    [['--headless', '--steps', '5', '--set', 'fov_sep=999'], /fov_sep/],
    [['--headless', '--steps', '5', '--model', 'no_such_model'], /model/],
    [['--headless', '--steps', '5', '--metrics-every', '0'], /--metrics-every/],
    [['--headless', '--steps', '5', '--scenario', file('does-not-exist.json')], /does-not-exist\.json/],
    [['--headless', '--replay', file('does-not-exist.jsonl')], /does-not-exist\.jsonl/],
    [['--headless', '--replay', file('x.jsonl'), '--seed', '3'], /--seed cannot be used with --replay/],
    [['--headless', '--steps', '5', '--record', file('r.jsonl')], /--record/],
    [['--headless', '--scenario', writeScenario('bad-radius.json', { obstacles: [{ x: 1, y: 1, radius: 600 }], steps: 5 })],
      /obstacles\[0\]: field 'radius' is 600/],
    [['--headless', '--scenario', writeScenario('bad-target.json', { targets: [{ x: 1, y: 1 }, { x: -5, y: 1 }], steps: 5 })],
      /targets\[1\]: field 'x'/],
    [['--headless', '--scenario', writeScenario('bad-param.json', { params: { border: 'sideways' }, steps: 5 })],
      /params\.border/],
    [['--headless', '--scenario', writeScenario('bad-name.json', { params: { warp: 9 }, steps: 5 })],
      /no parameter named 'warp'/],
    [['--headless', '--scenario', writeScenario('bad-field.json', { agnets: 5, steps: 5 })], /unknown field 'agnets'/],
    [['--headless', '--scenario', writeScenario('bad-json.json', '{"steps": 5,')], /not valid JSON/],
    [['--headless', '--scenario', writeScenario('no-steps.json', { agents: 5 })], /steps/],
    [['--headless', '--scenario', writeScenario('bad-list.json', { agent_list: [{ x: 1, y: 'a' }], steps: 1 })],
      /agent_list\[0\]: field 'y'/],
    [['--headless', '--scenario', writeScenario('bad-count.json', { agents: 3, agent_list: [{ x: 1, y: 1 }], steps: 1 })],
      /agent_list/],
    [['--headless', '--scenario', writeScenario('bad-spawn.json', { spawn: { x: 1500, y: 0, width: 200, height: 10 }, steps: 1 })],
      /spawn: field 'width' is 200, must be in \[0, 100\]/],
    [['--headless', '--scenario', writeScenario('bad-spawn-speed.json', { spawn: { x: 0, y: 0, width: 9, height: 9, speed_min: 3 }, steps: 1 })],
      /speed_min' and 'speed_max' go together/],
    [['--headless', '--scenario', writeScenario('spawn-and-list.json', { spawn: { x: 0, y: 0, width: 9, height: 9 }, agent_list: [{ x: 1, y: 1 }], steps: 1 })],
      /'spawn' and 'agent_list' exclude each other/],
  ];
  for (const [args, message] of cases) {
    const r = await runSwarmcast(args);
    assert.equal(r.code, 2, `swarmcast ${args.join(' ')} exits with 2, not ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, message, `swarmcast ${args.join(' ')} explains itself`);
    assert.match(r.stderr, /^swarmcast: /m);
  }

  const io = await runSwarmcast(['--headless', '--steps', '1', '--csv', file('no/such/dir/out.csv')]);
  assert.equal(io.code, 1, 'an output that cannot be written is an I/O error (1)');
  assert.match(io.stderr, /cannot write/);
});
