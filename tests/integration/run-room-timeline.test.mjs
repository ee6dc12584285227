// A run of a sweep opened in a room (create_room "from":"run") has its
// whole run on the room's timeline at once, as a served --replay does: the
// room waits at the run's last tick, paused, its world there the one the
// run recorded (results.csv), and any tick of the run can be shown.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/run-room-timeline.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { runExperiment } from '../lib/experiment_page.mjs';

const STEPS = 600;
const RUN = {
  description: 'a run to open in a room',
  scenario: { agents: 60, model: 'reynolds', params: { border: 'wrap' } },
  factors: [{ param: 'w_ali', values: [0.5, 1.5] }],
  replicates: 1, master_seed: 3, steps: STEPS, record_every: 150,
  metrics: ['polarization', 'milling'],
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

test('a run opened in a room: the whole run on its timeline, paused at its end, the world there the run\'s', { timeout: 60000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-runroom-'));
  try {
    const out = await runExperiment(dir, 'sweep', RUN);
    const runs = readResults(out);
    const server = await startServer({ args: ['--rate-scale', '10', '--experiments', dir] });
    try {
      for (const [runId, recorded] of Object.entries(runs)) {
        const c = await connectV2(server.wsUrl);
        const mark = c.mark();
        const ask = c.send({ type: 'create_room', from: 'run', experiment: 'sweep', run: runId });
        const made = await c.waitText((m) => (m.type === 'room_created' || m.type === 'error') && m.id === ask.id,
          'the reply to create_room', { after: mark, timeoutMs: 10000 });
        assert.equal(made.type, 'room_created', JSON.stringify(made));
        const inside = await connectV2(`${server.wsUrl}?room=${made.code}`);
        // The room waits at the run's last tick, paused …
        const end = await inside.waitFrame((f) => f.tick === STEPS, `a frame of tick ${STEPS}`);
        assert.equal(end.frame.paused, true);
        // … and its world there is the run's: the metrics the run recorded.
        const m = await inside.waitText((x) => x.type === 'metrics' && x.tick === STEPS, 'the metrics of the last tick',
          { timeoutMs: 5000 });
        assert.ok(close(m.polarization, recorded[STEPS].polarization), `polarization ${m.polarization} vs the run's ${recorded[STEPS].polarization}`);
        assert.ok(close(m.milling, recorded[STEPS].milling), `milling ${m.milling} vs the run's ${recorded[STEPS].milling}`);
        // The whole run is on the timeline, from tick 0.
        const tl = inside.mark();
        inside.send({ type: 'timeline', op: 'window', id: 5 });
        const w = await inside.waitText((x) => x.type === 'timeline' && x.id === 5, 'the window', { after: tl });
        assert.equal(w.from, 0);
        assert.equal(w.to, STEPS);
        // Any tick of it can be shown.
        const before = inside.frames.length;
        inside.send({ type: 'timeline', op: 'seek', tick: 150, id: 6 });
        await inside.waitFrame((f) => f.tick === 150 && f.keyed, 'the frame of tick 150', { from: before });
        inside.send({ type: 'timeline', op: 'seek', tick: 0, id: 7 });
        await inside.waitFrame((f) => f.tick === 0, 'the frame of tick 0', { from: before });
        c.close();
        inside.close();
      }
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null }, `the server's exit\n${server.output()}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
