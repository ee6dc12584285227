// Browser test: the real server, the real page, headless Chromium through
// playwright-core (no browser download: it drives /usr/bin/chromium).
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/
// A screenshot for humans is left in tests/e2e/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

import { startServer, withTimeout } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { MARGIN_PX } from '../../client-web/viewport.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
const CHROMIUM = process.env.SWARMCAST_CHROMIUM || '/usr/bin/chromium';
const T = { timeout: 30000 };
const WAIT_MS = 10000;

let server;
let browser;
let page;
let world; // { width, height } from hello
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  server = await startServer({ agents: 300, seed: 7 });
  browser = await withTimeout(chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  }), 20000, 'Chromium to start');
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${JSON.stringify(msg.location())})`);
  });
  page.on('pageerror', (err) => pageErrors.push(String(err?.stack || err)));
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
});

after(async () => {
  try {
    if (browser) await withTimeout(browser.close(), 10000, 'Chromium to close');
  } finally {
    if (server) await server.stop();
  }
});

/** The letterboxed mapping of the page: whole world visible, centred, MARGIN_PX kept free. */
function fit(cssW, cssH, ww, wh) {
  const scale = Math.min((cssW - 2 * MARGIN_PX) / ww, (cssH - 2 * MARGIN_PX) / wh);
  return { scale, offsetX: (cssW - ww * scale) / 2, offsetY: (cssH - wh * scale) / 2 };
}

async function canvasBox() {
  const box = await page.locator('#world').boundingBox();
  assert.ok(box && box.width > 100 && box.height > 100, `the canvas has a size: ${JSON.stringify(box)}`);
  return box;
}

test('the page connects, receives hello and snapshots and draws frames', T, async () => {
  await page.waitForFunction(() => window.swarmcast?.connected === true && window.swarmcast.framesDrawn > 0,
    null, { timeout: WAIT_MS });
  const state = await page.evaluate(() => ({
    bodyState: document.body.dataset.state,
    clientId: window.swarmcast.clientId,
    hello: window.swarmcast.hello,
    tick: window.swarmcast.tick,
    agentCount: window.swarmcast.agentCount,
    snapshots: window.swarmcast.snapshots,
  }));
  assert.equal(state.bodyState, 'connected');
  assert.ok(Number.isInteger(state.clientId), `clientId ${state.clientId}`);
  assert.equal(state.hello.type, 'hello');
  assert.equal(state.hello.client_id, state.clientId);
  assert.equal(state.agentCount, 300);
  assert.ok(state.snapshots > 0);
  world = state.hello.world;
  // ticks advance in the page as well
  await page.waitForFunction((t) => window.swarmcast.tick > t, state.tick, { timeout: WAIT_MS });
});

test('the agents are really drawn on the canvas where the snapshot puts them', T, async (t) => {
  assert.ok(world, 'the page connected');
  // Freeze the world from a second (Node) client, so the page and the test
  // look at the same positions.
  const ctl = await connect(server.wsUrl);
  try {
    await ctl.command({ type: 'pause' });
    await ctl.nextSnapshot((q) => q.paused, 'a paused snapshot');
    const s = await ctl.nextSnapshot(() => true, 'the frozen world');
    await page.waitForFunction((tick) => window.swarmcast.paused === true && window.swarmcast.tick === tick,
      s.tick, { timeout: WAIT_MS });
    const framesBefore = await page.evaluate(() => window.swarmcast.framesDrawn);
    await page.waitForFunction((n) => window.swarmcast.framesDrawn > n, framesBefore, { timeout: WAIT_MS });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

    const box = await canvasBox();
    const v = fit(box.width, box.height, s.world_width, s.world_height);
    const agents = Array.from({ length: s.agents.count }, (_, i) => [
      v.offsetX + s.agents.x[i] * v.scale, v.offsetY + s.agents.y[i] * v.scale]);
    const worldRect = [v.offsetX, v.offsetY, s.world_width * v.scale, s.world_height * v.scale];

    const r = await page.evaluate(({ agents, worldRect }) => {
      const canvas = document.getElementById('world');
      const rect = canvas.getBoundingClientRect();
      const kx = canvas.width / rect.width;
      const ky = canvas.height / rect.height;
      const ctx = canvas.getContext('2d');
      const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      const px = (cx, cy) => {
        const X = Math.floor(cx * kx);
        const Y = Math.floor(cy * ky);
        if (X < 0 || Y < 0 || X >= canvas.width || Y >= canvas.height) return null;
        const o = (Y * canvas.width + X) * 4;
        return [img[o], img[o + 1], img[o + 2]];
      };
      // the world's colour: the commonest one inside the world rectangle
      const [wx, wy, ww, wh] = worldRect;
      const counts = new Map();
      for (let y = wy + 2; y < wy + wh - 2; y += 3) {
        for (let x = wx + 2; x < wx + ww - 2; x += 3) {
          const p = px(x, y);
          const key = p.join(',');
          counts.set(key, (counts.get(key) || 0) + 1);
        }
      }
      const bgKey = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
      const bg = bgKey.split(',').map(Number);
      const differs = (p) => p && Math.abs(p[0] - bg[0]) + Math.abs(p[1] - bg[1]) + Math.abs(p[2] - bg[2]) > 30;
      let differing = 0;
      let sampled = 0;
      for (let y = wy + 2; y < wy + wh - 2; y += 1) {
        for (let x = wx + 2; x < wx + ww - 2; x += 1) {
          sampled++;
          if (differs(px(x, y))) differing++;
        }
      }
      // every agent: something drawn within 3 CSS px of its position
      let hits = 0;
      for (const [ax, ay] of agents) {
        let hit = false;
        for (let dy = -3; dy <= 3 && !hit; dy++) {
          for (let dx = -3; dx <= 3 && !hit; dx++) {
            if (dx * dx + dy * dy <= 9 && differs(px(ax + dx, ay + dy))) hit = true;
          }
        }
        if (hit) hits++;
      }
      // control: points far from every agent show the world's colour
      let control = 0;
      let controlBg = 0;
      for (let y = wy + 25; y < wy + wh - 25; y += 37) {
        for (let x = wx + 25; x < wx + ww - 25; x += 41) {
          if (agents.some(([ax, ay]) => (ax - x) ** 2 + (ay - y) ** 2 < 400)) continue;
          control++;
          if (!differs(px(x, y))) controlBg++;
        }
      }
      return { bg, differing, sampled, hits, control, controlBg, canvas: [canvas.width, canvas.height] };
    }, { agents, worldRect });

    const msg = JSON.stringify(r);
    t.diagnostic(`canvas check: ${msg}`);
    assert.ok(r.differing >= 300, `at least 300 pixels differ from the world's colour: ${msg}`);
    assert.ok(r.differing < r.sampled / 2, `the world is mostly background: ${msg}`);
    assert.ok(r.hits >= 0.9 * agents.length, `an agent is drawn at (almost) every agent position: ${r.hits} of ${agents.length}: ${msg}`);
    assert.ok(r.control >= 20, `enough control points: ${msg}`);
    assert.ok(r.controlBg >= 0.9 * r.control, `away from the agents the world is empty: ${msg}`);
  } finally {
    await ctl.command({ type: 'resume' }).catch(() => {});
    ctl.close();
  }
});

