// The v2 frame decoder (client-web/net/wire2.js) on frames built by the test
// writer: keys, deltas, chains, LOD, the scene, idents, and rejection of
// malformed and truncated frames with the state left as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Wire2Decoder, WireError, IDENT_QUARANTINE_FRAMES } from '../../../client-web/net/wire2.js';
import {
  BitWriter, chunk, frame, keyPayload, deltaPayload, planDelta, lodKeyPayload, lodDeltaPayload,
  canonical, bitLength,
} from './lib/wire2-writer.mjs';
import { SCENE, prng, randomItems, randomMoves, assertItems } from './lib/wire2-model.mjs';

const WQ = 1600;
const HQ = 800;
const BX = bitLength(WQ - 1); // whole world at level 0
// Level 1, tile column 1, row 0: qx in [800, 1600), qy in [0, 400).
const R1 = { level: 1, x0: 1, y0: 0, x1: 2, y1: 1 };
const R1_W = 800;
const R1_H = 400;

function keyFrame(items, { seq = 1, scene = SCENE, rect = {}, bx = BX, ...rest } = {}) {
  return frame({ seq, scene, ...rest, chunks: [chunk({ type: 1, seq, ...rect, payload: keyPayload(items, { bx }) })] });
}

/** The decoder after a key of `items` at seq. */
function keyed(items, opts) {
  const dec = new Wire2Decoder();
  dec.decode(keyFrame(items, opts));
  return dec;
}

/** Asserts that decoding `bytes` throws WireError and changes nothing. */
function assertRejected(dec, bytes, pattern, what) {
  const before = dec.state;
  assert.throws(() => dec.decode(bytes), (e) => e instanceof WireError && (!pattern || pattern.test(e.message)),
    what);
  assert.equal(dec.state, before, `${what}: state object unchanged`);
}

test('a key frame gives the items in canonical order as absolute quanta, floats and radians', () => {
  const items = [
    { rx: 5, ry: 2, h: 0, f: 1 }, { rx: 1599, ry: 2, h: 1023, f: 1 },
    { rx: 0, ry: 799, h: 512, f: 8 }, { rx: 3, ry: 0, h: 256, f: 2 },
  ].sort(canonical);
  const dec = new Wire2Decoder();
  const st = dec.decode(keyFrame(items, { seq: 42, tick: 4200, population: 77, paused: true }));
  assert.equal(st, dec.state);
  assert.deepEqual([st.seq, st.tick, st.population, st.paused, st.mode, st.keyed, st.viewSeq],
    [42, 4200, 77, true, 'detail', true, 42]);
  assertItems(st, items);
  assert.deepEqual([...st.x], items.map((it) => it.rx / 16));
  assert.deepEqual([...st.y], items.map((it) => it.ry / 16));
  for (let i = 0; i < items.length; i++) {
    assert.ok(Math.abs(st.heading[i] - items[i].h * 2 * Math.PI / 1024) < 1e-6, 'heading in radians');
  }
  assert.deepEqual([...st.ident].sort(), [0, 1, 2, 3], 'a key gives idents 0..n-1');
  assert.deepEqual(st.rect, { level: 0, x0: 0, y0: 0, x1: 1, y1: 1, qx0: 0, qy0: 0, qx1: WQ, qy1: HQ,
    x: 0, y: 0, w: 100, h: 50 });
  assert.ok(st.qx instanceof Int32Array && st.h instanceof Uint16Array && st.f instanceof Uint8Array);
  assert.ok(st.x instanceof Float32Array && st.ident instanceof Uint32Array);
});

test('the scene is decoded with its records and kept by frames that carry none', () => {
  const dec = keyed([{ rx: 1, ry: 1, h: 0, f: 0 }]);
  const scene = dec.state.scene;
  assert.deepEqual(scene, { width: 100, height: 50, obstacles: [{ id: 5, x: 40, y: 30, r: 4 }],
    targets: [{ clientId: 3, x: 80.5, y: 45.25 }] });
  const st = dec.decode(frame({ seq: 2, tick: 99, population: 5 }));
  assert.equal(st.scene, scene, 'same scene');
  assert.deepEqual([st.seq, st.tick, st.population, st.keyed], [2, 99, 5, false]);
  assertItems(st, [{ rx: 1, ry: 1, h: 0, f: 0 }], 0, 0, 'items kept by a frame without chunks');
  const other = { width: 200, height: 50, obstacles: [], targets: [] };
  assert.deepEqual(dec.decode(frame({ seq: 3, scene: other })).scene, other);
});

