// Browser test of the page's rooms against a stand-in server
// (tests/lib/fake_rooms_server.mjs: the contract of protocol/PROTOCOL.md,
// "Rooms", hello and the room messages only, no simulation): the room from
// the path and on the socket, the gate after a final close with no retry,
// the join box on a desktop and on a phone, "New room" and its errors, the
// room's token kept and presented again, the operator link, rename and
// close, the presenter's join address. tests/e2e/rooms.test.mjs checks the
// same page against the real server.
//   node --test tests/e2e/rooms-page.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startFakeRoomsServer } from '../lib/fake_rooms_server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const T = { timeout: 40000 };
const WAIT_MS = 10000;
const ROOM = 'K7PXM3QD';

let server;
let browser;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  server = await startFakeRoomsServer({ rooms: [{ code: ROOM, name: 'Group 3', token: `r_${'ab'.repeat(16)}` }] });
  browser = await launchChromium();
});

after(() => closeBrowserAndServer(browser, server));

const connected = () => window.swarmcast?.connected === true;

test('the default room: the socket names no room, the panel says "main room" and offers New room', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/`);
  await waitInPage(page, connected, null, 'hello', WAIT_MS);
  const s = await page.evaluate(() => ({
    url: window.swarmcast.socketUrl, room: window.swarmcast.room, rooms: window.swarmcast.rooms,
    code: document.querySelector('.room-code').textContent, badge: document.querySelector('.status-room').hidden,
    create: !document.querySelector('.room-create').hidden, manage: !document.querySelector('.room-manage').hidden,
  }));
  assert.equal(new URL(s.url).search, '', 'exactly today\'s /ws');
  assert.deepEqual([s.room, s.rooms, s.code, s.badge, s.create, s.manage], ['', 'open', 'main room', true, true, false]);
  await page.context().close();
});

test('/r/k7px-m3qd: the room\'s socket, its code and name shown, the presenter\'s join address at /r/CODE', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/r/k7px-m3qd?present`);
  await waitInPage(page, connected, null, 'hello', WAIT_MS);
  const s = await page.evaluate(() => ({
    url: window.swarmcast.socketUrl, badge: document.querySelector('.status-room').textContent,
    join: window.swarmcast.presenter.joinUrl, corner: document.querySelector('.presenter-room').textContent,
    qr: document.querySelector('.presenter-qr').dataset.url,
  }));
  assert.equal(new URL(s.url).searchParams.get('room'), ROOM);
  assert.equal(s.badge, 'room K7PX-M3QD · Group 3');
  assert.equal(s.join, `${server.httpUrl}/r/${ROOM}`);
  assert.equal(s.qr, s.join);
  assert.equal(s.corner, 'room K7PX-M3QD · Group 3');
  await page.context().close();
});

test('an unknown room: "No such room" with the join box, no reconnect loop; a typed code opens the room', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  const before = server.opened.length;
  await page.goto(`${server.httpUrl}/r/ZZZZ2222`);
  await waitInPage(page, () => window.swarmcast.roomGate, null, 'the gate', WAIT_MS);
  const gate = await page.evaluate(() => ({
    title: document.querySelector('.room-gate-title').textContent,
    status: document.querySelector('#status .status-line').textContent, state: window.swarmcast.state,
  }));
  assert.equal(gate.title, 'No such room');
  assert.equal(gate.status, 'closed: no such room (4404)');
  assert.equal(gate.state, 'closed');
  await page.waitForTimeout(2500); // longer than the first three backoff steps
  assert.equal(server.opened.slice(before).filter((c) => c === 'ZZZZ2222').length, 1, 'one try only');
  // A wrong code is explained in the box, not sent.
  await page.locator('#join-code-gate').fill('k7px-m3q0');
  await page.keyboard.press('Enter');
  assert.match(await page.locator('#join-message-gate').textContent(), /“0”/);
  assert.equal(new URL(page.url()).pathname, '/r/ZZZZ2222');
  await page.locator('#join-code-gate').fill('k7px m3qd');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${server.httpUrl}/r/${ROOM}`);
  await waitInPage(page, connected, null, 'hello in the room', WAIT_MS);
  assert.equal(await page.evaluate(() => window.swarmcast.room), ROOM);
  await page.context().close();
});

test('a path that is not a code is said so, and nothing is sent', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  const before = server.opened.length;
  await page.goto(`${server.httpUrl}/r/HELLO`);
  await waitInPage(page, () => window.swarmcast.roomGate, null, 'the gate', WAIT_MS);
  assert.equal(await page.locator('.room-gate-title').textContent(), 'Not a room code');
  await page.waitForTimeout(500);
  assert.equal(server.opened.length, before, 'no socket');
  await page.context().close();
});

test('a phone (390×844, touch) joins by typing a code in lower case with a dash', T, async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto(`${server.httpUrl}/r/ZZZZ2222`);
  await waitInPage(page, () => window.swarmcast.roomGate, null, 'the gate', WAIT_MS);
  const input = page.locator('#join-code-gate');
  const attrs = await input.evaluate((e) => ({
    inputmode: e.getAttribute('inputmode'), autocap: e.getAttribute('autocapitalize'), ac: e.getAttribute('autocomplete'),
    box: e.getBoundingClientRect().toJSON(), vw: window.innerWidth,
  }));
  assert.equal(attrs.inputmode, 'text');
  assert.equal(attrs.autocap, 'characters');
  assert.equal(attrs.ac, 'off');
  assert.ok(attrs.box.height >= 44, `a finger-sized field (${attrs.box.height} px)`);
  assert.ok(attrs.box.left >= 0 && attrs.box.right <= attrs.vw, 'on the screen');
  await input.tap();
  await page.keyboard.type('k7px-m3qd');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${server.httpUrl}/r/${ROOM}`);
  await waitInPage(page, connected, null, 'hello in the room', WAIT_MS);
  await context.close();
});

