// Browser test of the page behind relays (docs/DEPLOYING.md, "Scaled set-up: NATS and
// relays"): a real nats-server, the simulation with --nats and two relays.
// Through a relay the page makes a room ("New room") and another page joins
// it by typing its code, at another relay; with ?relays= the page moves to
// the other relay when its relay dies, and shows "world restarting" while
// the simulation restarts, then clears it when the world comes back,
// without reconnecting.
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

test('through relays: New room makes a room, its creator operates it, and a page at another relay joins it by its code', T, async () => {
  const maker = await newPage(browser, { pageErrors, consoleErrors, timeoutMs: WAIT_MS });
  await maker.goto(`${relays[0].httpUrl}/`, { waitUntil: 'load' });
  await waitInPage(maker, () => window.swarmcast.connected && window.swarmcast.rooms === 'open' && window.swarmcast.snapshots > 2,
    null, 'the default room through relay 1', WAIT_MS);
  await maker.locator('#room-from').selectOption('defaults');
  await maker.locator('.room-create .room-name-input').fill('At the edge');
  await maker.locator('.btn-new-room').click();
  await maker.waitForURL(/\/r\/[2-9A-HJKMNP-Z]{8}$/, { timeout: WAIT_MS });
  assert.ok(maker.url().startsWith(relays[0].httpUrl), `still at relay 1: ${maker.url()}`);
  await waitInPage(maker, () => window.swarmcast.connected && window.swarmcast.role === 'operator' &&
    window.swarmcast.snapshots > 2, null, 'the room\'s operator, with frames', WAIT_MS);
  const code = new URL(maker.url()).pathname.slice(3);
  assert.equal(await maker.evaluate(() => window.swarmcast.hello.room_name), 'At the edge');
  // Its operator's change goes through relay 1 to the room only. A reset
  // costs a client's whole bucket (PROTOCOL.md "Rate limits"), which a new
  // session fills in about 3 s: asked again each second until applied.
  for (let tries = 0; tries < 10; tries++) {
    await maker.evaluate(() => window.swarmcast.send({ type: 'reset', agents: 123 }));
    const done = await waitInPage(maker, () => window.swarmcast.agentCount === 123, null, '123 agents', 1000)
      .then(() => true, () => false);
    if (done) break;
  }
  await waitInPage(maker, () => window.swarmcast.agentCount === 123, null, 'the room reset to 123', WAIT_MS);

  const joiner = await newPage(browser, { pageErrors, consoleErrors, timeoutMs: WAIT_MS });
  await joiner.goto(`${relays[1].httpUrl}/`, { waitUntil: 'load' });
  await waitInPage(joiner, () => window.swarmcast.connected && window.swarmcast.agentCount === 300, null,
    'the default room\'s 300 agents through relay 2', WAIT_MS);
  await joiner.locator('#panel-toggle').click().catch(() => {});
  await joiner.locator('#join-code-panel').fill(`${code.slice(0, 4)}-${code.slice(4)}`.toLowerCase());
  await joiner.locator('#join-code-panel').press('Enter');
  await joiner.waitForURL(`${relays[1].httpUrl}/r/${code}`, { timeout: WAIT_MS });
  await waitInPage(joiner, () => window.swarmcast.connected && window.swarmcast.agentCount === 123, null,
    'the room\'s 123 agents through relay 2', WAIT_MS);
  assert.equal(await joiner.evaluate(() => window.swarmcast.role), 'visitor');
  await maker.context().close();
  await joiner.context().close();
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
