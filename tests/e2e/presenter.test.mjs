// The presenter's screen and the phone that joins from it (issue 20), in
// real Chromium: ?present shows a QR code (decoded here from a screenshot
// with jsQR) and the short join address; a phone (390x844, touch) opened
// at the decoded address starts with the flock filling its screen, steers
// with a tap and shows up on the presenter's screen (its target, the count
// of people); key P and the panel's button switch the screen; ?embed in an
// <iframe> loads for an origin --allow-frame names and is refused for
// another. Screenshots go to tests/e2e/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import jsQR from 'jsqr';

import { startServer, withTimeout } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
const T = { timeout: 60000 };
const WAIT_MS = 20000;

let server;
let browser;
let presenter;
const consoleErrors = [];
const pageErrors = [];
// Two parent sites on other loopback ports (other origins): one allowed to
// frame the page, one not.
const parents = [];

// A tiny site whose only page frames the swarmcast page at src.
function startParent() {
  const site = { src: null };
  site.server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>parent</title><h1>a blog post</h1>
<iframe id="flock" src="${site.src}" width="800" height="450"></iframe>`);
  });
  return withTimeout(new Promise((resolve, reject) => {
    site.server.once('error', reject);
    site.server.listen(0, '127.0.0.1', () => {
      site.origin = `http://127.0.0.1:${site.server.address().port}`;
      parents.push(site);
      resolve(site);
    });
  }), 5000, 'a parent site to listen');
}

let allowedParent;
let otherParent;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  allowedParent = await startParent();
  otherParent = await startParent();
  server = await startServer({ agents: 600, seed: 11, args: ['--allow-frame', allowedParent.origin] });
  allowedParent.src = otherParent.src = `${server.httpUrl}/?embed`;
  browser = await launchChromium();
  presenter = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await presenter.goto(server.httpUrl + '/?present', { waitUntil: 'load' });
  await waitInPage(presenter, () => window.swarmcast?.snapshots > 0, null, 'the presenter\'s first snapshot', WAIT_MS);
});

after(async () => {
  for (const p of parents) p.server.close();
  await closeBrowserAndServer(browser, server);
});

// The QR code as shown: a screenshot of the corner's canvas, turned into
// RGBA pixels by a blank page (an <img> of the PNG on a canvas), read by jsQR.
async function decodeShownQr(page) {
  const png = await page.locator('.presenter-qr').screenshot();
  const reader = await browser.newPage();
  try {
    const { data, width, height } = await reader.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const px = g.getImageData(0, 0, c.width, c.height);
      return { data: Array.from(px.data), width: c.width, height: c.height };
    }, png.toString('base64'));
    const read = jsQR(Uint8ClampedArray.from(data), width, height);
    assert.ok(read, 'jsQR finds a QR code in the screenshot');
    return read.data;
  } finally {
    await reader.close();
  }
}

let joinUrl;

test('?present: the world fills the screen, the panel is hidden, the corner shows a QR code of the join address', T, async () => {
  await waitInPage(presenter, () => window.swarmcast.presenter?.qrDrawn, null, 'the QR code drawn', WAIT_MS);
  const shown = await presenter.evaluate(() => {
    const world = document.getElementById('world').getBoundingClientRect();
    return {
      presenting: document.body.classList.contains('presenting'),
      panelHidden: document.getElementById('panel').hidden,
      toggleHidden: document.getElementById('panel-toggle').hidden,
      hintShown: getComputedStyle(document.getElementById('hint')).display !== 'none',
      cornerShown: !document.getElementById('presenter').hidden,
      url: document.querySelector('.presenter-url').textContent,
      count: document.querySelector('.presenter-count').textContent,
      keys: document.querySelector('.presenter-keys').textContent,
      worldW: world.width,
      worldH: world.height,
      joinUrl: window.swarmcast.presenter.joinUrl,
    };
  });
  assert.equal(shown.presenting, true);
  assert.equal(shown.panelHidden, true, 'no panel');
  assert.equal(shown.toggleHidden, true, 'no panel toggle');
  assert.equal(shown.hintShown, false, 'no hint line');
  assert.equal(shown.cornerShown, true);
  assert.equal(shown.worldW, 1280, 'the world\'s canvas is the whole width');
  assert.equal(shown.worldH, 720);
  assert.equal(shown.joinUrl, server.httpUrl + '/', 'the page\'s own origin, without ?present');
  assert.equal(shown.url, server.httpUrl.replace('http://', ''), 'the short address');
  assert.match(shown.count, /^1 person here$/);
  assert.match(shown.keys, /P/, 'the corner says which key brings the controls');
  await presenter.screenshot({ path: path.join(artifacts, 'presenter.png') });
  joinUrl = await decodeShownQr(presenter);
  assert.equal(joinUrl, server.httpUrl + '/', 'the QR code encodes the join address');
});