test('a key sent out of canonical order is sorted by the decoder', () => {
  const items = [{ rx: 9, ry: 3, h: 5, f: 0 }, { rx: 2, ry: 3, h: 5, f: 0 }, { rx: 2, ry: 3, h: 4, f: 0 },
    { rx: 7, ry: 4, h: 0, f: 1 }, { rx: 7, ry: 4, h: 0, f: 0 }];
  const st = keyed(items).state;
  assertItems(st, [...items].sort(canonical));
});

test('a key of a level-1 view places items relative to the tile and checks its bounds', () => {
  const items = [{ rx: 0, ry: 0, h: 1, f: 0 }, { rx: R1_W - 1, ry: R1_H - 1, h: 2, f: 0 }];
  const st = keyed(items, { rect: R1, bx: bitLength(R1_W - 1) }).state;
  assertItems(st, items, 800, 0);
  assert.deepEqual([st.rect.qx0, st.rect.qx1, st.rect.qy0, st.rect.qy1], [800, 1600, 0, 400]);
  assert.deepEqual([st.rect.x, st.rect.y, st.rect.w, st.rect.h], [50, 0, 50, 25]);
  const outside = keyFrame([{ rx: 0, ry: R1_H, h: 0, f: 0 }], { rect: R1, bx: bitLength(R1_W - 1) });
  assertRejected(new Wire2Decoder(), outside, /row/, 'a row beyond the rect');
  const wide = keyFrame([{ rx: R1_W, ry: 0, h: 0, f: 0 }], { rect: R1, bx: bitLength(R1_W) });
  assertRejected(new Wire2Decoder(), wide, /column|unread/, 'a column beyond the rect');
});

test('a delta applies exits, predicted moves, flag changes and entries, then sorts', () => {
  const rand = prng(7);
  const old = randomItems(rand, 200, WQ, HQ);
  const dec = keyed(old);
  const exits = [0, 17, 18, 199];
  const stays = old.filter((_, i) => !exits.includes(i));
  const moves = randomMoves(rand, stays, WQ, HQ);
  moves[3].f = 0x0f; // at least one flag change
  const entries = randomItems(rand, 30, WQ, HQ);
  const { payload, expect } = planDelta(old, { exits, moves, entries, bx: BX });
  const st = dec.decode(frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload })] }));
  assert.equal(st.keyed, false);
  assertItems(st, expect);
  // A second delta uses the prediction from the first (px, py = previous position).
  const moves2 = randomMoves(rand, expect, WQ, HQ);
  const second = planDelta(expect, { moves: moves2, bx: BX });
  assertItems(dec.decode(frame({ seq: 3, chunks: [chunk({ type: 2, seq: 3, payload: second.payload })] })), second.expect);
});

test('stays keep their idents; entries get fresh ones; a freed ident waits four frames', () => {
  const rand = prng(3);
  const old = randomItems(rand, 10, WQ, HQ);
  const dec = keyed(old);
  let list = old;
  const identOf = (st) => new Map([...st.ident].map((id, i) => [`${st.qx[i]},${st.qy[i]},${st.h[i]}`, id]));
  // Frame 2: item 4 exits; the others stay where they are (zero motion).
  const still = (l) => l.map(({ rx, ry, h, f }) => ({ rx, ry, h, f }));
  let before = identOf(dec.state);
  const gone = dec.state.ident[4];
  let plan = planDelta(list, { exits: [4], moves: still(list.filter((_, i) => i !== 4)), bx: BX });
  let st = dec.decode(frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload: plan.payload })] }));
  list = plan.expect;
  for (const [k, id] of identOf(st)) assert.equal(id, before.get(k), 'a stay keeps its ident');
  // Frames 3..: one entry per frame; its ident is never `gone` before frame 2 + 4.
  const seen = new Set(st.ident);
  for (let seq = 3; seq <= 8; seq++) {
    before = identOf(st);
    const entry = { rx: 100 + seq, ry: 7, h: seq, f: 0 };
    plan = planDelta(list, { moves: still(list), entries: [entry], bx: BX });
    st = dec.decode(frame({ seq, chunks: [chunk({ type: 2, seq, payload: plan.payload })] }));
    list = plan.expect;
    const ids = identOf(st);
    const newId = ids.get(`${entry.rx},${entry.ry},${entry.h}`);
    for (const [k, id] of ids) if (before.has(k)) assert.equal(id, before.get(k), `seq ${seq}: stays keep idents`);
    assert.ok(!seen.has(newId), `seq ${seq}: the entry's ident ${newId} is not held by a live item`);
    if (seq < 2 + IDENT_QUARANTINE_FRAMES) assert.notEqual(newId, gone, `seq ${seq}: ident ${gone} still in quarantine`);
    if (seq === 2 + IDENT_QUARANTINE_FRAMES) assert.equal(newId, gone, 'the freed ident is recycled after 4 frames');
    seen.add(newId);
    assert.equal(new Set(st.ident).size, st.count, 'idents are distinct');
    assert.ok(st.identLimit <= 2 * 12 + 64 && Math.max(...st.ident) < st.identLimit);
  }
});