let created; // { code, token }

test('New room: an unknown scenario shows the server\'s message; a copy opens the new room as its operator', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/`);
  await waitInPage(page, connected, null, 'hello', WAIT_MS);
  await page.locator('#room-from').selectOption('scenario:olfati-lattice');
  await page.locator('.btn-new-room').click();
  await waitInPage(page, () => !document.querySelector('.room-create .room-message').hidden &&
    /no scenario/.test(document.querySelector('.room-create .room-message').textContent), null, 'the error', WAIT_MS);
  assert.equal(await page.locator('.room-create .room-message').textContent(), 'no scenario "olfati-lattice" on this server');

  await page.locator('#room-from').selectOption('copy');
  await page.locator('.room-create .room-name-input').fill('  Group   4 ');
  await page.locator('.btn-new-room').click();
  await page.waitForURL(`${server.httpUrl}/r/NEWR2345`);
  const sent = server.received.filter((r) => r.msg.type === 'create_room').at(-1).msg;
  assert.deepEqual({ ...sent, id: 0 }, { type: 'create_room', from: 'copy', name: 'Group 4', id: 0 });
  await waitInPage(page, () => window.swarmcast.role === 'operator', null, 'the operator role', WAIT_MS);
  const token = await page.evaluate(() => localStorage.getItem('swarmcast.room.NEWR2345.token'));
  assert.equal(token, server.rooms.get('NEWR2345').token);
  assert.ok(server.received.some((r) => r.room === 'NEWR2345' && r.msg.type === 'auth' && r.msg.token === token));
  created = { code: 'NEWR2345', token };
  assert.equal(await page.locator('.btn-operator-link').isVisible(), true);
  assert.equal(await page.locator('.status-room').textContent(), 'room NEWR-2345 · Group 4');

  // Rename: the name follows on this page.
  await page.locator('.room-rename .room-name-input').fill('Lab B');
  await page.locator('.btn-rename').click();
  await waitInPage(page, () => window.swarmcast.roomName === 'Lab B', null, 'the new name', WAIT_MS);
  // A reload keeps the role: the remembered token is presented again.
  await page.reload();
  await waitInPage(page, () => window.swarmcast.role === 'operator', null, 'the operator role after a reload', WAIT_MS);
  await page.context().close();
});

test('an operator link\'s token leaves the address for localStorage and makes its opener an operator', T, async () => {
  assert.ok(created, 'the room of the previous test');
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/r/${created.code}#token=${created.token}`);
  await waitInPage(page, () => window.swarmcast.role === 'operator', null, 'the operator role', WAIT_MS);
  assert.equal(new URL(page.url()).hash, '', 'no token in the address bar');
  assert.equal(await page.evaluate((c) => localStorage.getItem(`swarmcast.room.${c}.token`), created.code), created.token);
  // Close, asked twice: everyone in it (this page too) sees the gate; no retry.
  await page.locator('.btn-close-room').click();
  assert.equal(await page.locator('.btn-close-room').textContent(), 'Close for everyone?');
  await page.locator('.btn-close-room').click();
  await waitInPage(page, () => window.swarmcast.roomGate?.title === 'Room closed', null, 'the gate', WAIT_MS);
  assert.equal(await page.evaluate(() => window.swarmcast.state), 'closed');
  await page.context().close();
});

test('no page logged an error, and the CSP refused nothing', () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
