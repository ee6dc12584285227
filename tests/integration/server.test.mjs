// Integration tests against the real server binary (PROTOCOL.md is the
// contract): HTTP, hello, snapshots, every command, bad input, limits and
// shutdown. One server is shared by the tests below, which run in order.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { startServer, withTimeout, httpGet as httpGetFrom } from '../lib/server.mjs';
import { connect, DEFAULT_TIMEOUT_MS } from '../lib/client.mjs';

const T = { timeout: 20000 };

// The parameter table of PROTOCOL.md (the server's hello is the authority,
// but it must at least list these, with these defaults).
const PARAM_TABLE = {
  sep_radius: ['float', 1, 200, 25],
  ali_radius: ['float', 1, 200, 50],
  coh_radius: ['float', 1, 200, 50],
  fov_sep: ['float', 0, 360, 300],
  fov_ali: ['float', 0, 360, 300],
  fov_coh: ['float', 0, 360, 300],
  max_candidates: ['int', 16, 1024, 256],
  w_sep: ['float', 0, 20, 1.5],
  w_ali: ['float', 0, 20, 1],
  w_coh: ['float', 0, 20, 1],
  w_avoid: ['float', 0, 20, 1.5],
  w_leader: ['float', 0, 50, 10],
  max_speed: ['float', 1, 1000, 150],
  max_force: ['float', 1, 10000, 300],
  obstacle_buffer: ['float', 0, 200, 15],
  avoid_lookahead: ['float', 0.05, 5, 1],
  border: ['enum', null, null, 'wrap', ['bounce', 'respawn', 'wrap']],
  model: ['enum', null, null, 'reynolds', ['couzin', 'olfati1', 'olfati2', 'olfati3', 'reynolds', 'unicycle']],
};

let server;
let actor;      // sends the commands
let observer;   // a second client that only watches, the whole time
let hello;      // the actor's hello
let W;
let H;

before(async () => {
  // These tests check what each command does, in quick bursts (65
  // obstacles, say) that a person's budget would refuse: a hundredfold
  // budget; and they add agents, which the population limit derived from
  // this machine's speed might not leave room for on a busy machine: an
  // explicit one. Both defaults are tested in hostile-*.test.mjs.
  server = await startServer({ agents: 300, seed: 7, args: ['--rate-scale', '100', '--max-agents', '100000'] });
  observer = await connect(server.wsUrl);
  actor = await connect(server.wsUrl);
  hello = actor.hello;
  W = hello.world.width;
  H = hello.world.height;
});

after(async () => {
  for (const c of [actor, observer, refuser]) c?.close();
  if (server) {
    try { await server.stop(); } catch { /* reported by the shutdown test */ }
  }
});

// ------------------------------------------------------------------ helpers

function myTarget(snapshot, client) {
  return snapshot.targets.find((t) => t.client_id === client.hello.client_id);
}

/** What a refused command must leave unchanged. */
function worldSignature(s) {
  return JSON.stringify({
    count: s.agents.count, paused: s.paused, obstacles: s.obstacles, targets: s.targets,
  });
}

/** Waits for a snapshot (on client) for tick >= ack.tick satisfying pred. */
function snapshotAfterAck(client, ack, pred, what) {
  return client.nextSnapshot((s) => s.tick >= ack.tick && pred(s), what);
}

/** Sends many commands, at most `batch` outstanding, and returns their replies. */
async function requestAll(client, cmds, batch = 16) {
  const replies = [];
  for (let i = 0; i < cmds.length; i += batch) {
    replies.push(...await Promise.all(cmds.slice(i, i + batch).map((c) => client.request(c))));
  }
  return replies;
}

/** GET path from the shared server (node:http: the path goes out exactly as written). */
const httpGet = (path) => httpGetFrom(server.port, path, { timeoutMs: DEFAULT_TIMEOUT_MS });

let refuser; // a client used only for refused commands; it never sets a target

/**
 * Sends `payload` (an object, a string, or a Buffer sent as a binary frame)
 * from the refuser client and checks: an `error` with `code` arrives (echoing
 * `id` when given, `cmd` when given), no ack; the world is unchanged; the
 * connection still works (a valid command is acked); the observer keeps
 * receiving snapshots and sees no error and no param message.
 */
async function expectRefused(payload, { code, id = null, cmd, mentions }) {
  refuser ??= await connect(server.wsUrl);
  const before = await observer.nextSnapshot(() => true, 'an observer snapshot before the bad input');
  const sig = worldSignature(before);
  const obsMark = observer.mark();
  const mark = refuser.mark();

  if (Buffer.isBuffer(payload)) refuser.sendRaw(payload, { binary: true });
  else if (typeof payload === 'string') refuser.sendRaw(payload);
  else refuser.sendRaw(JSON.stringify(payload));

  const what = `an error ${code} for ${Buffer.isBuffer(payload) ? 'a binary frame' : JSON.stringify(payload).slice(0, 120)}`;
  const reply = await refuser.waitText((m) => m.type === 'error' || m.type === 'ack', what, { after: mark });
  assert.equal(reply.type, 'error', `${what}: got ${JSON.stringify(reply)}`);
  assert.equal(reply.code, code, `${what}: got ${JSON.stringify(reply)}`);
  assert.ok('id' in reply, `the error has an id field: ${JSON.stringify(reply)}`);
  assert.equal(reply.id, id, `the error echoes id ${id}: ${JSON.stringify(reply)}`);
  assert.ok('cmd' in reply, `the error has a cmd field: ${JSON.stringify(reply)}`);
  if (cmd !== undefined) assert.equal(reply.cmd, cmd, `the error names cmd ${cmd}: ${JSON.stringify(reply)}`);
  assert.equal(typeof reply.message, 'string', `the error has a message: ${JSON.stringify(reply)}`);
  assert.ok(reply.message.length > 0, `the message is not empty: ${what}: ${JSON.stringify(reply)}`);
  if (mentions) {
    assert.ok(reply.message.includes(mentions), `the message names "${mentions}": ${JSON.stringify(reply.message)}`);
  }

  // still usable: a valid, harmless command (the refuser owns no target)
  const ack = await refuser.command({ type: 'clear_target' });
  assert.equal(refuser.textsSince(mark).filter((m) => m.type === 'error').length, 1, 'exactly one error');
  assert.equal(refuser.textsSince(mark).filter((m) => m.type === 'ack').length, 1,
    `no ack for the refused message: ${JSON.stringify(refuser.textsSince(mark))}`);
  const afterSnap = await snapshotAfterAck(observer, ack, () => true, 'an observer snapshot after the bad input');
  assert.equal(worldSignature(afterSnap), sig, 'the world is unchanged');
  assert.ok(observer.snapshotCount > obsMark.snapshot, 'the observer kept receiving snapshots');
  const noise = observer.textsSince(obsMark).filter((m) => m.type === 'error' || m.type === 'param');
  assert.deepEqual(noise, [], 'the observer saw no error or param message');
  assert.equal(observer.decodeErrors.length, 0, 'the observer decoded every snapshot');
  assert.equal(observer.closeInfo, null, 'the observer is still connected');
  return reply;
}