test('a chain of deltas in one frame gives the same state as the deltas in separate frames', () => {
  const rand = prng(11);
  const old = randomItems(rand, 300, WQ, HQ);
  const plans = [];
  let list = old;
  for (let i = 0; i < 3; i++) {
    const exits = [i * 5, i * 5 + 1];
    const stays = list.filter((_, j) => !exits.includes(j));
    const p = planDelta(list, { exits, moves: randomMoves(rand, stays, WQ, HQ), entries: randomItems(rand, 4, WQ, HQ), bx: BX });
    plans.push(p);
    list = p.expect;
  }
  const one = keyed(old, { seq: 10 });
  for (let i = 0; i < 3; i++) one.decode(frame({ seq: 11 + i, chunks: [chunk({ type: 2, seq: 11 + i, payload: plans[i].payload })] }));
  const chain = keyed(old, { seq: 10 });
  const st = chain.decode(frame({ seq: 13, chunks: plans.map((p, i) => chunk({ type: 2, seq: 11 + i, payload: p.payload })) }));
  assertItems(st, list, 0, 0, 'chain');
  assertItems(one.state, list, 0, 0, 'separate');
  assert.equal(st.viewSeq, 13);
  // A chain with a gap is refused.
  const gap = keyed(old, { seq: 10 });
  assertRejected(gap, frame({ seq: 13, chunks: [chunk({ type: 2, seq: 11, payload: plans[0].payload }),
    chunk({ type: 2, seq: 13, payload: plans[1].payload })] }), /does not follow/, 'a chain with a gap');
});

test('items equal but for their previous position are ordered by it (py, px), which the next prediction needs', () => {
  // A stay moves onto an entry's exact (rx, ry, h, f): the entry (px 15)
  // comes first, the stay (px 20) second; the next delta's residuals differ.
  const old = [{ rx: 20, ry: 10, px: 20, py: 10, h: 7, f: 1 }];
  const dec = keyed(old);
  const p1 = planDelta(old, { moves: [{ rx: 15, ry: 10, h: 7, f: 1 }], entries: [{ rx: 15, ry: 10, h: 7, f: 1 }], bx: BX });
  assert.deepEqual(p1.expect.map((it) => it.px), [15, 20]);
  dec.decode(frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload: p1.payload })] }));
  const p2 = planDelta(p1.expect, { moves: [{ rx: 16, ry: 10, h: 7, f: 1 }, { rx: 10, ry: 10, h: 7, f: 1 }], bx: BX });
  assertItems(dec.decode(frame({ seq: 3, chunks: [chunk({ type: 2, seq: 3, payload: p2.payload })] })), p2.expect);
  assert.deepEqual([...dec.state.qx], [10, 16]);
});

test('a scrambled delta (every item jumps, entries anywhere) is sorted correctly through the counting sort by row', () => {
  const rand = prng(5);
  const old = randomItems(rand, 3000, WQ, HQ);
  const dec = keyed(old);
  const moves = old.map((it) => ({ rx: Math.floor(rand() * WQ), ry: Math.floor(rand() * HQ), h: it.h, f: it.f }));
  const { payload, expect } = planDelta(old, { moves, entries: randomItems(rand, 500, WQ, HQ), bx: BX, kx: 9, ky: 9 });
  assertItems(dec.decode(frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload })] })), expect);
});

