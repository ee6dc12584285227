// Browser test of the viewer's panel, plots, capture, status line and phone
// layout: the real server, two desktop pages and a phone-sized one in
// headless Chromium (playwright-core, Debian's /usr/bin/chromium).
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/viewer-ui.test.mjs
// Screenshots of each state are left in tests/e2e/artifacts/ (ui-*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { startServer, sleep } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { connect } from '../lib/client.mjs';
import { METRICS } from '../../client-web/record/metrics_log.js';
import { SPECIES_COLORS } from '../../client-web/draw/palette.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
const T = { timeout: 60000 };
const WAIT_MS = 15000;

let server;
let browser;
let pageA;
let pageB;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  server = await startServer({ agents: 300, seed: 11 });
  browser = await launchChromium();
  pageA = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  pageB = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  for (const p of [pageA, pageB]) {
    await p.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
    await waitInPage(p, () => window.swarmcast?.connected && window.swarmcast.framesDrawn > 0, null, 'the page to connect', WAIT_MS);
  }
});

after(() => closeBrowserAndServer(browser, server));

const until = (page, fn, arg, what) => waitInPage(page, fn, arg, what, WAIT_MS);

// Pixels of a canvas within `tolerance` of an #rrggbb colour.
function countColour(page, selector, hex, tolerance = 40) {
  return page.evaluate(({ selector, hex, tolerance }) => {
    const c = document.querySelector(selector);
    if (!c) return -1;
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && Math.abs(d[i] - want[0]) + Math.abs(d[i + 1] - want[1]) + Math.abs(d[i + 2] - want[2]) <= tolerance) n++;
    }
    return n;
  }, { selector, hex, tolerance });
}

async function download(page, click) {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: WAIT_MS }), click()]);
  const file = await d.path();
  return { name: d.suggestedFilename(), bytes: readFileSync(file), file };
}

test('a parameter typed on page A moves page B\'s control; both show the readable label with the name second', T, async () => {
  const row = (p) => p.locator('#panel [data-param="w_sep"]');
  for (const p of [pageA, pageB]) {
    assert.equal(await row(p).locator('.param-label').textContent(), 'Separation weight');
    assert.equal(await row(p).locator('.param-code').textContent(), 'w_sep');
    assert.equal(await p.getByRole('slider', { name: 'Separation weight w_sep' }).count(), 1,
      'the slider is labelled for people and screen readers');
    assert.equal(await p.getByRole('spinbutton', { name: 'Separation weight (w_sep) value' }).count(), 1);
  }
  const field = row(pageA).locator('input[type=number]');
  await field.scrollIntoViewIfNeeded();
  await field.fill('2.75');
  await field.press('Enter');
  await until(pageB, () => document.querySelector('#panel [data-param="w_sep"] input[type=number]').value === '2.75',
    null, 'page B\'s w_sep field to show 2.75');
  assert.equal(await pageB.evaluate(() => window.swarmcast.params.w_sep), 2.75);
  await field.fill('1.5');
  await field.press('Enter');
  await until(pageB, () => document.querySelector('#panel [data-param="w_sep"] input[type=number]').value === '1.5',
    null, 'page B\'s w_sep back at 1.5');
});

test('"?" shows a control\'s help under it, with mouse or keyboard, without pausing; "? help" shows all', T, async () => {
  const page = pageA;
  const paused = await page.evaluate(() => window.swarmcast.paused);
  const toggle = page.getByRole('button', { name: 'help for Separation weight' });
  const help = page.locator('#help-w_sep');
  assert.equal(await help.isVisible(), false, 'help is hidden at first');
  await toggle.click();
  assert.equal(await help.isVisible(), true);
  assert.match(await help.textContent(), /^Separation weight\. Range 0 … 20\. Default 1\.5\.$/);
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await toggle.focus();
  await page.keyboard.press(' ');
  assert.equal(await help.isVisible(), false, 'space on the focused "?" closes it');
  await page.keyboard.press('Enter');
  assert.equal(await help.isVisible(), true, 'Enter opens it again');
  await sleep(300);
  assert.equal(await page.evaluate(() => window.swarmcast.paused), paused, 'space pressed the "?", not pause');
  await page.screenshot({ path: path.join(artifacts, 'ui-help-one.png') });

  await page.getByRole('button', { name: '? help' }).click();
  const shown = await page.evaluate(() => {
    const all = [...document.querySelectorAll('#panel .param-help')];
    return { all: all.length, shown: all.filter((h) => !h.hidden).length };
  });
  assert.ok(shown.all > 50, `${shown.all} help texts`);
  assert.equal(shown.shown, shown.all, 'every help text shown');
  await page.getByRole('button', { name: '? help' }).click();
  assert.equal(await help.isVisible(), false, 'and hidden again');
});