test('a phone opened at the QR code\'s address starts with the flock filling its screen, steers with a tap, and shows on the presenter\'s screen', T, async () => {
  assert.ok(joinUrl, 'the previous test decoded the address');
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const phone = await context.newPage();
  phone.on('pageerror', (err) => pageErrors.push(String(err?.stack || err)));
  phone.setDefaultTimeout(WAIT_MS);
  try {
    await phone.goto(joinUrl, { waitUntil: 'load' });
    await waitInPage(phone, () => window.swarmcast?.snapshots > 0 && window.swarmcast.phoneStart, null,
      'the phone\'s first snapshot and start view', WAIT_MS);
    const view = await phone.evaluate(() => {
      const cam = window.swarmcast.viewer.camera;
      const r = cam.visibleRect();
      return { rect: r, worldW: cam.worldW, worldH: cam.worldH, cssW: cam.cssW, cssH: cam.cssH,
        inputKind: window.swarmcast.inputKind, clientId: window.swarmcast.clientId };
    });
    // The whole height of the world, a part of its width: no empty bands.
    assert.ok(view.rect.h >= view.worldH - 1, `the world's whole height is on screen (${JSON.stringify(view.rect)})`);
    assert.ok(view.rect.w < view.worldW / 2, 'zoomed in across');
    assert.ok(view.worldH * (view.cssH / view.rect.h) >= view.cssH * 0.95, 'the world fills the screen\'s height');
    assert.equal(view.inputKind, 'touch');
    await phone.screenshot({ path: path.join(artifacts, 'presenter-phone.png') });

    // A tap sets the phone's target, at the world point under the finger.
    const tapAt = await phone.evaluate(() => {
      const r = document.getElementById('world').getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height * 0.6;
      const w = window.swarmcast.viewer.camera.screenToWorld(x - r.left, y - r.top);
      return { x, y, wx: w.x, wy: w.y };
    });
    await phone.touchscreen.tap(tapAt.x, tapAt.y);
    const target = await waitInPage(presenter, (id) => window.swarmcast.lastSnapshot()?.targets?.find((t) => t.client_id === id),
      view.clientId, 'the phone\'s target on the presenter\'s screen', WAIT_MS);
    assert.ok(Math.abs(target.x - tapAt.wx) < 2 && Math.abs(target.y - tapAt.wy) < 2,
      `the target is where the finger was (${target.x}, ${target.y} vs ${tapAt.wx}, ${tapAt.wy})`);
    await waitInPage(presenter, () => document.querySelector('.presenter-count').textContent === '2 people here', null,
      'the presenter counting two people', WAIT_MS);
    await presenter.screenshot({ path: path.join(artifacts, 'presenter-with-phone.png') });
  } finally {
    await context.close();
  }
  await waitInPage(presenter, () => document.querySelector('.presenter-count').textContent === '1 person here', null,
    'the count going down when the phone leaves', WAIT_MS);
});

