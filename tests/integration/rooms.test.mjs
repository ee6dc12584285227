// Rooms (protocol/PROTOCOL.md "Rooms"), against the real server with real
// WebSocket clients: a room is made by create_room and joined by its code at
// /ws?room=CODE; each room is a world of its own (same seed, same ticks:
// the same frames; commands to one leave another untouched); codes ignore
// case and dashes, a wrong one answers 4404 and too many from an address
// 4429; the creator's token makes operators; the limits (--max-rooms, the
// shared population budget, creations per address) answer with clear
// errors; an empty room rests, then closes; /healthz and /metrics list them.
// A client's message budget (create_room costs 40 of it, as auth does) is
// not what these tests are about: their servers run with --rate-scale 10.
// Nor is the population budget the server derives from this machine's
// speed (a few hundred agents under AddressSanitizer): it is pinned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { connect } from '../lib/client.mjs';
import { FACTORIAL, runExperiment } from '../lib/experiment_page.mjs';
import { runOk } from '../lib/headless.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { decodeSnapshot } from '../../client-web/net/protocol.js';
import { sleep, startServer, withTimeout } from '../lib/server.mjs';

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const RATE = ['--rate-scale', '10', '--max-agents', '20000'];

function getJson(port, path) {
  return withTimeout(new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  }), 5000, `GET ${path}`);
}

/** Stops a server and checks it ended cleanly (an AddressSanitizer report at exit fails it). */
async function stopClean(server) {
  const exit = await server.stop();
  assert.deepEqual(exit, { code: 0, signal: null }, `the server's exit\n${server.output()}`);
}

/** Opens a session in room code and resolves when it is closed (for refusals). */
async function refusal(server, code) {
  const c = await connect(`${server.wsUrl}?room=${encodeURIComponent(code)}`, { waitHello: false });
  return withTimeout(c.closed, 5000, `the close of ?room=${code}`);
}

/** Makes a room from a client and returns the room_created message. */
async function makeRoom(client, fields = {}) {
  const mark = client.mark();
  const msg = client.send({ type: 'create_room', ...fields });
  const reply = await client.waitText((m) => (m.type === 'room_created' || m.type === 'error') && m.id === msg.id,
    'the reply to create_room', { after: mark });
  assert.equal(reply.type, 'room_created', JSON.stringify(reply));
  return reply;
}

/** Keeps every v1 frame of a client by its tick. */
function framesByTick(client) {
  const frames = new Map();
  client.ws.on('message', (data, isBinary) => {
    if (isBinary) frames.set(decodeSnapshot(data).tick, Buffer.from(data));
  });
  return frames;
}

test('a room is made, joined by its code in any case and with dashes, and says so in hello', async () => {
  const server = await startServer({ args: RATE });
  try {
    const home = await connect(server.wsUrl);
    assert.equal(home.hello.room, '', 'the default room has no code');
    assert.equal(home.hello.rooms, 'open');
    const made = await makeRoom(home, { name: 'Group 3' });
    assert.match(made.code, /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/);
    for (const ch of made.code) assert.ok(ALPHABET.includes(ch), `${ch} is in the alphabet`);
    assert.equal(made.path, `/r/${made.code}`);
    assert.match(made.token, /^r_[0-9a-f]{32}$/, 'a 128-bit token');
    assert.equal(made.name, 'Group 3');
    const typed = `${made.code.slice(0, 4).toLowerCase()}-${made.code.slice(4)}`;
    const guest = await connect(`${server.wsUrl}?room=${typed}`);
    assert.equal(guest.hello.room, made.code);
    assert.equal(guest.hello.room_name, 'Group 3');
    assert.equal(guest.hello.role, 'visitor', 'a code makes a visitor');
    // The page of the room is the page itself.
    const page = await getJson(server.port, made.path);
    assert.equal(page.status, 200);
    assert.match(page.body, /<!doctype html>/i);
    home.close();
    guest.close();
  } finally {
    await stopClean(server);
  }
});