test('a scrambled delta in a view with more rows than a row count is worth is sorted by the merge sort', () => {
  // 100 × 5000 units: 80,000 rows, too many for the counting sort by row.
  const tall = { width: 100, height: 5000, obstacles: [], targets: [] };
  const hq = 5000 * 16;
  const rand = prng(6);
  const old = randomItems(rand, 2000, WQ, hq);
  const dec = keyed(old, { scene: tall });
  const moves = old.map((it) => ({ rx: Math.floor(rand() * WQ), ry: Math.floor(rand() * hq), h: it.h, f: it.f }));
  const { payload, expect } = planDelta(old, { moves, entries: randomItems(rand, 300, WQ, hq), bx: BX, kx: 9, ky: 12 });
  assertItems(dec.decode(frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload })] })), expect);
});

test('a paused world (zero residual after the stop) keeps every item and its ident', () => {
  const rand = prng(9);
  const old = randomItems(rand, 100, WQ, HQ);
  const dec = keyed(old);
  const ids = [...dec.state.ident];
  const plan = planDelta(old, { moves: old.map(({ rx, ry, h, f }) => ({ rx, ry, h, f })), bx: BX });
  const st = dec.decode(frame({ seq: 2, paused: true, chunks: [chunk({ type: 2, seq: 2, payload: plan.payload })] }));
  assertItems(st, old);
  assert.deepEqual([...st.ident], ids);
});

test('deltas must follow the state held: seq, rect and mode', () => {
  const old = randomItems(prng(1), 20, WQ, HQ);
  const plan = planDelta(old, { moves: old, bx: BX });
  const dec = keyed(old, { seq: 5 });
  assertRejected(dec, frame({ seq: 7, chunks: [chunk({ type: 2, seq: 7, payload: plan.payload })] }), /does not follow/, 'seq − 1 not held');
  assertRejected(dec, frame({ seq: 6, chunks: [chunk({ type: 2, seq: 6, level: 1, x1: 1, payload: plan.payload })] }), /does not follow/, 'another rect');
  assertRejected(dec, frame({ seq: 6, chunks: [chunk({ type: 4, seq: 6, payload: lodDeltaPayload([0], [0], [0], [0]) })] }), /does not follow/, 'LOD delta on a detail view');
  assertRejected(new Wire2Decoder(), frame({ seq: 6, scene: SCENE, chunks: [chunk({ type: 2, seq: 6, payload: plan.payload })] }), /does not follow/, 'delta with nothing held');
  // The state is intact: the right delta still applies.
  assertItems(dec.decode(frame({ seq: 6, chunks: [chunk({ type: 2, seq: 6, payload: plan.payload })] })), plan.expect);
  // seq wraps around 2^32.
  const wrap = keyed(old, { seq: 0xffffffff });
  assertItems(wrap.decode(frame({ seq: 0, chunks: [chunk({ type: 2, seq: 0, payload: plan.payload })] })), plan.expect);
});

test('LOD keys and deltas give density and heading codes per cell', () => {
  const rect = { level: 2, x0: 1, y0: 1, x1: 3, y1: 2 }; // 2 × 1 tiles → 16 × 8 cells
  const cells = 16 * 8;
  const rand = prng(21);
  const d = Array.from({ length: cells }, () => (rand() < 0.4 ? 0 : 1 + Math.floor(rand() * 63)));
  const a = d.map((v) => (v ? Math.floor(rand() * 64) : 0));
  const dec = new Wire2Decoder();
  let st = dec.decode(frame({ seq: 1, scene: SCENE, chunks: [chunk({ type: 3, seq: 1, ...rect, payload: lodKeyPayload(d, a) })] }));
  assert.equal(st.mode, 'lod');
  assert.equal(st.count, 0);
  assert.deepEqual([st.lod.cols, st.lod.rows], [16, 8]);
  assert.deepEqual([...st.lod.d], d);
  assert.deepEqual([...st.lod.a], a);
  const d2 = d.map((v) => (rand() < 0.3 ? (rand() < 0.3 ? 0 : 1 + Math.floor(rand() * 63)) : v));
  const a2 = d2.map((v, i) => (v ? (rand() < 0.5 ? a[i] : Math.floor(rand() * 64)) : 0));
  st = dec.decode(frame({ seq: 2, chunks: [chunk({ type: 4, seq: 2, ...rect, payload: lodDeltaPayload(d, a, d2, a2, { kD: 0, kA: 0 }) })] }));
  assert.deepEqual([...st.lod.d], d2);
  assert.deepEqual([...st.lod.a], a2);
  assert.equal(st.keyed, false);
  // A density code above 63 is refused.
  const bad = new BitWriter().u(0, 4).u(0, 4).eg(64, 0);
  for (let i = 1; i < cells; i++) bad.eg(0, 0);
  assertRejected(dec, frame({ seq: 3, chunks: [chunk({ type: 3, seq: 3, ...rect, payload: bad.bytes() })] }), /density/, 'density 64');
});

