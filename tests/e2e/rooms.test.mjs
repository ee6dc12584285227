// Browser test of rooms against the real server (issue 24's Chromium
// tests; protocol/PROTOCOL.md, "Rooms"): two pages each create a room from
// the page and see only their own flock and people; a phone joins a room by
// typing its code; the presenter's QR code decodes to the room's URL.
// Skipped, saying so, while the server has no rooms (no --rooms flag, or
// a hello without `room`). The page alone, against a stand-in: rooms-page.test.mjs.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/rooms.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import jsQR from 'jsqr';

import { startServer } from '../lib/server.mjs';
import { connect, SUBPROTOCOL } from '../lib/client.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const T = { timeout: 60000 };
const WAIT_MS = 15000;

let server;
let browser;
let hasRooms = false;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  try {
    server = await startServer({ agents: 100, seed: 7, args: ['--rooms', 'open', '--max-agents', '20000'] });
  } catch (err) {
    if (/unrecognized option '--rooms'/.test(err.message)) return; // a server before rooms: skipped
    throw err;
  }
  const probe = await connect(server.wsUrl, { protocols: [SUBPROTOCOL] });
  hasRooms = typeof probe.hello.room === 'string';
  probe.close();
  if (hasRooms) browser = await launchChromium();
});

after(() => closeBrowserAndServer(browser, server));

const skipUnlessRooms = (t) => {
  if (hasRooms) return false;
  t.skip('the server has no rooms yet (its hello has no `room`)');
  return true;
};

// A page that makes a room from the page ("New room", the defaults) and
// resets it to `agents`; resolves { page, code } once it shows them.
async function pageInNewRoom(agents, name) {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/`);
  await waitInPage(page, () => window.swarmcast.connected && window.swarmcast.rooms === 'open', null, 'hello', WAIT_MS);
  await page.locator('#room-from').selectOption('defaults');
  await page.locator('.room-create .room-name-input').fill(name);
  await page.locator('.btn-new-room').click();
  await page.waitForURL(/\/r\/[2-9A-HJKMNP-Z]{8}$/, { timeout: WAIT_MS });
  await waitInPage(page, () => window.swarmcast.connected && window.swarmcast.role === 'operator', null, 'the room\'s operator', WAIT_MS);
  const code = new URL(page.url()).pathname.slice(3);
  assert.equal(await page.evaluate(() => window.swarmcast.room), code);
  assert.equal(await page.evaluate(() => window.swarmcast.hello.room_name), name);
  // A reset costs a client's whole bucket (PROTOCOL.md "Rate limits"),
  // which a new session fills in about 3 s: asked again each second until
  // it is applied.
  for (let tries = 0; tries < 10; tries++) {
    await page.evaluate((n) => window.swarmcast.send({ type: 'reset', agents: n }), agents);
    const done = await waitInPage(page, (n) => window.swarmcast.agentCount === n, agents, `${agents} agents`, 1000)
      .then(() => true, () => false);
    if (done) break;
  }
  await waitInPage(page, (n) => window.swarmcast.agentCount === n, agents, `${agents} agents`, WAIT_MS);
  return { page, code };
}

let roomA;
let roomB;

test('two pages in two rooms each see only their own flock and people', T, async (t) => {
  if (skipUnlessRooms(t)) return;
  roomA = await pageInNewRoom(150, 'Group A');
  roomB = await pageInNewRoom(250, 'Group B');
  assert.notEqual(roomA.code, roomB.code);
  const main = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await main.goto(`${server.httpUrl}/`);
  await waitInPage(main, () => window.swarmcast.agentCount === 100, null, 'the default room\'s 100 agents', WAIT_MS);
  // Each keeps its own population for a while (nothing leaks across).
  await main.waitForTimeout(1000);
  assert.equal(await roomA.page.evaluate(() => window.swarmcast.agentCount), 150);
  assert.equal(await roomB.page.evaluate(() => window.swarmcast.agentCount), 250);
  assert.equal(await main.evaluate(() => window.swarmcast.agentCount), 100);
  // People: each room's list holds its own page only.
  const ids = async (p) => p.evaluate(() => ({ me: window.swarmcast.clientId,
    here: (window.swarmcast.presence?.members ?? []).map((m) => m.id) }));
  const a = await ids(roomA.page);
  const b = await ids(roomB.page);
  assert.ok(!a.here.includes(b.me) && !b.here.includes(a.me), `A sees ${a.here}, B sees ${b.here}`);
  await main.context().close();
});

test('a phone joins a room by typing its code (lower case, with a dash) in the join box', T, async (t) => {
  if (skipUnlessRooms(t)) return;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const phone = await context.newPage();
  phone.on('pageerror', (err) => pageErrors.push(String(err)));
  await phone.goto(`${server.httpUrl}/`);
  await waitInPage(phone, () => window.swarmcast.connected, null, 'hello', WAIT_MS);
  await phone.locator('#panel-toggle').tap();
  await phone.locator('#join-code-panel').tap();
  const typed = `${roomB.code.slice(0, 4)}-${roomB.code.slice(4)}`.toLowerCase();
  await phone.keyboard.type(typed);
  await phone.keyboard.press('Enter');
  await phone.waitForURL(`${server.httpUrl}/r/${roomB.code}`, { timeout: WAIT_MS });
  await waitInPage(phone, () => window.swarmcast.agentCount === 250, null, 'room B\'s flock', WAIT_MS);
  assert.equal(await phone.evaluate(() => window.swarmcast.hello.room), roomB.code);
  await context.close();
});

test('a wrong code is answered "no such room", with the join box and no retry loop', T, async (t) => {
  if (skipUnlessRooms(t)) return;
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/r/ZZZZ2222`);
  await waitInPage(page, () => window.swarmcast.roomGate, null, 'the gate', WAIT_MS);
  assert.equal(await page.locator('.room-gate-title').textContent(), 'No such room');
  assert.match(await page.locator('#status .status-line').textContent(), /\(4404\)$/);
  await page.waitForTimeout(2000);
  assert.equal(await page.evaluate(() => window.swarmcast.state), 'closed');
  await page.context().close();
});

// The QR code as shown, read by jsQR (as presenter.test.mjs does).
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

test('the presenter\'s screen in a room: the QR code decodes to the room\'s URL', T, async (t) => {
  if (skipUnlessRooms(t)) return;
  const page = roomA.page;
  await page.goto(`${server.httpUrl}/r/${roomA.code}?present`);
  await waitInPage(page, () => window.swarmcast.presenter?.qrDrawn, null, 'the QR code drawn', WAIT_MS);
  const want = `${server.httpUrl}/r/${roomA.code}`;
  assert.equal(await decodeShownQr(page), want);
  assert.equal(await page.locator('.presenter-url').textContent(), want.replace('http://', ''));
  assert.match(await page.locator('.presenter-room').textContent(), /^room [2-9A-Z]{4}-[2-9A-Z]{4} · Group A$/);
});

test('no page logged an error or threw', (t) => {
  if (skipUnlessRooms(t)) return;
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
