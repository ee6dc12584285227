// Many hands, in two real pages (issue 10): A's name, cursor and target
// appear in B; key 1 switches separation for everyone and B's panel follows
// the server's echo; the select tool shows an agent's neighbours. Each
// state is saved as a screenshot in tests/e2e/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
const T = { timeout: 40000 };
const WAIT_MS = 15000;

let server;
let browser;
let a;
let b;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  server = await startServer({ agents: 800, seed: 5 });
  browser = await launchChromium();
  a = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  b = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await a.goto(server.httpUrl + '/', { waitUntil: 'load' });
  await b.goto(server.httpUrl + '/', { waitUntil: 'load' });
  for (const p of [a, b]) await waitInPage(p, () => window.swarmcast?.snapshots > 0, null, 'a snapshot', WAIT_MS);
});

after(() => closeBrowserAndServer(browser, server));

// Screen position (page CSS px) of a world point on page p: the viewer's
// camera (viewer.js) maps the world onto the canvas.
async function screenOf(p, x, y) {
  return p.evaluate(([wx, wy]) => {
    const r = document.getElementById('world').getBoundingClientRect();
    const q = window.swarmcast.viewer.camera.worldToScreen(wx, wy);
    return { x: r.left + q.x, y: r.top + q.y };
  }, [x, y]);
}

