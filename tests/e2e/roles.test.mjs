// Browser test of the roles (PROTOCOL.md, "Roles"): the real server started
// with a control token, the real page in headless Chromium. The page starts
// as a visitor; the operator token typed into the panel unlocks it, a reload
// keeps it (sessionStorage), Lock forgets it.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/roles.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { fitWorld } from '../../client-web/view/viewport.js';

const TOKEN = 'secret';
const TOKEN_KEY = 'swarmcast.control_token';
const T = { timeout: 30000 };
const WAIT_MS = 10000;

let server;
let browser;
let page;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  server = await startServer({ agents: 300, seed: 7, args: ['--control-token', TOKEN] });
  browser = await launchChromium();
  page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
});

after(() => closeBrowserAndServer(browser, server));

const until = (fn, arg, what) => waitInPage(page, fn, arg, what, WAIT_MS);

// The operator's controls, and whether each is disabled and described.
function operatorControls() {
  return page.evaluate(() => {
    const pick = (sel) => {
      const c = document.querySelector(`#panel ${sel}`);
      if (!c) return null;
      return {
        disabled: c.matches(':disabled'),
        describedBy: c.getAttribute('aria-describedby'),
        title: c.title,
      };
    };
    // Step is left out: it is disabled while the world runs, whatever the role.
    const all = [...document.querySelectorAll('#panel .operator-only input, #panel .operator-only select, #panel .operator-only button')]
      .filter((c) => !c.matches('.btn-step'));
    return {
      pause: pick('.btn-pause'),
      reset: pick('.btn-reset'),
      seed: pick('.seed-input'),
      model: pick('.model-select'),
      slider: pick('[data-param="max_speed"] input[type=range]'),
      number: pick('[data-param="max_speed"] input[type=number]'),
      rowTitle: document.querySelector('#panel [data-param="max_speed"]').title,
      total: all.length,
      enabled: all.filter((c) => !c.matches(':disabled')).map((c) => c.name || c.className),
      note: document.getElementById('role-note')?.textContent ?? null,
      noteShown: !document.getElementById('role-note')?.hidden,
    };
  });
}

function roleView() {
  return page.evaluate((key) => ({
    role: window.swarmcast.role,
    controlToken: window.swarmcast.controlToken,
    clientId: window.swarmcast.clientId,
    roleName: document.querySelector('#panel .role-name').textContent,
    status: document.querySelector('#status .status-line').textContent,
    formShown: !document.querySelector('#panel .token-form').hidden,
    lockShown: !document.querySelector('#panel .btn-lock').hidden,
    message: document.querySelector('#panel .token-message').hidden
      ? '' : document.querySelector('#panel .token-message').textContent,
    stored: sessionStorage.getItem(key),
    field: document.getElementById('control-token').value,
    url: location.href,
  }), TOKEN_KEY);
}

// Page coordinates of a world point.
async function pagePoint(x, y) {
  const box = await page.locator('#world').boundingBox();
  const world = await page.evaluate(() => window.swarmcast.hello.world);
  const v = fitWorld(box.width, box.height, world.width, world.height);
  return [box.x + v.offsetX + x * v.scale, box.y + v.offsetY + y * v.scale];
}

// Waits for the replies to everything the page sent so far: the server
// answers in order, so once a fresh clear_target is acked, any reply to an
// earlier command has arrived.
async function settle() {
  const id = await page.evaluate(() => window.swarmcast.send({ type: 'clear_target' }));
  assert.ok(Number.isInteger(id), 'the page is connected');
  await until((i) => window.swarmcast.lastAck?.id === i, id, 'the ack of a clear_target');
}