test('every metric is plotted: one small plot each, with its line drawn', T, async () => {
  const page = pageA;
  // A few seconds of metrics (4 a second by default).
  await until(page, () => document.querySelectorAll('#panel .plot canvas').length > 0
    && window.swarmcast.metrics !== null, null, 'the plots');
  await sleep(3000);
  const keys = await page.evaluate(() => [...document.querySelectorAll('#panel figure.plot')].map((f) => f.dataset.metric));
  assert.deepEqual(keys, METRICS.map((m) => m.key));
  const m = await page.evaluate(() => window.swarmcast.metrics);
  for (const [i, metric] of METRICS.entries()) {
    const sel = `#panel figure.plot[data-metric="${metric.key}"] canvas`;
    const ink = await countColour(page, sel, SPECIES_COLORS[i % SPECIES_COLORS.length]);
    // A metric without value (no obstacles: min_clearance is null) has no line.
    if (m[metric.key] === null) assert.ok(ink >= 0, `${metric.key}: a plot`);
    else assert.ok(ink > 15, `${metric.key}: its line is drawn (${ink} pixels of its colour)`);
  }
  const value = await page.locator('#panel figure.plot[data-metric="agents"] .plot-value').textContent();
  assert.equal(value, '300');
  await page.locator('#panel .section-metrics').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(artifacts, 'ui-plots.png') });
});

test('"Download CSV" gives a header and one row per metrics message', T, async () => {
  const { name, bytes } = await download(pageA, () => pageA.getByRole('button', { name: 'Download CSV' }).click());
  assert.match(name, /^swarmcast-metrics-.*\.csv$/);
  const lines = bytes.toString('utf8').split('\r\n').filter((l) => l !== '');
  assert.equal(lines[0], ['time', 'tick', ...METRICS.map((m) => m.key)].join(','));
  assert.ok(lines.length >= 5, `${lines.length - 1} rows`);
  const rows = lines.slice(1).map((l) => l.split(','));
  for (const r of rows) assert.equal(r.length, METRICS.length + 2);
  const ticks = rows.map((r) => Number(r[1]));
  assert.ok(ticks.every((t, i) => i === 0 || t >= ticks[i - 1]), 'ticks in order');
  assert.ok(rows.every((r) => r[2] === '300'), 'the agent count column');
  assert.ok(rows.every((r) => !Number.isNaN(Date.parse(r[0]))), 'times are dates');
});

// Opens the panel's "Screenshot and clip" section.
async function openCapture(page) {
  await page.evaluate(() => { document.querySelector('#panel .section-capture').open = true; });
  await page.locator('#panel .section-capture summary').scrollIntoViewIfNeeded();
}

test('the screenshot button saves a PNG of the view with the agents in it', T, async () => {
  const page = pageA;
  await openCapture(page);
  // A mark on the overlay (where targets, names and cursors go): the
  // screenshot must carry that layer too, not only the agents' canvas.
  await page.evaluate(() => {
    window.swarmcastTestMark = window.swarmcast.viewer.overlays.add((ctx) => {
      ctx.fillStyle = '#ff00ff';
      ctx.fillRect(20, 60, 30, 30);
    });
  });
  const { name, bytes } = await download(page, () => page.getByRole('button', { name: 'Screenshot' }).click());
  await page.evaluate(() => window.swarmcastTestMark());
  assert.match(name, /^swarmcast-.*\.png$/);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const box = await page.locator('#world').boundingBox();
  assert.equal(width, Math.round(box.width), 'as wide as the view');
  assert.equal(height, Math.round(box.height), 'as high as the view');
  // Agents (species 0's colour) are in the picture, not just a background.
  const count = (hex) => page.evaluate(async ({ b64, hex }) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - want[0]) + Math.abs(d[i + 1] - want[1]) + Math.abs(d[i + 2] - want[2]) < 40) n++;
    }
    return n;
  }, { b64: bytes.toString('base64'), hex });
  const agents = await count(SPECIES_COLORS[0]);
  assert.ok(agents > 300, `${agents} pixels of agents in the screenshot`);
  const mark = await count('#ff00ff');
  assert.ok(mark >= 30 * 30, `${mark} pixels of the overlay's mark in the screenshot`);
});

