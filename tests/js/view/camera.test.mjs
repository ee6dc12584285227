// Tests of the viewer's camera (client-web/view/camera.js) and of the throttled
// `view` command it leads to (client-web/net/view_sender.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Camera, MAX_SCALE } from '../../../client-web/view/camera.js';
import { ViewSender, MIN_INTERVAL_MS } from '../../../client-web/net/view_sender.js';
import { fitWorld } from '../../../client-web/view/viewport.js';

function near(a, b, eps = 1e-9) {
  assert.ok(Math.abs(a - b) <= eps, `${a} is not ${b}`);
}

function camera1000() {
  const c = new Camera();
  c.setSize(1400, 850, 1000, 1000);
  return c;
}

test('a fitted camera maps the world exactly as fitWorld() does', () => {
  const c = camera1000();
  const f = fitWorld(1400, 850, 1000, 1000);
  const v = c.view();
  near(v.scale, f.scale);
  near(v.offsetX, f.offsetX);
  near(v.offsetY, f.offsetY);
});

test('zooming about a point keeps the world point under it in place', () => {
  const c = camera1000();
  const before = c.screenToWorld(300, 200);
  c.zoomAt(300, 200, 2.5);
  const after = c.screenToWorld(300, 200);
  near(after.x, before.x, 1e-6);
  near(after.y, before.y, 1e-6);
  assert.ok(c.scale > c.fitScale() * 2);
});

test('world and screen coordinates round-trip', () => {
  const c = camera1000();
  c.set(123, 456, 3);
  const s = c.worldToScreen(200, 300);
  const w = c.screenToWorld(s.x, s.y);
  near(w.x, 200, 1e-9);
  near(w.y, 300, 1e-9);
});

test('the zoom stays within its limits and the centre within the world', () => {
  const c = camera1000();
  c.zoomAt(0, 0, 1e9);
  assert.equal(c.scale, MAX_SCALE);
  c.zoomAt(0, 0, 1e-9);
  assert.equal(c.scale, c.minScale());
  c.panBy(1e9, -1e9);
  assert.ok(c.cx >= 0 && c.cx <= 1000 && c.cy >= 0 && c.cy <= 1000);
});

test('a drag moves the picture with the hand', () => {
  const c = camera1000();
  c.set(500, 500, 2);
  const w = c.screenToWorld(700, 425);
  c.panBy(50, -20);
  const s = c.worldToScreen(w.x, w.y);
  near(s.x, 750, 1e-9);
  near(s.y, 405, 1e-9);
});

test('the visible rectangle is what is on screen, clipped to the world', () => {
  const c = camera1000();
  c.set(100, 900, 4);
  const r = c.visibleRect();
  assert.equal(r.x, 0); // the left edge of the screen is off the world
  near(r.y, 900 - 850 / 8);
  near(r.w, 100 + 1400 / 8);
  near(r.h, 1000 - r.y);
});

test('fit returns to the whole world and the version counts every change', () => {
  const c = camera1000();
  const v0 = c.version;
  c.zoomAt(10, 10, 2);
  assert.ok(c.version > v0);
  const v1 = c.version;
  c.zoomAt(10, 10, 1); // no change
  assert.equal(c.version, v1);
  c.fit();
  assert.ok(c.fitted);
  near(c.scale, c.fitScale());
  // A fitted camera follows a resize; a moved one keeps its scale.
  c.setSize(700, 850, 1000, 1000);
  near(c.scale, c.fitScale());
  c.set(500, 500, 3);
  c.setSize(1400, 850, 1000, 1000);
  assert.equal(c.scale, 3);
});

test('the view sender sends on change only, at most once per interval, and the last change arrives', () => {
  const sent = [];
  const vs = new ViewSender({ send: (cmd) => (sent.push(cmd), sent.length), budget: 150000 });
  const rect = (x) => ({ x, y: 0, w: 100, h: 50 });
  assert.equal(vs.update(rect(0), 0), null, 'disabled until the server speaks v2');
  vs.reset(true);
  assert.ok(vs.update(rect(0), 0));
  assert.equal(vs.update(rect(0), 1000), null, 'same rectangle: nothing to send');
  assert.equal(vs.update(rect(10), 1000 + 1), sent[1]);
  assert.equal(vs.update(rect(20), 1000 + MIN_INTERVAL_MS - 1), null, 'too soon');
  assert.equal(vs.update(rect(30), 1000 + MIN_INTERVAL_MS / 2), null, 'too soon');
  assert.ok(vs.update(rect(30), 1001 + MIN_INTERVAL_MS), 'the held-back change goes out');
  assert.deepEqual(sent.map((c) => c.x), [0, 10, 30]);
  assert.deepEqual(sent[2], { type: 'view', x: 30, y: 0, w: 100, h: 50, budget: 150000 });
});

test('the view sender retries when the connection could not send', () => {
  let open = false;
  const sent = [];
  const vs = new ViewSender({ send: (cmd) => (open ? (sent.push(cmd), 1) : null) });
  vs.reset(true);
  assert.equal(vs.update({ x: 0, y: 0, w: 10, h: 10 }, 0), null);
  open = true;
  assert.ok(vs.update({ x: 0, y: 0, w: 10, h: 10 }, 1));
  assert.equal(sent.length, 1);
  assert.equal('budget' in sent[0], false, 'no budget: the server default');
});