test('a visitor sees its role, and the operator\'s controls are disabled, saying why', T, async () => {
  await until(() => window.swarmcast?.connected && window.swarmcast.role !== null && window.swarmcast.framesDrawn > 0,
    null, 'the page to connect');
  const hello = await page.evaluate(() => window.swarmcast.hello);
  assert.equal(hello.role, 'visitor');
  assert.equal(hello.control_token, true);
  const r = await roleView();
  assert.equal(r.role, 'visitor');
  assert.equal(r.roleName, 'visitor — watch and steer your target; obstacles: up to 3 of your own');
  assert.match(r.status, /· visitor ·/);
  assert.equal(r.formShown, true, 'the token form is offered');
  assert.equal(r.lockShown, false);

  const c = await operatorControls();
  assert.ok(c.total > 20, `the panel has its controls: ${c.total}`);
  assert.deepEqual(c.enabled, [], 'every operator control is disabled');
  for (const k of ['pause', 'reset', 'seed', 'model', 'slider', 'number']) {
    assert.ok(c[k], `the ${k} control exists (not hidden)`);
    assert.equal(c[k].disabled, true, `${k} is disabled`);
    assert.ok((c[k].describedBy ?? '').split(' ').includes('role-note'), `${k} is described by the role note`);
  }
  assert.match(c.pause.title, /needs the operator token/);
  assert.match(c.model.title, /needs the operator token/);
  assert.match(c.rowTitle, /needs the operator token/);
  assert.equal(c.noteShown, true);
  assert.match(c.note, /operator token/);
  const hint = await page.locator('#hint').textContent();
  assert.match(hint, /your obstacle/);
  assert.doesNotMatch(hint, /space: pause|\+100 agents/, 'the hint offers only what a visitor may do');

  // The form: a labelled password field and a button, enabled.
  const field = page.getByLabel('Operator token');
  assert.equal(await field.getAttribute('type'), 'password');
  assert.equal(await field.isEnabled(), true);
  assert.equal(await page.getByRole('button', { name: 'Unlock' }).isEnabled(), true);
});

test('a visitor\'s pause and add-agents keys send nothing and say why; its target still works', T, async () => {
  const [x, y] = await pagePoint(500, 400);
  await page.mouse.click(x, y);
  await until(() => window.swarmcast.lastAck?.cmd === 'set_target', null, 'the set_target ack');
  const before = await page.evaluate(() => ({ agents: window.swarmcast.agentCount, paused: window.swarmcast.paused }));
  await page.keyboard.press('Space');
  const note = await until(() => {
    const e = document.querySelector('#status .status-error');
    return !e.hidden && /pause/.test(e.textContent) ? { text: e.textContent, notice: e.classList.contains('is-notice') } : null;
  }, null, 'the note about pause');
  assert.match(note.text, /needs the operator token/);
  assert.equal(note.notice, true, 'a notice, not an error');
  await page.keyboard.press('a');
  await until(() => /adding agents needs the operator token/.test(document.querySelector('#status .status-error').textContent),
    null, 'the note about adding agents');
  await settle();
  assert.equal(await page.evaluate(() => window.swarmcast.lastError), null, 'nothing was sent for the server to refuse');
  const after = await page.evaluate(() => ({ agents: window.swarmcast.agentCount, paused: window.swarmcast.paused }));
  assert.deepEqual(after, before);
});

test('a wrong token shows a clear message in the form and unlocks nothing', T, async () => {
  const field = page.getByLabel('Operator token');
  await field.fill('not-the-token');
  await field.press('Enter'); // the form works from the keyboard
  const err = await until(() => window.swarmcast.lastError, null, 'the answer to auth');
  assert.equal(err.code, 'bad_token');
  assert.equal(err.cmd, 'auth');
  const r = await until(() => {
    const m = document.querySelector('#panel .token-message');
    return !m.hidden && m.textContent ? m.textContent : null;
  }, null, 'the inline message');
  assert.match(r, /refused/);
  const v = await roleView();
  assert.equal(v.role, 'visitor');
  assert.equal(v.stored, null, 'a refused token is not remembered');
  assert.ok(!v.url.includes('not-the-token'), `the token is not in the URL: ${v.url}`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'control-token', 'the focus stays in the field');
  const c = await operatorControls();
  assert.deepEqual(c.enabled, [], 'still disabled');
});