test('A\'s name, chosen in the field, appears in B\'s list with its role, and is remembered', T, async () => {
  await a.fill('#presence-name', 'Ada');
  await a.press('#presence-name', 'Enter');
  const aId = await a.evaluate(() => window.swarmcast.clientId);
  const seen = await waitInPage(b, (id) => window.swarmcast.presence.members.find((m) => m.id === id && m.name === 'Ada'), aId,
    'Ada in B\'s list', WAIT_MS);
  assert.equal(seen.role, 'operator');
  assert.match(seen.color, /^#[0-9a-f]{6}$/);
  const listed = await b.locator('.presence-member', { hasText: 'Ada' }).count();
  assert.equal(listed, 1, 'Ada shown in B\'s who-is-here list');
  assert.equal(await a.evaluate(() => localStorage.getItem('swarmcast.name')), 'Ada');
  // B has a generated default name, not a number.
  const bName = await b.evaluate(() => window.swarmcast.presence.name);
  assert.match(bName, /^[A-Z][a-z]+ [A-Z][a-z]+ \d+$/);
});

test('a name the server cleans is shown and remembered as it kept it; a refused one goes back', T, async () => {
  // U+200B (zero width) is removed and the spaces collapsed by the server's rule on names.
  await a.fill('#presence-name', 'Ada\u200B   Lovelace');
  await a.press('#presence-name', 'Enter');
  await waitInPage(a, () => window.swarmcast.presence.name === 'Ada Lovelace', null, 'the cleaned name', WAIT_MS);
  assert.equal(await a.inputValue('#presence-name'), 'Ada Lovelace');
  assert.equal(await a.evaluate(() => localStorage.getItem('swarmcast.name')), 'Ada Lovelace');
  // "you" is a label of the page: refused, and the page keeps the name people see.
  await a.fill('#presence-name', 'you');
  await a.press('#presence-name', 'Enter');
  await waitInPage(a, () => !document.querySelector('.presence-error').hidden, null, 'the refusal', WAIT_MS);
  await waitInPage(a, () => window.swarmcast.presence.name === 'Ada Lovelace', null, 'the name back', WAIT_MS);
  assert.equal(await a.inputValue('#presence-name'), 'Ada Lovelace');
  assert.equal(await a.evaluate(() => localStorage.getItem('swarmcast.name')), 'Ada Lovelace');
  const aId = await a.evaluate(() => window.swarmcast.clientId);
  await waitInPage(b, (id) => window.swarmcast.presence.members.find((m) => m.id === id && m.name === 'Ada Lovelace'), aId,
    'B still sees Ada Lovelace', WAIT_MS);
  // Back to the name the next tests expect.
  await a.fill('#presence-name', 'Ada');
  await a.press('#presence-name', 'Enter');
  await waitInPage(b, (id) => window.swarmcast.presence.members.find((m) => m.id === id && m.name === 'Ada'), aId,
    'Ada in B\'s list again', WAIT_MS);
});

test('A\'s cursor and target appear in B, drawn with A\'s name', T, async () => {
  const aId = await a.evaluate(() => window.swarmcast.clientId);
  const at = await screenOf(a, 500, 300);
  await a.mouse.move(at.x - 30, at.y - 30);
  await a.mouse.move(at.x, at.y, { steps: 5 });
  const cursor = await waitInPage(b, (id) => {
    const c = window.swarmcast.presence.cursors.get(id);
    return c && Math.abs(c.x - 500) < 3 && Math.abs(c.y - 300) < 3 ? { x: c.x, y: c.y } : null;
  }, aId, 'A\'s cursor at B', WAIT_MS);
  assert.ok(Math.abs(cursor.x - 500) < 3);
  const tgt = await screenOf(a, 700, 450);
  await a.mouse.click(tgt.x, tgt.y);
  const target = await waitInPage(b, (id) => window.swarmcast.presence.members.find((m) => m.id === id)?.target, aId,
    'A\'s target in B\'s presence list', WAIT_MS);
  assert.ok(Math.abs(target[0] - 700) < 3 && Math.abs(target[1] - 450) < 3, `target ${target}`);
  await waitInPage(b, (id) => window.swarmcast.targets.some((t) => t.client_id === id), aId, 'A\'s target in B\'s snapshot', WAIT_MS);
  await b.waitForTimeout(300); // a frame or two with both drawn
  await b.screenshot({ path: path.join(artifacts, 'presence-b-sees-ada.png') });
});

test('key 1 switches separation off for everyone: B\'s panel follows the server\'s echo, and the feed says so', T, async () => {
  await a.locator('#world').focus().catch(() => {});
  await a.mouse.click(5, 700); // focus the page (a click in the letterbox corner sets a target at the edge, harmless)
  await a.keyboard.press('1');
  await waitInPage(b, () => window.swarmcast.params.rule_sep === false, null, 'rule_sep off at B', WAIT_MS);
  const checked = await b.evaluate(() => document.querySelector('input[name="rule_sep"]')?.checked);
  assert.equal(checked, false, 'B\'s checkbox follows');
  await waitInPage(b, () => window.swarmcast.presence.activity.some((i) => i.text === 'Ada switched separation rule off'), null,
    'the feed at B', WAIT_MS);
  // Key 1 switches what A knows: wait for the server's echo at A too, or
  // the second press would send "off" again.
  await waitInPage(a, () => window.swarmcast.params.rule_sep === false, null, 'rule_sep off at A', WAIT_MS);
  await a.keyboard.press('1');
  await waitInPage(b, () => window.swarmcast.params.rule_sep === true, null, 'rule_sep back on at B', WAIT_MS);
  assert.equal(await b.evaluate(() => document.querySelector('input[name="rule_sep"]')?.checked), true);
});

test('the select tool shows an agent\'s neighbours per zone and its steering', T, async () => {
  await a.keyboard.press('v');
  assert.equal(await a.evaluate(() => window.swarmcast.tools.tool), 'select');
  await a.keyboard.press('Space'); // pause, so that the agent stays where it is clicked
  await waitInPage(a, () => window.swarmcast.paused === true, null, 'paused', WAIT_MS);
  const agent = await a.evaluate(() => {
    // The newest frame (frames.js): count, x, y, heading, … of the agents in view.
    const snap = window.swarmcast.lastSnapshot?.();
    if (!snap || !snap.count) return null;
    const { x, y, count } = snap;
    // An agent with a handful of neighbours: a readable picture.
    let best = 0;
    let bestScore = Infinity;
    for (let i = 0; i < count; i += 3) {
      let n = 0;
      for (let j = 0; j < count; j++) if (Math.hypot(x[j] - x[i], y[j] - y[i]) < 50) n++;
      const score = Math.abs(n - 10);
      if (score < bestScore) { bestScore = score; best = i; }
    }
    return { x: x[best], y: y[best] };
  });
  assert.ok(agent, 'a snapshot to pick from');
  const at = await screenOf(a, agent.x, agent.y);
  await a.mouse.click(at.x, at.y);
  const ins = await waitInPage(a, () => {
    const i = window.swarmcast.tools.inspection;
    return i && i.agent ? { agent: i.agent, n: i.neighbours, steering: i.steering, radii: i.radii } : null;
  }, null, 'an inspection', WAIT_MS);
  const listed = ins.n.separation.length + ins.n.alignment.length + ins.n.cohesion.length;
  assert.ok(listed > 0, 'neighbours shown');
  assert.ok(Math.hypot(ins.agent.x - agent.x, ins.agent.y - agent.y) < 20);
  assert.ok(ins.steering && Array.isArray(ins.steering.cohesion));
  await a.waitForTimeout(300);
  await a.screenshot({ path: path.join(artifacts, 'presence-a-inspect.png') });
  const here = await screenOf(a, ins.agent.x, ins.agent.y);
  await a.screenshot({ path: path.join(artifacts, 'presence-a-inspect-close.png'),
    clip: { x: Math.max(0, here.x - 120), y: Math.max(0, here.y - 120), width: 240, height: 240 } });
  // Key 4: perception radii for many agents.
  await a.keyboard.press('4');
  await waitInPage(a, () => window.swarmcast.showRadii === true, null, 'radii on', WAIT_MS);
  // The viewer draws them (viewer.options.radii: one switch for key 4).
  assert.equal(await a.evaluate(() => window.swarmcast.viewer.options.radii), true);
  await a.waitForTimeout(200);
  await a.screenshot({ path: path.join(artifacts, 'presence-a-radii.png') });
  await a.keyboard.press('4');
  assert.equal(await a.evaluate(() => window.swarmcast.viewer.options.radii), false, 'key 4 again: off');
  await a.keyboard.press('Escape');
  await waitInPage(a, () => window.swarmcast.tools.inspection === null, null, 'the selection ended', WAIT_MS);
  await a.keyboard.press('Space');
});

test('no console errors in either page', T, async () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
