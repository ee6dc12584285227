// Browser test of the page behind relays (docs/DEPLOYING.md, "Scaled set-up: NATS and
// relays"): a real nats-server, the simulation with --nats and two relays.
// With ?relays= the page moves to the other relay when its relay dies, and
// shows "world restarting" while the simulation restarts, then clears it
// when the world comes back, without reconnecting.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/relays.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from '../lib/server.mjs';
import { startNats } from '../lib/nats.mjs';
import { launchChromium, newPage, waitInPage } from '../lib/chromium.mjs';

const T = { timeout: 90000 };
const WAIT_MS = 15000;

// --max-agents: no start-up calibration, so that a restart is quick.
const SIM_ARGS = ['--max-agents', '5000', '--snapshot-hz', '30'];

let nats;
let sim;
let relays = [];
let browser;
let page;
const pageErrors = [];
const consoleErrors = [];

before(async () => {
  nats = await startNats();
  sim = await startServer({ agents: 300, args: ['--nats', nats.url, ...SIM_ARGS] });
  for (const name of ['edge-1', 'edge-2']) {
    relays.push(await startServer({ args: ['--relay', '--nats', nats.url, '--relay-name', name] }));
  }
  browser = await launchChromium();
  page = await newPage(browser, { pageErrors, consoleErrors, timeoutMs: WAIT_MS });
});

after(async () => {
  try {
    if (browser) await browser.close();
  } finally {
    for (const s of [...relays, sim]) if (s) await s.stop().catch(() => {});
    if (nats) await nats.stop();
  }
});

test('the page moves to the other relay when its relay dies, and shows the restarting world', T, async () => {
  const list = relays.map((r) => r.wsUrl).join(',');
  // Relays answer once they have heard from the simulation: the page retries until then.
  await page.goto(`${relays[0].httpUrl}/?relays=${list}`, { waitUntil: 'load' });
  const first = await waitInPage(page, () => window.swarmcast.connected && window.swarmcast.snapshots > 5 &&
    window.swarmcast.socketUrl, null, 'snapshots through a relay', WAIT_MS);
  assert.ok(relays.some((r) => r.wsUrl === first), `connected to one of the list: ${first}`);

  // Its relay dies without a word (SIGKILL): the page goes to the other one.
  const dead = relays.find((r) => r.wsUrl === first);
  await dead.stop({ signal: 'SIGKILL' });
  const second = await waitInPage(page, (url) => window.swarmcast.connected && window.swarmcast.socketUrl !== url &&
    window.swarmcast.socketUrl, first, 'the other relay', WAIT_MS);
  assert.notEqual(second, first);
  const moved = await page.evaluate(() => window.swarmcast.snapshots);
  await waitInPage(page, (n) => window.swarmcast.snapshots > n + 5, moved, 'snapshots from the other relay', WAIT_MS);

  // The simulation restarts: the banner shows, the connection stays.
  await sim.stop();
  const banner = await waitInPage(page, () => {
    const b = document.getElementById('world-banner');
    return !b.hidden && b.textContent;
  }, null, 'the "world restarting" banner', WAIT_MS);
  assert.match(banner, /world restarting/);
  assert.equal(await page.evaluate(() => window.swarmcast.connected), true);
  const helloBefore = await page.evaluate(() => window.swarmcast.hello);
  sim = await startServer({ agents: 300, args: ['--nats', nats.url, ...SIM_ARGS] });
  await waitInPage(page, () => document.getElementById('world-banner').hidden, null, 'the banner to go', WAIT_MS);
  const resumed = await page.evaluate(() => window.swarmcast.snapshots);
  await waitInPage(page, (n) => window.swarmcast.snapshots > n + 5, resumed, 'snapshots from the new world', WAIT_MS);
  // Same connection throughout: no new hello.
  assert.deepEqual(await page.evaluate(() => window.swarmcast.hello), helloBefore);
  assert.equal(await page.evaluate(() => window.swarmcast.socketUrl), second);
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors.filter((e) => !/WebSocket connection to .* failed/.test(e)), []);
});
