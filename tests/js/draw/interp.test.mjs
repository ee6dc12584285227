// Tests of the viewer's interpolation buffer (client-web/draw/interp.js), fed
// frames in the shape frames.js gives (a small fake generator below stands
// in for the wire decoders).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Interpolator, DELAY_INTERVALS } from '../../../client-web/draw/interp.js';
import { frameFromV1 } from '../../../client-web/net/frames.js';

// A frame of n agents; items: [{ ident, x, y, heading, f }].
function fakeFrame(tick, items, { keyed = false, paused = false, width = 1000, height = 1000, mode = 'detail' } = {}) {
  const n = items.length;
  const fr = {
    tick, seq: tick, paused, population: n, width, height, obstacles: [], targets: [], mode, rect: null, keyed,
    count: n, x: new Float32Array(n), y: new Float32Array(n), heading: new Float32Array(n),
    f: new Uint8Array(n), ident: new Uint32Array(n), lod: null,
  };
  items.forEach((it, i) => {
    fr.x[i] = it.x;
    fr.y[i] = it.y;
    fr.heading[i] = it.heading ?? 0;
    fr.f[i] = it.f ?? 0;
    fr.ident[i] = it.ident;
  });
  return fr;
}

// Frames arriving every 33 ms, then the delay settled at 3 intervals.
function feed(ip, frames, t0 = 1000, dt = 33) {
  frames.forEach((fr, i) => ip.push(fr, t0 + i * dt));
  return (k) => t0 + k * dt + ip.delay; // the render time at which frame k is shown exactly
}

test('positions are interpolated per identity between the two frames around now − delay', () => {
  const ip = new Interpolator();
  // Identity 7 moves right; identity 3 moves down; their order in the list swaps.
  const at = feed(ip, [
    fakeFrame(1, [{ ident: 3, x: 10, y: 10 }, { ident: 7, x: 100, y: 100 }]),
    fakeFrame(2, [{ ident: 7, x: 110, y: 100 }, { ident: 3, x: 10, y: 30 }]),
  ]);
  const s = ip.sample(at(0) + 33 / 2);
  assert.equal(s.count, 2);
  assert.ok(Math.abs(s.x[0] - 105) < 1e-3, `ident 7 half way: ${s.x[0]}`);
  assert.ok(Math.abs(s.y[1] - 20) < 1e-3, `ident 3 half way: ${s.y[1]}`);
});

test('the delay is about three snapshot intervals', () => {
  const ip = new Interpolator();
  for (let i = 0; i < 60; i++) ip.push(fakeFrame(i, [{ ident: 0, x: i, y: 0 }]), i * 50);
  assert.ok(Math.abs(ip.delay - DELAY_INTERVALS * 50) < 10, `delay ${ip.delay}`);
});

test('headings turn along the short arc', () => {
  const ip = new Interpolator();
  const at = feed(ip, [
    fakeFrame(1, [{ ident: 1, x: 0, y: 0, heading: 3.0 }]),
    fakeFrame(2, [{ ident: 1, x: 0, y: 0, heading: -3.0 }]),
  ]);
  const h = ip.sample(at(0) + 16.5).heading[0];
  // Half way from 3.0 to −3.0 through π, not through 0.
  const wrapped = ((h % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  assert.ok(Math.abs(wrapped - Math.PI) < 1e-3, `heading ${h}`);
});

test('new identities, keyed frames and wrap-arounds are drawn where they are, not slid', () => {
  const ip = new Interpolator();
  const at = feed(ip, [
    fakeFrame(1, [{ ident: 1, x: 995, y: 500 }, { ident: 2, x: 100, y: 100 }]),
    fakeFrame(2, [{ ident: 1, x: 3, y: 500 }, { ident: 2, x: 120, y: 100 }, { ident: 9, x: 400, y: 400 }]),
    fakeFrame(3, [{ ident: 2, x: 500, y: 500 }], { keyed: true }),
  ]);
  let s = ip.sample(at(0) + 16.5);
  assert.equal(s.x[0], 3, 'wrapped round the world: no slide back across it');
  assert.ok(Math.abs(s.x[1] - 110) < 1e-3, 'an ordinary agent is still interpolated');
  assert.equal(s.x[2], 400, 'a new identity appears in place');
  s = ip.sample(at(1) + 16.5);
  assert.equal(s.count, 1);
  assert.equal(s.x[0], 500, 'after a key identities mean nothing: no slide');
});

test('a paused world settles: once played out, samples report no change', () => {
  const ip = new Interpolator();
  const items = [{ ident: 0, x: 1, y: 1 }, { ident: 1, x: 2, y: 2 }];
  ip.push(fakeFrame(5, items), 0);
  ip.push(fakeFrame(6, items.map((it) => ({ ...it, x: it.x + 1 })), { paused: true }), 33);
  // Paused repeats of the same tick are not buffered.
  for (let i = 2; i < 20; i++) assert.equal(ip.push(fakeFrame(6, items, { paused: true }), i * 33), false);
  const late = 10000;
  assert.equal(ip.sample(late).changed, true);
  assert.equal(ip.moving(late + 16), false);
  assert.equal(ip.sample(late + 16).changed, false);
  assert.equal(ip.sample(late + 16).x[0], 2, 'the paused frame, not the repeats');
  // A new tick moves it again.
  ip.push(fakeFrame(7, items), late + 20);
  assert.equal(ip.moving(late + 20 + ip.delay + 1), true);
});

test('frames arriving while sampled do not disturb the buffer (copies, not references)', () => {
  const ip = new Interpolator();
  const fr = fakeFrame(1, [{ ident: 0, x: 10, y: 10 }]);
  ip.push(fr, 0);
  fr.x[0] = 999; // a decoder reusing its arrays for the next frame
  assert.equal(ip.sample(1e6).x[0], 10);
});

test('v1 snapshots become frames whose index is the identity, keyed when the population changes', () => {
  const snap = (n) => ({
    tick: n, paused: false, world_width: 1000, world_height: 800, obstacles: [], targets: [],
    agents: { count: n, x: new Float64Array(n), y: new Float64Array(n), heading: new Float64Array(n), flags: new Uint8Array(n) },
  });
  const a = frameFromV1(snap(3), null);
  assert.equal(a.keyed, true);
  const b = frameFromV1(snap(3), a);
  assert.equal(b.keyed, false);
  assert.deepEqual([...b.ident.subarray(0, 3)], [0, 1, 2]);
  assert.equal(frameFromV1(snap(4), b).keyed, true);
});
