// Browser test of the viewer (issue 10): camera, protocol v2 viewport and
// the picture. The real server, the real page in headless Chromium; the
// page's WebSocket is watched from inside the page (an init script wraps
// WebSocket) to count the bytes of the binary frames and see the `view`
// commands it sends. Screenshots go to tests/e2e/artifacts/.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/viewer.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startServer } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
mkdirSync(artifacts, { recursive: true });

const T = { timeout: 90000 };
const WAIT_MS = 20000;
const AGENTS = 4000;

let server;
let browser;
let page;
const consoleErrors = [];
const pageErrors = [];

// Runs in the page before its scripts: counts what the socket carries.
function watchSocket() {
  window.__wire = { frames: [], sent: [] };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (typeof ev.data !== 'string') window.__wire.frames.push({ t: performance.now(), bytes: ev.data.byteLength });
      });
    }

    send(data) {
      if (typeof data === 'string') window.__wire.sent.push(JSON.parse(data));
      return super.send(data);
    }
  };
}

before(async () => {
  server = await startServer({ agents: AGENTS, seed: 11, args: ['--world', '3200x1800'] });
  browser = await launchChromium();
  page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.setViewportSize({ width: 1400, height: 850 });
  await page.addInitScript(watchSocket);
  // A budget above the population: every view is drawn in detail.
  await page.goto(`${server.httpUrl}/?budget=200000`, { waitUntil: 'load', timeout: WAIT_MS });
  await waitInPage(page, () => window.swarmcast?.connected && window.swarmcast.framesDrawn > 3, null,
    'the page to draw', WAIT_MS);
});

after(() => closeBrowserAndServer(browser, server));

const until = (fn, arg, what) => waitInPage(page, fn, arg, what, WAIT_MS);

// Mean bytes of the binary frames that arrive over the next `count` frames.
async function meanFrameBytes(count) {
  const from = await page.evaluate(() => window.__wire.frames.length);
  await until((n) => window.__wire.frames.length >= n, from + count, `${count} more frames`);
  return page.evaluate(({ from, count }) => {
    const f = window.__wire.frames.slice(from, from + count);
    return f.reduce((s, x) => s + x.bytes, 0) / f.length;
  }, { from, count });
}

test('the page speaks protocol v2 and draws the agents with WebGL2', T, async () => {
  const r = await page.evaluate(() => ({
    protocol: window.swarmcast.hello.protocol,
    kind: window.swarmcast.viewer.kind,
    mode: window.swarmcast.viewer.frame?.mode,
    count: window.swarmcast.viewer.frame?.count,
  }));
  assert.equal(r.protocol, 2);
  assert.equal(r.kind, 'webgl2');
  assert.equal(r.mode, 'detail');
  assert.ok(r.count > AGENTS * 0.9, `the whole world in detail: ${r.count} items`);
  await page.screenshot({ path: path.join(artifacts, 'viewer-fit.png') });
});

test('zooming in sends a view for the smaller rectangle and the frames get smaller', T, async (t) => {
  const before = await meanFrameBytes(20);
  const sentBefore = await page.evaluate(() => window.__wire.sent.filter((m) => m.type === 'view').length);
  const box = await page.locator('#world').boundingBox();
  await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.4);
  for (let i = 0; i < 10; i++) await page.mouse.wheel(0, -100); // 1.25^10 ≈ 9×
  const world = await page.evaluate(() => window.swarmcast.hello.world);
  // Views go out at most every 100 ms, so on a slow machine the first one may
  // be for the zoom half done; the sender holds the last change back and sends
  // it, so the server ends up with where the camera stopped: wait for that one.
  const view = await until(({ n, world }) => {
    const v = window.__wire.sent.filter((m) => m.type === 'view');
    const last = v[v.length - 1];
    return v.length > n && last.w < world.width / 4 && last.h < world.height / 4 ? last : null;
  }, { n: sentBefore, world }, 'a view command for the zoomed-in viewport (under a quarter of the world each way)');
  assert.equal(view.budget, 200000);
  // The server switches to a smaller rectangle of tiles.
  await until((w) => {
    const f = window.swarmcast.viewer.frame;
    return f && f.rect && f.rect.w < w / 2;
  }, world.width, 'frames of the smaller rectangle');
  const after = await meanFrameBytes(20);
  t.diagnostic(`mean frame bytes: whole world ${before.toFixed(0)}, zoomed in ${after.toFixed(0)}`);
  assert.ok(after < before / 2, `frames fall by half or more: ${before.toFixed(0)} → ${after.toFixed(0)} bytes`);
  await page.screenshot({ path: path.join(artifacts, 'viewer-zoomed.png') });
});

