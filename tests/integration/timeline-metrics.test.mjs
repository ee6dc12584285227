// The metrics of the past (PROTOCOL.md "Timeline", "The metrics of the
// past"): a viewer shown a tick of the past gets, to itself alone, the
// metrics of that moment ({"type":"metrics","past":true}) — the very
// message live viewers got at that tick, or the newest before it — once
// per row; a served --replay's past has them too (computed as it is
// re-stepped, every 1/--metrics-hz of ticks: at those ticks they equal the
// live ones).
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/timeline-metrics.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, spawnServer, sleep, webRoot } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';

const T = { timeout: 90000 };
const FIELDS = ['agents', 'polarization', 'milling', 'mean_nn_distance', 'clusters', 'largest_cluster', 'collisions',
  'penetrations', 'min_clearance', 'oscillation'];
const valuesOf = (m) => Object.fromEntries(FIELDS.map((k) => [k, m[k]]));

// Seeks `tick` and returns the metrics of the past that came with it.
async function seekMetrics(client, tick) {
  const mark = client.mark();
  client.send({ type: 'timeline', op: 'seek', tick });
  await client.waitFrame((f) => f.tick === tick, `the frame of tick ${tick}`, { from: client.frames.length });
  return client.waitText((m) => m.type === 'metrics' && m.past === true, `the metrics of tick ${tick}`, { after: mark });
}

test('a seek brings the metrics live viewers read at that tick, to the scrubber alone; a served --replay\'s past has the same', T, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-tlmetrics-'));
  const log = path.join(dir, 'run.jsonl');
  try {
    let live;
    const server = await startServer({ agents: 300, seed: 4, args: ['--record', log, '--rate-scale', '10'] });
    try {
      live = await connectV2(server.wsUrl);
      const scrub = await connectV2(server.wsUrl);
      await live.waitFor(() => live.texts.filter((m) => m.type === 'metrics').length >= 8 || undefined, 'eight metrics messages',
        { timeoutMs: 15000 });
      const broadcast = live.texts.filter((m) => m.type === 'metrics');
      const row = broadcast[3];
      const next = broadcast[4];
      // Between two broadcasts: the newest before, its values.
      const between = await seekMetrics(scrub, next.tick - 1);
      assert.equal(between.tick, row.tick);
      assert.deepEqual(valuesOf(between), valuesOf(row));
      // Once per row: another tick of the same row brings none.
      const mark = scrub.mark();
      scrub.send({ type: 'timeline', op: 'seek', tick: row.tick });
      await scrub.waitFrame((f) => f.tick === row.tick, 'the frame of the row\'s own tick', { from: scrub.frames.length });
      await sleep(300);
      assert.equal(scrub.textsSince(mark).filter((m) => m.type === 'metrics' && m.past).length, 0);
      // Exactly a broadcast tick: that message's values.
      const at = await seekMetrics(scrub, next.tick);
      assert.equal(at.tick, next.tick);
      assert.deepEqual(valuesOf(at), valuesOf(next));
      // Nobody else gets them.
      assert.equal(live.texts.filter((m) => m.type === 'metrics' && m.past).length, 0, 'a live viewer gets no past metrics');
      scrub.close();
      live.close();
    } finally {
      await server.stop();
    }
    // The recording served: its past has the same metrics at the same ticks.
    const broadcast = live.texts.filter((m) => m.type === 'metrics' && !m.past);
    const replayed = await spawnServer(['--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot, '--replay', log],
      { startTimeoutMs: 30000 });
    try {
      const viewer = await connectV2(replayed.wsUrl);
      // The replay computes them every 15 ticks (60 Hz / 4 Hz); live ones
      // came every 15 ticks too, a tick late now and then on a busy machine.
      const aligned = broadcast.filter((m) => m.tick % 15 === 0);
      assert.ok(aligned.length >= 1, `live metrics at multiples of 15 ticks: ${broadcast.map((m) => m.tick)}`);
      for (const row of aligned.slice(0, 3)) {
        const at = await seekMetrics(viewer, row.tick);
        assert.equal(at.tick, row.tick, `served, tick ${row.tick}`);
        assert.deepEqual(valuesOf(at), valuesOf(row), `served, tick ${row.tick}: the live values`);
      }
      viewer.close();
    } finally {
      await replayed.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('across a reset the metrics of the past are of the place shown: the old world\'s before it, the new one\'s after', T, async () => {
  const server = await startServer({ agents: 300, seed: 4, args: ['--rate-scale', '10'] });
  try {
    const live = await connectV2(server.wsUrl);
    const scrub = await connectV2(server.wsUrl);
    const liveRows = () => live.texts.filter((m) => m.type === 'metrics' && !m.past);
    await live.waitFor(() => liveRows().length >= 4 || undefined, 'four metrics messages', { timeoutMs: 15000 });
    const before = liveRows()[2];
    assert.equal(before.agents, 300);
    const ack = await scrub.command({ type: 'reset', seed: 77, agents: 100 });
    // The new world's rows: its tick k is the place base + k; wait until
    // live viewers have read two of them.
    await live.waitFor(() => liveRows().filter((m) => m.agents === 100).length >= 2 || undefined, 'two rows of the new world',
      { timeoutMs: 15000 });
    const after = liveRows().filter((m) => m.agents === 100)[1];
    const place = ack.tick + after.tick; // the reset put the new world's tick 0 at the old world's tick
    // Before the reset: the old world's row, at its own place (the world's
    // ticks there are places too).
    const old = await seekMetrics(scrub, before.tick);
    assert.equal(old.tick, before.tick);
    assert.deepEqual(valuesOf(old), valuesOf(before));
    // After it: the new world's row, named by its place, not by the tick
    // the old world also had.
    const now = await seekMetrics(scrub, place);
    assert.equal(now.tick, place);
    assert.deepEqual(valuesOf(now), valuesOf(after));
    scrub.close();
    live.close();
  } finally {
    await server.stop();
  }
});
