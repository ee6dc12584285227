// Tests of the CPU splat of small agents (client-web/draw/splat.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Splatter } from '../../../client-web/draw/splat.js';

const W = 200;
const H = 120;
const BG = 0xff000001;
const WORLD = 0xff000002;
const OBST = 0xff000003;
const COLORS = new Uint32Array([0xff0000a0, 0xff0000a1, 0xff0000a2, 0xff0000a3, 0xff0000b0, 0xff0000c0]);

function agents(list) {
  const n = list.length;
  const a = { x: new Float32Array(n), y: new Float32Array(n), heading: new Float32Array(n), f: new Uint8Array(n) };
  list.forEach((p, i) => {
    a.x[i] = p.x;
    a.y[i] = p.y;
    a.heading[i] = p.h ?? 0;
    a.f[i] = p.f ?? 0;
  });
  return a;
}

function paint(list, { obstacles = [], cam = { scale: 1, offsetX: 10, offsetY: 10 }, len = 8 } = {}) {
  const s = new Splatter();
  const world = { width: 100, height: 50, color: WORLD, background: BG, obstacles, obstacleColor: OBST };
  s.render(agents(list), list.length, W, H, cam, 1, len, COLORS, world);
  return (x, y) => s.pixels[y * W + x];
}

test('background, world rectangle and obstacles are painted where the camera puts them', () => {
  const px = paint([], { obstacles: [{ x: 50, y: 25, radius: 5 }] });
  assert.equal(px(5, 5), BG);
  assert.equal(px(15, 15), WORLD);
  assert.equal(px(115, 25), BG, 'right of the world (10 + 100)');
  assert.equal(px(60, 35), OBST, 'the obstacle centre (10 + 50, 10 + 25)');
  assert.equal(px(60, 42), WORLD, 'outside the obstacle radius');
});

test('an agent is painted around its position, longer along its heading, in its class colour', () => {
  const px = paint([{ x: 40, y: 20 }, { x: 80, y: 30, h: Math.PI / 2, f: 0x04 }]);
  // Agent 0 at (50, 30) heading +x: its nose (0.6 × 8 ≈ 4 px) ahead, nothing at 4 px to its side.
  assert.equal(px(50, 30), COLORS[0]);
  assert.equal(px(53, 30), COLORS[0]);
  assert.equal(px(50, 34), WORLD);
  // Agent 1 (species 2) at (90, 40) heading +y.
  assert.equal(px(90, 43), COLORS[2]);
  assert.equal(px(93, 40), WORLD);
});

test('leaders and predators are painted last, over the crowd', () => {
  // The predator comes first in the list but ends on top of the agent after it.
  const px = paint([{ x: 40, y: 20, f: 0x08 }, { x: 40, y: 20 }]);
  assert.equal(px(50, 30), COLORS[5]);
});

test('agents at the edge are clipped, not wrapped onto the next row', () => {
  const px = paint([{ x: 0, y: 20, h: Math.PI }], { cam: { scale: 1, offsetX: 0, offsetY: 10 } });
  assert.equal(px(0, 30), COLORS[0]);
  assert.notEqual(px(W - 1, 29), COLORS[0]);
  assert.notEqual(px(W - 2, 30 - 1), COLORS[0]);
});
