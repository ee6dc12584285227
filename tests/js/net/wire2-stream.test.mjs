// The v2 decoder (client-web/net/wire2.js) replays the C encoder's 1,000-snapshot
// scripted run (tests/tools/wire2_stream.c: the real simulation with resets,
// wrap-around, teleports, pauses and six clients with their own views, chains
// and keys) and must hold, after every frame, the state the C side expects.
//
//   SWARMCAST_WIRE2_STREAM_TOOL  the tool (default: build/tests/swarmcast-wire2-stream)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { Wire2Decoder } from '../../../client-web/net/wire2.js';
import { repoRoot } from '../../lib/server.mjs';
import { assertState } from './lib/wire2-expect.mjs';

const tool = process.env.SWARMCAST_WIRE2_STREAM_TOOL || path.join(repoRoot, 'build/tests/swarmcast-wire2-stream');

function runTool(args) {
  assert.ok(existsSync(tool), `the stream tool exists: ${tool} (set SWARMCAST_WIRE2_STREAM_TOOL)`);
  const r = spawnSync(tool, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000 });
  assert.equal(r.status, 0, `swarmcast-wire2-stream ${args.join(' ')} exits 0: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

function replay(lines) {
  const decoders = new Map();
  const stats = { frames: 0, keys: 0, deltaFrames: 0, lod: 0, items: 0, clients: 0 };
  for (const [i, line] of lines.entries()) {
    if (!decoders.has(line.client)) decoders.set(line.client, new Wire2Decoder());
    const dec = decoders.get(line.client);
    const bytes = Buffer.from(line.frame, 'base64');
    const st = dec.decode(bytes);
    assertState(st, line.expect, `line ${i + 1} (client ${line.client}, seq ${line.expect.seq})`);
    stats.frames++;
    if (st.keyed) stats.keys++;
    else if (st.mode !== null) stats.deltaFrames++;
    if (st.mode === 'lod') stats.lod++;
    stats.items += st.count;
    // Idents: distinct among the live items.
    if (st.count > 0 && new Set(st.ident).size !== st.count) assert.fail(`line ${i + 1}: idents not distinct`);
  }
  stats.clients = decoders.size;
  return stats;
}

test('the decoder holds the expected state after every frame of the 1,000-snapshot run', () => {
  const lines = runTool(['--snapshots', '1000']);
  const stats = replay(lines);
  // The run exercises what it claims: many frames, keys, deltas, LOD, several clients.
  assert.ok(stats.frames >= 1000, `${stats.frames} frames`);
  assert.ok(stats.clients >= 2, `${stats.clients} clients`);
  assert.ok(stats.keys > 0 && stats.deltaFrames > stats.keys, `keys ${stats.keys}, delta frames ${stats.deltaFrames}`);
  assert.ok(stats.lod > 0, `${stats.lod} LOD frames`);
  assert.ok(stats.items > 0);
});

test('a run with many agents replays too (fewer snapshots)', () => {
  const stats = replay(runTool(['--agents', '5000', '--snapshots', '60']));
  assert.ok(stats.items > 5000, `${stats.items} items decoded`);
});