test('a wrong code answers 4404, and an address that keeps guessing is refused unread with 4429', async () => {
  const server = await startServer({ args: RATE });
  try {
    const home = await connect(server.wsUrl);
    const made = await makeRoom(home);
    assert.equal((await refusal(server, 'ZZZZ-ZZZZ')).code, 4404);
    assert.equal((await refusal(server, '0O1IL')).code, 4404, 'not a code at all');
    // 30 wrong codes in all, then the address waits: even a right code is
    // refused unread (a guesser learns nothing).
    for (let i = 0; i < 28; i++) assert.equal((await refusal(server, `ZZZZZZ${ALPHABET[i % 31]}${ALPHABET[i % 7]}`)).code, 4404);
    const throttled = await refusal(server, made.code);
    assert.equal(throttled.code, 4429);
    assert.match(throttled.reason, /too many wrong room codes from this address; try again in \d+ s/);
    // Another address is not held up by this one's guesses.
    const other = await connectV2(`${server.wsUrl}?room=${made.code}`, { localAddress: '127.0.0.2' });
    assert.equal(other.hello.room, made.code);
    other.close();
    const metrics = await getJson(server.metricsPort, '/metrics');
    assert.match(metrics.body, /swarmcast_room_codes_wrong_total 30/);
    assert.match(metrics.body, /swarmcast_room_codes_rate_limited_total [1-9]/);
    home.close();
  } finally {
    await stopClean(server);
  }
});

test('two rooms with the same seed step alike; commands to one leave the other equal to an untouched one', async () => {
  const server = await startServer({ agents: 200, args: [...RATE, '--room-agents', '200'] });
  try {
    const home = await connect(server.wsUrl);
    const roomA = await makeRoom(home);
    const roomB = await makeRoom(home);
    const roomC = await makeRoom(home);
    const a = await connect(`${server.wsUrl}?room=${roomA.code}`);
    const b = await connect(`${server.wsUrl}?room=${roomB.code}`);
    const c = await connect(`${server.wsUrl}?room=${roomC.code}`);
    const framesB = framesByTick(b);
    const framesC = framesByTick(c);
    await a.command({ type: 'auth', token: roomA.token });
    await a.command({ type: 'set_param', name: 'w_ali', value: 0 });
    await a.command({ type: 'add_obstacle', x: 800, y: 450, radius: 80 });
    await a.command({ type: 'add_agents', count: 50 });
    // Someone else's target in B's twin room A only.
    await a.command({ type: 'set_target', x: 100, y: 100 });
    await sleep(1500);
    const shared = [...framesB.keys()].filter((t) => framesC.has(t));
    assert.ok(shared.length >= 10, `B and C were both seen at ${shared.length} ticks`);
    for (const t of shared) assert.ok(framesB.get(t).equals(framesC.get(t)), `B and C differ at tick ${t}`);
    // A is another world now.
    const lastA = await a.nextSnapshot();
    assert.equal(lastA.agents.count, 250);
    assert.equal(b.lastSnapshot.agents.count, 200);
    assert.equal(b.lastSnapshot.obstacles.length, 0, 'A\'s obstacle is not in B');
    // Nobody in B saw A's parameter change.
    assert.ok(!b.texts.some((m) => m.type === 'param'), 'no param news leaked into B');
    for (const x of [home, a, b, c]) x.close();
  } finally {
    await stopClean(server);
  }
});