test('the right token makes the page the operator; a parameter change then reaches another client', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    await page.getByLabel('Operator token').fill(TOKEN);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await until(() => window.swarmcast.role === 'operator', null, 'the operator role');
    const ack = await page.evaluate(() => window.swarmcast.lastAck);
    assert.equal(ack.cmd, 'auth');
    assert.equal(ack.role, 'operator');
    const r = await roleView();
    assert.equal(r.roleName, 'operator');
    assert.match(r.status, /· operator ·/);
    assert.equal(r.formShown, false);
    assert.equal(r.lockShown, true, 'Lock is offered');
    assert.equal(r.message, '');
    assert.equal(r.field, '', 'the page keeps no copy of the token in the form');
    assert.equal(r.stored, TOKEN, 'remembered for this tab');
    assert.ok(!r.url.includes(TOKEN), `the token is not in the URL: ${r.url}`);
    const c = await operatorControls();
    assert.ok(c.total > 20);
    assert.deepEqual(c.enabled.length, c.total, 'every operator control is enabled');
    assert.equal(c.slider.describedBy, 'help-max_speed', 'described by its help only, no longer by the lock');
    assert.doesNotMatch(c.rowTitle, /needs the operator token/);
    assert.doesNotMatch(c.pause.title, /needs the operator token/);

    const mark = ctl.mark();
    const field = page.locator('#panel [data-param="w_sep"] input[type=number]');
    await field.scrollIntoViewIfNeeded();
    await field.fill('2.75');
    await field.press('Enter');
    const bc = await ctl.waitText((m) => m.type === 'param' && m.name === 'w_sep', 'the w_sep broadcast', { after: mark, timeoutMs: WAIT_MS });
    assert.equal(bc.value, 2.75);
    assert.equal(bc.by, r.clientId, 'changed by the page');
  } finally {
    ctl.close();
  }
});

test('after a reload the page presents the remembered token again and is the operator', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    const oldId = await page.evaluate(() => window.swarmcast.clientId);
    await page.reload({ waitUntil: 'load' });
    await until((old) => window.swarmcast?.connected && window.swarmcast.clientId !== old && window.swarmcast.role === 'operator',
      oldId, 'the reloaded page to be the operator');
    const r = await roleView();
    assert.equal(r.stored, TOKEN);
    assert.equal(r.formShown, false);
    assert.equal(r.lockShown, true);
    assert.deepEqual((await operatorControls()).enabled.length, (await operatorControls()).total);
    // The server agrees: a parameter change is applied, not forbidden.
    const mark = ctl.mark();
    const field = page.locator('#panel [data-param="w_sep"] input[type=number]');
    await field.scrollIntoViewIfNeeded();
    await field.fill('1.25');
    await field.press('Enter');
    const bc = await ctl.waitText((m) => m.type === 'param' && m.name === 'w_sep', 'the w_sep broadcast', { after: mark, timeoutMs: WAIT_MS });
    assert.equal(bc.value, 1.25);
    assert.equal(bc.by, r.clientId);
  } finally {
    ctl.close();
  }
});

test('Lock forgets the token and the page comes back as a visitor', T, async () => {
  const oldId = await page.evaluate(() => window.swarmcast.clientId);
  await Promise.all([
    page.waitForEvent('load', { timeout: WAIT_MS }),
    page.getByRole('button', { name: 'Lock' }).click(),
  ]);
  await until((old) => window.swarmcast?.connected && window.swarmcast.clientId !== old && window.swarmcast.role !== null,
    oldId, 'the page after Lock');
  const r = await roleView();
  assert.equal(r.role, 'visitor');
  assert.equal(r.stored, null);
  assert.equal(r.formShown, true);
  assert.equal(r.lockShown, false);
  assert.deepEqual((await operatorControls()).enabled, []);
});

