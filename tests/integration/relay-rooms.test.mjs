// Rooms through relays (protocol/PROTOCOL.md "Rooms" and "NATS subjects"):
// a real nats-server, the simulation with --nats and one relay. A viewer of
// the relay joins any room by its code (/ws?room=CODE, in any case) and
// sees that room's flock, frame for frame the simulation's own, and that
// room's people only; a room is made, operated and closed through the
// relay; a wrong code is 4404 and too many from one address 4429, counted
// at the relay (which sees the address); a room nobody watches through the
// relay stops being published.
//
// Skipped (with the reason) when nats-server is not installed;
// scripts/deps.sh test installs it.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, waitUntil, sleep, withTimeout } from '../lib/server.mjs';
import { connectV2, SUBPROTOCOL_V2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay, waitHealthy } from '../lib/nats.mjs';
import { NatsWire } from '../lib/nats_wire.mjs';
import WebSocket from 'ws';

const TOKEN = 'relay-rooms-test-token';
const HOME_AGENTS = 200;
const ROOM_AGENTS = 300;
const T = { timeout: 90000 };

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';

/** Sends a message with an id and waits for its ack (or error) by that id. */
async function request(client, msg, what) {
  const mark = client.mark();
  const sent = client.send(msg);
  return client.waitText((m) => ['ack', 'error', 'room_created', 'rooms'].includes(m.type) && m.id === sent.id,
    what, { after: mark, timeoutMs: 10000 });
}

/** A v2 session of room `code` that is refused: resolves with its close { code, reason }. */
function refused(url, code, { localAddress } = {}) {
  const ws = new WebSocket(`${url}?room=${encodeURIComponent(code)}`, [SUBPROTOCOL_V2], { localAddress });
  let hello = false;
  ws.on('message', (d, binary) => { if (!binary && JSON.parse(d.toString()).type === 'hello') hello = true; });
  ws.on('error', () => {});
  return withTimeout(new Promise((resolve) => {
    ws.on('close', (c, r) => resolve({ code: c, reason: r.toString(), hello }));
  }), 10000, `the close of ?room=${code}`);
}

/** Frames two v2 clients both decoded, by seq: each pair's digests. */
function commonFrames(a, b) {
  const bySeq = new Map(a.frames.filter((f) => f.digest !== null).map((f) => [f.seq, f]));
  return b.frames.filter((f) => f.digest !== null && bySeq.has(f.seq)).map((f) => [bySeq.get(f.seq), f]);
}