test('a click on the canvas sets this client\'s target at the clicked world point', T, async () => {
  assert.ok(world, 'the page connected');
  const box = await canvasBox();
  const v = fit(box.width, box.height, world.width, world.height);
  // a point off the centre, so the letterbox offsets matter
  const wantX = world.width * 0.3;
  const wantY = world.height * 0.65;
  const cx = v.offsetX + wantX * v.scale;
  const cy = v.offsetY + wantY * v.scale;
  await page.mouse.click(box.x + cx, box.y + cy);
  await page.waitForFunction(() => window.swarmcast.lastAck?.cmd === 'set_target', null, { timeout: WAIT_MS });
  const handle = await page.waitForFunction(
    () => window.swarmcast.targets.find((t) => t.client_id === window.swarmcast.clientId) ?? null,
    null, { timeout: WAIT_MS });
  const t = await handle.jsonValue();
  const tol = 3; // world units (a CSS pixel is 1 / scale ≈ 1.3 u here)
  assert.ok(Math.abs(t.x - wantX) <= tol && Math.abs(t.y - wantY) <= tol,
    `target at (${t.x}, ${t.y}); clicked world point (${wantX}, ${wantY}) ± ${tol}`);
  assert.equal(await page.evaluate(() => window.swarmcast.lastError), null, 'no error from the server');

  // other clients see it too
  const ctl = await connect(server.wsUrl);
  try {
    const clientId = await page.evaluate(() => window.swarmcast.clientId);
    const s = await ctl.nextSnapshot((q) => q.targets.some((x) => x.client_id === clientId), 'the page\'s target');
    const mine = s.targets.find((x) => x.client_id === clientId);
    assert.ok(Math.abs(mine.x - wantX) <= tol && Math.abs(mine.y - wantY) <= tol);
  } finally {
    ctl.close();
  }

  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'browser.png') });
});

test('the page logged no console error and threw no exception', T, async () => {
  // let a few more snapshots arrive first
  const n = await page.evaluate(() => window.swarmcast.snapshots);
  await page.waitForFunction((k) => window.swarmcast.snapshots > k + 5, n, { timeout: WAIT_MS });
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
  assert.equal(await page.evaluate(() => window.swarmcast.decodeErrors ?? 0), 0, 'every snapshot decoded');
});