test('a visitor moves and removes only its own obstacles; a forbidden command is a brief notice', T, async () => {
  const ctl = await connect(server.wsUrl);
  try {
    await ctl.command({ type: 'auth', token: TOKEN });
    const { obstacle_id: theirs } = await ctl.command({ type: 'add_obstacle', x: 400, y: 300, radius: 40 });
    await until((id) => window.swarmcast.obstacles.some((o) => o.id === id), theirs, 'the other client\'s obstacle');

    // Its own: right click adds, a drag moves it.
    const [ax, ay] = await pagePoint(1100, 600);
    await page.mouse.click(ax, ay, { button: 'right' });
    const ack = await until(() => (window.swarmcast.lastAck?.cmd === 'add_obstacle' ? window.swarmcast.lastAck : null),
      null, 'the add_obstacle ack');
    const mine = ack.obstacle_id;
    await until((id) => window.swarmcast.obstacles.some((o) => o.id === id), mine, 'its own obstacle');
    const [bx, by] = await pagePoint(900, 500);
    await page.mouse.move(ax, ay);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(ax + ((bx - ax) * i) / 10, ay + ((by - ay) * i) / 10);
      await sleep(15);
    }
    await page.mouse.up();
    await ctl.nextSnapshot((q) => q.obstacles.some((o) => o.id === mine && Math.hypot(o.x - 900, o.y - 500) < 3),
      'its obstacle dragged to (900, 500)', { timeoutMs: WAIT_MS });

    // Someone else's: not offered for dragging (the press steers the
    // target instead), and a right click on it removes nothing.
    const [tx, ty] = await pagePoint(400, 300);
    const [ux, uy] = await pagePoint(600, 450);
    await page.mouse.move(tx, ty);
    assert.equal(await page.evaluate(() => document.getElementById('world').classList.contains('is-over-obstacle')), false,
      'someone else\'s obstacle is not marked as grabbable');
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(tx + ((ux - tx) * i) / 10, ty + ((uy - ty) * i) / 10);
      await sleep(15);
    }
    await page.mouse.up();
    await page.mouse.click(tx, ty, { button: 'right' });
    await until(() => /someone else's/.test(document.querySelector('#status .status-error').textContent),
      null, 'the note about someone else\'s obstacle');
    await settle();
    assert.equal(await page.evaluate(() => window.swarmcast.lastError), null, 'nothing was sent for the server to refuse');
    const s = await ctl.nextSnapshot(() => true, 'a snapshot', { timeoutMs: WAIT_MS });
    const o = s.obstacles.find((q) => q.id === theirs);
    assert.ok(o, 'the other client\'s obstacle is still there');
    assert.ok(Math.hypot(o.x - 400, o.y - 300) < 1e-3, `and where it was: (${o.x}, ${o.y})`);

    // The server refuses it too, and the page says so calmly.
    await page.evaluate((id) => window.swarmcast.send({ type: 'remove_obstacle', obstacle_id: id }), theirs);
    const err = await until(() => window.swarmcast.lastError, null, 'the forbidden error');
    assert.equal(err.code, 'forbidden');
    const note = await until(() => {
      const e = document.querySelector('#status .status-error');
      return !e.hidden && /not allowed/.test(e.textContent) ? { text: e.textContent, notice: e.classList.contains('is-notice') } : null;
    }, null, 'the notice');
    assert.match(note.text, new RegExp(`^not allowed: obstacle ${theirs} is not yours`));
    assert.equal(note.notice, true);
    assert.equal(await page.evaluate(() => window.swarmcast.connected), true, 'still connected');

    // Its own: a right click removes it.
    await page.mouse.click(bx, by, { button: 'right' });
    await ctl.nextSnapshot((q) => !q.obstacles.some((x) => x.id === mine), 'its obstacle removed', { timeoutMs: WAIT_MS });
    await ctl.command({ type: 'remove_obstacle', obstacle_id: theirs });
  } finally {
    ctl.close();
  }
});

test('the page logged no console error and threw no exception', T, async () => {
  const n = await page.evaluate(() => window.swarmcast.snapshots);
  await page.waitForFunction((k) => window.swarmcast.snapshots > k + 5, n, { timeout: WAIT_MS });
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
});