test('the clip recorder records the view to a WebM file between start and stop', T, async () => {
  const page = pageA;
  const clip = page.locator('#panel .btn-clip');
  if (await clip.isDisabled()) {
    assert.match(await clip.getAttribute('title'), /cannot record/);
    return; // this Chromium has no WebM recorder: the button says so
  }
  await openCapture(page);
  await clip.click();
  assert.equal(await clip.getAttribute('aria-pressed'), 'true');
  await until(page, () => /0:0[2-9]/.test(document.querySelector('#panel .btn-clip').textContent), null, 'two seconds of recording');
  const { name, bytes } = await download(page, () => clip.click());
  assert.match(name, /^swarmcast-.*\.webm$/);
  assert.deepEqual([...bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3], 'an EBML (WebM) header');
  assert.ok(bytes.length > 2000, `${bytes.length} bytes`);
  assert.equal(await clip.textContent(), 'Record clip');
});

test('step is disabled while running and says why; paused, it advances the world by one tick', T, async (t) => {
  const ctl = await connect(server.wsUrl);
  try {
    const probe = await ctl.request({ type: 'step' });
    if (probe.type === 'error' && probe.code === 'unknown_command') {
      t.skip('this server has no step command yet');
      return;
    }
    const page = pageA;
    const step = page.locator('#panel .btn-step');
    await until(page, () => window.swarmcast.paused === false, null, 'a running world');
    assert.equal(await step.isDisabled(), true);
    assert.match(await step.getAttribute('title'), /pause it first/);
    await page.locator('#panel .btn-pause').click();
    await until(page, () => window.swarmcast.paused === true && !document.querySelector('#panel .btn-step').disabled,
      null, 'pause, and step enabled');
    const before = await ctl.nextSnapshot((s) => s.paused, 'a paused snapshot');
    const again = await ctl.nextSnapshot((s) => s.paused, 'another paused snapshot');
    assert.equal(again.tick, before.tick, 'paused: the tick stands still');
    await step.click();
    const after = await ctl.nextSnapshot((s) => s.tick !== before.tick, 'the stepped snapshot');
    assert.equal(after.tick, before.tick + 1, 'one tick further');
    assert.equal(after.paused, true, 'still paused');
    await page.locator('#panel .btn-pause').click();
    await until(page, () => window.swarmcast.paused === false, null, 'running again');
  } finally {
    ctl.close();
  }
});

test('the agent count: reset with N agents and add agents, seen on both pages', T, async () => {
  const page = pageA;
  const agents = page.getByLabel('agents', { exact: true });
  await agents.fill('120');
  await page.locator('#panel .btn-reset').click();
  await until(pageB, () => window.swarmcast.agentCount === 120, null, 'page B to see 120 agents');
  // A reset costs the page's whole command budget (PROTOCOL.md, "Rate
  // limits"); adding agents waits for a little of it to come back.
  await sleep(600);
  const add = page.getByLabel('add', { exact: true });
  await add.fill('30');
  await page.getByRole('button', { name: 'add agents' }).click();
  await until(pageB, () => window.swarmcast.agentCount === 150, null, 'page B to see 150 agents');
  await until(page, () => document.getElementById('reset-agents').value === '150', null, 'the field to follow the world');
  assert.equal(await page.evaluate(() => window.swarmcast.lastError), null, 'no command refused');
});