test('the creator\'s token makes operators of its room only; visitors cannot close it', async () => {
  const server = await startServer({ args: [...RATE, '--control-token', 'server-secret-token-123'] });
  try {
    const home = await connect(server.wsUrl);
    assert.equal(home.hello.role, 'visitor');
    const mine = await makeRoom(home);
    const other = await makeRoom(home);
    const op = await connect(`${server.wsUrl}?room=${mine.code}`);
    const visitor = await connect(`${server.wsUrl}?room=${mine.code}`);
    assert.equal((await visitor.request({ type: 'room_close' })).code, 'forbidden');
    assert.equal((await visitor.request({ type: 'set_model', model: 'couzin' })).code, 'forbidden');
    assert.equal((await op.request({ type: 'auth', token: other.token })).code, 'bad_token', 'another room\'s token');
    const ack = await op.command({ type: 'auth', token: mine.token });
    assert.equal(ack.role, 'operator');
    await op.command({ type: 'room_rename', name: 'Lab B' });
    // Everyone in the room is told the new name.
    await visitor.waitText((m) => m.type === 'room' && m.name === 'Lab B' && m.code === mine.code, 'the rename\'s news');
    assert.ok(!home.texts.some((m) => m.type === 'room'), 'not the default room');
    await op.command({ type: 'set_model', model: 'couzin' });
    // Listing every room is the server operator's, not a room operator's.
    assert.equal((await op.request({ type: 'rooms' })).code, 'forbidden');
    // A room token never reaches the control token's per-address backoff.
    for (let i = 0; i < 5; i++) assert.equal((await home.request({ type: 'auth', token: `r_${'0'.repeat(32)}` })).code, 'bad_token');
    const serverOp = await connect(server.wsUrl);
    await serverOp.command({ type: 'auth', token: 'server-secret-token-123' });
    const mark = serverOp.mark();
    const list = serverOp.send({ type: 'rooms' });
    const rooms = await serverOp.waitText((m) => m.type === 'rooms' && m.id === list.id, 'the rooms', { after: mark });
    assert.deepEqual(rooms.rooms.map((r) => r.code).sort(), ['', mine.code, other.code].sort());
    assert.equal(rooms.rooms.find((r) => r.code === mine.code).name, 'Lab B');
    // Closing its own room, the sender is closed with everyone (the close is the answer).
    op.send({ type: 'room_close' });
    const closes = await Promise.all([withTimeout(op.closed, 3000, 'op closed'), withTimeout(visitor.closed, 3000, 'visitor closed')]);
    for (const cl of closes) assert.deepEqual(cl, { code: 4410, reason: 'room closed' });
    assert.equal((await refusal(server, mine.code)).code, 4404, 'a closed room is gone');
    // The server's operator closes any room.
    await serverOp.command({ type: 'room_close', code: other.code });
    assert.equal((await refusal(server, other.code)).code, 4404);
    home.close();
    serverOp.close();
  } finally {
    await stopClean(server);
  }
});

test('limits: --rooms, --max-rooms, creations per address and the shared population budget answer clearly', async () => {
  const off = await startServer({ args: [...RATE, '--rooms', 'off'] });
  try {
    const c = await connect(off.wsUrl);
    assert.equal(c.hello.rooms, 'off');
    const reply = await c.request({ type: 'create_room' });
    assert.equal(reply.code, 'forbidden');
    assert.match(reply.message, /--rooms off/);
    c.close();
  } finally {
    await stopClean(off);
  }
  const ops = await startServer({ args: [...RATE, '--rooms', 'operators', '--control-token', 'server-secret-token-123'] });
  try {
    const c = await connect(ops.wsUrl);
    assert.equal((await c.request({ type: 'create_room' })).code, 'forbidden');
    await c.command({ type: 'auth', token: 'server-secret-token-123' });
    await makeRoom(c);
    c.close();
  } finally {
    await stopClean(ops);
  }
  const small = await startServer({ agents: 300, args: [...RATE, '--max-rooms', '2', '--max-agents', '1000'] });
  try {
    const c = await connect(small.wsUrl);
    const r1 = await makeRoom(c);
    // 300 + 300 held; a copy of 300 more fits, a fourth room does not (max rooms).
    await makeRoom(c, { from: 'copy' });
    const full = await c.request({ type: 'create_room' });
    assert.equal(full.code, 'limit_reached');
    assert.match(full.message, /--max-rooms/);
    // The budget: 900 of 1000 held; 200 more in one room are refused, and the message says who holds what.
    const inRoom = await connect(`${small.wsUrl}?room=${r1.code}`);
    await inRoom.command({ type: 'auth', token: r1.token });
    const over = await inRoom.request({ type: 'add_agents', count: 200 });
    assert.equal(over.code, 'limit_reached');
    assert.match(over.message, /population budget of 1000 agents .* this room holds 300, the other rooms 600, and 100 are left/);
    await inRoom.command({ type: 'add_agents', count: 100 });
    // A reset to fewer gives agents back to everyone.
    await inRoom.command({ type: 'reset', agents: 10 });
    await sleep(100);
    const health = JSON.parse((await getJson(small.metricsPort, '/healthz')).body);
    assert.equal(health.agents_all_rooms, 610);
    c.close();
    inRoom.close();
  } finally {
    await stopClean(small);
  }
  const many = await startServer({ agents: 10, args: [...RATE, '--rate-scale', '100', '--max-rooms', '40', '--room-agents', '10'] });
  try {
    // Ten groups of a class behind one address make their rooms in the same minute; the 21st is told to wait.
    const c = await connect(many.wsUrl);
    for (let i = 0; i < 20; i++) await makeRoom(c, { name: `Group ${i + 1}` });
    const limited = await c.request({ type: 'create_room' });
    assert.equal(limited.code, 'rate_limited');
    assert.match(limited.message, /this address made too many rooms; try again in \d+ s/);
    c.close();
  } finally {
    await stopClean(many);
  }
});