test('the minimap moves the camera, the arrow keys pan and F fits the world again', T, async () => {
  const cam = () => page.evaluate(() => {
    const c = window.swarmcast.viewer.camera;
    return { cx: c.cx, cy: c.cy, scale: c.scale, fitted: c.fitted, fit: c.fitScale() };
  });
  const a = await cam();
  const mm = await page.locator('#minimap').boundingBox();
  assert.ok(mm && mm.width > 40, 'a minimap is shown');
  await page.mouse.click(mm.x + mm.width * 0.8, mm.y + mm.height * 0.7);
  const b = await cam();
  assert.ok(b.cx > a.cx + 100, `the camera moved right: ${a.cx} → ${b.cx}`);
  await page.keyboard.press('ArrowLeft');
  const c = await cam();
  assert.ok(c.cx < b.cx, 'the left arrow pans left');
  await page.keyboard.press('f');
  const d = await cam();
  assert.ok(d.fitted && Math.abs(d.scale - d.fit) < 1e-9, 'F fits the world');
  await until(() => window.__wire.sent.filter((m) => m.type === 'view').pop()?.w >= window.swarmcast.hello.world.width - 1,
    null, 'the whole world asked for again');
});

test('two fingers spreading apart zoom in about their midpoint; a middle-button drag pans', T, async () => {
  const r = await page.evaluate(() => {
    const canvas = document.getElementById('world');
    const cam = window.swarmcast.viewer.camera;
    cam.fit();
    const box = canvas.getBoundingClientRect();
    const fire = (type, id, x, y, extra = {}) => canvas.dispatchEvent(new PointerEvent(type, {
      pointerId: id, pointerType: 'touch', clientX: box.left + x, clientY: box.top + y, bubbles: true,
      cancelable: true, isPrimary: id === 1, buttons: 1, ...extra,
    }));
    const mid = { x: 400, y: 300 };
    const before = { scale: cam.scale, at: cam.screenToWorld(mid.x, mid.y) };
    fire('pointerdown', 1, mid.x - 20, mid.y);
    fire('pointerdown', 2, mid.x + 20, mid.y);
    for (let d = 20; d <= 80; d += 10) {
      fire('pointermove', 1, mid.x - d, mid.y);
      fire('pointermove', 2, mid.x + d, mid.y);
    }
    fire('pointerup', 1, mid.x - 80, mid.y);
    fire('pointerup', 2, mid.x + 80, mid.y);
    const after = { scale: cam.scale, at: cam.screenToWorld(mid.x, mid.y) };
    // A middle-button drag of 100 px to the right moves the world with it.
    const mouse = (type, x, y, buttons) => canvas.dispatchEvent(new PointerEvent(type, {
      pointerId: 9, pointerType: 'mouse', button: 1, buttons, clientX: box.left + x, clientY: box.top + y,
      bubbles: true, cancelable: true,
    }));
    const w0 = cam.screenToWorld(300, 300);
    mouse('pointerdown', 300, 300, 4);
    mouse('pointermove', 350, 300, 4);
    mouse('pointermove', 400, 300, 4);
    mouse('pointerup', 400, 300, 0);
    const s1 = cam.worldToScreen(w0.x, w0.y);
    return { before, after, dragged: s1.x - 300, targets: window.__wire.sent.filter((m) => m.type === 'set_target').length };
  });
  assert.ok(Math.abs(r.after.scale / r.before.scale - 4) < 0.01, `the spread (40 → 160 px) zooms 4×: ${JSON.stringify(r)}`);
  assert.ok(Math.abs(r.after.at.x - r.before.at.x) < 1e-6 && Math.abs(r.after.at.y - r.before.at.y) < 1e-6,
    'the point between the fingers stays put');
  assert.ok(Math.abs(r.dragged - 100) < 1e-6, `the world follows the drag: ${r.dragged}`);
  assert.equal(r.targets, 0, 'neither gesture set a target');
  await page.keyboard.press('f');
});