test('the status line measures the stream; the live region speaks of changes, never of ticks', T, async () => {
  const page = pageB;
  // The page pings every 2 s; the pong gives the round trip.
  const rates = await until(page, () => {
    const t = document.querySelector('#status .status-rates').textContent;
    return /^\d+ ticks\/s · \d+ snapshots\/s · [\d.]+ kbit\/s in · rtt \d+ ms · \d+ fps$/.test(t) ? t : null;
  }, null, 'every figure in the status line');
  const r = await page.evaluate(() => window.swarmcast.rates);
  assert.ok(r.tickRate > 20 && r.tickRate < 100, `ticks/s ${r.tickRate} (60 nominal)`);
  assert.ok(r.snapshotRate > 5 && r.snapshotRate < 45, `snapshots/s ${r.snapshotRate} (30 nominal)`);
  assert.ok(r.kbitIn > 10, `kbit/s ${r.kbitIn}`);
  assert.ok(r.rttMs >= 0 && r.rttMs < 2000, `rtt ${r.rttMs}`);
  assert.ok(r.fps > 0, `fps ${r.fps}`);
  console.log(`# status line: ${rates}`);

  // Three seconds of a running world: ticks and rates change, the live region does not.
  const changes = await page.evaluate(() => new Promise((resolve) => {
    const region = document.getElementById('announcer');
    let n = 0;
    const obs = new MutationObserver((list) => { n += list.length; });
    obs.observe(region, { childList: true, characterData: true, subtree: true });
    setTimeout(() => { obs.disconnect(); resolve(n); }, 3000);
  }));
  assert.equal(changes, 0, 'nothing announced while only ticks move');
  assert.equal(await page.locator('#status').getAttribute('aria-live'), null, 'the busy status line is not live');

  const ctl = await connect(server.wsUrl);
  try {
    await ctl.command({ type: 'pause' });
    await until(page, () => /simulation paused/.test(document.getElementById('announcer').textContent), null,
      '"simulation paused" announced');
    await ctl.command({ type: 'resume' });
    await until(page, () => /simulation running/.test(document.getElementById('announcer').textContent), null,
      '"simulation running" announced');
  } finally {
    ctl.close();
  }
  // The desktop picture: a target set, the panel at its top (controls and plots).
  const box = await pageA.locator('#world').boundingBox();
  await pageA.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.4);
  await pageA.evaluate(() => {
    document.querySelector('#panel').scrollTop = 0;
    document.activeElement?.blur?.();
  });
  // Many hands in the picture: B's target and live cursor, named, in A.
  const at = (p, x, y) => p.evaluate(([wx, wy]) => {
    const r = document.getElementById('world').getBoundingClientRect();
    const q = window.swarmcast.viewer.camera.worldToScreen(wx, wy);
    return { x: r.left + q.x, y: r.top + q.y };
  }, [x, y]);
  const w = await pageB.evaluate(() => window.swarmcast.hello.world);
  const tb = await at(pageB, w.width * 0.3, w.height * 0.6);
  await pageB.mouse.click(tb.x, tb.y);
  const cb = await at(pageB, w.width * 0.45, w.height * 0.35);
  await pageB.mouse.move(cb.x - 40, cb.y - 20);
  await pageB.mouse.move(cb.x, cb.y, { steps: 4 });
  const bId = await pageB.evaluate(() => window.swarmcast.clientId);
  await until(pageA, (id) => window.swarmcast.presence.cursors.has(id) && window.swarmcast.targets.some((t) => t.client_id === id),
    bId, 'B\'s cursor and target at A');
  await sleep(1500);
  await pageA.screenshot({ path: path.join(artifacts, 'ui-desktop.png') });
});

