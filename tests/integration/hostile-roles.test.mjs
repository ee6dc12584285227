// Roles (issue 8, goal 4): with a control token, visitors may watch, move
// their own target and keep a few obstacles of their own; everything else
// needs the token, presented after connecting with `auth`. Without a token
// everything stays open. An Origin allow-list refuses pages from elsewhere.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { RawSocket, upgradeRequest } from '../lib/raw.mjs';
import { openViewer } from '../lib/viewer.mjs';

const T = { timeout: 20000 };
const TOKEN = 'secret';
const AGENTS = 200;

const paramValue = (hello, name) => hello.params.find((p) => p.name === name)?.value;
const ownObstacles = (snap, ids) => snap.obstacles.filter((o) => ids.includes(o.id));

suite('with --control-token', () => {
  let server;
  let observer; // a visitor that only watches
  let visitor;
  let other;    // another visitor

  before(async () => {
    // (a budget for quick sequences: a fresh connection has a quarter of one)
    server = await startServer({ agents: AGENTS, args: ['--control-token', TOKEN, '--rate-scale', '4'] });
    observer = await connect(server.wsUrl);
    visitor = await connect(server.wsUrl);
    other = await connect(server.wsUrl);
  });

  after(async () => {
    for (const c of [observer, visitor, other]) c?.close();
    if (server) {
      const r = await server.stop();
      assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
    }
  });

  test('hello says role visitor, that the server has a control token, and the visitors\' obstacle quota of 3', T, async () => {
    const h = visitor.hello;
    console.log(`# roles: hello role ${h.role}, control_token ${h.control_token}, visitor_obstacles ${h.limits?.visitor_obstacles}`);
    assert.equal(h.role, 'visitor');
    assert.equal(h.control_token, true);
    assert.equal(h.limits.visitor_obstacles, 3);
    assert.ok(!JSON.stringify(h).includes(TOKEN), 'hello never carries the token');
  });

  test('a visitor\'s set_param, set_model, reset, pause, resume and add_agents are forbidden and change nothing', T, async () => {
    const before = await observer.nextSnapshot(() => true, 'a snapshot before');
    const obsMark = observer.mark();
    const cmds = [
      { type: 'set_param', name: 'w_sep', value: 7 },
      { type: 'set_param', name: 'model', value: 'olfati1' },
      { type: 'set_model', model: 'unicycle' },
      { type: 'reset', agents: 10, seed: 3 },
      { type: 'pause' },
      { type: 'resume' },
      { type: 'add_agents', count: 50 },
    ];
    const replies = [];
    for (const c of cmds) replies.push(await visitor.request(c));
    console.log(`# roles: visitor's operator commands answered ${replies.map((r) => `${r.cmd ?? '?'}: ${r.code ?? r.type}`).join(', ')}`);
    replies.forEach((r, i) => {
      assert.equal(r.type, 'error', `${JSON.stringify(cmds[i])}: ${JSON.stringify(r)}`);
      assert.equal(r.code, 'forbidden', `${JSON.stringify(cmds[i])}: ${JSON.stringify(r)}`);
    });
    // a later snapshot: same population, not paused, the tick went on (no reset)
    const afterSnap = await observer.nextSnapshot((s) => s.tick > before.tick + 5, 'a later snapshot');
    assert.equal(afterSnap.agents.count, AGENTS, 'the population is unchanged');
    assert.equal(afterSnap.paused, false, 'not paused');
    // and a newcomer's hello: parameters and model unchanged
    const newcomer = await connect(server.wsUrl);
    try {
      assert.equal(paramValue(newcomer.hello, 'w_sep'), 1.5, 'w_sep unchanged');
      assert.equal(paramValue(newcomer.hello, 'model'), 'reynolds', 'model unchanged');
    } finally {
      newcomer.close();
    }
    assert.deepEqual(observer.textsSince(obsMark).filter((m) => m.type === 'param'), [], 'no param broadcast');
  });

  test('a visitor may set and clear its own target', T, async () => {
    const ack = await visitor.command({ type: 'set_target', x: 321.5, y: 123.25 });
    const s = await observer.nextSnapshot((q) => q.tick >= ack.tick && q.targets.some((t) => t.client_id === visitor.hello.client_id),
      'the visitor\'s target');
    assert.deepEqual(s.targets.find((t) => t.client_id === visitor.hello.client_id), { client_id: visitor.hello.client_id, x: 321.5, y: 123.25 });
    await visitor.command({ type: 'clear_target' });
    await visitor.command({ type: 'set_target', x: 400, y: 300 });
  });

  let mine = []; // the visitor's obstacle ids

  test('a visitor adds up to 3 obstacles of its own; the 4th is limit_reached', T, async () => {
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await visitor.request({ type: 'add_obstacle', x: 200 + 100 * i, y: 200, radius: 20 }));
    console.log(`# roles: a visitor's 4 add_obstacle: ${replies.map((r) => r.code ?? `${r.type} ${r.obstacle_id}`).join(', ')}`);
    for (const r of replies.slice(0, 3)) assert.equal(r.type, 'ack', JSON.stringify(r));
    assert.equal(replies[3].type, 'error');
    assert.equal(replies[3].code, 'limit_reached');
    mine = replies.slice(0, 3).map((r) => r.obstacle_id);
    const s = await observer.nextSnapshot((q) => q.tick >= replies[2].tick && ownObstacles(q, mine).length === 3, 'the 3 obstacles');
    assert.equal(ownObstacles(s, mine).length, 3);
  });

  test('another visitor can neither move nor remove them; their owner can', T, async () => {
    const mv = await other.request({ type: 'move_obstacle', obstacle_id: mine[0], x: 900, y: 600 });
    const rm = await other.request({ type: 'remove_obstacle', obstacle_id: mine[1] });
    console.log(`# roles: another visitor's move_obstacle: ${mv.code ?? mv.type}, remove_obstacle: ${rm.code ?? rm.type}`);
    assert.equal(mv.code, 'forbidden', JSON.stringify(mv));
    assert.equal(rm.code, 'forbidden', JSON.stringify(rm));
    const s = await observer.nextSnapshot((q) => q.tick > Math.max(mv.tick ?? 0, rm.tick ?? 0), 'a snapshot after the attempts');
    const o = ownObstacles(s, mine);
    assert.equal(o.length, 3, 'all three are still there');
    assert.deepEqual(o.find((x) => x.id === mine[0]), { id: mine[0], x: 200, y: 200, radius: 20 }, 'not moved');
    // the owner may
    const own = await visitor.command({ type: 'move_obstacle', obstacle_id: mine[0], x: 250, y: 250 });
    assert.equal(own.obstacle_id, mine[0]);
    await observer.nextSnapshot((q) => q.tick >= own.tick && q.obstacles.some((x) => x.id === mine[0] && x.x === 250 && x.y === 250), 'the owner moved it');
  });

  test('when the visitor leaves, its obstacles and its target disappear', T, async () => {
    const id = visitor.hello.client_id;
    visitor.close();
    await visitor.closed;
    const s = await observer.nextSnapshot((q) => ownObstacles(q, mine).length === 0 && !q.targets.some((t) => t.client_id === id),
      'a snapshot without the visitor\'s obstacles and target', { timeoutMs: 5000 });
    console.log(`# roles: after the visitor left: ${s.obstacles.length} obstacles, ${s.targets.length} targets`);
  });

  test('auth with a wrong token is bad_token and changes nothing; with the right one the role becomes operator and set_param works', T, async () => {
    const bad = await other.request({ type: 'auth', token: 'guess' });
    assert.equal(bad.type, 'error', JSON.stringify(bad));
    assert.equal(bad.code, 'bad_token', JSON.stringify(bad));
    const still = await other.request({ type: 'set_param', name: 'w_sep', value: 2.5 });
    assert.equal(still.code, 'forbidden', 'still a visitor after a wrong token');

    const ok = await other.request({ type: 'auth', token: TOKEN });
    console.log(`# roles: auth with a wrong token: ${bad.code}; with the right one: ${ok.type} role ${ok.role}`);
    assert.equal(ok.type, 'ack', JSON.stringify(ok));
    assert.equal(ok.role, 'operator');
    const mark = observer.mark();
    const set = await other.command({ type: 'set_param', name: 'w_sep', value: 2.5 });
    assert.equal(set.value, 2.5);
    const p = await observer.waitText((m) => m.type === 'param' && m.name === 'w_sep', 'the param broadcast', { after: mark });
    assert.equal(p.value, 2.5);
    await other.command({ type: 'pause' });
    await observer.nextSnapshot((q) => q.paused, 'a paused snapshot');
    await other.command({ type: 'resume' });
  });

  test('an operator may remove a visitor\'s obstacle', T, async () => {
    const v = await connect(server.wsUrl);
    try {
      const add = await v.command({ type: 'add_obstacle', x: 700, y: 400, radius: 15 });
      const rm = await other.request({ type: 'remove_obstacle', obstacle_id: add.obstacle_id });
      assert.equal(rm.type, 'ack', JSON.stringify(rm));
      await observer.nextSnapshot((q) => q.tick >= rm.tick && !q.obstacles.some((o) => o.id === add.obstacle_id), 'the obstacle gone');
    } finally {
      v.close();
    }
  });
});