test('a budget below the population shows the aggregated level of detail', T, async () => {
  const lod = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  try {
    await lod.setViewportSize({ width: 1400, height: 850 });
    await lod.goto(`${server.httpUrl}/?budget=500`, { waitUntil: 'load', timeout: WAIT_MS });
    await waitInPage(lod, () => window.swarmcast?.viewer.frame?.mode === 'lod' && window.swarmcast.viewer.stats.renders > 3,
      null, 'an LOD frame drawn', WAIT_MS);
    const r = await lod.evaluate(() => {
      const f = window.swarmcast.viewer.frame;
      let nonEmpty = 0;
      for (let i = 0; i < f.lod.cols * f.lod.rows; i++) if (f.lod.d[i] > 0) nonEmpty++;
      // The density must be on the canvas: count pixels brighter than the world's colour.
      const shot = window.swarmcast.viewer.capture();
      const d = shot.getContext('2d').getImageData(0, 0, shot.width, shot.height).data;
      let lit = 0;
      for (let i = 0; i < d.length; i += 16) if (d[i + 2] > 90) lit++;
      return { cols: f.lod.cols, rows: f.lod.rows, nonEmpty, lit };
    });
    assert.ok(r.nonEmpty > 10, `cells with agents: ${JSON.stringify(r)}`);
    assert.ok(r.lit > 1000, `the density is drawn: ${JSON.stringify(r)}`);
    await lod.screenshot({ path: path.join(artifacts, 'viewer-lod.png') });
  } finally {
    await lod.context().close();
  }
});

test('a paused world with a still camera is not redrawn, and moving the camera redraws it', T, async (t) => {
  await page.evaluate(() => window.swarmcast.send({ type: 'pause' }));
  await until(() => window.swarmcast.paused === true, null, 'the pause');
  // Once the interpolation buffer has played out, renders stop: wait for a
  // full second without one (bounded by the wait's timeout).
  const renders = () => page.evaluate(() => window.swarmcast.viewer.stats.renders);
  let quiet = false;
  for (let i = 0; i < 15 && !quiet; i++) {
    const r0 = await renders();
    await page.waitForTimeout(1000);
    quiet = (await renders()) === r0;
  }
  assert.ok(quiet, 'no render for a whole second while paused');
  const frames = await page.evaluate(() => window.__wire.frames.length);
  await page.waitForTimeout(500);
  const r1 = await renders();
  await page.keyboard.press('ArrowRight');
  await until((n) => window.swarmcast.viewer.stats.renders > n, r1, 'a render after the camera moved');
  t.diagnostic(`frames that arrived while paused and quiet: ${(await page.evaluate(() => window.__wire.frames.length)) - frames}`);
  await page.keyboard.press('f');
  await page.evaluate(() => window.swarmcast.send({ type: 'resume' }));
  await until(() => window.swarmcast.paused === false, null, 'the resume');
});

test('trails and perception radii draw when toggled', T, async () => {
  await page.keyboard.press('t');
  await page.evaluate(() => { window.swarmcast.viewer.options.radii = true; window.swarmcast.viewer.invalidate(); });
  await until(() => window.swarmcast.viewer.options.trails, null, 'trails on');
  await page.waitForTimeout(700);
  await page.screenshot({ path: path.join(artifacts, 'viewer-trails-radii.png') });
  await page.keyboard.press('t');
  await page.evaluate(() => { window.swarmcast.viewer.options.radii = false; });
});

test('the viewer logged no console error and threw no exception', () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