// ------------------------------------------------------------------ HTTP

test('answers GET /healthz with 200 "ok" on the public port, and a JSON object on the metrics listener only', T, async () => {
  const pub = await httpGet('/healthz');
  assert.equal(pub.status, 200);
  assert.equal(pub.body, 'ok\n', 'the public /healthz says up, nothing more');
  assert.equal((await httpGet('/metrics')).status, 404, 'no /metrics on the public port');
  const res = await httpGetFrom(server.metricsPort, '/healthz');
  assert.equal(res.status, 200);
  let body;
  assert.doesNotThrow(() => { body = JSON.parse(res.body); }, `/healthz body is JSON: ${res.body.slice(0, 200)}`);
  assert.equal(typeof body, 'object');
  assert.ok(body !== null && !Array.isArray(body), 'a JSON object');
});

test('serves the web page at / with a canvas', T, async () => {
  const res = await httpGet('/');
  assert.equal(res.status, 200);
  assert.match(res.headers['content-type'] ?? '', /text\/html/);
  assert.ok(res.body.includes('<canvas'), 'the page contains <canvas');
});

test('serves the ES modules of the web client with a JavaScript MIME type', T, async () => {
  const res = await httpGet('/net/protocol.js');
  assert.equal(res.status, 200);
  assert.match(res.headers['content-type'] ?? '', /javascript/, 'browsers refuse module scripts of another type');
  assert.ok(res.body.includes('decodeSnapshot'));
});

test('does not serve files from outside the web root', T, async () => {
  for (const p of ['/../CMakeLists.txt', '/%2e%2e/CMakeLists.txt', '/..%2fCMakeLists.txt',
    '/../../../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd']) {
    const res = await httpGet(p);
    assert.ok(!res.body.includes('cmake_minimum_required') && !res.body.includes('root:x:0:0'),
      `GET ${p} must not leak a file (status ${res.status})`);
  }
});

// ------------------------------------------------------------------ hello and snapshots

