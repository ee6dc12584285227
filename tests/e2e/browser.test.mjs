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

import { startServer, sleep } from '../lib/server.mjs';
import { launchChromium, newPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { connect } from '../lib/client.mjs';
import { MARGIN_PX } from '../../client-web/view/viewport.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
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
  browser = await launchChromium();
  page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
});

after(() => closeBrowserAndServer(browser, server));

/** The letterboxed mapping of the page: whole world visible, centred, MARGIN_PX kept free. */
function fit(cssW, cssH, ww, wh) {
  const scale = Math.min((cssW - 2 * MARGIN_PX) / ww, (cssH - 2 * MARGIN_PX) / wh);
  return { scale, offsetX: (cssW - ww * scale) / 2, offsetY: (cssH - wh * scale) / 2 };
}

// Opens the panel section holding a parameter's control (only the current
// model's is open at first).
function openGroupOf(name) {
  return page.evaluate((n) => {
    document.querySelector(`#panel [data-param="${n}"]`).closest('details').open = true;
  }, name);
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
    // The viewer interpolates a little behind the newest frame, and a paused
    // world is not redrawn: wait until the paused frame is what it shows.
    await page.waitForFunction(() => window.swarmcast.viewer.settled(), null, { timeout: WAIT_MS });

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
      // The picture as shown (WebGL canvas and overlay), copied in the
      // task that draws it (viewer.js's capture()).
      const shot = window.swarmcast.viewer.capture();
      const img = shot.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
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

/** Waits until every condition of the page-side predicate holds; returns its value. */
async function until(fn, arg, what) {
  try {
    const h = await page.waitForFunction(fn, arg, { timeout: WAIT_MS });
    return await h.jsonValue();
  } catch (e) {
    throw new Error(`timed out waiting for ${what}: ${e.message.split('\n')[0]}`);
  }
}

const close = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

test('the control panel lists every parameter of hello, with a control of the right kind', T, async () => {
  const hello = await page.evaluate(() => window.swarmcast.hello);
  assert.ok(Array.isArray(hello.params) && hello.params.length > 10, 'hello has params');
  assert.equal(await page.locator('#panel').isVisible(), true, 'the panel is open at 1280x720');
  const rows = await page.evaluate(() => [...document.querySelectorAll('#panel [data-param]')].map((r) => ({
    name: r.dataset.param,
    title: r.title,
    range: r.querySelector('input[type=range]') !== null,
    number: r.querySelector('input[type=number]')?.value ?? null,
    select: r.querySelector('select') ? [...r.querySelector('select').options].map((o) => o.value) : null,
    selectValue: r.querySelector('select')?.value ?? null,
    checkbox: r.querySelector('input[type=checkbox]') !== null,
  })));
  const byName = new Map(rows.map((r) => [r.name, r]));
  for (const p of hello.params) {
    if (p.name === 'model') continue;
    const r = byName.get(p.name);
    assert.ok(r, `the panel has a row for ${p.name}`);
    if (p.help) assert.ok(r.title.toLowerCase().includes(p.help.toLowerCase()), `${p.name}: the help is its tooltip`);
    if (p.type === 'float' || p.type === 'int') {
      assert.ok(r.range, `${p.name}: a slider`);
      assert.ok(close(Number(r.number), p.value), `${p.name}: shows ${p.value}, got ${r.number}`);
    } else if (p.type === 'enum') {
      assert.deepEqual(r.select, p.values, `${p.name}: a select of its values`);
      assert.equal(r.selectValue, p.value);
    } else if (p.type === 'bool') {
      assert.ok(r.checkbox, `${p.name}: a checkbox`);
    }
  }
  assert.equal(rows.length, hello.params.filter((p) => p.name !== 'model').length, 'one row per parameter');
  const model = hello.params.find((p) => p.name === 'model');
  if (model) {
    const m = await page.evaluate(() => {
      const s = document.querySelector('#panel .model-select');
      return { options: [...s.options].map((o) => o.value), value: s.value };
    });
    assert.deepEqual(m.options, model.values, 'the model selector offers every model');
    assert.equal(m.value, model.value);
  }
  // The groups: the current model's open, the others collapsed.
  const groups = await page.evaluate(() => [...document.querySelectorAll('#panel details[data-group]')]
    .map((d) => ({ key: d.dataset.group, open: d.open })));
  assert.ok(groups.length >= 1);
  assert.equal(groups.filter((g) => g.open).length, 1, `one group open: ${JSON.stringify(groups)}`);
});

test('without a control token the page is the operator: no token form, every control enabled', T, async () => {
  const r = await page.evaluate(() => ({
    role: window.swarmcast.role,
    controlToken: window.swarmcast.controlToken,
    roleName: document.querySelector('#panel .role-name').textContent,
    formShown: !document.querySelector('#panel .token-form').hidden,
    lockShown: !document.querySelector('#panel .btn-lock').hidden,
    // Step is disabled for another reason: the world is running.
    disabled: [...document.querySelectorAll('#panel input, #panel select, #panel button')]
      .filter((c) => c.matches(':disabled') && !c.matches('.btn-step')).map((c) => c.name || c.className),
    described: [...document.querySelectorAll('#panel [aria-describedby]')]
      .filter((c) => c.getAttribute('aria-describedby').split(' ').includes('role-note')).length,
    status: document.querySelector('#status .status-line').textContent,
    hint: document.getElementById('hint').textContent,
  }));
  assert.equal(r.role, 'operator');
  assert.equal(r.controlToken, false);
  assert.equal(r.roleName, 'operator');
  assert.equal(r.formShown, false, 'no token form');
  assert.equal(r.lockShown, false, 'nothing to lock');
  assert.deepEqual(r.disabled, [], 'no control disabled');
  assert.equal(r.described, 0, 'no control described as locked');
  assert.match(r.status, /· operator ·/);
  assert.match(r.hint, /space: pause/);
});

test('dragging a slider sends throttled set_param; the server acks it and others get the `param`', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    const me = await page.evaluate(() => window.swarmcast.clientId);
    await openGroupOf('max_speed');
    const row = page.locator('#panel [data-param="max_speed"]');
    await row.scrollIntoViewIfNeeded();
    const slider = row.locator('input[type=range]');
    const box = await slider.boundingBox();
    assert.ok(box, 'the max_speed slider is visible');
    const y = box.y + box.height / 2;
    const mark = ctl.mark();
    const t0 = Date.now();
    await page.mouse.move(box.x + box.width * 0.5, y);
    await page.mouse.down();
    for (let i = 1; i <= 24; i++) {
      await page.mouse.move(box.x + box.width * (0.5 + i * 0.01), y);
      await sleep(20);
    }
    await page.mouse.up();
    const dragMs = Date.now() - t0;
    const shown = Number(await row.locator('input[type=number]').inputValue());
    assert.ok(shown > 150 && shown <= 1000, `the slider moved max_speed up from 150: ${shown}`);
    const ack = await until((v) => {
      const a = window.swarmcast.lastAck;
      return a && a.cmd === 'set_param' && a.name === 'max_speed' && Math.abs(a.value - v) < 1e-6 * v ? a : null;
    }, shown, `the ack of max_speed = ${shown}`);
    assert.equal(ack.name, 'max_speed');
    const bc = await ctl.waitText((m) => m.type === 'param' && m.name === 'max_speed' && close(m.value, shown),
      `the param broadcast of max_speed = ${shown}`, { after: mark });
    assert.equal(bc.by, me, 'broadcast names the page as the changer');
    // Throttled: about one set_param per 100 ms of dragging, not one per mouse move.
    await sleep(150);
    const sent = ctl.textsSince(mark).filter((m) => m.type === 'param' && m.name === 'max_speed' && m.by === me);
    assert.ok(sent.length >= 2 && sent.length <= Math.ceil(dragMs / 100) + 2,
      `${sent.length} set_param during a ${dragMs} ms drag of 24 moves`);
    assert.ok(close(sent.at(-1).value, shown), 'the last value sent is the one on release');
    assert.ok(close(await page.evaluate(() => window.swarmcast.params.max_speed), shown));
    assert.equal(await page.evaluate(() => window.swarmcast.lastError), null, 'no error from the server');
  } finally {
    ctl.close();
  }
});