test('the control token may come from SWARMCAST_CONTROL_TOKEN', T, async () => {
  const server = await startServer({ agents: 50, env: { SWARMCAST_CONTROL_TOKEN: 'from-env' } });
  try {
    const c = await connect(server.wsUrl);
    assert.equal(c.hello.role, 'visitor');
    assert.equal(c.hello.control_token, true);
    assert.equal((await c.request({ type: 'pause' })).code, 'forbidden');
    assert.equal((await c.request({ type: 'auth', token: 'from-env' })).role, 'operator');
    await c.command({ type: 'pause' });
    c.close();
  } finally {
    await server.stop();
  }
});

test('without a token everyone is an operator: everything is allowed, as before', T, async () => {
  // (the population limit named: the derived one follows the machine's speed)
  // (a budget that affords a reset at once: a fresh connection has a quarter of one)
  const server = await startServer({ agents: 100, args: ['--max-agents', '1000', '--rate-scale', '4'] });
  try {
    const a = await connect(server.wsUrl);
    const b = await connect(server.wsUrl);
    console.log(`# roles without a token: hello role ${a.hello.role}, control_token ${a.hello.control_token}`);
    assert.equal(a.hello.role, 'operator');
    assert.equal(a.hello.control_token, false);
    // (a reset costs a whole budget: b, fresh, sends it)
    const reset = await b.command({ type: 'reset', agents: 100 });
    assert.equal(reset.count, 100);
    await a.command({ type: 'set_param', name: 'w_sep', value: 3 });
    await a.command({ type: 'add_agents', count: 10 });
    await a.command({ type: 'pause' });
    await a.command({ type: 'resume' });
    const auth = await a.request({ type: 'auth', token: 'anything' });
    assert.equal(auth.type, 'ack', JSON.stringify(auth));
    assert.equal(auth.role, 'operator');
    // no visitor quota: five obstacles, and they stay when their author leaves
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await a.command({ type: 'add_obstacle', x: 100 + 50 * i, y: 100, radius: 10 })).obstacle_id);
    a.close();
    await a.closed;
    await sleep(300);
    const s = await b.nextSnapshot(() => true, 'a snapshot after the author left');
    assert.equal(s.obstacles.filter((o) => ids.includes(o.id)).length, 5, 'an operator\'s obstacles stay');
    b.close();
  } finally {
    await server.stop();
  }
});