test('switching from LOD to a detail key and back replaces the view', () => {
  const dec = new Wire2Decoder();
  dec.decode(frame({ seq: 1, scene: SCENE, chunks: [chunk({ type: 3, seq: 1, payload: lodKeyPayload(new Array(64).fill(1), new Array(64).fill(3)) })] }));
  const st = dec.decode(keyFrame([{ rx: 4, ry: 4, h: 4, f: 4 }], { seq: 2, scene: null }));
  assert.equal(st.mode, 'detail');
  assert.equal(st.lod, null);
  assertItems(st, [{ rx: 4, ry: 4, h: 4, f: 4 }]);
});

// ---------------------------------------------------------------------------
// Rejection rules.

test('frames breaking the header, rect and count rules are rejected with the state unchanged', () => {
  const items = randomItems(prng(2), 5, WQ, HQ);
  const dec = keyed(items);
  const valid = (over) => frame({ seq: 2, scene: SCENE, chunks: [chunk({ type: 1, seq: 2, payload: keyPayload(items, { bx: BX }), ...over })] });
  assertRejected(dec, frame({ seq: 2, kind: 0x54 }), /kind/, 'wrong kind');
  assertRejected(dec, frame({ seq: 2, version: 1 }), /version/, 'wrong version');
  assertRejected(dec, valid({ level: 8, x1: 1 }), /level/, 'level 8');
  assertRejected(dec, valid({ x0: 1, x1: 1 }), /rect/, 'x0 = x1');
  assertRejected(dec, valid({ level: 1, y0: 1, y1: 0 }), /rect/, 'y0 > y1');
  assertRejected(dec, valid({ level: 1, x1: 3 }), /rect/, 'x1 beyond 2^L');
  assertRejected(dec, valid({ type: 5 }), /type/, 'unknown chunk type');
  assertRejected(dec, frame({ seq: 2, chunks: [chunk({ type: 1, seq: 2, payload: keyPayload(items, { bx: BX, count: 2 ** 22 + 1 }) })] }), /2\^22/, 'count above 2^22');
  assertRejected(dec, frame({ seq: 2, chunks: [chunk({ type: 1, seq: 2, payload: keyPayload(items, { bx: BX, count: 2 ** 20 }) })] }), /exceeds|past/, 'count beyond the payload');
  assertRejected(dec, Buffer.concat([valid({}), Buffer.from([0])]), /after the last chunk/, 'trailing byte');
  const padded = keyPayload(items, { bx: BX });
  assertRejected(dec, frame({ seq: 2, chunks: [chunk({ type: 1, seq: 2, payload: Buffer.concat([padded, Buffer.from([0])]) })] }), /unread/, 'payload longer than its codes');
  const noScene = new Wire2Decoder();
  assertRejected(noScene, frame({ seq: 1, chunks: [chunk({ type: 1, seq: 1, payload: keyPayload(items, { bx: BX }) })] }), /scene/, 'a chunk before any scene');
  assertRejected(dec, 'not a buffer', /ArrayBuffer/, 'not bytes');
  assertItems(dec.state, items, 0, 0, 'still the first key');
});

test('exit and flag-change indices out of range are rejected', () => {
  const items = randomItems(prng(4), 6, WQ, HQ);
  const dec = keyed(items);
  const d = (codes) => frame({ seq: 2, chunks: [chunk({ type: 2, seq: 2, payload: deltaPayload({ bx: BX, ...codes }) })] });
  const zero = (n) => Array.from({ length: n }, () => [0, 0, 0]);
  assertRejected(dec, d({ exits: [6], residuals: zero(5) }), /exit index/, 'exit index = N');
  assertRejected(dec, d({ exits: [0, 1, 2, 3, 4, 5, 6], residuals: [] }), /exits/, 'more exits than items');
  assertRejected(dec, d({ exits: [1], residuals: zero(5), flagChanges: [[5, 1]] }), /flag change/, 'flag change index = stays');
  assertRejected(dec, d({ residuals: [[-1e6, 0, 0], ...zero(5)] }), /outside the view/, 'a stay moved outside');
  assertRejected(dec, d({ residuals: [[0, 0, 512], ...zero(5)] }), /heading step/, 'heading step 512');
  assertRejected(dec, d({ residuals: zero(5) }), /past its end|unread/, 'too few residuals');
  // Idents are not disturbed by rejected exits: the next good delta keeps them.
  const ids = [...dec.state.ident];
  const st = dec.decode(d({ residuals: zero(6) }));
  assert.deepEqual([...st.ident], ids);
});