test('another client\'s change moves the control without an echo; a refused one shows in the status line', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    const me = await page.evaluate(() => window.swarmcast.clientId);
    const mark = ctl.mark();
    await ctl.command({ type: 'set_param', name: 'w_sep', value: 3.25 });
    await until(() => document.querySelector('#panel [data-param="w_sep"] input[type=number]').value === '3.25',
      null, 'the w_sep field to show 3.25');
    await sleep(300);
    const echoes = ctl.textsSince(mark).filter((m) => m.type === 'param' && m.by === me);
    assert.deepEqual(echoes, [], 'the page sent nothing back');

    // Typing into the panel: keys are not shortcuts, and an out-of-range
    // value is refused by the server, shown, and the field reverts.
    await openGroupOf('max_force');
    const field = page.locator('#panel [data-param="max_force"] input[type=number]');
    await field.scrollIntoViewIfNeeded();
    const before = await page.evaluate(() => ({ n: window.swarmcast.agentCount, paused: window.swarmcast.paused }));
    await field.fill('');
    await field.press('a');
    await field.press(' ');
    await field.pressSequentially('99999');
    await field.press('Enter');
    const err = await until(() => window.swarmcast.lastError, null, 'the out_of_range error');
    assert.equal(err.code, 'out_of_range');
    assert.equal(err.cmd, 'set_param');
    await until(() => /out_of_range/.test(document.querySelector('#status .status-error').textContent),
      null, 'the error in the status line');
    await until(() => document.querySelector('#panel [data-param="max_force"] input[type=number]').value === '300',
      null, 'max_force to revert to 300');
    const after = await page.evaluate(() => ({ n: window.swarmcast.agentCount, paused: window.swarmcast.paused }));
    assert.deepEqual(after, before, 'typing "a" and space in the panel neither added agents nor paused');
  } finally {
    ctl.close();
  }
});