test('on a phone (390×844, touch) the panel is a bottom sheet with 44 px targets, and a tap sets the target', T, async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(`phone: ${msg.text()}`); });
  page.on('pageerror', (err) => pageErrors.push(`phone: ${err}`));
  try {
    await page.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
    await until(page, () => window.swarmcast?.connected && window.swarmcast.framesDrawn > 0, null, 'the phone page to connect');
    assert.equal(await page.locator('#panel').isVisible(), false, 'the sheet starts closed');
    const world = await page.locator('#world').boundingBox();
    assert.deepEqual([world.width, world.height], [390, 844], 'the world\'s canvas fills the screen');
    assert.match(await page.locator('#hint').textContent(), /tap: set your target · long press: .*obstacle · pinch: zoom/);
    const handle = page.locator('#panel-toggle');
    const hb = await handle.boundingBox();
    assert.ok(hb.height >= 44 && hb.y + hb.height >= 843, `the handle sits at the bottom edge, 44 px tall: ${JSON.stringify(hb)}`);
    await page.screenshot({ path: path.join(artifacts, 'ui-phone.png') });

    // A tap on the world sets this page's target.
    const me = await page.evaluate(() => window.swarmcast.clientId);
    await page.touchscreen.tap(world.x + world.width * 0.5, world.y + world.height * 0.5);
    const target = await until(page, (id) => window.swarmcast.targets.find((t) => t.client_id === id) ?? null, me, 'the tapped target');
    const w = await page.evaluate(() => window.swarmcast.hello.world);
    assert.ok(target.x >= 0 && target.x <= w.width && target.y >= 0 && target.y <= w.height, JSON.stringify(target));

    await handle.tap();
    await until(page, () => !document.getElementById('panel').hidden, null, 'the sheet to open');
    await sleep(300);
    const sheet = await page.locator('#panel').boundingBox();
    assert.ok(Math.abs(sheet.y + sheet.height - 844) <= 1 && sheet.width === 390, `a sheet along the bottom: ${JSON.stringify(sheet)}`);
    assert.ok(sheet.y > 300, 'the sheet leaves the upper part of the screen');
    const above = await page.locator('#world').boundingBox();
    assert.ok(above.y + above.height <= sheet.y + 1 && above.height > 300,
      `the world moved above the sheet, still in sight: ${JSON.stringify(above)}`);
    // A tap there still sets the target (the mapping follows the smaller canvas).
    const me2 = await page.evaluate(() => window.swarmcast.clientId);
    const before = await page.evaluate((id) => window.swarmcast.targets.find((t) => t.client_id === id), me2);
    await page.touchscreen.tap(above.x + above.width * 0.25, above.y + above.height * 0.5);
    await until(page, ({ id, x }) => {
      const t = window.swarmcast.targets.find((q) => q.client_id === id);
      return t && t.x < x - 50;
    }, { id: me2, x: before.x }, 'the target to move left with the tap above the sheet');
    // Every control in view is a 44 px touch target.
    const small = await page.evaluate(() => {
      const panel = document.getElementById('panel').getBoundingClientRect();
      const controls = [...document.querySelectorAll('#panel button, #panel input, #panel select, #panel [role="button"]')];
      return controls.filter((c) => {
        const b = c.getBoundingClientRect();
        if (b.width === 0 || b.bottom < panel.top || b.top > panel.bottom) return false; // hidden or scrolled away
        if (c.type === 'range') return b.height < 44;
        return b.height < 44 || (c.getAttribute('role') === 'button' && b.width < 44);
      }).map((c) => `${c.className || c.name} ${Math.round(c.getBoundingClientRect().height)}px`);
    });
    assert.deepEqual(small, [], 'controls smaller than 44 px');
    await page.screenshot({ path: path.join(artifacts, 'ui-phone-sheet.png') });
    await page.locator('#panel .panel-collapse').tap();
    await until(page, () => document.getElementById('panel').hidden, null, 'the sheet to close');
  } finally {
    await context.close();
  }
});

test('no page logged a console error or threw', T, async () => {
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
  // The README's and docs/USING.md's pictures, from this run (docs/viewer-*.png are refreshed by hand: SWARMCAST_DOCS_SHOTS=1).
  if (process.env.SWARMCAST_DOCS_SHOTS === '1') {
    copyFileSync(path.join(artifacts, 'ui-desktop.png'), path.join(here, '../../docs/viewer-desktop.png'));
    copyFileSync(path.join(artifacts, 'ui-phone-sheet.png'), path.join(here, '../../docs/viewer-phone.png'));
  }
});
