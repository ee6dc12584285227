// Protocol v2 on the real server: what a v2 client decodes is the server's
// own state quantized as PROTOCOL.md says; a viewport costs bytes in
// proportion to what it shows; a client that stalls is made exact again by
// a key; v1 clients keep v1 frames; bad view requests change nothing; the
// number of distinct views is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, httpGet, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { connectV2 } from '../lib/client_v2.mjs';

const WORLD_W = 1600;
const WORLD_H = 900;

/** A figure of the server's /metrics. */
async function metric(server, name) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} ([0-9.e+-]+)$`, 'm').exec(body);
  assert.ok(m, `${name} in /metrics`);
  return Number(m[1]);
}

/** The spec's quantization of one agent of a --final state (PROTOCOL.md, "Quantization"). */
function quantize(width, height) {
  const wq = Math.ceil(Math.fround(width) * 16);
  const hq = Math.ceil(Math.fround(height) * 16);
  const pos = (v, n) => {
    const q = Math.floor(Math.fround(v) * 16 + 0.5);
    return Number.isNaN(q) ? 0 : Math.min(Math.max(q, 0), n - 1);
  };
  return (a) => {
    const exact = Math.atan2(Math.fround(a.vy), Math.fround(a.vx)) * 1024 / (2 * Math.PI);
    const h = ((Math.round(exact) % 1024) + 1024) % 1024;
    // How close the exact angle is to a rounding edge, in steps: the
    // server's quantizer computes in float32 (PROTOCOL.md), so within a
    // thousandth of a step of an edge it may round the other way.
    const edge = Math.abs(exact - Math.floor(exact) - 0.5);
    return { qx: pos(a.x, wq), qy: pos(a.y, hq), h, nearEdge: edge < 1e-3, f: a.flags };
  };
}

const byPosition = (a, b) => a.qy - b.qy || a.qx - b.qx || a.h - b.h || a.f - b.f;

test('a v2 client decodes a paused world exactly as the server\'s --final state, quantized', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-v2-'));
  const finalPath = path.join(dir, 'final.json');
  const server = await startServer({ agents: 2000, args: ['--final', finalPath] });
  try {
    // The checked client joins a view another client has watched for a
    // while: its key then carries no motion while the view's regular deltas
    // predict from the previous positions (the first delta after a key must
    // be the key-delta), and a second of motion follows before the pause.
    const first = await connectV2(server.wsUrl);
    await first.waitFrame((f) => f.mode === 'detail', 'frames of the first client', { from: 10 });
    const c = await connectV2(server.wsUrl);
    assert.equal(c.hello.protocol, 2);
    assert.deepEqual(c.hello.wire, { position_quantum: 0.0625, heading_steps: 1024, lod_cells_per_tile: 8 });
    await c.waitFrame((f) => f.mode === 'detail' && !f.keyed, 'thirty moving frames', { from: 30 });
    await c.command({ type: 'pause' });
    const { index } = await c.waitFrame((f) => f.paused, 'a paused frame');
    // A few more paused frames (deltas of nothing): the state must not drift.
    await c.waitFrame((f) => f.paused, 'later paused frames', { from: index + 5 });
    assert.deepEqual(c.decodeErrors, []);
    const state = c.state;
    const decoded = [];
    for (let i = 0; i < state.count; i++) decoded.push({ qx: state.qx[i], qy: state.qy[i], h: state.h[i], f: state.f[i] });
    c.close();
    first.close();
    await server.stop();

    const final = JSON.parse(readFileSync(finalPath, 'utf8'));
    assert.equal(final.tick, state.tick, 'the last frame shows the final tick');
    const q = quantize(WORLD_W, WORLD_H);
    const expected = [...final.agents.map(q), ...final.predators.map((p) => q({ ...p, flags: 0x08 }))];
    assert.equal(decoded.length, expected.length, 'every agent and predator is an item');
    assert.equal(state.population, expected.length);
    expected.sort(byPosition);
    decoded.sort(byPosition);
    // Position and flags must match exactly; match the headings of equal
    // positions, allowing one step only where the angle sits on an edge.
    const key = (a) => `${a.qx},${a.qy},${a.f}`;
    const want = new Map();
    for (const e of expected) (want.get(key(e)) || want.set(key(e), []).get(key(e))).push(e);
    let edgeCases = 0;
    for (const d of decoded) {
      const list = want.get(key(d));
      assert.ok(list && list.length, `decoded item ${JSON.stringify(d)} is an agent of the final state`);
      let k = list.findIndex((e) => e.h === d.h);
      if (k < 0) {
        k = list.findIndex((e) => e.nearEdge && (Math.abs(e.h - d.h) === 1 || Math.abs(e.h - d.h) === 1023));
        edgeCases++;
      }
      assert.ok(k >= 0, `heading of ${JSON.stringify(d)} matches ${JSON.stringify(list)}`);
      list.splice(k, 1);
    }
    assert.ok(edgeCases <= 3, `${edgeCases} headings on a rounding edge`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a viewport of 1/16 of the world gets at most a tenth of the bytes of the full view of a moving flock', async () => {
  const server = await startServer({ agents: 10000, args: ['--max-agents', '100000'] });
  try {
    const full = await connectV2(server.wsUrl);
    const zoom = await connectV2(server.wsUrl);
    full.view(0, 0, WORLD_W, WORLD_H, 100000);
    // A quarter of each side, on tile edges at level 5 (50 × 28.125 units).
    const vp = { x: 600, y: 337.5, w: 400, h: 225 };
    zoom.view(vp.x, vp.y, vp.w, vp.h, 100000);
    const zf = await zoom.waitFrame((f) => f.keyed && f.rect && f.rect.level === 5, 'a key of the zoomed view');
    assert.deepEqual(zf.frame.rect, { level: 5, x0: 12, y0: 12, x1: 20, y1: 20 });
    assert.equal(zf.frame.mode, 'detail');
    await full.waitFrame((f) => f.keyed && f.mode === 'detail', 'a key of the full view');
    const start = { full: full.binaryBytes, zoom: zoom.binaryBytes, fullFrames: full.frames.length };
    await full.waitFrame(() => true, '90 more frames of the full view', { from: start.fullFrames + 90, timeoutMs: 20000 });
    const fullBytes = full.binaryBytes - start.full;
    const zoomBytes = zoom.binaryBytes - start.zoom;
    // Every decoded item of the zoomed view lies in its rect.
    const s = zoom.state;
    for (let i = 0; i < s.count; i++) {
      assert.ok(s.qx[i] >= s.rect.qx0 && s.qx[i] < s.rect.qx1 && s.qy[i] >= s.rect.qy0 && s.qy[i] < s.rect.qy1);
    }
    assert.ok(s.count > 0 && s.count < full.state.count / 4, `zoomed view shows ${s.count} of ${full.state.count}`);
    assert.ok(zoomBytes * 10 <= fullBytes, `zoomed ${zoomBytes} B vs full ${fullBytes} B`);
    assert.deepEqual(full.decodeErrors, []);
    assert.deepEqual(zoom.decodeErrors, []);
    full.close();
    zoom.close();
  } finally {
    await server.stop();
  }
});

test('a client that stalls for two seconds while others read gets a key and is exact again', async () => {
  // 10,000 agents: the frames of two seconds overflow the socket buffers,
  // so that the server must skip snapshots for the stalled client.
  const server = await startServer({ agents: 10000, args: ['--max-agents', '100000'] });
  try {
    const steady = await connectV2(server.wsUrl);
    const stalled = await connectV2(server.wsUrl);
    await stalled.waitFrame((f) => f.keyed, 'a first key');
    await steady.waitFrame((f) => f.keyed, 'a first key');
    await stalled.waitFrame(() => true, 'a few deltas', { from: 5 });
    // Stop reading for two seconds, and then until the server has had to
    // skip snapshots (its send buffer and ours full): a slow machine makes
    // fewer frames, which the buffers may absorb for longer.
    const skipped = await metric(server, 'swarmcast_v2_snapshots_skipped_total');
    stalled.ws._socket.pause();
    await sleep(2000);
    const deadline = Date.now() + 30000;
    while (await metric(server, 'swarmcast_v2_snapshots_skipped_total') < skipped + 8 && Date.now() < deadline) await sleep(200);
    const beforeResume = stalled.frames.length;
    const keysBefore = stalled.frames.filter((f) => f.keyed).length;
    stalled.ws._socket.resume();
    const { index } = await stalled.waitFrame((f) => f.keyed, 'a key after the stall', { from: beforeResume, timeoutMs: 15000 });
    assert.equal(stalled.frames.filter((f) => f.keyed).length, keysBefore + 1, 'one key after the stall, none before');
    // Exact again: at every seq both clients decoded after the key, the same state.
    await stalled.waitFrame(() => true, 'frames after the key', { from: index + 20, timeoutMs: 15000 });
    const steadyBySeq = new Map(steady.frames.map((f) => [f.seq, f.digest]));
    let compared = 0;
    for (const f of stalled.frames.slice(index)) {
      if (!steadyBySeq.has(f.seq)) continue;
      assert.equal(f.digest, steadyBySeq.get(f.seq), `state at seq ${f.seq}`);
      compared++;
    }
    assert.ok(compared >= 10, `${compared} seqs compared`);
    assert.deepEqual(stalled.decodeErrors, []);
    assert.ok(await metric(server, 'swarmcast_v2_snapshots_skipped_total') > 0);
    steady.close();
    stalled.close();
  } finally {
    await server.stop();
  }
});

test('a v1 client keeps v1 frames beside v2 clients, and cannot send view', async () => {
  const server = await startServer({ agents: 300 });
  try {
    const v1 = await connect(server.wsUrl);
    const none = await connect(server.wsUrl, { protocols: [] });
    const v2 = await connectV2(server.wsUrl);
    assert.equal(v1.hello.protocol, 1);
    assert.equal(v1.hello.wire, undefined);
    assert.equal(none.hello.protocol, 1);
    for (const c of [v1, none]) {
      const snap = await c.nextSnapshot((s) => s.agents.count === 300, 'a v1 snapshot of 300 agents');
      assert.ok(snap);
      assert.deepEqual(c.decodeErrors, []);
    }
    await v2.waitFrame((f) => f.count === 300, 'a v2 frame of 300 items');
    const reply = await v1.request({ type: 'view', x: 0, y: 0, w: 10, h: 10 });
    assert.equal(reply.type, 'error');
    assert.equal(reply.code, 'bad_request');
    const before = v1.snapshotCount;
    await v1.nextSnapshot(() => true, 'v1 snapshots go on');
    assert.ok(v1.snapshotCount > before);
    for (const c of [v1, none, v2]) c.close();
  } finally {
    await server.stop();
  }
});

test('bad view messages get bad_request and leave the view as it was', async () => {
  const server = await startServer({ agents: 1000 });
  try {
    const c = await connectV2(server.wsUrl);
    c.view(100, 100, 200, 112.5, 5000);
    const { frame } = await c.waitFrame((f) => f.keyed && f.rect.level === 6, 'a key of the requested view');
    const rect = frame.rect;
    const bad = [
      { type: 'view', x: 0, y: 0, w: -5, h: 10 },
      { type: 'view', x: 0, y: 0, w: 10, h: 0 },
      { type: 'view', x: '0', y: 0, w: 10, h: 10 },
      { type: 'view', y: 0, w: 10, h: 10 },
      { type: 'view', x: 0, y: 0, w: 10, h: 10, budget: -1 },
      { type: 'view', x: 1e12, y: 0, w: 10, h: 10 },
      { type: 'view', x: 0, y: 0, w: 10, h: 10, budget: 'all' },
    ];
    for (const msg of bad) {
      const reply = await c.request(msg);
      assert.equal(reply.type, 'error', JSON.stringify(msg));
      assert.equal(reply.code, 'bad_request', JSON.stringify(msg));
      assert.equal(reply.cmd, 'view');
    }
    const after = c.frames.length;
    await c.waitFrame(() => true, 'ten more frames', { from: after + 10 });
    for (const f of c.frames.slice(after)) {
      assert.deepEqual(f.rect, rect);
      assert.equal(f.keyed, false, 'no key: the view did not change');
    }
    c.close();
  } finally {
    await server.stop();
  }
});

test('views past --max-views are shared, so the number encoded stays bounded', async () => {
  const cap = 4;
  const server = await startServer({ agents: 1000, args: ['--max-views', String(cap)] });
  try {
    const clients = [];
    for (let i = 0; i < 10; i++) clients.push(await connectV2(server.wsUrl));
    // Ten distinct small viewports along the diagonal.
    const viewports = clients.map((_, i) => ({ x: i * 150, y: i * 80, w: 100, h: 56.25 }));
    const marks = clients.map((c) => c.frames.length);
    clients.forEach((c, i) => c.view(viewports[i].x, viewports[i].y, viewports[i].w, viewports[i].h, 20000));
    for (const [i, c] of clients.entries()) await c.waitFrame(() => true, 'frames after the view', { from: marks[i] + 5 });
    const views = await metric(server, 'swarmcast_views');
    assert.ok(views >= 1 && views <= cap + 2, `${views} views for a cap of ${cap}`);
    assert.ok(await metric(server, 'swarmcast_encoder_views') <= cap + 2);
    // Each client got its own tiles, or a view containing its viewport.
    for (const [i, c] of clients.entries()) {
      const r = c.frames.at(-1).rect, tw = WORLD_W / 2 ** r.level, th = WORLD_H / 2 ** r.level, vp = viewports[i];
      assert.ok(r.x0 * tw <= vp.x && r.x1 * tw >= vp.x + vp.w && r.y0 * th <= vp.y && r.y1 * th >= vp.y + vp.h,
        `client ${i}: ${JSON.stringify(r)} contains ${JSON.stringify(vp)}`);
    }
    const own = clients.filter((c) => c.frames.at(-1).rect.level === 6).length;
    assert.ok(own >= 1 && own <= cap, `${own} clients on views of their own`);
    for (const c of clients) assert.deepEqual(c.decodeErrors, []);
    // Views nobody watches are dropped.
    for (const c of clients) c.close();
    const deadline = Date.now() + 10000;
    while ((await metric(server, 'swarmcast_views')) !== 0 && Date.now() < deadline) await sleep(100);
    assert.equal(await metric(server, 'swarmcast_views'), 0);
  } finally {
    await server.stop();
  }
});

test('a budget below the agents in view gets the aggregated level of detail, a larger one every agent', async () => {
  const server = await startServer({ agents: 2000 });
  try {
    const c = await connectV2(server.wsUrl);
    await c.waitFrame((f) => f.mode === 'detail', 'the default view in detail (2,000 agents, budget 20,000)');
    let mark = c.frames.length;
    c.view(0, 0, WORLD_W, WORLD_H, 100);
    const lod = await c.waitFrame((f) => f.keyed, 'a key after a budget of 100', { from: mark });
    assert.equal(lod.frame.mode, 'lod');
    assert.deepEqual(lod.frame.rect, { level: 3, x0: 0, y0: 0, x1: 8, y1: 8 });
    const cells = c.state.lod;
    assert.equal(cells.cols, 64);
    assert.equal(cells.rows, 64);
    assert.ok(cells.d.some((d) => d > 0), 'some cells hold agents');
    // A room whose only view is LOD is summed from the world's copy, not
    // quantized by agent id; a detail view takes the by-id path again.
    const BY_ID = 'swarmcast_encode_snapshots_by_path_total{path="by_id"}';
    const SUMMED = 'swarmcast_encode_snapshots_by_path_total{path="summed"}';
    const lodMark = { byId: await metric(server, BY_ID), summed: await metric(server, SUMMED) };
    await c.waitFrame((f) => f.mode === 'lod', 'more LOD frames', { from: c.frames.length + 5 });
    assert.ok(await metric(server, SUMMED) >= lodMark.summed + 4, 'LOD-only snapshots summed');
    assert.ok(await metric(server, BY_ID) <= lodMark.byId + 1, 'no LOD-only snapshot by id (one may be in flight)');
    mark = c.frames.length;
    c.view(0, 0, WORLD_W, WORLD_H, 100000);
    const detail = await c.waitFrame((f) => f.keyed, 'a key after a budget of 100,000', { from: mark });
    assert.equal(detail.frame.mode, 'detail');
    assert.equal(detail.frame.count, 2000);
    const byIdThen = await metric(server, BY_ID);
    await c.waitFrame((f) => f.mode === 'detail', 'more detail frames', { from: c.frames.length + 5 });
    assert.ok(await metric(server, BY_ID) >= byIdThen + 4, 'detail snapshots by id');
    assert.deepEqual(c.decodeErrors, []);
    c.close();
  } finally {
    await server.stop();
  }
});
