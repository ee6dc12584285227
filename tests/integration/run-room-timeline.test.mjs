// A run of a sweep opened in a room (create_room "from":"run") has its
// whole run on the room's timeline at once, as a served --replay does: the
// room waits at the run's last tick, paused, its world there the one the
// run recorded (results.csv), and any tick of the run can be shown. A run
// too long to step ahead within a second goes on live from where it got.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/run-room-timeline.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { WATCHED_RUNS, runExperiment } from '../lib/experiment_page.mjs';

const STEPS = WATCHED_RUNS.steps;

// A run stopped early by its `stop` condition (at its first recorded row):
// quick to run, but its scenario keeps the 2,000,000 steps it asked for.
const ENDLESS = {
  description: 'a run too long to step at once',
  scenario: { agents: 400, model: 'reynolds', params: { border: 'wrap' } },
  factors: [{ param: 'w_ali', values: [0.5] }],
  replicates: 1, master_seed: 3, steps: 2000000, record_every: 10,
  stop: { metric: 'polarization', above: 0 }, metrics: ['polarization'],
};

// results.csv: { runId → { tick → { polarization, milling } } }.
function readResults(out) {
  const [head, ...lines] = readFileSync(path.join(out, 'results.csv'), 'utf8').trim().split(/\r?\n/);
  const cols = head.split(',');
  const runs = {};
  for (const line of lines) {
    const cells = line.split(',');
    const at = (name) => cells[cols.indexOf(name)];
    (runs[at('run_id')] ??= {})[Number(at('tick'))] = { polarization: Number(at('polarization')), milling: Number(at('milling')) };
  }
  return runs;
}

// The metrics message carries six significant digits; results.csv nine.
const close = (a, b) => Math.abs(a - b) <= 5e-6 * Math.max(1e-3, Math.abs(b));

// Runs `experiment` as dir/name, serves dir with --experiments and calls
// fn(server, runs); the server must then stop cleanly.
async function withExperiment(name, experiment, fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-runroom-'));
  try {
    const runs = readResults(await runExperiment(dir, name, experiment));
    // --max-agents: a sanitizer's build measures a smaller population budget.
    const server = await startServer({ agents: 50, args: ['--rate-scale', '10', '--max-agents', '20000', '--experiments', dir] });
    try {
      await fn(server, runs);
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null }, `the server's exit\n${server.output()}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Makes the run's room and joins it: { inside (a v2 client in it), tookMs }.
async function openRun(server, experiment, runId) {
  const c = await connectV2(server.wsUrl);
  const mark = c.mark();
  const started = Date.now();
  const ask = c.send({ type: 'create_room', from: 'run', experiment, run: runId });
  const made = await c.waitText((m) => (m.type === 'room_created' || m.type === 'error') && m.id === ask.id,
    'the reply to create_room', { after: mark, timeoutMs: 15000 });
  const tookMs = Date.now() - started;
  assert.equal(made.type, 'room_created', JSON.stringify(made));
  c.close();
  return { inside: await connectV2(`${server.wsUrl}?room=${made.code}`), tookMs };
}

async function windowOf(client) {
  const mark = client.mark();
  const ask = client.send({ type: 'timeline', op: 'window' });
  return client.waitText((x) => x.type === 'timeline' && x.id === ask.id, 'the window', { after: mark });
}

test('a run opened in a room: the whole run on its timeline, paused at its end, the world there the run\'s', { timeout: 60000 }, async () => {
  await withExperiment('sweep', WATCHED_RUNS, async (server, runs) => {
    for (const [runId, recorded] of Object.entries(runs)) {
      const { inside } = await openRun(server, 'sweep', runId);
      // The room waits at the run's last tick, paused …
      const end = await inside.waitFrame((f) => f.tick === STEPS, `a frame of tick ${STEPS}`);
      assert.equal(end.frame.paused, true);
      // … and its world there is the run's: the metrics the run recorded.
      const m = await inside.waitText((x) => x.type === 'metrics' && x.tick === STEPS, 'the metrics of the last tick',
        { timeoutMs: 5000 });
      assert.ok(close(m.polarization, recorded[STEPS].polarization), `polarization ${m.polarization} vs the run's ${recorded[STEPS].polarization}`);
      assert.ok(close(m.milling, recorded[STEPS].milling), `milling ${m.milling} vs the run's ${recorded[STEPS].milling}`);
      // The whole run is on the timeline, from tick 0 …
      const w = await windowOf(inside);
      assert.deepEqual([w.from, w.to], [0, STEPS]);
      // … and any tick of it can be shown, with the metrics of that moment:
      // the run's, as it recorded them.
      const before = inside.frames.length;
      const seeking = inside.mark();
      inside.send({ type: 'timeline', op: 'seek', tick: 150 });
      await inside.waitFrame((f) => f.tick === 150 && f.keyed, 'the frame of tick 150', { from: before });
      const then = await inside.waitText((x) => x.type === 'metrics' && x.past === true, 'the metrics of tick 150',
        { after: seeking });
      assert.equal(then.tick, 150);
      assert.ok(close(then.polarization, recorded[150].polarization), `polarization at 150: ${then.polarization} vs the run's ${recorded[150].polarization}`);
      inside.send({ type: 'timeline', op: 'seek', tick: 0 });
      await inside.waitFrame((f) => f.tick === 0, 'the frame of tick 0', { from: before });
      inside.close();
    }
  });
});

test('a run too long to step at once: its room is made at once and steps it on its own thread, faster than live, tick 0 kept', { timeout: 60000 }, async () => {
  await withExperiment('long', ENDLESS, async (server, runs) => {
    // Made without stepping the run first: the loop never waits for it.
    const { inside, tookMs } = await openRun(server, 'long', Object.keys(runs)[0]);
    assert.ok(tookMs < 8000, `the room was made in ${tookMs} ms`);
    const first = await inside.waitFrame((f) => f.tick > 0, 'a frame');
    assert.equal(first.frame.paused, false, 'still stepping the run');
    assert.ok(first.frame.tick < ENDLESS.steps);
    // Faster than live: live, a frame comes every 2 ticks (60 Hz ticks,
    // 30 Hz frames); the run's room steps for half of every period, many
    // ticks, so its frames come many ticks apart (counted, not timed).
    const later = await inside.waitFrame((f) => f.tick > first.frame.tick + 600, 'the run going on',
      { from: first.index, timeoutMs: 30000 });
    const perFrame = (later.frame.tick - first.frame.tick) / (later.index - first.index);
    console.log(`# the run's room: ${perFrame.toFixed(1)} ticks a frame`);
    assert.ok(perFrame > 4, `${perFrame} ticks a frame: faster than live`);
    assert.equal(later.frame.paused, false);
    const w = await windowOf(inside);
    assert.equal(w.from, 0, 'the run\'s first tick is kept');
    assert.ok(w.to >= later.frame.tick);
    inside.close();
  });
});