test('the model selector sends set_model; new clients get that model in hello', T, async () => {
  const watcher = await connect(server.wsUrl);
  const mark = watcher.mark();
  await page.locator('#panel .model-select').selectOption('unicycle');
  const ack = await until(() => {
    const a = window.swarmcast.lastAck;
    return a && a.cmd === 'set_model' ? a : null;
  }, null, 'the set_model ack');
  assert.equal(ack.model, 'unicycle');
  try {
    await watcher.waitText((m) => m.type === 'param' && m.name === 'model' && m.value === 'unicycle',
      'the model `param` broadcast', { after: mark });
  } finally {
    watcher.close();
  }
  const fresh = await connect(server.wsUrl);
  try {
    assert.equal(fresh.hello.params.find((p) => p.name === 'model').value, 'unicycle');
  } finally {
    fresh.close();
  }
  const open = await page.evaluate(() => [...document.querySelectorAll('#panel details[data-group]')]
    .filter((d) => d.open).map((d) => d.dataset.group));
  assert.deepEqual(open, ['uni'], 'the unicycle group is the open one');
  // A model change by someone else (as set_param, which is broadcast) shows too.
  const ctl = await connect(server.wsUrl);
  try {
    await ctl.command({ type: 'set_param', name: 'model', value: 'reynolds' });
    await until(() => document.querySelector('#panel .model-select').value === 'reynolds', null, 'the selector to follow');
  } finally {
    ctl.close();
  }
});

test('with several species the panel edits one species (set_param with species) and the legend counts them', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    const hasSpecies = ctl.hello.params.some((p) => p.name === 'species');
    if (!hasSpecies) return; // an older server: nothing to test
    await ctl.command({ type: 'set_param', name: 'species', value: 3 });
    await ctl.command({ type: 'set_param', name: 'predators', value: 2 }).catch(() => {});
    await until(() => !document.querySelector('#panel .species-row').hidden, null, 'the species selector');
    await page.locator('#panel .species-select').selectOption('1');
    const field = page.locator('#panel [data-param="w_coh"] input[type=number]');
    await field.scrollIntoViewIfNeeded();
    const mark = ctl.mark();
    await field.fill('2.5');
    await field.press('Enter');
    const bc = await ctl.waitText((m) => m.type === 'param' && m.name === 'w_coh', 'the w_coh broadcast', { after: mark });
    assert.equal(bc.species, 1, 'sent for species 1 only');
    assert.equal(bc.value, 2.5);
    // A world-only parameter (hello's world_only) is the world's: sent without species.
    if (ctl.hello.params.find((p) => p.name === 'steer_every')?.world_only) {
      await page.evaluate(() => { document.querySelector('#panel details[data-group="perception"]').open = true; });
      const every = page.locator('#panel [data-param="steer_every"] input[type=number]');
      await every.scrollIntoViewIfNeeded();
      const before = ctl.mark();
      await every.fill('2');
      await every.press('Enter');
      const sb = await ctl.waitText((m) => m.type === 'param' && m.name === 'steer_every', 'the steer_every broadcast', { after: before });
      assert.equal(sb.species, undefined, 'steer_every sent for the world, not species 1');
      assert.equal(sb.value, 2);
    }
    await page.locator('#panel .species-select').selectOption('all');
    await until(() => document.querySelector('#panel [data-param="w_coh"]').classList.contains('is-mixed'),
      null, 'w_coh marked as differing between species');
    assert.notEqual(await page.evaluate(() => window.swarmcast.params.w_coh), 2.5, 'the world value is species 0\'s');
    const legend = await until(() => {
      const t = document.querySelector('#panel .legend').textContent;
      return /species 2/.test(t) ? t : null;
    }, null, 'the legend with three species');
    assert.match(legend, /species 0 \d+/);
  } finally {
    await ctl.command({ type: 'set_param', name: 'w_coh', value: 1 }).catch(() => {});
    await ctl.command({ type: 'set_param', name: 'steer_every', value: 1 }).catch(() => {});
    await ctl.command({ type: 'set_param', name: 'predators', value: 0 }).catch(() => {});
    await ctl.command({ type: 'set_param', name: 'species', value: 1 }).catch(() => {});
    ctl.close();
  }
});