suite('rooms through a relay', { skip }, () => {
  let nats, sim, relay, wire;
  const clients = [];
  const track = (c) => { clients.push(c); return c; };
  const relayRoomUrl = (code) => `${relay.wsUrl}?room=${code}`;

  before(async () => {
    nats = await startNats({ bin: natsBin });
    // --rate-scale 10: making rooms and auth cost 40 each of a budget that
    // is not what these tests are about; the population is pinned.
    const common = ['--control-token', TOKEN, '--rate-scale', '10'];
    sim = await startServer({ agents: HOME_AGENTS,
      args: ['--nats', nats.url, ...common, '--max-agents', '20000', '--room-agents', String(ROOM_AGENTS)] });
    relay = await startRelay(nats.url, { args: [...common, '--relay-name', 'rooms'] });
    await waitHealthy(relay, 'the relay');
    wire = await NatsWire.connect(nats.port);
  });

  after(async () => {
    for (const c of clients) c.close();
    wire?.close();
    for (const p of [relay, sim]) await p?.stop({ signal: 'SIGKILL' }).catch(() => {});
    await nats?.stop({ signal: 'SIGKILL' });
  });

  /** A room made on the simulation itself: { code, token }. */
  async function simRoom(name) {
    const maker = track(await connectV2(sim.wsUrl));
    const made = await request(maker, { type: 'create_room', name }, 'create_room');
    assert.equal(made.type, 'room_created', JSON.stringify(made));
    return made;
  }

  test('a viewer of the relay joins a room by its code, in any case, and sees that room\'s frames', T, async () => {
    const { code } = await simRoom('through the relay');
    const direct = track(await connectV2(`${sim.wsUrl}?room=${code}`));
    const viaRelay = track(await connectV2(relayRoomUrl(code.toLowerCase().replace(/^(....)/, '$1-'))));
    assert.equal(viaRelay.hello.room, code, 'hello names the room');
    assert.equal(viaRelay.hello.room_name, 'through the relay');
    assert.equal(viaRelay.hello.role, 'visitor', 'a made room has its own token: a visitor until it is sent');
    const home = track(await connectV2(relay.wsUrl));
    assert.equal(home.hello.room, '', 'the default room through the relay still has no code');
    // The same seq decodes to the same agents through the relay as on the simulation.
    await waitUntil(() => commonFrames(direct, viaRelay).length >= 20, '20 frames seen by both', { timeoutMs: 20000 });
    const pairs = commonFrames(direct, viaRelay);
    for (const [d, v] of pairs) assert.equal(v.digest, d.digest, `seq ${v.seq}: the relay's frame is the room's`);
    assert.ok(pairs.every(([, v]) => v.count === ROOM_AGENTS), 'the room has its own population');
    await home.waitFrame((f) => f.digest !== null, 'a frame of the default room');
    assert.equal(home.frames.find((f) => f.digest !== null).count, HOME_AGENTS, 'the default room is another world');
  });

  test('two rooms on one relay: each viewer sees only its own room\'s people and changes', T, async () => {
    const a = await simRoom('room A');
    const b = await simRoom('room B');
    const alice = track(await connectV2(relayRoomUrl(a.code)));
    const bob = track(await connectV2(relayRoomUrl(b.code)));
    const watcherA = track(await connectV2(`${sim.wsUrl}?room=${a.code}`));
    alice.send({ type: 'hello', name: 'alice-through-relay' });
    bob.send({ type: 'hello', name: 'bob-through-relay' });
    await watcherA.waitText((m) => m.type === 'presence' && JSON.stringify(m).includes('alice-through-relay'),
      'alice in room A\'s presence', { timeoutMs: 10000 });
    // The room's token, sent through the relay, makes alice its operator there.
    const auth = await request(alice, { type: 'auth', token: a.token }, 'auth with the room token');
    assert.equal(auth.type, 'ack', JSON.stringify(auth));
    const markA = watcherA.mark();
    const markB = bob.mark();
    const set = await request(alice, { type: 'set_param', name: 'w_sep', value: 2.75 }, 'set_param');
    assert.equal(set.type, 'ack', `an operator's command through the relay: ${JSON.stringify(set)}`);
    await watcherA.waitText((m) => m.type === 'param' && m.name === 'w_sep' && m.value === 2.75,
      'room A hears the change', { after: markA, timeoutMs: 10000 });
    // Room B's viewer on the same relay heard none of it.
    await sleep(1000);
    const leaked = bob.textsSince(markB).filter((m) => JSON.stringify(m).includes('alice-through-relay') ||
      (m.type === 'param' && m.name === 'w_sep'));
    assert.deepEqual(leaked, [], 'nothing of room A reaches room B');
    // Without the token, bob is a visitor of room B: an operator's command is refused at the relay.
    const denied = await request(bob, { type: 'set_param', name: 'w_sep', value: 1 }, 'a visitor\'s set_param');
    assert.equal(denied.type, 'error');
    assert.equal(denied.code, 'forbidden');
    // A's token is not B's.
    const wrong = await request(bob, { type: 'auth', token: a.token }, 'auth with another room\'s token');
    assert.equal(wrong.type, 'error');
    assert.equal(wrong.code, 'bad_token');
  });

  test('a room is made, operated and closed through the relay; its relay viewers are told 4410', T, async () => {
    const maker = track(await connectV2(relay.wsUrl));
    const made = await request(maker, { type: 'create_room', name: 'made at the edge' }, 'create_room through the relay');
    assert.equal(made.type, 'room_created', JSON.stringify(made));
    assert.equal(made.path, `/r/${made.code}`);
    const op = track(await connectV2(relayRoomUrl(made.code)));
    const other = track(await connectV2(relayRoomUrl(made.code)));
    assert.equal(op.hello.room_name, 'made at the edge');
    assert.equal((await request(op, { type: 'auth', token: made.token }, 'auth')).type, 'ack');
    const renamed = await request(op, { type: 'room_rename', name: 'renamed at the edge' }, 'room_rename');
    assert.equal(renamed.type, 'ack', JSON.stringify(renamed));
    await other.waitText((m) => m.type === 'room' && m.name === 'renamed at the edge', 'the rename\'s news', { timeoutMs: 10000 });
    op.send({ type: 'room_close' });
    const [a, b] = await Promise.all([withTimeout(op.closed, 10000, 'op closed'), withTimeout(other.closed, 10000, 'other closed')]);
    assert.equal(op.closeInfo.code, 4410, `the operator: ${JSON.stringify(op.closeInfo)} ${a}`);
    assert.equal(other.closeInfo.code, 4410, `the other viewer: ${JSON.stringify(other.closeInfo)} ${b}`);
    const again = await refused(relay.wsUrl, made.code);
    assert.equal(again.code, 4404, 'a closed room\'s code is no room');
  });

  test('a wrong code is 4404 at the relay, and 30 of them from one address then 4429, while another address gets in', T, async () => {
    const { code } = await simRoom('guessed');
    const guesser = '127.0.33.1';
    const outcomes = [];
    // Shaped like codes (they go to the simulation) and not (refused at once).
    for (let i = 0; i < 32; i++) {
      const guess = i % 2 ? `ZZZZZZ${'23456789'[i % 8]}${'ABCDEFGH'[i % 8]}` : 'NOPE';
      outcomes.push((await refused(relay.wsUrl, guess, { localAddress: guesser })).code);
    }
    assert.ok(outcomes.slice(0, 30).every((c) => c === 4404), `the first 30: ${outcomes}`);
    assert.equal(outcomes[31], 4429, `then too many: ${outcomes}`);
    const throttled = await refused(relay.wsUrl, code, { localAddress: guesser });
    assert.equal(throttled.code, 4429, 'even the right code waits for a guesser');
    const student = track(await connectV2(relayRoomUrl(code), { localAddress: '127.0.33.2' }));
    assert.equal(student.hello.room, code, 'another address is not held up');
  });

  test('a room nobody watches through the relay is no longer published', T, async () => {
    const { code } = await simRoom('watched, then not');
    const seen = [];
    const sub = wire.sub(`swarmcast.r.${code}.>`, (subject) => seen.push({ at: Date.now(), subject }));
    await wire.flush();
    await sleep(1500);
    assert.equal(seen.length, 0, `nobody watches it: nothing is published (${seen.length} messages)`);
    const viewer = track(await connectV2(relayRoomUrl(code)));
    await viewer.waitFrame((f) => f.digest !== null, 'a frame through the relay', { timeoutMs: 10000 });
    assert.ok(seen.some((m) => m.subject === `swarmcast.r.${code}.frame`), 'watched: its frames are published');
    viewer.close();
    await withTimeout(viewer.closed, 5000, 'the viewer\'s close');
    // The simulation forgets the relay's lease of the room within 5 s (RELAY_LEASE_TTL).
    await sleep(6500);
    const before = seen.length;
    await sleep(2000);
    sub.unsubscribe();
    assert.equal(seen.length, before, `no more messages once nobody watches (${seen.length - before} in 2 s)`);
  });

  test('a room\'s lease before the relay\'s heartbeat is refused "not_joined", and granted after it', T, async () => {
    // The test plays a relay of its own tag. Its room's lease can reach the
    // simulation first (a viewer arrives at the relay just after the
    // simulation restarted): granting it would greet viewers whose
    // commands are refused until the heartbeat comes (auth, unanswered).
    const { code } = await simRoom('before the heartbeat');
    const tag = 900;
    const answers = [];
    const sub = wire.sub(`swarmcast.reply.${tag}`, (subject, reply, payload) => {
      if (payload[0] === 0x7b) answers.push(JSON.parse(payload.toString('utf8')));
    });
    await wire.flush();
    const lease = (relayName, room) => {
      const mark = answers.length;
      wire.pub(`swarmcast.lease.${tag}`, JSON.stringify({ relay: relayName, tag, ...(room && { room }), views: [], clients: 1 }),
        `swarmcast.reply.${tag}`);
      return waitUntil(() => answers.length > mark, `the answer to ${relayName}'s lease of ${room || 'the default room'}`,
        { timeoutMs: 10000 }).then(() => answers[mark]);
    };
    try {
      const early = await lease('fake#1', code);
      assert.deepEqual({ ok: early.ok, error: early.error, to: early.to, room: early.room },
        { ok: false, error: 'not_joined', to: 'fake#1', room: code }, JSON.stringify(early));
      const beat = await lease('fake#1', null);
      assert.equal(beat.ok, true, JSON.stringify(beat));
      // Another relay's name on the same tag holds no heartbeat of its own.
      const other = await lease('other#2', code);
      assert.equal(other.error, 'not_joined', JSON.stringify(other));
      const granted = await lease('fake#1', code);
      assert.equal(granted.ok, true, JSON.stringify(granted));
      assert.equal(granted.room, code);
      assert.equal(granted.hello.room, code, 'the room\'s hello');
    } finally {
      sub.unsubscribe();
    }
  });

  test('the relay and the simulation exit 0 on SIGTERM', T, async () => {
    for (const c of clients) c.close();
    const relayExit = await relay.stop();
    assert.deepEqual(relayExit, { code: 0, signal: null }, `the relay's exit\n${relay.output()}`);
    const simExit = await sim.stop();
    assert.deepEqual(simExit, { code: 0, signal: null }, `the simulation's exit\n${sim.output()}`);
  });
});