// Frames to cut: a key with a scene, a chain of two deltas, a LOD key + delta.
function sampleFrames() {
  const rand = prng(8);
  const old = randomItems(rand, 40, WQ, HQ);
  const p1 = planDelta(old, { exits: [3], moves: randomMoves(rand, old.filter((_, i) => i !== 3), WQ, HQ), entries: randomItems(rand, 3, WQ, HQ), bx: BX });
  const p2 = planDelta(p1.expect, { moves: randomMoves(rand, p1.expect, WQ, HQ), bx: BX });
  const d = Array.from({ length: 64 }, (_, i) => i % 5);
  const a = d.map((v, i) => (v ? i % 64 : 0));
  return {
    old,
    key: keyFrame(old, { seq: 1 }),
    chain: frame({ seq: 3, chunks: [chunk({ type: 2, seq: 2, payload: p1.payload }), chunk({ type: 2, seq: 3, payload: p2.payload })] }),
    lodKey: frame({ seq: 4, scene: SCENE, chunks: [chunk({ type: 3, seq: 4, payload: lodKeyPayload(d, a) })] }),
    lodDelta: frame({ seq: 5, chunks: [chunk({ type: 4, seq: 5, payload: lodDeltaPayload(d, a, d.map((v) => (v + 1) % 64), a) })] }),
  };
}

test('every truncation of valid frames is rejected and leaves the state unchanged', () => {
  const f = sampleFrames();
  const dec = new Wire2Decoder();
  const steps = [f.key, f.chain, f.lodKey, f.lodDelta];
  for (const [s, bytes] of steps.entries()) {
    const before = dec.state;
    for (let len = 0; len < bytes.length; len++) {
      assertRejected(dec, bytes.subarray(0, len), null, `frame ${s} cut to ${len} of ${bytes.length} bytes`);
    }
    assert.equal(dec.state, before);
    dec.decode(bytes); // the whole frame still decodes after all those failures
  }
  // The decoder that saw the failures ends like one that saw only good frames.
  const clean = new Wire2Decoder();
  for (const bytes of steps) clean.decode(bytes);
  assert.deepEqual(dec.state.lod, clean.state.lod);
  const mid = new Wire2Decoder();
  mid.decode(f.key);
  for (let len = 0; len < f.chain.length; len++) assert.throws(() => mid.decode(f.chain.subarray(0, len)), WireError);
  const ref = new Wire2Decoder();
  ref.decode(f.key);
  assert.deepEqual(mid.decode(f.chain).qx, ref.decode(f.chain).qx, 'the chain applies to the untouched key state');
});

test('10,000 random and mutated inputs throw nothing but WireError', () => {
  const f = sampleFrames();
  const rand = prng(99);
  const bases = [f.key, f.chain, f.lodKey, f.lodDelta];
  let rejected = 0;
  let accepted = 0;
  for (let i = 0; i < 10000; i++) {
    const dec = new Wire2Decoder();
    let input;
    if (i % 4 === 0) {
      input = new Uint8Array(Math.floor(rand() * 200));
      for (let j = 0; j < input.length; j++) input[j] = Math.floor(rand() * 256);
      if (input.length > 1 && rand() < 0.7) { input[0] = 0x53; input[1] = 2; }
    } else {
      const which = Math.floor(rand() * bases.length);
      if (which === 1 || which === 3) dec.decode(bases[which - 1]); // the state they follow
      input = Uint8Array.from(bases[which]);
      const flips = 1 + Math.floor(rand() * 4);
      for (let k = 0; k < flips; k++) input[Math.floor(rand() * input.length)] ^= 1 << Math.floor(rand() * 8);
    }
    const before = dec.state;
    try {
      dec.decode(input);
      accepted++;
    } catch (e) {
      if (!(e instanceof WireError)) throw new Error(`input ${i} threw ${e && e.name}: ${e && e.message}`);
      assert.equal(dec.state, before);
      rejected++;
    }
  }
  assert.ok(rejected > 1000 && accepted > 100, `both outcomes occur (rejected ${rejected}, accepted ${accepted})`);
});
