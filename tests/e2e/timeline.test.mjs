// Browser test of the timeline bar (timeline/timeline.js) against the real
// server: dragging the slider shows the past (the page's newest frame is
// of that tick) while another page stays live; "live" returns; a `?t=`
// link opens at its tick; the bar's buttons step and play.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/timeline.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const T = { timeout: 60000 };
const WAIT_MS = 15000;

let server;
let browser;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  server = await startServer({ agents: 300, seed: 3, args: ['--keyframe-seconds', '0.5'] });
  browser = await launchChromium();
});

after(() => closeBrowserAndServer(browser, server));

const ready = () => window.swarmcast?.connected && window.swarmcast.framesDrawn > 0 && window.swarmcast.timeline?.available;

test('drag back: the page shows that tick while another stays live; live returns', T, async () => {
  const scrub = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  const other = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  for (const p of [scrub, other]) {
    await p.goto(`${server.httpUrl}/`, { waitUntil: 'load', timeout: WAIT_MS });
    await waitInPage(p, ready, null, 'the page with its timeline', WAIT_MS);
  }
  await sleep(2000);
  const target = await scrub.evaluate(() => {
    const slider = document.querySelector('#timeline .tl-slider');
    const t = Math.floor((Number(slider.min) + Number(slider.max)) / 2);
    slider.value = String(t);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    return t;
  });
  await waitInPage(scrub, (t) => window.swarmcast.timeline.mode === 'paused' && window.swarmcast.tick === t, target,
    `the page at tick ${target}`, WAIT_MS);
  const otherTick = await other.evaluate(() => window.swarmcast.tick);
  await sleep(500);
  assert.ok(await other.evaluate(() => window.swarmcast.tick) > otherTick, 'the other page stays live');
  assert.equal(await scrub.evaluate(() => window.swarmcast.tick), target, 'the scrubbing page stays on its tick');
  assert.equal(await scrub.evaluate(() => document.querySelector('#timeline').dataset.mode), 'paused');
  // One tick forward with the bar's button.
  await scrub.click('#timeline .tl-step:nth-of-type(3)');
  await waitInPage(scrub, (t) => window.swarmcast.tick === t + 1, target, 'one tick forward', WAIT_MS);
  // Live again.
  await scrub.click('#timeline .tl-live');
  await waitInPage(scrub, (t) => window.swarmcast.timeline.mode === 'live' && window.swarmcast.tick > t + 30, target,
    'live again', WAIT_MS);
  for (const p of [scrub, other]) await p.context().close();
});

test('a ?t= link opens the page at its tick', T, async () => {
  const probe = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await probe.goto(`${server.httpUrl}/`, { waitUntil: 'load', timeout: WAIT_MS });
  await waitInPage(probe, ready, null, 'the page', WAIT_MS);
  const tick = await probe.evaluate(() => Math.max(window.swarmcast.timeline.from, window.swarmcast.tick - 40));
  await probe.context().close();
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/?t=${tick}`, { waitUntil: 'load', timeout: WAIT_MS });
  await waitInPage(page, (t) => window.swarmcast?.timeline?.mode === 'paused' && window.swarmcast.tick === t, tick,
    `the page at tick ${tick}`, WAIT_MS);
  await page.context().close();
  assert.deepEqual(pageErrors, []);
});

test('the presenter\'s keys: r replays the last minute at 2×, l returns to live', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/`, { waitUntil: 'load', timeout: WAIT_MS });
  await waitInPage(page, ready, null, 'the page', WAIT_MS);
  await sleep(1000);
  await page.keyboard.press('r');
  await waitInPage(page, () => window.swarmcast.timeline.mode === 'playing' && window.swarmcast.timeline.speed === 2, null,
    'the last minute playing at 2×', WAIT_MS);
  await page.keyboard.press('l');
  await waitInPage(page, () => window.swarmcast.timeline.mode === 'live', null, 'live again', WAIT_MS);
  await page.context().close();
  assert.deepEqual(pageErrors, []);
});