suite('with --allow-origin', () => {
  let server;
  before(async () => {
    server = await startServer({ agents: 50, args: ['--allow-origin', 'http://good.example,http://also.example:8080'] });
  });
  after(async () => { await server?.stop(); });

  /** The status the server answers an upgrade from `origin` with (101 when accepted). */
  async function upgradeStatus(origin) {
    const raw = await RawSocket.connect(server.port);
    try {
      raw.write(upgradeRequest({ origin }));
      const res = await raw.waitResponse(3000);
      if (res?.status === 101) {
        // accepted: it must also be served (hello), or be closed at once
        await raw.waitFor(() => raw.texts.length || raw.closeFrame || raw.closed, 'hello or a close', 3000).catch(() => {});
        return raw.texts.some((t) => t.includes('"hello"')) ? 'served' : `101 then closed ${JSON.stringify(raw.closeFrame)}`;
      }
      return res ? String(res.status) : 'closed';
    } finally {
      raw.destroy();
    }
  }

  test('refuses Origins outside the list (a look-alike, another port, another scheme, null) and accepts listed ones and none', T, async () => {
    // [label, Origin header (undefined: none), accepted?]
    const cases = [
      ['http://evil.example', 'http://evil.example', false],
      ['a look-alike', 'http://good.example.evil.example', false],
      ['another port', 'http://good.example:8080', false],
      ['another scheme', 'https://good.example', false],
      ['"null" (a sandboxed page)', 'null', false],
      ['no Origin', undefined, true],
      ['http://good.example', 'http://good.example', true],
      ['http://also.example:8080', 'http://also.example:8080', true],
    ];
    const got = {};
    for (const [label, origin] of cases) got[label] = await upgradeStatus(origin);
    console.log(`# --allow-origin: ${JSON.stringify(got)}`);
    for (const [label, , accepted] of cases) {
      if (accepted) assert.equal(got[label], 'served', `${label} must be accepted`);
      else assert.notEqual(got[label], 'served', `${label} must be refused: ${got[label]}`);
    }
  });

  test('with the ws library: an evil Origin fails the handshake, the good one and none are served', T, async () => {
    const evil = await openViewer(server.wsUrl, { origin: 'http://evil.example', timeoutMs: 3000 }).then(
      (v) => { v.close(); return 'opened'; }, (e) => `refused: ${e.message}`);
    const good = await openViewer(server.wsUrl, { origin: 'http://good.example' });
    const none = await openViewer(server.wsUrl, {});
    console.log(`# --allow-origin with ws: evil ${evil}; good: hello ${!!good.hello}; none: hello ${!!none.hello}`);
    assert.match(evil, /^refused/);
    await good.nextSnapshot(() => true, 'a snapshot for the good origin');
    await none.nextSnapshot(() => true, 'a snapshot without an origin');
    good.close();
    none.close();
  });
});