test('an obstacle dragged with the left button moves; shift+right click adds a moving one', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    const box = await canvasBox();
    const v = fit(box.width, box.height, world.width, world.height);
    const at = (x, y) => [box.x + v.offsetX + x * v.scale, box.y + v.offsetY + y * v.scale];
    const { obstacle_id: id } = await ctl.command({ type: 'add_obstacle', x: 400, y: 300, radius: 40 });
    await until((oid) => window.swarmcast.obstacles?.some((o) => o.id === oid), id, 'the obstacle in the page');
    const myTarget = await page.evaluate(() => window.swarmcast.targets.find((t) => t.client_id === window.swarmcast.clientId) ?? null);
    const [sx, sy] = at(400, 300);
    const [ex, ey] = at(600, 450);
    await page.mouse.move(sx, sy);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(sx + ((ex - sx) * i) / 10, sy + ((ey - sy) * i) / 10);
      await sleep(15);
    }
    await page.mouse.up();
    const s = await ctl.nextSnapshot((q) => q.obstacles.some((o) => o.id === id && Math.hypot(o.x - 600, o.y - 450) < 3),
      'the obstacle at (600, 450)');
    assert.ok(s);
    await sleep(100);
    const t = await page.evaluate(() => window.swarmcast.targets.find((x) => x.client_id === window.swarmcast.clientId) ?? null);
    assert.deepEqual(t, myTarget, 'the drag did not move the target');

    // shift + right click: a moving obstacle
    const [mx, my] = at(1100, 600);
    await page.keyboard.down('Shift');
    await page.mouse.click(mx, my, { button: 'right' });
    await page.keyboard.up('Shift');
    const ack = await until(() => {
      const a = window.swarmcast.lastAck;
      return a && a.cmd === 'add_obstacle' ? a : null;
    }, null, 'the add_obstacle ack');
    const a = await ctl.nextSnapshot((q) => q.obstacles.some((o) => o.id === ack.obstacle_id), 'the moving obstacle');
    await sleep(300);
    const b = await ctl.nextSnapshot((q) => q.obstacles.some((o) => o.id === ack.obstacle_id), 'the moving obstacle later');
    const o1 = a.obstacles.find((o) => o.id === ack.obstacle_id);
    const o2 = b.obstacles.find((o) => o.id === ack.obstacle_id);
    const dt = (b.tick - a.tick) / 60;
    const speed = Math.hypot(o2.x - o1.x, o2.y - o1.y) / dt;
    assert.ok(b.paused || (speed > 40 && speed < 80), `it moves at about 60 u/s: ${speed.toFixed(1)} u/s`);
    await ctl.command({ type: 'remove_obstacle', obstacle_id: ack.obstacle_id });
    await ctl.command({ type: 'remove_obstacle', obstacle_id: id });
  } finally {
    ctl.close();
  }
});

test('the panel collapses to a button, remembers it across a reload, and opens again', T, async () => {
  await page.locator('#panel .panel-collapse').click();
  await until(() => document.getElementById('world').clientWidth === window.innerWidth, null, 'the canvas to take the whole width');
  assert.equal(await page.locator('#panel').isVisible(), false);
  assert.equal(await page.evaluate(() => localStorage.getItem('swarmcast.panel.open')), '0');
  await page.reload({ waitUntil: 'load' });
  await until(() => window.swarmcast?.connected && window.swarmcast.framesDrawn > 0, null, 'the reloaded page');
  assert.equal(await page.locator('#panel').isVisible(), false, 'still collapsed after a reload');
  await page.locator('#panel-toggle').click();
  await until(() => document.getElementById('world').clientWidth < window.innerWidth - 200, null, 'the panel beside the canvas');
  assert.equal(await page.evaluate(() => localStorage.getItem('swarmcast.panel.open')), '1');
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'panel.png') });
});

test('the page logged no console error and threw no exception', T, async () => {
  // let a few more snapshots arrive first
  const n = await page.evaluate(() => window.swarmcast.snapshots);
  await page.waitForFunction((k) => window.swarmcast.snapshots > k + 5, n, { timeout: WAIT_MS });
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
  assert.equal(await page.evaluate(() => window.swarmcast.decodeErrors ?? 0), 0, 'every snapshot decoded');
});
