// Record and replay, and the live metrics message: the real server runs with
// --record and --final while two WebSocket clients send a varied sequence of
// commands; after SIGTERM, `swarmcast --headless --replay LOG --final F2`
// must rebuild the very same world, byte for byte.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/replay.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { runOk } from '../lib/headless.mjs';

const T = { timeout: 30000 };
const AGENTS = 400;

let dir;
let server;
let a; // sends most commands, stays to the end
let b; // a second client, who leaves half-way (its target goes with it)
let log;
let final1;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-replay-'));
  log = path.join(dir, 'run.jsonl');
  final1 = path.join(dir, 'live.json');
  // A hundredfold command budget and room for agents: the sequence below is
  // quicker than a person, and the default population limit follows this
  // machine's speed (server.test.mjs says more).
  server = await startServer({
    agents: AGENTS,
    seed: 11,
    args: ['--record', log, '--final', final1, '--threads', '2', '--rate-scale', '100', '--max-agents', '100000'],
  });
  a = await connect(server.wsUrl);
  b = await connect(server.wsUrl);
});

after(async () => {
  for (const c of [a, b]) c?.close();
  if (server) {
    try { await server.stop(); } catch { /* reported by the test that stops it */ }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function metricsSince(client, mark) {
  return client.textsSince(mark).filter((m) => m.type === 'metrics');
}

function assertSaneMetrics(m, { agents, obstacles }) {
  for (const k of ['tick', 'agents', 'clusters', 'largest_cluster', 'collisions', 'penetrations']) {
    assert.ok(Number.isInteger(m[k]) && m[k] >= 0, `${k} is a whole number ≥ 0: ${JSON.stringify(m)}`);
  }
  assert.equal(m.agents, agents);
  assert.ok(m.polarization >= 0 && m.polarization <= 1 + 1e-9, `polarization in [0, 1]: ${m.polarization}`);
  assert.ok(m.milling >= 0 && m.milling <= 1 + 1e-9, `milling in [0, 1]: ${m.milling}`);
  assert.ok(Number.isFinite(m.mean_nn_distance) && m.mean_nn_distance > 0, `mean_nn_distance > 0: ${m.mean_nn_distance}`);
  assert.ok(m.clusters >= 1 && m.clusters <= agents, `clusters in [1, agents]: ${m.clusters}`);
  assert.ok(m.largest_cluster >= 1 && m.largest_cluster <= agents, `largest_cluster: ${m.largest_cluster}`);
  assert.ok(m.penetrations <= agents);
  if (obstacles) assert.ok(Number.isFinite(m.min_clearance), `min_clearance is a number: ${m.min_clearance}`);
  else assert.equal(m.min_clearance, null, 'min_clearance is null without obstacles');
}

test('metrics messages arrive a few times a second, to every client, with sane values', T, async () => {
  const markA = a.mark();
  const markB = b.mark();
  const t0 = Date.now();
  await a.waitFor(() => metricsSince(a, markA).length >= 4, 'four metrics messages', { timeoutMs: 4000 });
  const elapsed = (Date.now() - t0) / 1000;
  const got = metricsSince(a, markA);
  // Default 4 Hz: four messages take about a second.
  assert.ok(elapsed < 3, `four metrics messages took ${elapsed} s`);
  for (const m of got) assertSaneMetrics(m, { agents: AGENTS, obstacles: false });
  for (let i = 1; i < got.length; i++) assert.ok(got[i].tick > got[i - 1].tick, 'ticks increase between messages');
  await b.waitFor(() => metricsSince(b, markB).length >= 1, 'a metrics message on the other client');
});

test('a varied sequence of commands from two clients', T, async () => {
  const W = a.hello.world.width;
  const H = a.hello.world.height;
  await a.command({ type: 'set_target', x: 800, y: 450 });
  await b.command({ type: 'set_target', x: 200.25, y: 100.125 });
  const o1 = await a.command({ type: 'add_obstacle', x: 400, y: 300, radius: 40 });
  await b.command({ type: 'add_obstacle', x: 1200, y: 600, radius: 55.5, vx: 30, vy: -20 });
  await sleep(150);
  await a.command({ type: 'set_param', name: 'sep_radius', value: 30 });
  await a.command({ type: 'set_param', name: 'w_ali', value: 0.7 });
  await b.command({ type: 'set_param', name: 'border', value: 'bounce' });
  await b.command({ type: 'add_agents', count: 50, x: 300, y: 300 });
  await a.command({ type: 'add_agents', count: 20 });
  // Several commands in one tick, in a burst.
  a.send({ type: 'set_target', x: 810, y: 440 });
  a.send({ type: 'set_target', x: 820, y: 430 });
  b.send({ type: 'set_param', name: 'max_speed', value: 120.5 });
  await a.command({ type: 'set_target', x: 830, y: 420 });
  await sleep(150);
  await a.command({ type: 'move_obstacle', obstacle_id: o1.obstacle_id, x: 420, y: 320 });

  const mark = a.mark();
  await a.waitFor(() => metricsSince(a, mark).length >= 1, 'a metrics message with obstacles');
  assertSaneMetrics(metricsSince(a, mark)[0], { agents: AGENTS + 70, obstacles: true });

  // Paused: the tick stands still while commands keep being applied.
  const paused = await a.command({ type: 'pause' });
  await sleep(250);
  const t1 = await b.command({ type: 'set_target', x: 600, y: 700 });
  await a.command({ type: 'set_param', name: 'w_coh', value: 1.25 });
  assert.equal(t1.tick, paused.tick, 'no tick passes while paused');
  // Single steps while paused are commands too: each one tick, replayed.
  const s1 = await a.command({ type: 'step' });
  const s2 = await a.command({ type: 'step' });
  assert.equal(s2.tick, s1.tick + 1, 'a step is one tick');
  await a.command({ type: 'set_param', name: 'rule_ali', value: false });
  await a.command({ type: 'step' });
  await a.command({ type: 'set_param', name: 'rule_ali', value: true });
  await sleep(100);
  await a.command({ type: 'resume' });
  await sleep(150);

  // Delayed feedback keeps a history of past states: it must replay too.
  if (a.hello.params.some((p) => p.name === 'delay_ticks')) {
    await a.command({ type: 'set_param', name: 'delay_ticks', value: 3 });
  }
  await a.command({ type: 'set_model', model: 'unicycle' });
  await sleep(150);
  await a.command({ type: 'set_model', model: 'reynolds' });
  // Staggered steering: which agents steer depends on the tick, so the
  // change must land on the same tick in the replay.
  await a.command({ type: 'set_param', name: 'steer_every', value: 3 });
  await sleep(120);
  await b.command({ type: 'set_param', name: 'steer_every', value: 2 });
  await a.command({ type: 'remove_obstacle', obstacle_id: o1.obstacle_id });
  const refused = await a.request({ type: 'remove_obstacle', obstacle_id: 999 });
  assert.equal(refused.type, 'error'); // refused by the world: logged, and refused again on replay
  await sleep(100);

  const reset = await a.command({ type: 'reset', seed: 99, agents: 350 });
  assert.equal(reset.seed, 99);
  await a.command({ type: 'add_obstacle', x: 700, y: 450, radius: 70 });
  await a.command({ type: 'set_target', x: W - 1, y: H - 1 });
  b.close();
  await b.closed;
  await sleep(300);
});

test('after SIGTERM, replaying the log gives the same final state, byte for byte', T, async () => {
  const { code, signal } = await server.stop();
  assert.equal(code, 0, `the server exits cleanly (signal ${signal})\n${server.output()}`);
  assert.ok(existsSync(final1), 'the live server wrote --final');
  const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  const header = lines[0];
  assert.equal(header.swarmcast_record, 1);
  assert.equal(header.seed, 11);
  assert.equal(header.agents, AGENTS);
  assert.deepEqual(header.world, a.hello.world);
  assert.equal(header.tick_hz, a.hello.tick_hz);
  for (const p of a.hello.params) assert.ok(p.name in header.params, `the header has parameter ${p.name}`);
  const end = lines[lines.length - 1];
  assert.ok(Number.isInteger(end.end_tick), 'the last line is {"end_tick": T}');
  const cmds = lines.slice(1, -1);
  assert.ok(cmds.length >= 25, `every applied command is logged (${cmds.length})`);
  const types = new Set(cmds.map((l) => l.cmd.type));
  // leave: a client's departure (its target and own obstacles go), logged for replay.
  for (const t of ['set_target', 'leave', 'add_obstacle', 'move_obstacle', 'remove_obstacle', 'set_param',
    'add_agents', 'pause', 'resume', 'set_model', 'reset']) {
    assert.ok(types.has(t), `a ${t} command is logged`);
  }
  for (const l of cmds) assert.ok(Number.isInteger(l.cmd.client_id), 'each command names its client');
  const live = readFileSync(final1);
  const finalState = JSON.parse(live.toString('utf8'));
  assert.equal(finalState.tick, end.end_tick);
  assert.equal(finalState.seed, 99);
  assert.equal(finalState.agents.length, 350);
  assert.equal(finalState.obstacles.length, 1);
  assert.deepEqual(finalState.targets.map((t) => t.client_id), [a.hello.client_id], "the leaver's target is gone");

  for (const threads of ['1', '2']) {
    const final2 = path.join(dir, `replay-${threads}.json`);
    const csv = path.join(dir, `replay-${threads}.csv`);
    const r = await runOk(['--headless', '--replay', log, '--final', final2, '--csv', csv, '--metrics-every', '30',
      '--threads', threads]);
    assert.match(r.stderr, /headless: \d+ steps/);
    const replayed = readFileSync(final2);
    if (!replayed.equals(live)) {
      const x = live.toString('utf8').split('\n');
      const y = replayed.toString('utf8').split('\n');
      const i = x.findIndex((line, k) => line !== y[k]);
      assert.fail(`replay (--threads ${threads}) differs from the live run at line ${i + 1}:\n` +
        `live:   ${x[i]?.slice(0, 300)}\nreplay: ${y[i]?.slice(0, 300)}`);
    }
    const rows = readFileSync(csv, 'utf8').trimEnd().split('\n');
    assert.ok(rows[0].startsWith('tick,agents,polarization'));
    assert.ok(rows.length > 2);
  }
});