test('a room nobody watches rests, wakes when someone comes, and closes later; the default room never does', async () => {
  const server = await startServer({ args: [...RATE, '--room-idle-stop', '1', '--room-idle-close', '4'] });
  try {
    const home = await connect(server.wsUrl);
    const made = await makeRoom(home);
    const visit = await connect(`${server.wsUrl}?room=${made.code}`);
    await visit.snapshots(3);
    visit.close();
    await withTimeout(visit.closed, 3000, 'the visit closed');
    await sleep(2500);
    let rooms = JSON.parse((await getJson(server.metricsPort, '/healthz')).body).rooms;
    let room = rooms.find((r) => r.code === made.code);
    assert.equal(room.stepping, false, 'resting after 1 s alone');
    const tickResting = room.tick;
    await sleep(500);
    rooms = JSON.parse((await getJson(server.metricsPort, '/healthz')).body).rooms;
    assert.equal(rooms.find((r) => r.code === made.code).tick, tickResting, 'a resting room does not step');
    // Coming back wakes it where it was.
    const back = await connect(`${server.wsUrl}?room=${made.code}`);
    const snap = await back.nextSnapshot();
    assert.ok(snap.tick >= tickResting);
    back.close();
    await withTimeout(back.closed, 3000, 'closed');
    await sleep(5500);
    assert.equal((await refusal(server, made.code)).code, 4404, 'closed after 4 s alone');
    rooms = JSON.parse((await getJson(server.metricsPort, '/healthz')).body).rooms;
    assert.equal(rooms.length, 1);
    assert.equal(rooms[0].code, '');
    assert.equal(rooms[0].stepping, true, 'the default room, empty, still steps');
    const metrics = (await getJson(server.metricsPort, '/metrics')).body;
    assert.match(metrics, /swarmcast_rooms 1\n/);
    assert.match(metrics, /swarmcast_rooms_created_total 1\n/);
    assert.match(metrics, /swarmcast_rooms_closed_total 1\n/);
    home.close();
  } finally {
    await stopClean(server);
  }
});