test('the parameter table of PROTOCOL.md lists exactly the parameters hello sends, with their types, ranges and defaults', T, async () => {
  const doc = readFileSync(new URL('../../protocol/PROTOCOL.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Parameters'));
  const rows = new Map();
  for (const line of section.split('\n')) {
    const m = line.match(/^\| `(\w+)` \| (\w+) \|([^|]*)\|([^|]*)\|([^|]*)\|/);
    if (m) rows.set(m[1], { type: m[2], min: m[3].trim(), max: m[4].trim(), def: m[5].trim().replace(/`/g, '') });
  }
  const c = await connect(server.wsUrl);
  try {
    const h = c.hello;
    assert.deepEqual([...rows.keys()].sort(), h.params.map((p) => p.name).sort(), 'the same names');
    for (const p of h.params) {
      const row = rows.get(p.name);
      assert.equal(row.type, p.type, `${p.name}.type`);
      assert.equal(row.def, String(p.default), `${p.name}.default`);
      if (p.type === 'float' || p.type === 'int') {
        assert.equal(Number(row.min), p.min, `${p.name}.min`);
        assert.equal(Number(row.max), p.max, `${p.name}.max`);
      }
    }
    // The prose names the world-only ones, the ones hello marks world_only.
    const said = section.match(/^World-only \(refused with a `species`\): (.*)\.$/m);
    assert.ok(said, 'the section says which parameters are world-only');
    assert.deepEqual([...said[1].matchAll(/`(\w+)`/g)].map((m) => m[1]).sort(),
      h.params.filter((p) => p.world_only).map((p) => p.name).sort(), 'the world-only ones');
  } finally {
    c.close();
  }
});

test('sends hello first, with client_id, world size, limits and every parameter', T, async () => {
  const c = await connect(server.wsUrl);
  try {
    assert.equal(c.kinds[0], 'text', 'the first message is a text frame');
    const h = c.texts[0];
    assert.equal(h.type, 'hello', `the first message is hello: ${JSON.stringify(h).slice(0, 200)}`);
    assert.equal(h.protocol, 1);
    assert.equal(typeof h.server, 'string');
    assert.ok(Number.isInteger(h.client_id) && h.client_id >= 0, `client_id ${h.client_id}`);
    assert.notEqual(h.client_id, actor.hello.client_id, 'each connection has its own client_id');
    assert.notEqual(h.client_id, observer.hello.client_id, 'each connection has its own client_id');
    assert.ok(h.world.width > 0 && h.world.height > 0, `world ${JSON.stringify(h.world)}`);
    assert.ok(h.tick_hz > 0 && h.snapshot_hz > 0);
    assert.equal(h.limits.max_message_bytes, 4096);
    assert.equal(h.limits.max_obstacles, 64);
    assert.equal(h.limits.max_add_agents, 10000);
    assert.ok(Number.isInteger(h.limits.max_agents) && h.limits.max_agents >= 300);
    assert.ok(Array.isArray(h.params), 'params is a list');
    const names = new Set();
    for (const p of h.params) {
      const at = `param ${JSON.stringify(p)}`;
      assert.equal(typeof p.name, 'string', at);
      assert.ok(!names.has(p.name), `${p.name} is listed once`);
      names.add(p.name);
      assert.ok(['float', 'int', 'bool', 'enum'].includes(p.type), at);
      assert.ok('default' in p && 'value' in p, `${at} has default and value`);
      if (p.type === 'float' || p.type === 'int') {
        for (const k of ['min', 'max', 'default', 'value']) assert.equal(typeof p[k], 'number', `${at}: ${k}`);
        assert.ok(p.min <= p.default && p.default <= p.max, `${at}: default in range`);
        assert.ok(p.min <= p.value && p.value <= p.max, `${at}: value in range`);
      } else if (p.type === 'bool') {
        assert.equal(typeof p.default, 'boolean', at);
        assert.equal(typeof p.value, 'boolean', at);
      } else {
        assert.ok(Array.isArray(p.values) && p.values.length > 0, `${at}: values`);
        assert.ok(p.values.includes(p.default) && p.values.includes(p.value), at);
      }
    }
    for (const [name, [type, min, max, def]] of Object.entries(PARAM_TABLE)) {
      const p = h.params.find((q) => q.name === name);
      assert.ok(p, `hello lists ${name}`);
      assert.equal(p.type, type, `${name}.type`);
      assert.equal(p.default, def, `${name}.default`);
      assert.equal(p.value, def, `${name}.value (untouched so far)`);
      if (type === 'float' || type === 'int') {
        assert.equal(p.min, min, `${name}.min`);
        assert.equal(p.max, max, `${name}.max`);
      } else {
        assert.deepEqual([...p.values].sort(), PARAM_TABLE[name][4], `${name}.values`);
      }
    }
  } finally {
    c.close();
  }
});

test('accepts the swarmcast.v1 subprotocol and also a client that names none', T, async () => {
  assert.equal(actor.ws.protocol, 'swarmcast.v1', 'the subprotocol is selected');
  const c = await connect(server.wsUrl, { protocols: [] });
  try {
    assert.equal(c.texts[0].type, 'hello');
    await c.nextSnapshot(() => true, 'a snapshot without a subprotocol');
  } finally {
    c.close();
  }
});

test('streams snapshots of 300 agents inside the world with advancing ticks', T, async () => {
  const snaps = await actor.snapshots(6);
  for (const s of snaps) {
    assert.equal(s.kind, 0x53);
    assert.equal(s.version, 1);
    assert.equal(s.paused, false);
    assert.equal(s.flags, 0, 'no flag bits but bit 0, which is clear while running');
    assert.equal(s.world_width, W);
    assert.equal(s.world_height, H);
    assert.equal(s.agents.count, 300);
    assert.equal(s.obstacles.length, 0);
    assert.equal(s.targets.length, 0);
    for (let i = 0; i < s.agents.count; i++) {
      assert.ok(s.agents.x[i] >= 0 && s.agents.x[i] < W && s.agents.y[i] >= 0 && s.agents.y[i] < H,
        `agent ${i} inside the world`);
      assert.equal(s.agents.flags[i] & ~1, 0, `agent ${i}: only flag bit 0 is used`);
    }
  }
  for (let k = 1; k < snaps.length; k++) {
    assert.ok(snaps[k].tick > snaps[k - 1].tick, `ticks advance: ${snaps.map((s) => s.tick)}`);
  }
  const a = snaps[0].agents;
  const b = snaps[snaps.length - 1].agents;
  let moved = 0;
  for (let i = 0; i < a.count; i++) if (a.x_q[i] !== b.x_q[i] || a.y_q[i] !== b.y_q[i]) moved++;
  assert.ok(moved > 150, `agents move (${moved} of 300 moved)`);
});

// ------------------------------------------------------------------ commands

test('set_target is acked and this client\'s target appears at those coordinates', T, async () => {
  const ack = await actor.command({ type: 'set_target', x: 400.5, y: 300.25 });
  assert.equal(ack.cmd, 'set_target');
  assert.ok(Number.isInteger(ack.tick));
  const s = await snapshotAfterAck(actor, ack, (q) => myTarget(q, actor), 'my target in a snapshot');
  assert.deepEqual(myTarget(s, actor), { client_id: actor.hello.client_id, x: 400.5, y: 300.25 });
  // every client sees every target
  const o = await observer.nextSnapshot((q) => myTarget(q, actor), 'the actor\'s target, seen by the observer');
  assert.equal(myTarget(o, actor).x, 400.5);
});

test('the snapshot for an ack\'s tick already shows the command\'s effect', T, async () => {
  const ack = await actor.command({ type: 'set_target', x: 1000.75, y: 200.5 });
  const s = await actor.nextSnapshot((q) => q.tick >= ack.tick, `a snapshot for tick >= ${ack.tick}`);
  assert.deepEqual(myTarget(s, actor), { client_id: actor.hello.client_id, x: 1000.75, y: 200.5 },
    `snapshot tick ${s.tick}, ack tick ${ack.tick}`);
});

test('targets of several clients are listed in increasing client_id order', T, async () => {
  const other = await connect(server.wsUrl);
  try {
    await other.command({ type: 'set_target', x: 10, y: 20 });
    const s = await actor.nextSnapshot((q) => q.targets.length >= 2, 'two targets');
    const ids = s.targets.map((t) => t.client_id);
    assert.deepEqual(ids, [...ids].sort((p, q) => p - q));
  } finally {
    other.close();
  }
});

test('clear_target is acked and the target disappears', T, async () => {
  const ack = await actor.command({ type: 'clear_target' });
  assert.equal(ack.cmd, 'clear_target');
  const s = await snapshotAfterAck(actor, ack, (q) => !myTarget(q, actor), 'my target gone');
  assert.equal(myTarget(s, actor), undefined);
});

test('an ack echoes the command\'s id, or null when it had none', T, async () => {
  const a = await actor.command({ type: 'clear_target', id: 4294967295 });
  assert.equal(a.id, 4294967295);
  const b = await actor.command({ type: 'clear_target', id: 0 });
  assert.equal(b.id, 0);
  const mark = actor.mark();
  actor.send({ type: 'clear_target', id: null, note: 'unknown extra fields are ignored' });
  const c = await actor.waitText((m) => m.type === 'ack' || m.type === 'error', 'the reply to an id-less command', { after: mark });
  assert.equal(c.type, 'ack', JSON.stringify(c));
  assert.ok('id' in c, 'the ack has an id field');
  assert.equal(c.id, null);
  assert.equal(c.cmd, 'clear_target');
});

let obstacleId;

test('add_obstacle is acked with an obstacle_id and the obstacle appears', T, async () => {
  const ack = await actor.command({ type: 'add_obstacle', x: 700.5, y: 450.25, radius: 42.5 });
  assert.equal(ack.cmd, 'add_obstacle');
  assert.ok(Number.isInteger(ack.obstacle_id) && ack.obstacle_id >= 0, `obstacle_id ${ack.obstacle_id}`);
  obstacleId = ack.obstacle_id;
  const s = await snapshotAfterAck(actor, ack, (q) => q.obstacles.some((o) => o.id === obstacleId), 'the new obstacle');
  assert.deepEqual(s.obstacles.find((o) => o.id === obstacleId), { id: obstacleId, x: 700.5, y: 450.25, radius: 42.5 });
  const second = await actor.command({ type: 'add_obstacle', x: 100, y: 100, radius: 1 });
  assert.notEqual(second.obstacle_id, obstacleId, 'each obstacle gets its own id');
  await actor.command({ type: 'remove_obstacle', obstacle_id: second.obstacle_id });
});

test('remove_obstacle is acked and the obstacle is gone', T, async () => {
  assert.ok(obstacleId !== undefined, 'add_obstacle ran');
  const ack = await actor.command({ type: 'remove_obstacle', obstacle_id: obstacleId });
  assert.equal(ack.cmd, 'remove_obstacle');
  const s = await snapshotAfterAck(actor, ack, (q) => !q.obstacles.some((o) => o.id === obstacleId), 'the obstacle gone');
  assert.equal(s.obstacles.length, 0);
});

test('add_obstacle refuses a 65th obstacle with limit_reached', T, async () => {
  const adds = [];
  for (let i = 0; i < 64; i++) adds.push({ type: 'add_obstacle', x: 20 + 24 * i, y: 30, radius: 5 });
  const replies = await requestAll(actor, adds);
  assert.deepEqual(replies.filter((r) => r.type !== 'ack'), [], '64 obstacles are accepted');
  const s = await actor.nextSnapshot((q) => q.obstacles.length === 64, '64 obstacles');
  assert.equal(s.obstacles.length, 64);
  const refused = await actor.request({ type: 'add_obstacle', x: 500, y: 500, radius: 5 });
  assert.equal(refused.type, 'error', JSON.stringify(refused));
  assert.equal(refused.code, 'limit_reached');
  assert.equal(refused.cmd, 'add_obstacle');
  const removes = replies.map((r) => ({ type: 'remove_obstacle', obstacle_id: r.obstacle_id }));
  const removed = await requestAll(actor, removes);
  assert.deepEqual(removed.filter((r) => r.type !== 'ack'), []);
  await actor.nextSnapshot((q) => q.obstacles.length === 0, 'no obstacles left');
});

test('set_param is acked, broadcast as param to every client and shown in a new client\'s hello', T, async () => {
  const obsMark = observer.mark();
  const actMark = actor.mark();
  const ack = await actor.command({ type: 'set_param', name: 'sep_radius', value: 30 });
  assert.equal(ack.cmd, 'set_param');
  assert.equal(ack.name, 'sep_radius');
  assert.equal(ack.value, 30);
  for (const [who, c, m] of [['the sender', actor, actMark], ['a second client', observer, obsMark]]) {
    const p = await c.waitText((q) => q.type === 'param', `the param broadcast at ${who}`, { after: m });
    assert.equal(p.name, 'sep_radius', who);
    assert.equal(p.value, 30, who);
    assert.equal(p.by, actor.hello.client_id, `${who}: by`);
    assert.ok(Number.isInteger(p.tick), `${who}: tick`);
  }
  const late = await connect(server.wsUrl);
  try {
    assert.equal(late.hello.params.find((q) => q.name === 'sep_radius').value, 30);
  } finally {
    late.close();
  }
  // an enum parameter, and back
  const e = await actor.command({ type: 'set_param', name: 'border', value: 'bounce' });
  assert.equal(e.value, 'bounce');
  await observer.waitText((q) => q.type === 'param' && q.name === 'border' && q.value === 'bounce', 'the border broadcast', { after: obsMark });
  await actor.command({ type: 'set_param', name: 'border', value: 'wrap' });
  await actor.command({ type: 'set_param', name: 'sep_radius', value: 25 });
});

test('set_param with a species is refused for a world-only parameter, and the world keeps its value', T, async () => {
  // The step reads these from the world's values only: a species' own value
  // would change nothing (species 1-3) or the whole world (species 0).
  const cases = [
    [{ type: 'set_param', id: 55, name: 'steer_every', value: 3, species: 1 }, 'steer_every', 1],
    [{ type: 'set_param', id: 56, name: 'border', value: 'bounce', species: 0 }, 'border', 'wrap'],
  ];
  for (const [payload, name, kept] of cases) {
    const reply = await expectRefused(payload, { code: 'out_of_range', id: payload.id, cmd: 'set_param', mentions: name });
    assert.ok(reply.message.includes('without species'), `the message says how: ${JSON.stringify(reply.message)}`);
    const late = await connect(server.wsUrl);
    try {
      const p = late.hello.params.find((q) => q.name === name);
      assert.equal(p.value, kept, `${name}: the world's value is unchanged`);
      assert.equal(p.world_only, true, `hello marks ${name} world_only`);
    } finally {
      late.close();
    }
  }
  // a species' own value of any other parameter is still taken
  const ack = await actor.command({ type: 'set_param', name: 'w_sep', value: 2, species: 1 });
  assert.equal(ack.value, 2);
  assert.equal(ack.species, 1);
  assert.equal(actor.hello.params.find((q) => q.name === 'w_sep').world_only, false);
  await actor.command({ type: 'set_param', name: 'w_sep', value: 1.5, species: 1 });
});

test('add_agents grows the population by count, with ids after the last one', T, async () => {
  const before = await actor.nextSnapshot();
  const n0 = before.agents.count;
  const ack = await actor.command({ type: 'add_agents', count: 25 });
  assert.equal(ack.cmd, 'add_agents');
  assert.equal(ack.count, 25);
  assert.equal(ack.first_agent_id, n0);
  const s = await snapshotAfterAck(actor, ack, (q) => q.agents.count === n0 + 25, `${n0 + 25} agents`);
  assert.equal(s.agents.count, n0 + 25);
});

test('add_agents with x and y scatters the new agents near that point', T, async () => {
  const px = 200.5;
  const py = 150.25;
  const ack = await actor.command({ type: 'add_agents', count: 40, x: px, y: py });
  assert.equal(ack.count, 40);
  const first = ack.first_agent_id;
  const s = await snapshotAfterAck(actor, ack, (q) => q.agents.count >= first + 40, 'the new agents');
  const maxSpeed = hello.params.find((p) => p.name === 'max_speed').value;
  // 50 u of scatter, plus how far they can have flown since they were added
  const slack = 50 + maxSpeed * (s.tick - ack.tick + 1) / hello.tick_hz + 1;
  for (let i = first; i < first + 40; i++) {
    const d = Math.hypot(s.agents.x[i] - px, s.agents.y[i] - py);
    assert.ok(d <= slack, `agent ${i} is ${d.toFixed(1)} u from (${px}, ${py}); allowed ${slack.toFixed(1)}`);
  }
});

test('reset with a seed restarts at a low tick with the requested count, removing obstacles but keeping targets', T, async () => {
  await actor.command({ type: 'add_obstacle', x: 300, y: 300, radius: 20 });
  await actor.command({ type: 'set_target', x: 111.5, y: 222.5 });
  const ack = await actor.command({ type: 'reset', seed: 42, agents: 200 });
  assert.equal(ack.cmd, 'reset');
  assert.equal(ack.seed, 42);
  const s = await actor.nextSnapshot((q) => q.agents.count === 200, 'a snapshot of the reset world');
  assert.ok(s.tick < 30, `tick restarts low: ${s.tick}`);
  assert.equal(s.obstacles.length, 0, 'obstacles are removed');
  assert.deepEqual(myTarget(s, actor), { client_id: actor.hello.client_id, x: 111.5, y: 222.5 }, 'targets are kept');
  const later = await actor.nextSnapshot((q) => q.tick > s.tick, 'the world running after reset');
  assert.equal(later.agents.count, 200);
  await actor.command({ type: 'clear_target' });
});

function positionsOf(s) {
  return { x: [...s.agents.x_q], y: [...s.agents.y_q], h: [...s.agents.heading_q] };
}

/**
 * A reset while paused: waits for a snapshot of the new world (count agents,
 * tick 0 or 1), then takes the next one, as the first may have been encoded
 * before the reset was applied; paused, the two must be the same.
 */
async function pausedReset(cmd, count) {
  const ack = await actor.command(cmd);
  const first = await actor.nextSnapshot((q) => q.agents.count === count && q.tick <= 1,
    `a snapshot of ${count} agents at tick 0 after ${JSON.stringify(cmd)}`);
  const s = await actor.nextSnapshot(() => true, `a second snapshot after ${JSON.stringify(cmd)}`);
  assert.equal(s.paused, true, 'still paused');
  assert.equal(s.agents.count, count);
  assert.equal(s.tick, first.tick, 'paused: the tick stays');
  return { ack, s };
}

test('two resets with the same seed while paused produce identical snapshots', T, async () => {
  await actor.command({ type: 'pause' });
  try {
    const a = await pausedReset({ type: 'reset', seed: 1234, agents: 150 }, 150);
    assert.equal(a.ack.seed, 1234);
    const other = await pausedReset({ type: 'reset', seed: 99, agents: 150 }, 150);
    assert.notDeepEqual(positionsOf(other.s), positionsOf(a.s), 'another seed gives another world');
    const b = await pausedReset({ type: 'reset', seed: 1234, agents: 150 }, 150);
    assert.deepEqual(positionsOf(b.s), positionsOf(a.s), 'the same seed gives the same world');
    assert.equal(b.s.tick, a.s.tick);
    // no seed: the current one; no agents: the current count
    const c = await pausedReset({ type: 'reset' }, 150);
    assert.equal(c.ack.seed, 1234, 'reset without a seed keeps the current seed');
    assert.equal(c.s.agents.count, 150, 'reset without agents keeps the count');
    assert.deepEqual(positionsOf(c.s), positionsOf(a.s));
  } finally {
    await actor.command({ type: 'resume' });
  }
  await actor.command({ type: 'reset', seed: 7, agents: 300 });
});

test('pause stops the ticks and sets flags bit 0; snapshots keep flowing; resume restarts them', T, async () => {
  const ack = await actor.command({ type: 'pause' });
  assert.equal(ack.cmd, 'pause');
  await actor.nextSnapshot((q) => q.paused, 'a paused snapshot');
  const paused = await actor.snapshots(5);
  for (const s of paused) {
    assert.equal(s.paused, true);
    assert.equal(s.flags & 1, 1);
    assert.equal(s.tick, paused[0].tick, `the tick stays: ${paused.map((q) => q.tick)}`);
  }
  assert.deepEqual(positionsOf(paused[4]), positionsOf(paused[0]), 'agents stay still');
  assert.ok((await observer.nextSnapshot()).paused, 'every client sees the pause');
  const r = await actor.command({ type: 'resume' });
  assert.equal(r.cmd, 'resume');
  const s = await actor.nextSnapshot((q) => !q.paused && q.tick > paused[0].tick, 'a running snapshot');
  assert.equal(s.flags & 1, 0);
  const t = await actor.nextSnapshot((q) => q.tick > s.tick, 'ticks advancing again');
  assert.equal(t.paused, false);
});

test('more than 32 commands waiting for one tick are answered with rate_limited, one reply each', T, async () => {
  const mark = actor.mark();
  const ids = [];
  const burst = [];
  for (let i = 0; i < 200; i++) {
    const id = 900000 + i;
    ids.push(id);
    burst.push(JSON.stringify({ type: 'clear_target', id }));
  }
  for (const m of burst) actor.sendRaw(m);
  await actor.waitFor(() => {
    const seen = new Set(actor.textsSince(mark).filter((m) => m.type === 'ack' || m.type === 'error').map((m) => m.id));
    return ids.every((id) => seen.has(id));
  }, 'a reply to each of 200 commands', { timeoutMs: 8000 });
  const replies = actor.textsSince(mark).filter((m) => ids.includes(m.id));
  assert.equal(replies.length, 200, 'exactly one reply per command');
  const limited = replies.filter((m) => m.type === 'error');
  assert.ok(limited.length > 0, 'some commands were rate limited');
  for (const e of limited) assert.equal(e.code, 'rate_limited', JSON.stringify(e));
  await actor.command({ type: 'clear_target' });
});

// ------------------------------------------------------------------ bad input

// Each group is one test; each case in it a subtest, so one failing case
// does not hide the others. `mentions`: a word the error message must contain.
const BAD_INPUT = [
  ['refuses malformed JSON with bad_json', [
    ['a truncated object', '{"type": "set_target", "x": 1', { code: 'bad_json', id: null, cmd: null }],
    ['plain text', 'hello', { code: 'bad_json', id: null, cmd: null }],
    ['an empty message', '', { code: 'bad_json', id: null, cmd: null }],
  ]],
  // PROTOCOL.md "Strict JSON": each of these cJSON alone would read (most as a
  // valid command); the message names what is wrong and at which byte.
  ['refuses text outside the strict JSON grammar with bad_json naming the byte', [
    ['a byte-order mark', '\uFEFF{"type":"pause","id":80}', { code: 'bad_json', id: null, cmd: null, mentions: 'byte-order mark at byte 0' }],
    ['a leading zero', '{"type":"add_agents","count":01,"id":81}', { code: 'bad_json', id: null, cmd: null, mentions: 'leading zero in a number at byte 29' }],
    ['a negative number with a leading zero', '{"type":"reset","seed":-01}', { code: 'bad_json', id: null, cmd: null, mentions: 'leading zero in a number at byte 23' }],
    ['a number ending in a dot', '{"type":"add_agents","count":1.,"id":82}', { code: 'bad_json', id: null, cmd: null, mentions: "'.' must be followed by a digit at byte 30" }],
    ['a number starting with a dot', '{"type":"set_param","name":"w_sep","value":.5}', { code: 'bad_json', id: null, cmd: null, mentions: "not '.' at byte 43" }],
    ['a plus sign', '{"type":"reset","seed":+1}', { code: 'bad_json', id: null, cmd: null, mentions: "may not start with '+' at byte 23" }],
    ['an exponent without digits', '{"type":"reset","seed":1e}', { code: 'bad_json', id: null, cmd: null, mentions: 'exponent has no digits at byte 24' }],
    ['a hexadecimal number', '{"type":"reset","seed":0x10}', { code: 'bad_json', id: null, cmd: null, mentions: "unexpected 'x' in a number at byte 24" }],
    ['NaN', '{"type":"set_param","name":"w_sep","value":NaN}', { code: 'bad_json', id: null, cmd: null, mentions: 'NaN and Infinity' }],
    ['Infinity', '{"type":"set_param","name":"w_sep","value":Infinity}', { code: 'bad_json', id: null, cmd: null, mentions: 'NaN and Infinity' }],
    ['a duplicate key', '{"type":"pause","type":"reset"}', { code: 'bad_json', id: null, cmd: null, mentions: "duplicate key 'type' at byte 16" }],
    ['a duplicate key written with an escape', '{"type":"pause","typ\\u0065":"reset"}', { code: 'bad_json', id: null, cmd: null, mentions: "duplicate key 'type' at byte 16" }],
    ['a NUL byte in a string', '{"type":"pa\u0000use"}', { code: 'bad_json', id: null, cmd: null, mentions: 'NUL byte in a string at byte 11' }],
    ['an escaped NUL that would cut the value short', '{"type":"set_param","name":"border","value":"bounce\\u0000x"}', { code: 'bad_json', id: null, cmd: null, mentions: 'escaped NUL' }],
    ['a raw tab in a string', '{"type":"pause","note":"a\tb"}', { code: 'bad_json', id: null, cmd: null, mentions: 'control character 0x09 in a string at byte 25' }],
    ['a control character before the object', '\u0001{"type":"pause"}', { code: 'bad_json', id: null, cmd: null, mentions: 'control character 0x01 at byte 0' }],
    ['a second object after the first', '{"type":"pause"} {"type":"resume"}', { code: 'bad_json', id: null, cmd: null, mentions: 'text after the JSON value' }],
    ['an unknown escape', '{"type":"pa\\x75se"}', { code: 'bad_json', id: null, cmd: null, mentions: 'invalid escape' }],
    ['a lone surrogate escape', '{"type":"pause","note":"\\ud800"}', { code: 'bad_json', id: null, cmd: null, mentions: 'unpaired UTF-16 surrogate' }],
    ['an unterminated string', '{"type":"pause', { code: 'bad_json', id: null, cmd: null, mentions: 'unterminated string at byte 8' }],
    ['a trailing comma', '{"type":"pause",}', { code: 'bad_json', id: null, cmd: null, mentions: "trailing comma before '}' at byte 15" }],
    ['nesting deeper than 16 levels', `{"type":"pause","x":${'['.repeat(16)}${']'.repeat(16)}}`, { code: 'bad_json', id: null, cmd: null, mentions: 'nested deeper than 16 levels at byte 35' }],
  ]],
  ['refuses a JSON array, number, string or null instead of an object with bad_json', [
    ['an array holding a command', '[{"type":"pause","id":1}]', { code: 'bad_json', id: null, cmd: null }],
    ['a number', '42', { code: 'bad_json', id: null, cmd: null }],
    ['a string', '"pause"', { code: 'bad_json', id: null, cmd: null }],
    ['null', 'null', { code: 'bad_json', id: null, cmd: null }],
  ]],
  ['refuses an unknown, missing or non-string command type with unknown_command', [
    ['an unknown type', { type: 'fly', id: 5 }, { code: 'unknown_command', id: 5 }],
    ['no type', { id: 6, x: 1 }, { code: 'unknown_command', id: 6 }],
    ['a number as type', { type: 3, id: 7 }, { code: 'unknown_command', id: 7 }],
    ['a type in the wrong case', { type: 'PAUSE', id: 8 }, { code: 'unknown_command', id: 8 }],
  ]],
  ['refuses a command with a missing field with missing_field', [
    ['set_target without y', { type: 'set_target', id: 10, x: 10 }, { code: 'missing_field', id: 10, cmd: 'set_target', mentions: 'y' }],
    ['add_obstacle without radius', { type: 'add_obstacle', id: 11, x: 10, y: 10 }, { code: 'missing_field', id: 11, cmd: 'add_obstacle', mentions: 'radius' }],
    ['remove_obstacle without obstacle_id', { type: 'remove_obstacle', id: 12 }, { code: 'missing_field', id: 12, cmd: 'remove_obstacle', mentions: 'obstacle_id' }],
    ['set_param without value', { type: 'set_param', id: 13, name: 'sep_radius' }, { code: 'missing_field', id: 13, cmd: 'set_param', mentions: 'value' }],
    ['add_agents without count', { type: 'add_agents', id: 14 }, { code: 'missing_field', id: 14, cmd: 'add_agents', mentions: 'count' }],
  ]],
  ['refuses fields of the wrong JSON type with bad_type', [
    ['a string for a number', { type: 'set_target', id: 20, x: '10', y: 10 }, { code: 'bad_type', id: 20, cmd: 'set_target', mentions: 'x' }],
    ['null for a number', { type: 'add_obstacle', id: 21, x: 10, y: 10, radius: null }, { code: 'bad_type', id: 21, cmd: 'add_obstacle', mentions: 'radius' }],
    ['a fraction for the count', { type: 'add_agents', id: 22, count: 2.5 }, { code: 'bad_type', id: 22, cmd: 'add_agents', mentions: 'count' }],
    ['a string for the count', { type: 'add_agents', id: 23, count: '3' }, { code: 'bad_type', id: 23, cmd: 'add_agents', mentions: 'count' }],
    ['a fraction for an obstacle id', { type: 'remove_obstacle', id: 24, obstacle_id: 1.5 }, { code: 'bad_type', id: 24, cmd: 'remove_obstacle', mentions: 'obstacle_id' }],
    ['a string for the seed', { type: 'reset', id: 25, seed: 'seven' }, { code: 'bad_type', id: 25, cmd: 'reset', mentions: 'seed' }],
    ['a fraction for the agent count of reset', { type: 'reset', id: 26, agents: 10.25 }, { code: 'bad_type', id: 26, cmd: 'reset', mentions: 'agents' }],
    ['a string for a float parameter', { type: 'set_param', id: 27, name: 'sep_radius', value: '30' }, { code: 'bad_type', id: 27, cmd: 'set_param' }],
    ['a boolean for a float parameter', { type: 'set_param', id: 28, name: 'sep_radius', value: true }, { code: 'bad_type', id: 28, cmd: 'set_param' }],
    ['a number for an enum parameter', { type: 'set_param', id: 29, name: 'border', value: 1 }, { code: 'bad_type', id: 29, cmd: 'set_param' }],
    ['a number as parameter name', { type: 'set_param', id: 30, name: 7, value: 1 }, { code: 'bad_type', id: 30, cmd: 'set_param', mentions: 'name' }],
  ]],
  ['refuses out-of-range values with out_of_range', () => [
    ['a target beyond the world width', { type: 'set_target', id: 40, x: W + 1, y: 10 }, { code: 'out_of_range', id: 40, cmd: 'set_target', mentions: 'x' }],
    ['a target above the world', { type: 'set_target', id: 41, x: 10, y: -0.5 }, { code: 'out_of_range', id: 41, cmd: 'set_target', mentions: 'y' }],
    ['an obstacle of radius 0', { type: 'add_obstacle', id: 42, x: 10, y: 10, radius: 0 }, { code: 'out_of_range', id: 42, cmd: 'add_obstacle', mentions: 'radius' }],
    ['an obstacle of radius 500.5', { type: 'add_obstacle', id: 43, x: 10, y: 10, radius: 500.5 }, { code: 'out_of_range', id: 43, cmd: 'add_obstacle', mentions: 'radius' }],
    ['an obstacle outside the world', { type: 'add_obstacle', id: 44, x: -10, y: 10, radius: 5 }, { code: 'out_of_range', id: 44, cmd: 'add_obstacle', mentions: 'x' }],
    ['a parameter value above its maximum', { type: 'set_param', id: 45, name: 'sep_radius', value: 500 }, { code: 'out_of_range', id: 45, cmd: 'set_param', mentions: 'sep_radius' }],
    ['a parameter value below its minimum', { type: 'set_param', id: 46, name: 'fov_coh', value: -1 }, { code: 'out_of_range', id: 46, cmd: 'set_param', mentions: 'fov_coh' }],
    ['an unknown enum value', { type: 'set_param', id: 47, name: 'border', value: 'diagonal' }, { code: 'out_of_range', id: 47, cmd: 'set_param', mentions: 'border' }],
    ['add_agents of 0', { type: 'add_agents', id: 48, count: 0 }, { code: 'out_of_range', id: 48, cmd: 'add_agents', mentions: 'count' }],
    ['add_agents of 10001', { type: 'add_agents', id: 49, count: 10001 }, { code: 'out_of_range', id: 49, cmd: 'add_agents', mentions: 'count' }],
    ['add_agents at a point below the world', { type: 'add_agents', id: 50, count: 5, x: 10, y: H + 5 }, { code: 'out_of_range', id: 50, cmd: 'add_agents', mentions: 'y' }],
    ['a negative obstacle id', { type: 'remove_obstacle', id: 51, obstacle_id: -1 }, { code: 'out_of_range', id: 51, cmd: 'remove_obstacle', mentions: 'obstacle_id' }],
    ['a negative seed', { type: 'reset', id: 52, seed: -1 }, { code: 'out_of_range', id: 52, cmd: 'reset', mentions: 'seed' }],
    ['a seed of 2^32', { type: 'reset', id: 53, seed: 4294967296 }, { code: 'out_of_range', id: 53, cmd: 'reset', mentions: 'seed' }],
    ['a reset to more than max_agents', { type: 'reset', id: 54, agents: hello.limits.max_agents + 1 }, { code: 'out_of_range', id: 54, cmd: 'reset', mentions: 'agents' }],
  ]],
  ['refuses set_param with an unknown name with unknown_param', [
    ['an unknown parameter', { type: 'set_param', id: 60, name: 'warp_speed', value: 9 }, { code: 'unknown_param', id: 60, cmd: 'set_param', mentions: 'warp_speed' }],
  ]],
  ['refuses remove_obstacle of an obstacle that does not exist with not_found', [
    ['an obstacle id never handed out', { type: 'remove_obstacle', id: 61, obstacle_id: 987654 }, { code: 'not_found', id: 61, cmd: 'remove_obstacle' }],
  ]],
  ['refuses a binary frame with binary_not_accepted', [
    ['a binary frame', Buffer.from([0x53, 0x01, 0x00, 0x00]), { code: 'binary_not_accepted', id: null }],
    ['a command sent as a binary frame', Buffer.from(JSON.stringify({ type: 'pause', id: 70 })), { code: 'binary_not_accepted', id: null }],
  ]],
];

for (const [title, cases] of BAD_INPUT) {
  test(title, T, async (t) => {
    // the world size is known only once the server runs
    for (const [name, payload, expect] of typeof cases === 'function' ? cases() : cases) {
      await t.test(name, { timeout: 10000 }, () => expectRefused(payload, expect));
    }
  });
}

test('accepts whole numbers written as 3.0 where an integer is due', T, async () => {
  const before = await actor.nextSnapshot();
  const mark = actor.mark();
  actor.sendRaw('{"type": "add_agents", "count": 3.0, "id": 555}');
  const ack = await actor.waitText((m) => m.id === 555, 'the reply to count 3.0', { after: mark });
  assert.equal(ack.type, 'ack', JSON.stringify(ack));
  assert.equal(ack.count, 3);
  await snapshotAfterAck(actor, ack, (q) => q.agents.count === before.agents.count + 3, '3 more agents');
});

test('accepts a message of exactly 4096 bytes', T, async () => {
  const c = await connect(server.wsUrl);
  try {
    const base = JSON.stringify({ type: 'clear_target', id: 71, pad: '' });
    const msg = JSON.stringify({ type: 'clear_target', id: 71, pad: 'p'.repeat(4096 - base.length) });
    assert.equal(Buffer.byteLength(msg), 4096);
    const mark = c.mark();
    c.sendRaw(msg);
    const reply = await c.waitText((m) => m.id === 71, 'the reply to a 4096-byte command', { after: mark });
    assert.equal(reply.type, 'ack', JSON.stringify(reply));
  } finally {
    c.close();
  }
});

test('closes a connection that sends more than 4096 bytes with 1009 while others keep going', T, async () => {
  const c = await connect(server.wsUrl);
  const obsMark = observer.mark();
  const base = JSON.stringify({ type: 'clear_target', id: 72, pad: '' });
  c.sendRaw(JSON.stringify({ type: 'clear_target', id: 72, pad: 'p'.repeat(4097 - base.length) }));
  const closeInfo = await withTimeout(c.closed, DEFAULT_TIMEOUT_MS, 'the oversized sender to be closed');
  assert.equal(closeInfo.code, 1009);
  assert.ok(!c.texts.some((m) => m.id === 72), 'the oversized command was not answered');
  const more = await observer.snapshots(3);
  assert.equal(more.length, 3);
  assert.equal(observer.closeInfo, null);
  assert.deepEqual(observer.textsSince(obsMark).filter((m) => m.type === 'error'), []);
  await actor.command({ type: 'clear_target' });
  // a much bigger one, too
  const d = await connect(server.wsUrl);
  d.sendRaw('x'.repeat(100000));
  assert.equal((await withTimeout(d.closed, DEFAULT_TIMEOUT_MS, 'the 100 kB sender to be closed')).code, 1009);
  await observer.snapshots(2);
});

test('the observer saw no error and decoded every snapshot during the whole run', T, async () => {
  assert.deepEqual(observer.texts.filter((m) => m.type === 'error'), []);
  assert.deepEqual(observer.decodeErrors, []);
  assert.deepEqual(observer.badTexts, []);
  assert.equal(observer.closeInfo, null);
  assert.ok(observer.snapshotCount > 30, `observer snapshots: ${observer.snapshotCount}`);
});

// ------------------------------------------------------------------ limits and shutdown

test('closes connections beyond --max-clients with 1013', T, async () => {
  const small = await startServer({ agents: 20, seed: 1, args: ['--max-clients', '2'] });
  const clients = [];
  try {
    clients.push(await connect(small.wsUrl), await connect(small.wsUrl));
    const third = await connect(small.wsUrl, { waitHello: false }).catch((e) => e);
    let code;
    if (third instanceof Error) {
      // closed during the handshake: ws reports the failure instead of a close code
      assert.fail(`the third connection failed instead of being closed with 1013: ${third.message}`);
    } else {
      clients.push(third);
      code = (await withTimeout(third.closed, DEFAULT_TIMEOUT_MS, 'the third client to be closed')).code;
    }
    assert.equal(code, 1013);
    assert.ok(!third.hello, 'the refused client got no hello');
    await clients[0].nextSnapshot(() => true, 'a snapshot for a client within the limit');
  } finally {
    for (const c of clients) c.close();
    const r = await small.stop();
    assert.equal(r.code, 0);
  }
});

test('on SIGTERM closes every connection with 1001 and exits with code 0', T, async () => {
  const extra = await connect(server.wsUrl);
  const clients = [observer, actor, extra, ...(refuser ? [refuser] : [])];
  const result = await server.stop({ signal: 'SIGTERM', timeoutMs: 5000 });
  const closes = await withTimeout(Promise.all(clients.map((c) => c.closed)), DEFAULT_TIMEOUT_MS, 'the clients to be closed');
  assert.deepEqual(closes.map((c) => c.code), clients.map(() => 1001),
    `close codes ${JSON.stringify(closes)}; server exit ${JSON.stringify(result)}`);
  assert.deepEqual(result, { code: 0, signal: null }, `exit: ${JSON.stringify(result)}\n${server.output()}`);
});

test('a taken port is an error at start, not a crash', async () => {
  const { createServer } = await import('node:net');
  const { spawn } = await import('node:child_process');
  const { serverBin, webRoot } = await import('../lib/server.mjs');
  const holder = createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address();
  try {
    const proc = spawn(serverBin, ['--port', String(port), '--max-agents', '1000', '--metrics-listen', 'off', '--web-root', webRoot],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const [code, signal] = await withTimeout(new Promise((resolve) => proc.on('exit', (c, s) => resolve([c, s]))), 20000,
      'the server giving up on a taken port');
    assert.equal(signal, null, `exited by a signal: ${stderr}`);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
  } finally {
    holder.close();
  }
});