test('key P brings the controls back and the panel\'s button goes back to the presenter\'s screen', T, async () => {
  await presenter.locator('#world').click({ position: { x: 200, y: 200 } }); // the page has the keyboard
  await presenter.keyboard.press('p');
  await waitInPage(presenter, () => !window.swarmcast.presenter.presenting, null, 'the presenter\'s screen left', WAIT_MS);
  const back = await presenter.evaluate(() => ({
    corner: document.getElementById('presenter').hidden,
    panelOrToggle: !document.getElementById('panel').hidden || !document.getElementById('panel-toggle').hidden,
    search: window.location.search,
  }));
  assert.equal(back.corner, true, 'the corner is gone');
  assert.equal(back.panelOrToggle, true, 'the panel (or its toggle) is back');
  assert.equal(back.search, '', 'the address no longer says ?present');
  // Every viewer is an operator here (no control token): the button is shown.
  if (await presenter.locator('#panel').isHidden()) await presenter.locator('#panel-toggle').click();
  await presenter.locator('.btn-present').click();
  await waitInPage(presenter, () => window.swarmcast.presenter.presenting, null, 'the presenter\'s screen again', WAIT_MS);
  assert.equal(await presenter.evaluate(() => window.location.search), '?present');
  assert.equal(await presenter.locator('#panel').isHidden(), true);
});

// The iframe's frame in the parent page (Playwright's), once attached.
async function embedFrame(page) {
  await page.waitForSelector('#flock', { state: 'attached' });
  const handle = await page.$('#flock');
  return handle.contentFrame();
}

test('?embed in an <iframe> of an allowed origin loads and draws the world and the status line only', T, async () => {
  const page = await newPage(browser, { timeoutMs: WAIT_MS });
  try {
    await page.goto(allowedParent.origin + '/', { waitUntil: 'load' });
    const frame = await embedFrame(page);
    await waitInPage(frame, () => window.swarmcast?.snapshots > 0 && window.swarmcast.framesDrawn > 0, null,
      'the embedded page drawing', WAIT_MS);
    const shown = await frame.evaluate(() => ({
      embedded: document.body.classList.contains('embedded'),
      panel: document.getElementById('panel').hidden,
      toggle: document.getElementById('panel-toggle').hidden,
      status: getComputedStyle(document.getElementById('status')).display !== 'none',
      hint: getComputedStyle(document.getElementById('hint')).display,
      hands: getComputedStyle(document.getElementById('hands')).display,
      minimap: getComputedStyle(document.getElementById('minimap')).display,
      corner: document.getElementById('presenter').hidden,
    }));
    assert.deepEqual(shown, { embedded: true, panel: true, toggle: true, status: true, hint: 'none', hands: 'none',
      minimap: 'none', corner: true });
    await page.screenshot({ path: path.join(artifacts, 'embed-allowed.png') });
  } finally {
    await page.context().close();
  }
});

test('?embed in an <iframe> of an origin --allow-frame does not name is refused by the browser', T, async () => {
  const page = await newPage(browser, { timeoutMs: WAIT_MS });
  const blocked = [];
  page.on('console', (msg) => {
    if (/frame-ancestors|Refused to frame/i.test(msg.text())) blocked.push(msg.text());
  });
  try {
    await page.goto(otherParent.origin + '/', { waitUntil: 'load' });
    await waitInPage(page, () => true, null, 'the parent loaded');
    // Chromium reports the refusal on the parent's console, and the frame
    // is left without the page (an error document: no swarmcast in it).
    const deadline = Date.now() + WAIT_MS;
    while (!blocked.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(blocked.length > 0, 'Chromium says it refused to frame the page');
    assert.match(blocked[0], new RegExp(allowedParent.origin.replace(/[.:/]/g, '\\$&')), 'naming the allowed origin');
    const frame = await embedFrame(page);
    const inside = await frame.evaluate(() => typeof window.swarmcast).catch(() => 'unreachable');
    assert.notEqual(inside, 'object', 'the swarmcast page did not load in the frame');
    await page.screenshot({ path: path.join(artifacts, 'embed-refused.png') });
  } finally {
    await page.context().close();
  }
});

test('no page logged an error or threw', () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