test('bad room messages are refused with clear errors and change nothing', async () => {
  const server = await startServer({ args: RATE });
  try {
    const c = await connect(server.wsUrl);
    const cases = [
      [{ type: 'create_room', from: 'elsewhere' }, 'out_of_range'],
      [{ type: 'create_room', from: 'scenario' }, 'missing_field'],
      [{ type: 'create_room', from: 'scenario', scenario: '../../etc/passwd' }, 'out_of_range'],
      [{ type: 'create_room', from: 'scenario', scenario: 'no-such-scenario' }, 'not_found'],
      [{ type: 'create_room', name: 42 }, 'bad_type'],
      [{ type: 'create_room', name: 'x'.repeat(200) }, 'out_of_range'],
      [{ type: 'room_rename' }, 'missing_field'],
      [{ type: 'room_rename', name: 'Lab' }, 'forbidden'],
      [{ type: 'room_close' }, 'forbidden'],
      [{ type: 'room_close', code: 'not a code' }, 'out_of_range'],
    ];
    for (const [msg, code] of cases) {
      const reply = await c.request(msg);
      assert.equal(reply.type, 'error', JSON.stringify(msg));
      assert.equal(reply.code, code, `${JSON.stringify(msg)}: ${JSON.stringify(reply)}`);
    }
    const made = await makeRoom(c, { from: 'scenario', scenario: 'couzin-torus' });
    const inside = await connect(`${server.wsUrl}?room=${made.code}`);
    assert.equal(inside.hello.params.find((p) => p.name === 'model').value, 'couzin');
    const health = JSON.parse((await getJson(server.metricsPort, '/healthz')).body);
    assert.equal(health.rooms.length, 2, 'only the one good create_room made a room');
    c.close();
    inside.close();
  } finally {
    await stopClean(server);
  }
});

