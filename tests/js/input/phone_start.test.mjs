// Where a phone's camera starts (client-web/input/phone_start.js): a
// portrait screen gets the world's height, centred on the flock.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { actionCentre, fillHeightView, fitsAsStrip } from '../../../client-web/input/phone_start.js';
import { MARGIN_PX } from '../../../client-web/view/viewport.js';
import { Camera } from '../../../client-web/view/camera.js';

test('a 16:9 world on a portrait phone is a strip; on a desktop or a tall world it is not', () => {
  assert.equal(fitsAsStrip(390, 844, 1600, 900), true);
  assert.equal(fitsAsStrip(1280, 720, 1600, 900), false); // landscape
  assert.equal(fitsAsStrip(390, 844, 900, 1600), false); // the world is portrait too
  assert.equal(fitsAsStrip(600, 700, 1600, 900), true);
  assert.equal(fitsAsStrip(700, 720, 1000, 900), false); // the world already fills most of the height
  assert.equal(fitsAsStrip(0, 844, 1600, 900), false);
  assert.equal(fitsAsStrip(390, 844, 0, 900), false);
});

test('the action\'s centre is the flock\'s mean position, the world\'s centre without agents', () => {
  const frame = { count: 3, x: Float32Array.of(100, 200, 300), y: Float32Array.of(50, 60, 70) };
  assert.deepEqual(actionCentre(frame, 1600, 900), { x: 200, y: 60 });
  assert.deepEqual(actionCentre({ count: 0, x: null, y: null }, 1600, 900), { x: 800, y: 450 });
  assert.deepEqual(actionCentre(null, 1600, 900), { x: 800, y: 450 });
  // A density view (v2 'lod') names no agent.
  assert.deepEqual(actionCentre({ count: 0, mode: 'lod' }, 1000, 500), { x: 500, y: 250 });
  const withNaN = { count: 2, x: [NaN, 10], y: [5, 20] };
  assert.deepEqual(actionCentre(withNaN, 100, 100), { x: 10, y: 20 });
});

test('the start view shows the whole height and never looks past the world\'s sides', () => {
  const v = fillHeightView(390, 844, 1600, 900, { x: 800, y: 100 });
  assert.ok(Math.abs(v.scale * 900 - (844 - 2 * MARGIN_PX)) < 1e-9, 'the world\'s height fills the screen');
  assert.equal(v.cx, 800);
  assert.equal(v.cy, 450);
  const half = 390 / 2 / v.scale;
  assert.equal(fillHeightView(390, 844, 1600, 900, { x: 10, y: 0 }).cx, half, 'clamped at the left edge');
  assert.equal(fillHeightView(390, 844, 1600, 900, { x: 1590, y: 0 }).cx, 1600 - half, 'clamped at the right edge');
  // A world narrower than the view: centred.
  assert.equal(fillHeightView(390, 844, 300, 900, { x: 10, y: 0 }).cx, 150);
});

test('the camera takes the start view as it is (within its limits), and pans freely from there', () => {
  const c = new Camera();
  c.setSize(390, 844, 1600, 900);
  const v = fillHeightView(390, 844, 1600, 900, { x: 1200, y: 0 });
  c.set(v.cx, v.cy, v.scale);
  assert.equal(c.scale, v.scale);
  assert.equal(c.cx, v.cx);
  const r = c.visibleRect();
  assert.ok(r.h >= 900 - 1e-6 && r.y <= 1e-6, 'the whole height is on screen');
  assert.ok(r.w < 1600 / 3, 'zoomed in: a part of the width');
  c.panBy(200, 0);
  assert.ok(c.cx < v.cx, 'a drag moves the view');
});
