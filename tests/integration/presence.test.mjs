// Many hands on one flock (issue 10): names and colours, who is here with
// role and target, cursors (coalesced), the activity feed, single step,
// and inspecting one agent — against the real server with `ws` clients.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';

const T = { timeout: 30000 };
const TOKEN = 'presence-secret';
const WAIT = { timeoutMs: 8000 };

const lastOf = (client, type) => client.texts.filter((m) => m.type === type).at(-1);
const memberOf = (presence, id) => presence?.clients.find((c) => c.id === id);

suite('presence, activity, step and inspect', () => {
  let server;
  let ada;   // becomes the operator
  let bob;   // stays a visitor and watches

  before(async () => {
    server = await startServer({ agents: 1500, args: ['--control-token', TOKEN, '--rate-scale', '4'] });
    ada = await connect(server.wsUrl);
    bob = await connect(server.wsUrl);
  });

  after(async () => {
    for (const c of [ada, bob]) c?.close();
    if (server) {
      const r = await server.stop();
      assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
    }
  });

  test('everyone starts with a generated name and colour, and a join is told in the feed', T, async () => {
    const adaId = ada.hello.client_id;
    const seen = await bob.waitText((m) => m.type === 'presence' && memberOf(m, adaId), 'a presence list with Ada', WAIT);
    const me = memberOf(seen, adaId);
    assert.equal(me.name, `Guest ${adaId}`);
    assert.match(me.color, /^#[0-9a-f]{6}$/);
    assert.equal(me.role, 'visitor');
    assert.equal(me.target, null);
    const feed = await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === `Guest ${bob.hello.client_id} joined`),
      'the feed telling that Bob joined', WAIT);
    assert.ok(feed.items.length <= 20);
  });

  test('a hello with a name and colour reaches the other client with the role, and the ack echoes them', T, async () => {
    const adaId = ada.hello.client_id;
    const ack = await ada.request({ type: 'hello', name: '  Ada ', color: '#E4572E' });
    assert.equal(ack.type, 'ack');
    assert.equal(ack.name, 'Ada');
    assert.equal(ack.color, '#e4572e');
    const p = await bob.waitText((m) => m.type === 'presence' && memberOf(m, adaId)?.name === 'Ada', 'Ada\'s name at Bob', WAIT);
    assert.equal(memberOf(p, adaId).color, '#e4572e');
    assert.equal(memberOf(p, adaId).role, 'visitor');
    // The first name is how the join is told; a later one is a rename.
    await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === 'Ada joined'), '"Ada joined"', WAIT);
    await ada.command({ type: 'hello', name: 'Ada L' });
    await ada.command({ type: 'hello', name: 'Ada' });
    const renamed = await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === 'Ada L is now Ada'),
      'the renames in the feed', WAIT);
    assert.ok(renamed.items.some((i) => i.text === 'Ada is now Ada L'));
    assert.ok(!renamed.items.some((i) => i.text.startsWith(`Guest ${adaId} is now`)));
    // The role changes with auth, and Bob sees it.
    const auth = await ada.request({ type: 'auth', token: TOKEN });
    assert.equal(auth.role, 'operator');
    await bob.waitText((m) => m.type === 'presence' && memberOf(m, adaId)?.role === 'operator', 'Ada as operator at Bob', WAIT);
    // A target shows in the list.
    await ada.command({ type: 'set_target', x: 300, y: 200 });
    const t = await bob.waitText((m) => m.type === 'presence' && memberOf(m, adaId)?.target, 'Ada\'s target at Bob', WAIT);
    assert.deepEqual(memberOf(t, adaId).target, [300, 200]);
  });

  test('a bad hello (too long, control characters, bad colour) is refused and changes nothing', T, async () => {
    const bad = [
      { name: 'x'.repeat(25) },
      { name: 'Ada\u0007' },
      { name: 'Line\nbreak' },
      { name: '   ' },
      { color: '#12345' },
      { color: 'red' },
      { name: 'Eve', color: '#zzzzzz' }, // one bad field: neither is applied
    ];
    for (const fields of bad) {
      const reply = await ada.request({ type: 'hello', ...fields });
      assert.equal(reply.type, 'error', `refused: ${JSON.stringify(fields)}`);
      assert.equal(reply.cmd, 'hello');
      assert.match(reply.code, /^(out_of_range|bad_type)$/);
      assert.ok(reply.message.length > 10, `a reason: ${reply.message}`);
    }
    const same = await ada.request({ type: 'hello' });
    assert.equal(same.name, 'Ada');
    assert.equal(same.color, '#e4572e');
    assert.equal(memberOf(lastOf(bob, 'presence'), ada.hello.client_id).name, 'Ada');
  });

  test('cursor moves reach the other client at most 10 times a second, ending at the last position', T, async () => {
    const mark = bob.mark();
    const adaId = ada.hello.client_id;
    // 40 moves, one every 50 ms (20 a second): twice what the server passes on.
    const SENT = 40;
    const started = performance.now();
    for (let k = 0; k < SENT; k++) {
      ada.send({ type: 'cursor', x: 100 + k, y: 50, id: null });
      await sleep(50);
    }
    const last = await bob.waitText((m) => m.type === 'cursors' && m.cursors.some((c) => c.id === adaId && c.x === 100 + SENT - 1),
      'Ada\'s last cursor at Bob', { after: mark, ...WAIT });
    const elapsed = performance.now() - started;
    assert.equal(last.cursors.find((c) => c.id === adaId).y, 50);
    const got = bob.textsSince(mark).filter((m) => m.type === 'cursors').length;
    // The server's 100 ms timer never fires twice to catch up: at most one
    // message per 100 ms elapsed, and one more for the start.
    const most = Math.ceil(elapsed / 100) + 1;
    console.log(`# cursors: ${SENT} moves over ${elapsed.toFixed(0)} ms, ${got} cursors messages received (at most ${most})`);
    assert.ok(got <= most, `at most 10 a second: ${got} messages in ${elapsed.toFixed(0)} ms`);
    assert.ok(got >= 2, 'and they keep coming while the pointer moves');
  });

  test('a parameter change appears in the feed as a sentence with the name and the readable label', T, async () => {
    const mark = bob.mark();
    await ada.command({ type: 'set_param', name: 'w_sep', value: 2.5 });
    const feed = await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === 'Ada set separation weight to 2.5'),
      'the sentence at Bob', { after: mark, ...WAIT });
    const item = feed.items.find((i) => i.text === 'Ada set separation weight to 2.5');
    assert.equal(item.id, ada.hello.client_id);
    assert.equal(item.name, 'Ada');
    assert.ok(feed.items.every((i, k) => k === 0 || i.seq > feed.items[k - 1].seq), 'seq ascending');
    await ada.command({ type: 'set_param', name: 'rule_sep', value: false });
    const echo = await bob.waitText((m) => m.type === 'param' && m.name === 'rule_sep', 'the rule_sep echo at Bob', { after: mark, ...WAIT });
    assert.equal(echo.value, false);
    await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === 'Ada switched separation rule off'),
      'the switch in the feed', { after: mark, ...WAIT });
    await ada.command({ type: 'set_param', name: 'rule_sep', value: true });
  });

  test('step: visitors may not, a running world refuses it, a paused one advances exactly one tick', T, async () => {
    const v = await bob.request({ type: 'step' });
    assert.equal(v.type, 'error');
    assert.equal(v.code, 'forbidden');
    const running = await ada.request({ type: 'step' });
    assert.equal(running.type, 'error');
    assert.equal(running.code, 'not_paused');
    await ada.command({ type: 'pause' });
    const still = await bob.nextSnapshot((s) => s.paused, 'a paused snapshot', WAIT);
    const stillAgain = await bob.nextSnapshot((s) => s.paused, 'another paused snapshot', WAIT);
    assert.equal(stillAgain.tick, still.tick, 'paused: the tick stands');
    const ack = await ada.command({ type: 'step' });
    const after = await bob.nextSnapshot((s) => s.tick !== still.tick, 'the stepped snapshot', WAIT);
    assert.equal(after.tick, still.tick + 1);
    assert.equal(ack.tick, still.tick);
    assert.ok(after.paused);
    const later = await bob.nextSnapshot(() => true, 'a later snapshot', WAIT);
    assert.equal(later.tick, still.tick + 1, 'one tick, not more');
    await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text.startsWith('Ada stepped one tick')), 'the step in the feed', WAIT);
    await ada.command({ type: 'resume' });
  });

  test('inspect returns the nearest agent\'s neighbours per zone, within the zones\' radii, until stopped', T, async () => {
    const snap = await bob.nextSnapshot(() => true, 'a snapshot', WAIT);
    // The agent with the most others around it, so that its zones hold some.
    const { x, y, count } = snap.agents;
    let best = 0;
    let bestN = -1;
    for (let i = 0; i < count; i += 7) {
      let n = 0;
      for (let j = 0; j < count; j++) if (Math.hypot(x[j] - x[i], y[j] - y[i]) < 40) n++;
      if (n > bestN) { bestN = n; best = i; }
    }
    const mark = bob.mark();
    bob.send({ type: 'inspect', x: x[best], y: y[best], id: null });
    const first = await bob.waitText((m) => m.type === 'inspect' && m.agent, 'an inspect message', { after: mark, ...WAIT });
    assert.ok(Math.hypot(first.agent.x - x[best], first.agent.y - y[best]) < 20 + 10, 'the agent near the point');
    for (const zone of ['separation', 'alignment', 'cohesion']) assert.ok(Array.isArray(first.neighbours[zone]));
    const listed = first.neighbours.cohesion.length + first.neighbours.alignment.length + first.neighbours.separation.length;
    assert.ok(listed > 0, `some neighbours (${JSON.stringify(first.counts)})`);
    const key = { separation: 'sep', alignment: 'ali', cohesion: 'coh' };
    for (const [zone, r] of Object.entries(key)) {
      for (const [nx, ny] of first.neighbours[zone]) {
        const d = Math.hypot(nx - first.agent.x, ny - first.agent.y);
        assert.ok(d < first.radii[r] + 0.02, `${zone} neighbour at ${d} within ${first.radii[r]}`);
      }
    }
    for (const rule of ['separation', 'alignment', 'cohesion', 'target']) assert.equal(first.steering[rule].length, 2);
    assert.equal(first.fov.sep, 300);
    // Every agent steers on every step unless staggered steering is set.
    assert.equal(first.steer_every, 1);
    assert.equal(first.steers_in, 0);
    // Updates keep coming for the same agent …
    const again = await bob.waitText((m) => m.type === 'inspect' && m.tick > first.tick, 'a later inspect', { after: mark, ...WAIT });
    assert.equal(again.agent.id, first.agent.id);
    // … until the selection stops.
    bob.send({ type: 'inspect', id: null });
    await sleep(700);
    const n1 = bob.texts.filter((m) => m.type === 'inspect').length;
    await sleep(700);
    const n2 = bob.texts.filter((m) => m.type === 'inspect').length;
    assert.equal(n2, n1, 'no inspect messages after the stop');
  });

  test('a ping is answered at once by a pong with its id, even while the world is paused', T, async () => {
    const mark = bob.mark();
    const ping = bob.send({ type: 'ping' });
    const pong = await bob.waitText((m) => m.type === 'pong', 'the pong', { after: mark, ...WAIT });
    assert.equal(pong.id, ping.id);
    const before = bob.mark();
    bob.send({ type: 'ping', id: -3 });
    const bad = await bob.waitText((m) => m.type === 'error', 'the refusal', { after: before, ...WAIT });
    assert.equal(bad.code, 'bad_type');
  });

  test('a departure is told in the feed and leaves the list', T, async () => {
    const eve = await connect(server.wsUrl);
    const eveId = eve.hello.client_id;
    await eve.request({ type: 'hello', name: 'Eve' });
    await bob.waitText((m) => m.type === 'presence' && memberOf(m, eveId)?.name === 'Eve', 'Eve here', WAIT);
    eve.close();
    await bob.waitText((m) => m.type === 'presence' && !memberOf(m, eveId), 'Eve gone from the list', WAIT);
    await bob.waitText((m) => m.type === 'activity' && m.items.some((i) => i.text === 'Eve left'), 'Eve left, in the feed', WAIT);
  });
});