test('--state-dir: a room closed for want of people reopens by its code as it was; a restart keeps every room; a closed one is gone', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-rooms-'));
  const args = [...RATE, '--state-dir', dir, '--room-idle-stop', '1', '--room-idle-close', '2'];
  try {
    let server = await startServer({ args });
    let kept;
    let gone;
    try {
      const home = await connect(server.wsUrl);
      kept = await makeRoom(home, { name: 'Kept' });
      gone = await makeRoom(home, { name: 'Gone' });
      const op = await connect(`${server.wsUrl}?room=${kept.code}`);
      await op.command({ type: 'auth', token: kept.token });
      await op.command({ type: 'add_agents', count: 123 });
      await op.command({ type: 'set_param', name: 'w_ali', value: 2.5 });
      op.close();
      await withTimeout(op.closed, 3000, 'closed');
      // Its identity file is the server user's only: the token makes operators.
      assert.equal(statSync(path.join(dir, 'rooms', `${kept.code}.room`)).mode & 0o077, 0);
      await sleep(3500);
      const metrics = (await getJson(server.metricsPort, '/metrics')).body;
      assert.match(metrics, /swarmcast_rooms_kept 2\n/, 'both closed for want of people, both kept');
      // Back by its code, as it was.
      const back = await connect(`${server.wsUrl}?room=${kept.code}`);
      assert.equal(back.hello.room_name, 'Kept');
      assert.equal(back.hello.params.find((p) => p.name === 'w_ali').value, 2.5);
      assert.equal((await back.nextSnapshot()).agents.count, 423);
      back.close();
      // Closed by its operators: forgotten, files and all.
      const gop = await connect(`${server.wsUrl}?room=${gone.code}`);
      await gop.command({ type: 'auth', token: gone.token });
      gop.send({ type: 'room_close' });
      assert.equal((await withTimeout(gop.closed, 3000, 'closed')).code, 4410);
      assert.ok(!readdirSync(path.join(dir, 'rooms')).some((f) => f.startsWith(gone.code)), 'its files are gone');
      home.close();
    } finally {
      await stopClean(server);
    }
    // A restart keeps the room, its name, its set-up and its operators' token.
    server = await startServer({ args });
    try {
      const again = await connect(`${server.wsUrl}?room=${kept.code}`);
      assert.equal(again.hello.room, kept.code);
      assert.equal(again.hello.room_name, 'Kept');
      assert.equal((await again.nextSnapshot()).agents.count, 423);
      assert.equal((await again.command({ type: 'auth', token: kept.token })).role, 'operator');
      assert.equal((await refusal(server, gone.code)).code, 4404);
      again.close();
    } finally {
      await stopClean(server);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--experiments: a run of a sweep opens in a new room, its world as the run\'s scenario builds it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-exp-'));
  try {
    const out = await runExperiment(dir, 'tiny', FACTORIAL);
    const plan = (await runOk(['experiment', 'plan', path.join(dir, 'tiny.json')])).stdout.trim().split('\n');
    const header = plan[0].split(',');
    const row = plan[1].split(',');
    const runId = row[header.indexOf('run_id')];
    const expected = JSON.parse((await runOk(['experiment', 'scenario', out, runId])).stdout);
    const server = await startServer({ args: [...RATE, '--experiments', dir] });
    try {
      const c = await connect(server.wsUrl);
      const made = await makeRoom(c, { from: 'run', experiment: 'tiny', run: runId });
      const inside = await connect(`${server.wsUrl}?room=${made.code}`);
      const param = (name) => inside.hello.params.find((p) => p.name === name).value;
      assert.equal(param('w_ali'), expected.params.w_ali);
      assert.equal(param('w_sep'), expected.params.w_sep);
      assert.equal((await inside.nextSnapshot()).agents.count, expected.agents);
      // What cannot be opened says why, and reads nothing outside the folder.
      assert.equal((await c.request({ type: 'create_room', from: 'run', experiment: 'tiny', run: '0000000000000000' })).code, 'not_found');
      assert.equal((await c.request({ type: 'create_room', from: 'run', experiment: 'nope', run: runId })).code, 'not_found');
      assert.equal((await c.request({ type: 'create_room', from: 'run', experiment: '..', run: runId })).code, 'out_of_range');
      assert.equal((await c.request({ type: 'create_room', from: 'run', experiment: 'a/b', run: runId })).code, 'out_of_range');
      c.close();
      inside.close();
    } finally {
      await stopClean(server);
    }
    const plain = await startServer({ args: RATE });
    try {
      const c = await connect(plain.wsUrl);
      const reply = await c.request({ type: 'create_room', from: 'run', experiment: 'tiny', run: runId });
      assert.equal(reply.code, 'forbidden');
      assert.match(reply.message, /--experiments/);
      c.close();
    } finally {
      await stopClean(plain);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on a full server a wrong code takes nobody\'s seat; a right one takes the biggest holder\'s, as anyone\'s would', async () => {
  const server = await startServer({ args: [...RATE, '--max-clients', '5', '--max-per-address', '5'] });
  try {
    const maker = await connectV2(server.wsUrl, { localAddress: '127.0.0.4' });
    const made = await makeRoom(maker);
    const holders = [];
    for (let i = 0; i < 4; i++) holders.push(await connectV2(server.wsUrl, { localAddress: '127.0.0.2' }));
    const wrong = await connectV2(`${server.wsUrl}?room=ZZZZZZZZ`, { localAddress: '127.0.0.3' }).catch((e) => e);
    const closed = wrong instanceof Error ? null : await withTimeout(wrong.closed, 3000, 'the wrong code\'s close');
    assert.ok(wrong instanceof Error || closed.code === 1013, `refused as full: ${JSON.stringify(closed)}`);
    await sleep(300);
    assert.ok(holders.every((h) => h.closeInfo === null), 'nobody was put out for a wrong code');
    const right = await connectV2(`${server.wsUrl}?room=${made.code}`, { localAddress: '127.0.0.3' });
    assert.equal(right.hello.room, made.code);
    await sleep(300);
    assert.equal(holders.filter((h) => h.closeInfo?.code === 1013).length, 1, 'one seat of the biggest holder');
    for (const c of [maker, right, ...holders]) c.close();
  } finally {
    await stopClean(server);
  }
});

test('a room\'s command queue grows with its crowd: 12 people sending 32 commands each within a tick are all answered', async () => {
  const server = await startServer({ args: RATE });
  try {
    const home = await connect(server.wsUrl);
    const made = await makeRoom(home);
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await connect(`${server.wsUrl}?room=${made.code}`));
    // 384 commands at once: past the 256 places a room's queue starts with.
    const replies = await Promise.all(people.flatMap((p) => Array.from({ length: 32 },
      (_, k) => p.request({ type: 'set_target', x: 100 + k, y: 100 + k }, { timeoutMs: 10000 }))));
    assert.equal(replies.length, 384);
    assert.equal(replies.filter((r) => r.type === 'ack').length, 384, JSON.stringify(replies.find((r) => r.type !== 'ack')));
    for (const c of [home, ...people]) c.close();
  } finally {
    await stopClean(server);
  }
});
