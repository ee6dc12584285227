// Attacks on rooms themselves (issue 24; PROTOCOL.md "Rooms"), each while
// bystanders in other rooms and in the default room watch from processes
// of their own (lib/bystander.mjs) and must keep their snapshots:
//   (a) a flood of create_room from many addresses fills --max-rooms
//       exactly, then is refused, and a closed room's place is taken again;
//   (b) join/leave churn across many rooms, rooms closed by their operators
//       with many people in them and while people join: every person ends
//       in the room it asked for or is told why not, no frame, news or
//       person of one room reaches another, and the counts come back;
//   (c) code guessing from many addresses against a few live rooms: no code
//       is found, each address is held to its 30 then one per 10 s, and a
//       class behind one address still gets in;
//   (d) names in every script and at every length for create_room and
//       room_rename, room messages at the message size limit, malformed room
//       messages and ?room= values;
//   (e) 300 rooms made and closed (--max-rooms 4): memory, threads and file
//       descriptors come back (under AddressSanitizer, LeakSanitizer at exit);
//   (f) one room takes the shared population budget in its dearest crowd
//       while the others keep their 60 ticks a second, and the budget is
//       never overdrawn by rooms adding at once.
// These servers are the subject: the many-rooms knob (SWARMCAST_TEST_ROOMS)
// is off for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import WebSocket from 'ws';

import { startServer, healthz, httpGet, rssKiB, sleep, waitUntil, withTimeout, webRoot } from '../lib/server.mjs';
import { Viewer, openViewer, describe } from '../lib/viewer.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { startBystander } from '../lib/bystander.mjs';
import { request } from '../lib/test_rooms.mjs';

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
// A bystander's floor while rooms are attacked: the bound the other hostile
// suites hold a bystander to (hostile-guess, hostile-text): a snapshot in
// every whole second and at least a third of its 30 a second on average,
// robust on a busy two-core machine and under AddressSanitizer; the figures
// are printed (about 30 on an idle machine).
const MIN_MEAN_SNAPSHOTS = 10;
const WAIT_MS = 10000;

// A room made from the defaults has --room-agents agents: here as many as
// the default room's --agents, so that each test's budget arithmetic holds.
const start = (opts) => startServer({
  ...opts, testRooms: 0, args: [...(opts.args ?? []), '--room-agents', String(opts.agents ?? 300)],
});
const isSanitized = (pid) => /libasan|libclang_rt\.asan/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
const threadsOf = (pid) => readdirSync(`/proc/${pid}/task`).length;
const fdsOf = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const randomCode = () => Array.from({ length: 8 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

/** The detailed /healthz body (it lists the rooms). */
async function health(server) {
  const h = await healthz(server);
  assert.equal(h.status, 200, `/healthz: ${h.text}`);
  return h.body;
}

/** A /metrics figure (0 when absent). */
async function metric(server, name) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}

/** request(), waiting and trying again while the sender is over its message budget (not what the caller tests). */
async function patiently(v, cmd) {
  for (let k = 0; ; k++) {
    const reply = await request(v, cmd);
    if (reply.code !== 'rate_limited' || /address made too many rooms/.test(reply.message) || k === 30) return reply;
    await sleep(200);
  }
}

/** Makes a room from viewer v; the room_created message. */
async function makeRoom(v, fields = {}) {
  const reply = await patiently(v, { type: 'create_room', ...fields });
  assert.equal(reply.type, 'room_created', `create_room ${JSON.stringify(fields)}: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * One attempt to join url from localAddress: resolves with { outcome, viewer }
 * where outcome is 'hello' (the viewer is open), 'closed CODE', 'http NNN',
 * 'error' or 'timeout'. Never rejects.
 */
function tryJoin(url, { localAddress, name = 'joiner', timeoutMs = WAIT_MS, protocol = 'swarmcast.v1' } = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, [protocol], { localAddress, handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
    const v = new Viewer(ws, { name });
    let done = false;
    const finish = (outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (outcome !== 'hello') ws.terminate();
      resolve({ outcome, viewer: v });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    ws.on('unexpected-response', (req, res) => { req.destroy(); finish(`http ${res.statusCode}`); });
    ws.on('error', () => finish('error'));
    ws.on('close', (code) => finish(`closed ${code}`));
    v.waitFor(() => v.hello, 'hello', timeoutMs).then(() => finish('hello'), () => {});
  });
}

const tally = (list) => {
  const t = {};
  for (const x of list) t[x] = (t[x] ?? 0) + 1;
  return t;
};

/** Bystanders (processes of their own) in the default room and in rooms `codes`, each from its own address. */
async function watchFromOutside(server, codes, subnet) {
  const where = ['', ...codes];
  return Promise.all(where.map(async (code, i) => {
    const b = await startBystander(code ? `${server.wsUrl}?room=${code}` : server.wsUrl,
      { protocol: i % 2 ? 'v2' : 'v1', localAddress: `127.0.${subnet}.${i + 1}` });
    b.where = code ? `room ${code}` : 'the default room';
    return b;
  }));
}

/** Prints and asserts what the bystanders saw in [from, to). */
function assertBystanders(label, bystanders, from, to) {
  for (const b of bystanders) {
    const m = b.measure(from, to);
    console.log(`# ${label}: bystander in ${b.where}: ${describe(m)}`);
    assert.equal(b.closeInfo, null, `${label}: the bystander in ${b.where} is still connected`);
    assert.ok(m.windows >= 1 && m.minSnapshots > 0 && m.rate >= MIN_MEAN_SNAPSHOTS,
      `${label}: the bystander in ${b.where} kept its snapshots (a snapshot every second, at least ${MIN_MEAN_SNAPSHOTS}/s): ${describe(m)}`);
  }
}

async function stopClean(server, label) {
  const exit = await server.stop({ timeoutMs: 10000 });
  const report = /LeakSanitizer|AddressSanitizer|UndefinedBehaviorSanitizer|runtime error/.test(server.output());
  console.log(`# ${label}: server exit ${JSON.stringify(exit)}; sanitizer report: ${report ? 'yes' : 'none'}`);
  assert.ok(!report, `${label}: no sanitizer report\n${server.output()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, `${label}: clean exit\n${server.output()}`);
}

// ------------------------------------------------------------------ (a)

test('(a) a flood of create_room from 40 addresses fills --max-rooms exactly and is then refused; closed rooms\' places are taken again, exactly', { timeout: 120000 }, async () => {
  const MAX_ROOMS = 30;
  const ADDRESSES = Array.from({ length: 40 }, (_, i) => `127.0.10.${i + 1}`);
  const server = await start({ agents: 100, args: ['--max-rooms', String(MAX_ROOMS), '--max-agents', '5000'] });
  let bystanders = [];
  try {
    const teacher = await openViewer(server.wsUrl, { name: 'teacher', localAddress: '127.0.9.1' });
    const room = await makeRoom(teacher, { name: 'Teacher\'s room' });
    bystanders = await watchFromOutside(server, [room.code], 9);
    const rss0 = rssKiB(server.proc.pid);

    /**
     * Every address floods for ms with two connections at a time, each
     * asking for three rooms (the second and third over its message
     * budget) before it reconnects: the answers, tallied.
     */
    const flood = async (ms) => {
      const answers = [];
      const until = performance.now() + ms;
      let n = 0;
      const loop = async (address) => {
        while (performance.now() < until) {
          const { outcome, viewer } = await tryJoin(server.wsUrl, { localAddress: address });
          if (outcome !== 'hello') { answers.push(outcome); await sleep(50); continue; }
          const froms = [{}, { from: 'copy' }, { from: 'scenario', scenario: 'couzin-torus' }];
          const replies = await Promise.all(froms.map((f) => request(viewer, { type: 'create_room', name: `Flood ${n++}`, ...f })
            .catch((e) => ({ code: `no answer: ${e.message}` }))));
          for (const r of replies) {
            answers.push(r.type === 'room_created' ? 'room_created'
              : r.code === 'rate_limited' && /address made too many rooms/.test(r.message) ? 'rate_limited (address)'
                : r.code === 'rate_limited' ? 'rate_limited (budget)'
                  : r.code === 'limit_reached' && /--max-rooms/.test(r.message) ? 'limit_reached (--max-rooms)' : `${r.code}: ${r.message}`);
          }
          viewer.close();
        }
      };
      await Promise.all(ADDRESSES.flatMap((a) => [loop(a), loop(a)]));
      return tally(answers);
    };

    const from = performance.now();
    const first = await flood(6000);
    const rooms1 = (await health(server)).rooms.length;
    const rss1 = rssKiB(server.proc.pid);
    console.log(`# create flood: 40 addresses x 2 connections for 6 s: ${JSON.stringify(first)}; rooms open ${rooms1} ` +
      `(--max-rooms ${MAX_ROOMS} and the default room); VmRSS ${rss0} -> ${rss1} kB (${Math.round((rss1 - rss0) / (MAX_ROOMS - 1))} kB a room)`);
    assert.equal(first.room_created, MAX_ROOMS - 1, 'exactly the places left were filled');
    assert.equal(rooms1, MAX_ROOMS + 1, 'the rooms open: --max-rooms and the default room');
    assert.ok(first['limit_reached (--max-rooms)'] > 0, 'the flood went on past --max-rooms');
    const odd = Object.keys(first).filter((k) => !['room_created', 'rate_limited (address)', 'rate_limited (budget)', 'limit_reached (--max-rooms)'].includes(k));
    assert.deepEqual(odd, [], `only the documented refusals: ${JSON.stringify(first)}`);

    // Five rooms closed by the server's operator (no control token: anyone
    // in the default room): five places, taken by the next flood, no more.
    const list = (await health(server)).rooms.map((r) => r.code).filter((c) => c && c !== room.code).slice(0, 5);
    for (const code of list) assert.equal((await request(teacher, { type: 'room_close', code })).type, 'ack');
    const second = await flood(3000);
    const rooms2 = (await health(server)).rooms.length;
    const to = performance.now();
    const rss2 = rssKiB(server.proc.pid);
    console.log(`# create flood after 5 closes: 3 s: ${JSON.stringify(second)}; rooms open ${rooms2}; VmRSS ${rss2} kB`);
    assert.equal(second.room_created, 5, 'the five freed places, and no more');
    assert.equal(rooms2, MAX_ROOMS + 1);
    assert.equal(await metric(server, 'swarmcast_rooms'), MAX_ROOMS + 1, '/metrics agrees');
    // Memory: the rooms are bounded, and so is what they cost: a room of
    // 100 agents with nobody in it is its world, its thread and two command
    // queues sized for every client (--max-clients x 32 commands, 1.7 MB
    // each: touched only once the allocator hands out recycled memory). Not
    // applied under AddressSanitizer, whose allocator touches all of it.
    if (!isSanitized(server.proc.pid)) {
      assert.ok(rss2 - rss0 < MAX_ROOMS * 4 * 1024, `VmRSS grew by ${rss2 - rss0} kB for ${MAX_ROOMS} rooms (bound 4 MB a room)`);
    }
    assertBystanders('create flood', bystanders, from, to);
    teacher.close();
  } finally {
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'create flood');
  }
});

// ------------------------------------------------------------------ (b)

/**
 * A room of the churn test: made by creator, with an operator (its token)
 * who adds `extra` agents, so that each room has a population of its own,
 * then a v1 and a v2 watcher that keep every frame's population and every
 * text. addr(i) gives each session its address.
 */
async function churnRoom(server, creator, index, extra, addr) {
  const made = await makeRoom(creator, { name: `Churn ${index}` });
  const url = `${server.wsUrl}?room=${made.code}`;
  const op = await openViewer(url, { name: `operator of ${made.code}`, localAddress: addr(0) });
  assert.equal((await request(op, { type: 'auth', token: made.token })).type, 'ack');
  const added = await request(op, { type: 'add_agents', count: extra });
  assert.equal(added.type, 'ack', JSON.stringify(added));
  const population = 100 + extra;
  await op.nextSnapshot((s) => s.agents === population, 'the room\'s own population', WAIT_MS);
  const v1 = await openViewer(url, { name: `v1 watcher of ${made.code}`, localAddress: addr(1) });
  const v2 = await connectV2(url, { localAddress: addr(2) });
  v2.name = `v2 watcher of ${made.code}`;
  // (after V2Client's own handler: the state it just decoded)
  v2.populations = [];
  v2.ws.on('message', (data, isBinary) => { if (isBinary && v2.state) v2.populations.push(v2.state.population); });
  await v1.nextSnapshot(() => true, 'the v1 watcher\'s first frame', WAIT_MS);
  await v2.waitFrame(() => true, 'the v2 watcher\'s first frame', { timeoutMs: WAIT_MS });
  return { code: made.code, token: made.token, population, op, v1, v2, opId: op.hello.client_id };
}

/** What a watcher of room r saw that belongs to another room: a list of complaints. */
function leaks(r, others) {
  const bad = [];
  const otherOps = new Set(others.map((o) => o.opId));
  for (const [who, texts] of [['v1', r.v1.texts], ['v2', r.v2.texts], ['operator', r.op.texts]]) {
    for (const m of texts) {
      if (m.type === 'room' && m.code !== r.code) bad.push(`${who}: news of room ${m.code}`);
      if (m.type === 'param' && m.by !== r.opId) bad.push(`${who}: a parameter set by ${m.by}, not this room's operator`);
      if (m.type === 'presence' && m.clients.some((c) => otherOps.has(c.id))) bad.push(`${who}: another room's operator in the list`);
    }
  }
  for (const a of r.v1.arrivals) if (a.agents !== r.population) { bad.push(`v1: a frame of ${a.agents} agents (this room: ${r.population})`); break; }
  for (const p of r.v2.populations) if (p !== r.population) { bad.push(`v2: a frame of population ${p} (this room: ${r.population})`); break; }
  if (!r.v1.arrivals.length || !r.v2.populations.length) bad.push('a watcher saw no frame at all');
  for (const [who, c] of [['v1', r.v1], ['v2', r.v2], ['operator', r.op]]) {
    if (c.badTexts?.length) bad.push(`${who}: text frames that are not JSON`);
    if (c.decodeErrors?.length) bad.push(`${who}: frames that do not decode: ${c.decodeErrors[0].message}`);
  }
  return bad;
}

test('(b) join/leave churn across 8 rooms, and rooms closed by their operators with 30 people in them while 20 more join: everyone ends where it asked or is told why, nothing of one room reaches another, the counts come back', { timeout: 180000 }, async () => {
  const ROOMS = 8;
  const ROUNDS = 4;
  // (--max-agents: the budget is not the subject here, and the one derived
  // under AddressSanitizer on a busy machine holds only two or three rooms)
  const server = await start({ agents: 100, args: ['--max-rooms', '12', '--rate-scale', '10', '--max-agents', '5000'] });
  let bystanders = [];
  const everyone = [];
  try {
    const creator = await openViewer(server.wsUrl, { name: 'creator', localAddress: '127.0.20.1' });
    const rooms = [];
    for (let i = 0; i < ROOMS; i++) rooms.push(await churnRoom(server, creator, i, i + 1, (k) => `127.0.2${1 + k}.${i + 1}`));
    everyone.push(creator, ...rooms.flatMap((r) => [r.op, r.v1, r.v2]));
    bystanders = await watchFromOutside(server, [rooms[0].code], 19);
    const closed = [];
    const from = performance.now();

    // Churn: 30 at a time, each joins a room (live, or one closed meanwhile),
    // waits for a snapshot and closes or vanishes; 600 in all.
    const churnOutcomes = [];
    const wrongRoom = [];
    let churned = 0;
    let churning = true;
    const churner = async (lane) => {
      for (let mine = 0; churning && churned < 600; mine++) {
        const k = churned++;
        const pool = [...rooms, ...closed];
        const r = pool[Math.floor(Math.random() * pool.length)];
        const { outcome, viewer } = await tryJoin(`${server.wsUrl}?room=${r.code.toLowerCase()}`,
          { localAddress: `127.0.25.${(k % 20) + 1}`, name: `churner ${k}` });
        if (outcome === 'hello') {
          if (viewer.hello.room !== r.code) wrongRoom.push(`${r.code} -> ${viewer.hello.room}`);
          const snap = await viewer.nextSnapshot(() => true, 'a snapshot', WAIT_MS).catch(() => null);
          if (snap && snap.agents !== r.population) wrongRoom.push(`${r.code}: a frame of ${snap.agents} agents, not ${r.population}`);
          const end = viewer.closeInfo ? `hello, then closed ${viewer.closeInfo.code}` : snap ? 'hello, a snapshot' : 'hello, no snapshot';
          churnOutcomes.push(end);
          if (k % 2) viewer.close(); else viewer.terminate();
        } else {
          churnOutcomes.push(outcome);
        }
        if (lane === 0 && mine % 3 === 0) {
          // the operators keep changing their rooms' parameters (news that must stay in the room)
          for (const x of rooms) x.op.send({ type: 'set_param', name: 'w_ali', value: 1 + (k % 7) / 10 });
        }
      }
    };
    const churn = Promise.all(Array.from({ length: 30 }, (_, lane) => churner(lane)));

    // Meanwhile, ROUNDS times: a room (never rooms[0], which a bystander
    // watches) fills with 30 people, its operator closes it while 20 more
    // join, and a new room takes its place (and, often, its channel).
    const closeFigures = [];
    for (let round = 0; round < ROUNDS; round++) {
      const victim = rooms[1 + round];
      const url = `${server.wsUrl}?room=${victim.code}`;
      const crowd = (await Promise.all(Array.from({ length: 30 }, (_, k) =>
        tryJoin(url, { localAddress: `127.0.30.${(k % 3) + 1 + 3 * round}`, name: `crowd ${k}` }))));
      assert.deepEqual(tally(crowd.map((c) => c.outcome)), { hello: 30 }, `round ${round}: the crowd got in`);
      const people = (await health(server)).rooms.find((x) => x.code === victim.code)?.people;
      // 20 join at once; the operator closes the room before they come,
      // once the first is in, the tenth, or all (by round), while the
      // others are still on their way in.
      const closeAfter = [0, 1, 10, 20][round % 4];
      let inside = 0;
      let t0 = null;
      const closeNow = () => { if (t0 === null) { t0 = performance.now(); victim.op.send({ type: 'room_close' }); } };
      if (closeAfter === 0) closeNow();
      const lateJoins = Array.from({ length: 20 }, (_, k) =>
        tryJoin(url, { localAddress: `127.0.31.${k + 1}`, name: `late ${k}` }).then(async (j) => {
          if (j.outcome !== 'hello') return j.outcome;
          if (++inside === closeAfter) closeNow();
          const c = await withTimeout(j.viewer.closed, WAIT_MS, 'a late joiner to be sent away').catch(() => null);
          return c ? `hello, then closed ${c.code}` : 'hello, and left open';
        }));
      setTimeout(closeNow, 3000);
      const late = await Promise.all(lateJoins);
      const sentAway = await Promise.all([...crowd.map((c) => c.viewer), victim.op, victim.v1, victim.v2].map((v) =>
        withTimeout(v.closed, WAIT_MS, `${v.name} to be sent away`).then((c) => c.code, () => 'still open')));
      const ms = Math.round(performance.now() - t0);
      closeFigures.push(`round ${round + 1}: ${people} people in the room; all sent away in ${ms} ms: ${JSON.stringify(tally(sentAway))}; ` +
        `20 joining meanwhile (closed ${closeAfter ? `once ${closeAfter} were in` : 'before they came'}): ${JSON.stringify(tally(late))}`);
      assert.deepEqual(tally(sentAway), { 4410: 33 }, `round ${round}: everyone in the closed room got 4410`);
      for (const o of late) assert.ok(['closed 4404', 'closed 4410', 'hello, then closed 4410'].includes(o), `round ${round}: a late joiner: ${o}`);
      // The victim's watchers saw only their own room, to the end.
      assert.deepEqual(leaks(victim, rooms.filter((x) => x !== victim)), [], `round ${round}: the closed room's watchers saw only their room`);
      closed.push(victim);
      const fresh = await churnRoom(server, creator, ROOMS + round, 20 + round, (k) => `127.0.2${1 + k}.${100 + round}`);
      everyone.push(fresh.op, fresh.v1, fresh.v2);
      rooms[1 + round] = fresh;
      assert.equal((await tryJoin(url, { localAddress: '127.0.32.1' })).outcome, 'closed 4404', 'the closed room\'s code is gone');
    }
    churning = false;
    await churn;
    const to = performance.now();

    for (const line of closeFigures) console.log(`# rooms closed with people in them: ${line}`);
    console.log(`# churn: ${churnOutcomes.length} joins across ${ROOMS} rooms (and ${ROUNDS} closed meanwhile) in ${Math.round(to - from)} ms: ${JSON.stringify(tally(churnOutcomes))}`);
    const news = rooms.reduce((n, r) => n + r.v1.texts.filter((m) => m.type === 'param').length, 0);
    const frames = rooms.reduce((n, r) => n + r.v1.arrivals.length + r.v2.populations.length, 0);
    console.log(`# churn: what the live rooms' watchers checked: ${frames} frames, ${news} parameter changes (each its own operator's), presence lists`);
    assert.ok(news > 0, 'the operators\' parameter changes reached their rooms');
    assert.deepEqual(wrongRoom, [], 'every join landed in the room it asked for, and saw its frames only');
    // (closed 4410 without a hello: let in, and the room closed before its
    // hello went out: a closing session is sent nothing but its close)
    const allowed = ['hello, a snapshot', 'hello, then closed 4410', 'closed 4410', 'closed 4404', 'closed 4429'];
    assert.deepEqual(Object.keys(tally(churnOutcomes)).filter((k) => !allowed.includes(k)), [], `only ${allowed.join(', ')}`);
    for (const r of rooms) assert.deepEqual(leaks(r, rooms.filter((x) => x !== r)), [], `room ${r.code}: nothing of another room`);
    for (const r of rooms) for (const v of [r.op, r.v1, r.v2]) assert.equal(v.closeInfo, null, `${v.name} is still connected`);

    // The counts come back: each room holds its operator and two watchers
    // (and rooms[0] its bystander); the sessions are exactly those.
    const expected = new Map(rooms.map((r, i) => [r.code, 3 + (i === 0 ? 1 : 0)]));
    let seen;
    await waitUntil(async () => {
      seen = (await health(server)).rooms;
      return seen.length === ROOMS + 1 && seen.every((x) => x.code === '' || expected.get(x.code) === x.people);
    }, 'the rooms\' people counts to come back', { timeoutMs: 15000 }).catch(() => {});
    console.log(`# churn: people per room at the end: ${seen.map((x) => `${x.code || 'default'} ${x.people}`).join(', ')}`);
    assert.equal(seen.length, ROOMS + 1, 'the rooms open: the live ones and the default room');
    for (const x of seen) if (x.code) assert.equal(x.people, expected.get(x.code), `room ${x.code}: its people`);
    const clients = (await health(server)).clients;
    assert.equal(clients, 1 + 3 * ROOMS + bystanders.length, 'the sessions are exactly those still open');
    assert.equal(await metric(server, 'swarmcast_rooms_closed_total'), ROUNDS);
    assertBystanders('churn', bystanders, from, to);
  } finally {
    for (const v of everyone) v.close();
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'churn');
  }
});

// ------------------------------------------------------------------ (c)

test('(c) code guessing from 20 addresses against 3 live rooms finds none; each address gets 30 wrong codes and then one per 10 s; a class of 30 behind one address still gets in', { timeout: 120000 }, async () => {
  const GUESS_MS = 8000;
  const GUESSERS = Array.from({ length: 20 }, (_, i) => `127.0.40.${i + 1}`);
  const server = await start({ agents: 100, args: ['--rate-scale', '10', '--max-agents', '2000'] });
  let bystanders = [];
  const keep = [];
  try {
    const creator = await openViewer(server.wsUrl, { name: 'creator', localAddress: '127.0.39.1' });
    const live = [];
    for (let i = 0; i < 3; i++) live.push(await makeRoom(creator, { name: `Live ${i}` }));
    keep.push(creator);
    bystanders = await watchFromOutside(server, [live[0].code], 38);
    const from = performance.now();

    // The guessers: four connections at a time from each address, each a
    // random well-formed code, as fast as answers come.
    const log = [];
    const until = performance.now() + GUESS_MS;
    const guesser = async (address) => {
      while (performance.now() < until) {
        const code = randomCode();
        const { outcome, viewer } = await tryJoin(`${server.wsUrl}?room=${code}`, { localAddress: address, name: 'guesser' });
        log.push({ address, outcome, code });
        if (outcome === 'hello') viewer.close();
      }
    };
    // The class: 30 students behind one address arriving over the attack,
    // three of whom mistype their code once first.
    const students = (async () => {
      const out = [];
      for (let k = 0; k < 30; k++) {
        await sleep(GUESS_MS / 40);
        const typo = `${live[1].code.slice(0, 7)}${live[1].code[7] === 'X' ? 'Y' : 'X'}`;
        if (k % 10 === 3) out.push(`typo: ${(await tryJoin(`${server.wsUrl}?room=${typo}`, { localAddress: '127.0.41.1' })).outcome}`);
        const typed = k % 2 ? `${live[1].code.slice(0, 4).toLowerCase()}-${live[1].code.slice(4)}` : live[1].code;
        const j = await tryJoin(`${server.wsUrl}?room=${encodeURIComponent(typed)}`, { localAddress: '127.0.41.1', name: `student ${k}` });
        out.push(j.outcome === 'hello' && j.viewer.hello.room === live[1].code ? 'in' : j.outcome);
        if (j.outcome === 'hello') keep.push(j.viewer);
      }
      return out;
    })();
    await Promise.all(GUESSERS.flatMap((a) => [guesser(a), guesser(a), guesser(a), guesser(a)]));
    const classOutcomes = await students;
    const to = performance.now();

    const byAddress = GUESSERS.map((a) => tally(log.filter((e) => e.address === a).map((e) => e.outcome)));
    const found = log.filter((e) => e.outcome === 'hello');
    const wrongMax = Math.max(...byAddress.map((t) => t['closed 4404'] ?? 0));
    const wrongTotal = log.filter((e) => e.outcome === 'closed 4404').length;
    console.log(`# guessing: ${log.length} guesses from ${GUESSERS.length} addresses in ${GUESS_MS / 1000} s: ${JSON.stringify(tally(log.map((e) => e.outcome)))}; ` +
      `the most wrong codes answered to one address ${wrongMax} (30, then one per 10 s); codes found ${found.length}`);
    console.log(`# guessing: the class behind 127.0.41.1: ${JSON.stringify(tally(classOutcomes))}`);
    // What a guesser learns: only "no" for its first 30, then nothing.
    assert.deepEqual(found.map((e) => e.code), [], 'no guess found a room');
    for (const [i, t] of byAddress.entries()) {
      assert.ok((t['closed 4404'] ?? 0) <= 30 + 1 + Math.ceil(GUESS_MS / 10000), `${GUESSERS[i]}: ${JSON.stringify(t)}`);
      assert.ok((t['closed 4429'] ?? 0) > 0, `${GUESSERS[i]} was held up: ${JSON.stringify(t)}`);
      const odd = Object.keys(t).filter((k) => !['closed 4404', 'closed 4429'].includes(k));
      assert.deepEqual(odd, [], `${GUESSERS[i]}: only 4404 and 4429: ${JSON.stringify(t)}`);
    }
    assert.deepEqual(tally(classOutcomes), { in: 30, 'typo: closed 4404': 3 }, 'every student got in');
    assert.equal(await metric(server, 'swarmcast_room_codes_wrong_total'), wrongTotal + 3, '/metrics counted every wrong code');
    // A held-up address is refused unread, even for a live code (once its
    // bucket is empty again: it earns a code every 10 s).
    let held = '';
    for (let k = 0; k < 3 && held !== 'closed 4429'; k++) held = (await tryJoin(`${server.wsUrl}?room=${randomCode()}`, { localAddress: GUESSERS[0] })).outcome;
    assert.equal(held, 'closed 4429');
    assert.equal((await tryJoin(`${server.wsUrl}?room=${live[2].code}`, { localAddress: GUESSERS[0] })).outcome, 'closed 4429');
    assertBystanders('guessing', bystanders, from, to);
  } finally {
    for (const v of keep) v.close();
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'guessing');
  }
});

// ------------------------------------------------------------------ (d)

// Names by script, each tried at every length from 1 to 25 characters (25
// is one too many): 1-, 2-, 3- and 4-byte characters, a script with
// combining marks, right-to-left letters.
const SCRIPTS = {
  latin: 'x',
  'latin-1': 'ü',
  cjk: '龍',
  emoji: '😀',
  devanagari: 'क',
  arabic: 'ع',
  hangul: '한',
  'math letters': '𝔘',
};
// [sent, what must come back (null: only that it is clean)] and refusals.
const ROOM_NAMES = [
  ['عبد الرحمن بن خلدون', 'عبد الرحمن بن خلدون'],
  ['e\u0301te\u0301', 'été'],
  [`Z${'\u030d'.repeat(20)}algo`, `Z${'\u030d'.repeat(3)}algo`],
  ['👩🏽‍🚀 astronaut', '👩🏽🚀 astronaut'],
  ['  Lab   B  ', 'Lab B'],
  ['\u200bGroup\u200d 3', 'Group 3'],
];
const REFUSED_NAMES = [
  ['\u200b\u200d', /no visible character/],
  ['a\u202eb', /./],
  ['\u0007bell', /./],
  ['\ue000', /./],
  ['you', /labels the page uses/],
  ['Guest 7', /labels the page uses/],
  ['😀'.repeat(25), /at most 24/],
];

/** Seeded random text (xorshift), drawn from the kinds of characters the name rules treat differently. */
function randomTexts(seed, n) {
  const kinds = [[0x41, 0x7a], [0x20, 0x20], [0xa0, 0xff], [0x300, 0x36f], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe5b],
    [0x1100, 0x11ff], [0x200b, 0x200f], [0x2060, 0x2064], [0x2800, 0x2803], [0x3000, 0x3000], [0x3164, 0x3164],
    [0x4e00, 0x4e40], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0x1f300, 0x1f64f], [0x1f3fb, 0x1f3ff], [0xe0000, 0xe007f],
    [0x22, 0x22], [0x5c, 0x5c], [0x202a, 0x202e], [0xe000, 0xe010], [0x1, 0x1f]];
  let s = BigInt(seed);
  const next = () => {
    s ^= (s << 13n) & 0xffffffffffffffffn; s ^= s >> 7n; s ^= (s << 17n) & 0xffffffffffffffffn;
    return Number(s & 0xffffffffn);
  };
  return Array.from({ length: n }, () => {
    const len = next() % 30;
    let t = '';
    for (let k = 0; k < len; k++) {
      const r = next();
      const [lo, hi] = kinds[r % (r % 40 === 0 ? kinds.length : kinds.length - 3)];
      t += String.fromCodePoint(lo + ((r >>> 8) % (hi - lo + 1)));
    }
    return t;
  });
}

test('(d) room names in every script and at every length, room messages at the size limit, malformed room messages and ?room= values: each answered, nothing else changes, every frame valid', { timeout: 120000 }, async () => {
  const server = await start({ agents: 50, args: ['--rate-scale', '10', '--max-rooms', '40', '--max-agents', '2000'] });
  let bystanders = [];
  const clients = [];
  try {
    const creator = await openViewer(server.wsUrl, { name: 'creator', localAddress: '127.0.50.1' });
    clients.push(creator);
    // An address makes 20 rooms at once: the rooms made here come from
    // makers at addresses of their own, 15 rooms each.
    const makers = [];
    let madeCount = 0;
    const maker = async () => {
      const k = Math.floor(madeCount++ / 15);
      if (!makers[k]) {
        makers[k] = await openViewer(server.wsUrl, { name: `maker ${k}`, localAddress: `127.0.52.${k + 1}` });
        clients.push(makers[k]);
      }
      return makers[k];
    };
    const mine = await makeRoom(creator, { name: 'Mine' });
    const other = await makeRoom(creator, { name: 'Other' });
    bystanders = await watchFromOutside(server, [other.code], 49);
    const url = `${server.wsUrl}?room=${mine.code}`;
    const op = await openViewer(url, { name: 'operator', localAddress: '127.0.50.2' });
    const member = await openViewer(url, { name: 'member', localAddress: '127.0.50.3' });
    const outsider = await openViewer(`${server.wsUrl}?room=${other.code}`, { name: 'outsider', localAddress: '127.0.50.4' });
    clients.push(op, member, outsider);
    assert.equal((await patiently(op, { type: 'auth', token: mine.token })).type, 'ack');
    const from = performance.now();

    // Renames at every length in every script: 1..24 accepted and told to
    // the room, 25 refused.
    let renamed = 0;
    let lastName = 'Mine';
    for (const [script, ch] of Object.entries(SCRIPTS)) {
      for (let len = 1; len <= 25; len++) {
        const name = ch.repeat(len);
        const reply = await patiently(op, { type: 'room_rename', name });
        if (len <= 24) {
          assert.equal(reply.type, 'ack', `${script} x${len}: ${JSON.stringify(reply)}`);
          await member.waitFor(() => member.texts.findLast((m) => m.type === 'room')?.name === name, `${script} x${len} told to the room`, WAIT_MS);
          lastName = name;
          renamed++;
        } else {
          assert.equal(reply.code, 'out_of_range', `${script} x25 is refused: ${JSON.stringify(reply)}`);
          assert.match(reply.message, /at most 24/);
        }
      }
    }
    // Names cleaned as a person's are, and refusals that change nothing.
    for (const [sent, expected] of ROOM_NAMES) {
      assert.equal((await patiently(op, { type: 'room_rename', name: sent })).type, 'ack', JSON.stringify(sent));
      await member.waitFor(() => member.texts.findLast((m) => m.type === 'room')?.name === expected, `${JSON.stringify(sent)} told as ${JSON.stringify(expected)}`, WAIT_MS);
      lastName = expected;
      const made = await makeRoom(await maker(), { name: sent });
      assert.equal(made.name, expected, `create_room cleans ${JSON.stringify(sent)} the same way`);
      const joiner = await openViewer(`${server.wsUrl}?room=${made.code}`, { name: 'joiner', localAddress: '127.0.50.5' });
      assert.equal(joiner.hello.room_name, expected, 'and a newcomer\'s hello says so');
      joiner.close();
      assert.equal((await patiently(creator, { type: 'room_close', code: made.code })).type, 'ack');
    }
    const roomsBefore = (await health(server)).rooms.length;
    for (const [sent, reason] of REFUSED_NAMES) {
      for (const cmd of [{ type: 'room_rename', name: sent }, { type: 'create_room', name: sent }]) {
        const reply = await patiently(cmd.type === 'room_rename' ? op : creator, cmd);
        assert.equal(reply.code, 'out_of_range', `${cmd.type} ${JSON.stringify(sent)}: ${JSON.stringify(reply)}`);
        assert.match(reply.message, reason);
      }
    }
    // Random text through both: accepted (then clean, at most 24
    // characters, told whole) or refused with out_of_range; never more.
    const random = randomTexts(24, 120);
    const randomTally = {};
    const clean = (name) => name.length > 0 && [...name].length <= 24 && !/[\u0000-\u001f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/u.test(name);
    for (const [i, text] of random.entries()) {
      const mark = member.texts.length;
      const reply = i % 2 ? await patiently(op, { type: 'room_rename', name: text }) : await patiently(await maker(), { type: 'create_room', name: text });
      if (reply.type !== 'room_created' && i % 2 === 0) madeCount--; // (a refusal makes no room)
      const kind = reply.type === 'error' ? `error ${reply.code}` : reply.type;
      randomTally[kind] = (randomTally[kind] ?? 0) + 1;
      assert.ok(['ack', 'room_created', 'error out_of_range'].includes(kind), `${JSON.stringify(text)}: ${JSON.stringify(reply)}`);
      if (reply.type === 'room_created') {
        assert.ok(clean(reply.name), `a clean name: ${JSON.stringify(reply.name)}`);
        assert.equal((await patiently(creator, { type: 'room_close', code: reply.code })).type, 'ack');
      }
      if (reply.type === 'ack') {
        const told = await member.waitFor(() => member.texts.slice(mark).findLast((m) => m.type === 'room'), 'the rename\'s news', WAIT_MS);
        assert.ok(clean(told.name), `a clean name told: ${JSON.stringify(told.name)}`);
        lastName = told.name;
      }
    }
    console.log(`# names: ${renamed} renames at every length 1-24 in ${Object.keys(SCRIPTS).length} scripts, 25 refused in each; ` +
      `${ROOM_NAMES.length} cleaned, ${REFUSED_NAMES.length} refused (rename and create_room); ${random.length} random texts: ${JSON.stringify(randomTally)}`);

    // At the message size limit (4096 bytes): served; one byte more: 1009.
    const sized = (obj, bytes) => {
      const base = JSON.stringify({ ...obj, pad: '' });
      return JSON.stringify({ ...obj, pad: 'p'.repeat(bytes - Buffer.byteLength(base)) });
    };
    const atLimit = sized({ type: 'room_rename', name: 'At the limit', id: 77 }, 4096);
    assert.equal(Buffer.byteLength(atLimit), 4096);
    op.ws.send(atLimit);
    await op.waitFor(() => op.texts.find((m) => m.id === 77), 'the reply to a 4096-byte rename', WAIT_MS);
    assert.equal(op.texts.find((m) => m.id === 77).type, 'ack');
    lastName = 'At the limit';
    const big = await openViewer(server.wsUrl, { name: 'too big', localAddress: '127.0.50.6' });
    big.ws.send(sized({ type: 'create_room', name: 'Too big', id: 78 }, 4097));
    assert.equal((await withTimeout(big.closed, WAIT_MS, 'the 4097-byte create_room to close')).code, 1009);
    const atLimitCreate = await openViewer(server.wsUrl, { name: 'at the limit', localAddress: '127.0.50.7' });
    clients.push(atLimitCreate);
    atLimitCreate.ws.send(sized({ type: 'create_room', name: 'At the limit', id: 79 }, 4096));
    const made = await atLimitCreate.waitFor(() => atLimitCreate.texts.find((m) => m.id === 79), 'the reply to a 4096-byte create_room', WAIT_MS);
    assert.equal(made.type, 'room_created', JSON.stringify(made));
    assert.equal((await patiently(creator, { type: 'room_close', code: made.code })).type, 'ack');

    // Malformed room messages: each refused, the connection open, no room more.
    const MALFORMED = [
      ['{"type":"create_room","from":null}', 'bad_type'],
      ['{"type":"create_room","from":7}', 'bad_type'],
      ['{"type":"create_room","from":"scenario","scenario":["couzin-torus"]}', 'bad_type'],
      [`{"type":"create_room","from":"scenario","scenario":"${'a'.repeat(3000)}"}`, 'out_of_range'],
      ['{"type":"create_room","from":"scenario","scenario":"couzin-torus\\u0000x"}', null],
      ['{"type":"create_room","from":"scenario","scenario":"COUZIN-TORUS"}', 'out_of_range'],
      // scenarios/index.json is the page's list, not a scenario (the server
      // once tried it as one and answered bad_request, naming its own path)
      ['{"type":"create_room","from":"scenario","scenario":"index"}', 'not_found'],
      ['{"type":"create_room","name":{"a":1}}', 'bad_type'],
      ['{"type":"create_room","name":"a\\u0000b"}', null],
      ['{"type":"create_room","name":"\\ud800"}', null],
      ['{"type":"create_room","id":-1}', 'bad_type'],
      ['{"type":"create_room","id":4294967296}', 'bad_type'],
      ['{"type":"create_room","id":1e400}', null],
      ['{"type":"create_room","type":"create_room"}', 'bad_json'],
      ['{"type":"create_room",}', 'bad_json'],
      ['{"type":"room_rename","name":""}', 'out_of_range'],
      ['{"type":"room_rename","name":null}', 'bad_type'],
      ['{"type":"room_close","code":7}', 'bad_type'],
      ['{"type":"room_close","code":""}', 'out_of_range'],
      [`{"type":"room_close","code":"${'2'.repeat(40)}"}`, 'out_of_range'],
      ['{"type":"room_close","code":"ZZZZ-ZZZZ"}', 'not_found'],
      ['{"type":"rooms","id":"x"}', 'bad_type'],
      ['{"type":["create_room"]}', 'unknown_command'],
      [`{"type":"create_room","name":"${'\\u00e9'.repeat(600)}"}`, 'out_of_range'],
      [`[${'['.repeat(2000)}${']'.repeat(2000)}]`, 'bad_json'],
    ];
    const malformedTally = {};
    for (const [i, [text, code]] of MALFORMED.entries()) {
      const mark = creator.texts.length;
      creator.ws.send(text);
      const reply = await creator.waitFor(() => creator.texts.slice(mark).find((m) => m.type === 'error' || m.type === 'room_created' || m.type === 'ack'),
        `an answer to malformed message ${i}: ${text.slice(0, 80)}`, WAIT_MS);
      malformedTally[reply.code ?? reply.type] = (malformedTally[reply.code ?? reply.type] ?? 0) + 1;
      assert.ok(!JSON.stringify(reply).includes(webRoot), `the answer names no file of the server's: ${JSON.stringify(reply)}`);
      if (code) assert.equal(reply.code, code, `${text.slice(0, 120)}: ${JSON.stringify(reply)}`);
      else assert.equal(reply.type, 'error', `${text.slice(0, 120)} is refused: ${JSON.stringify(reply)}`);
      assert.equal(creator.closeInfo, null, 'the connection stays open');
      await sleep(20);
    }
    console.log(`# malformed room messages: ${MALFORMED.length}: ${JSON.stringify(malformedTally)}`);
    assert.equal((await health(server)).rooms.length, roomsBefore, 'no room was made by any of them');

    // ?room= values: each refused with 4404 or served in the room it names,
    // never sent to the default room instead. (A ?room= longer than 40
    // bytes, or any argument before it, used to read as no ?room= at all:
    // into the default room.)
    const ROOM_PARAMS = [
      ['A'.repeat(3000), 'closed 4404'], ['A'.repeat(41), 'closed 4404'], ['%00', null], ['..%2F..%2Fetc%2Fpasswd', 'closed 4404'],
      [`${mine.code}&pad=${'x'.repeat(100)}`, 'hello'], [`pad=${'x'.repeat(100)}&room=${mine.code}`, 'hello'],
      [`pad=${'x'.repeat(100)}&room=ZZZZZZZZ`, 'closed 4404'],
      [encodeURIComponent(`${mine.code.slice(0, 4)} ${mine.code.slice(4)}`), 'hello'],
      [`${mine.code.slice(0, 4)}.${mine.code.slice(4)}`, 'hello'],
      [`${mine.code}&room=ZZZZZZZZ`, null], [`ZZZZZZZZ&room=${mine.code}`, null],
      [encodeURIComponent('ＡＢＣＤＥＦＧＨ'), 'closed 4404'], [`${mine.code}%00`, null], ['%FF%FE', 'closed 4404'],
      [`${mine.code}${'-'.repeat(500)}`, 'hello'], [encodeURIComponent('😀'.repeat(100)), 'closed 4404'],
    ];
    const paramOutcomes = [];
    for (const [k, [param, expect]] of ROOM_PARAMS.entries()) {
      const j = await tryJoin(`${server.wsUrl}?${param.startsWith('pad=') ? '' : 'room='}${param}`, { localAddress: `127.0.51.${k + 1}`, name: `?room=${param.slice(0, 20)}` });
      const outcome = j.outcome === 'hello' ? (j.viewer.hello.room === mine.code ? 'hello' : `hello in ${j.viewer.hello.room || 'the default room'}`) : j.outcome;
      paramOutcomes.push(`${param.slice(0, 24)}${param.length > 24 ? '…' : ''} -> ${outcome}`);
      if (expect) assert.equal(outcome, expect, `?room=${param.slice(0, 60)}`);
      else assert.ok(!/^(hello in|timeout)/.test(outcome), `?room=${param.slice(0, 60)}: ${outcome}`);
      j.viewer.close();
    }
    console.log(`# ?room= values: ${paramOutcomes.join('; ')}`);
    const to = performance.now();

    // Nothing of it reached another room, and every frame was valid.
    assert.equal(outsider.texts.filter((m) => m.type === 'room').length, 0, 'no room news reached another room');
    assert.equal(member.texts.findLast((m) => m.type === 'room').name, lastName);
    for (const c of [op, member, outsider, creator]) assert.equal(c.closeInfo, null, `${c.name} is still connected (no 1007)`);
    assert.equal(await metric(server, 'swarmcast_text_refused_total'), 0, 'every text the server made was valid UTF-8');
    assertBystanders('names', bystanders, from, to);
  } finally {
    for (const c of clients) c.close();
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'names');
  }
});

// ------------------------------------------------------------------ (e)

test('(e) 300 rooms made and closed (--max-rooms 4, four at a time, closed by their operators, by the server\'s, with people in them): memory, threads and descriptors come back; no leak', { timeout: 240000 }, async () => {
  const CYCLES = 300;
  const WARM_UP = 40;
  const LANES = 4;
  // 20 creations per address at once: 20 addresses make 15 each.
  const ADDRESSES = Array.from({ length: 20 }, (_, i) => `127.0.60.${i + 1}`);
  // After the warm-up, resident memory may grow by at most this much over
  // the cycles (the allocator's high-water mark of four rooms and their
  // people at once, about 14 MB, may come after the warm-up), and over
  // their second half by 8 MB: leaking 55 kB a room would pass that, and
  // a room holds megabytes (its command queues, 3.4 MB at --max-clients
  // 512; its world, its thread's stack, its encoder). Not applied under
  // AddressSanitizer (freed memory sits in quarantine): LeakSanitizer
  // checks at exit instead.
  const RSS_GROWTH_BOUND_KIB = 32 * 1024;
  const RSS_SECOND_HALF_BOUND_KIB = 8 * 1024;
  // (--max-agents: the budget is not the subject; the one derived under
  // AddressSanitizer on a busy machine may not hold five rooms of 100)
  const server = await start({ agents: 100, args: ['--max-rooms', String(LANES), '--rate-scale', '10', '--max-agents', '2000'] });
  let bystanders = [];
  try {
    const sanitized = isSanitized(server.proc.pid);
    bystanders = await watchFromOutside(server, [], 59);
    const kinds = {};
    let next = 0;
    const failures = [];
    /** One room's life; the way it ends takes turns. */
    const cycle = async (i) => {
      const creator = await openViewer(server.wsUrl, { name: `creator ${i}`, localAddress: ADDRESSES[i % ADDRESSES.length], timeoutMs: WAIT_MS });
      try {
        const froms = [{}, { from: 'copy' }, { from: 'scenario', scenario: 'couzin-torus' }];
        const made = await makeRoom(creator, { name: `Cycle ${i}`, ...froms[i % 3] });
        const url = `${server.wsUrl}?room=${made.code}`;
        const way = i % 3;
        if (way === 0) {
          // its operator closes it: the close is the answer
          const op = await openViewer(url, { name: 'operator', localAddress: ADDRESSES[(i + 1) % ADDRESSES.length] });
          assert.equal((await request(op, { type: 'auth', token: made.token })).type, 'ack');
          op.send({ type: 'room_close' });
          assert.equal((await withTimeout(op.closed, WAIT_MS, 'the operator sent away')).code, 4410);
        } else if (way === 1) {
          // the server's operator closes it from the default room
          assert.equal((await request(creator, { type: 'room_close', code: made.code })).type, 'ack');
        } else {
          // three people in it (v1 and v2), one with a target, then closed
          const people = [
            await openViewer(url, { name: 'person 1', localAddress: ADDRESSES[(i + 2) % ADDRESSES.length] }),
            await connectV2(url, { localAddress: ADDRESSES[(i + 3) % ADDRESSES.length] }),
            await openViewer(url, { name: 'person 3', localAddress: ADDRESSES[(i + 4) % ADDRESSES.length] }),
          ];
          people[0].send({ type: 'set_target', x: 100, y: 100 });
          people[0].send({ type: 'hello', name: 'Person' });
          await people[0].nextSnapshot(() => true, 'a snapshot', WAIT_MS);
          assert.equal((await request(creator, { type: 'room_close', code: made.code })).type, 'ack');
          const codes = await Promise.all(people.map((p) => withTimeout(p.closed, WAIT_MS, 'a person sent away')));
          assert.deepEqual(codes.map((c) => c.code), [4410, 4410, 4410]);
        }
        kinds[way] = (kinds[way] ?? 0) + 1;
      } finally {
        creator.close();
        await withTimeout(creator.closed, WAIT_MS, 'the creator to close').catch(() => {});
      }
    };
    const run = async (count) => {
      const lane = async () => {
        while (next < count) {
          const i = next++;
          await cycle(i).catch((e) => failures.push(`cycle ${i}: ${e.message}`));
        }
      };
      await Promise.all(Array.from({ length: LANES }, lane));
    };
    const settle = async () => {
      await waitUntil(async () => (await health(server)).rooms.length === 1 && (await health(server)).clients === bystanders.length,
        'every room closed and every cycle\'s session gone', { timeoutMs: 15000 });
      await sleep(2500); // two rounds of the lifecycle timer free the closed rooms
    };
    await run(WARM_UP);
    await settle();
    const before = { rss: rssKiB(server.proc.pid), threads: threadsOf(server.proc.pid), fds: fdsOf(server.proc.pid) };
    const from = performance.now();
    await run(WARM_UP + CYCLES / 2);
    await settle();
    const half = rssKiB(server.proc.pid);
    await run(WARM_UP + CYCLES);
    const to = performance.now();
    await settle();
    const after = { rss: rssKiB(server.proc.pid), threads: threadsOf(server.proc.pid), fds: fdsOf(server.proc.pid) };
    const created = await metric(server, 'swarmcast_rooms_created_total');
    const closedTotal = await metric(server, 'swarmcast_rooms_closed_total');
    console.log(`# room cycles: ${CYCLES} after ${WARM_UP} to warm up, ${LANES} at a time, in ${Math.round(to - from)} ms ` +
      `(closed by their operator ${kinds[0]}, by the server's ${kinds[1]}, with people in them ${kinds[2]}); failures ${failures.length}; ` +
      `rooms made ${created}, closed ${closedTotal}`);
    console.log(`# room cycles: VmRSS ${before.rss} -> ${half} -> ${after.rss} kB (growth ${after.rss - before.rss} kB, bound ${RSS_GROWTH_BOUND_KIB} kB; ` +
      `over the second half ${after.rss - half} kB, bound ${RSS_SECOND_HALF_BOUND_KIB} kB` +
      `${sanitized ? ', not applied: sanitizer build' : ''}); threads ${before.threads} -> ${after.threads}; descriptors ${before.fds} -> ${after.fds}`);
    assert.deepEqual(failures.slice(0, 5), [], `every cycle completed (${failures.length} failed)`);
    assert.equal(created, WARM_UP + CYCLES);
    assert.equal(closedTotal, WARM_UP + CYCLES);
    assert.equal(after.threads, before.threads, 'every room\'s thread is gone');
    assert.ok(after.fds <= before.fds + 2, `no descriptor is left behind: ${before.fds} -> ${after.fds}`);
    if (!sanitized) {
      assert.ok(after.rss - before.rss < RSS_GROWTH_BOUND_KIB, `VmRSS grew by ${after.rss - before.rss} kB over ${CYCLES} rooms`);
      assert.ok(after.rss - half < RSS_SECOND_HALF_BOUND_KIB, `VmRSS grew by ${after.rss - half} kB over the last ${CYCLES / 2} rooms`);
    }
    assertBystanders('room cycles', bystanders, from, to);
  } finally {
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'room cycles');
  }
});

// ------------------------------------------------------------------ (f)

test('(f) one room fills the shared population budget in its dearest crowd while three others keep 58+ ticks a second; rooms adding at once never overdraw the budget', { timeout: 120000 }, async () => {
  // Long enough that a stall of the machine (a tenth of a second, say,
  // under AddressSanitizer while other work runs) costs the figure little.
  const ATTACK_MS = 10000;
  const MIN_TICKS_PER_S = 58;
  // The population limit is the one this build derives from this machine
  // (no --max-agents): what steps in half a tick in the dearest crowd
  // (under AddressSanitizer, a few hundred). The other rooms hold 10 each.
  const server = await start({ agents: 10, args: ['--rate-scale', '4'] });
  let bystanders = [];
  const clients = [];
  try {
    const creator = await openViewer(server.wsUrl, { name: 'creator', localAddress: '127.0.70.1' });
    clients.push(creator);
    const maxAgents = creator.hello.limits.max_agents;
    const heavy = await makeRoom(creator, { name: 'Heavy' });
    const others = [];
    for (let i = 0; i < 3; i++) others.push(await makeRoom(creator, { name: `Other ${i}` }));
    bystanders = await watchFromOutside(server, others.map((o) => o.code), 69);
    const op = await openViewer(`${server.wsUrl}?room=${heavy.code}`, { name: 'heavy operator', localAddress: '127.0.71.1' });
    clients.push(op);
    assert.equal((await request(op, { type: 'auth', token: heavy.token })).type, 'ack');

    // /healthz every 500 ms: every room's tick and ticks_per_s.
    const samples = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        const h = await healthz(server, { timeoutMs: 3000 }).catch(() => null);
        if (h?.body) samples.push({ t, held: h.body.agents_all_rooms, rooms: new Map(h.body.rooms.map((r) => [r.code, r])) });
        await sleep(500);
      }
    })();
    await sleep(1500);
    const from = performance.now();
    // The attack: the whole budget into the heavy room, with parameters that
    // make every agent's work as large as they can, and resets to none and
    // back, as fast as its budget allows.
    const answers = [];
    const HEAVY = [['sep_radius', 200], ['ali_radius', 200], ['coh_radius', 200], ['predators', 16], ['delay_ticks', 30], ['species', 4]];
    for (const [name, value] of HEAVY) answers.push((await request(op, { type: 'set_param', name, value })).type);
    // Chunks of an eighth of the budget until it is refused, a reset past
    // it (refused too), then a reset to none, and again.
    const chunk = Math.min(10000, Math.ceil(maxAgents / 8));
    let full = 0;
    while (performance.now() - from < ATTACK_MS) {
      const cmd = full === 0 ? { type: 'add_agents', count: chunk } : full === 1 ? { type: 'reset', agents: maxAgents } : { type: 'reset', agents: 0 };
      const r = await request(op, cmd, WAIT_MS);
      answers.push(r.type === 'ack' ? `${r.cmd} ack` : `${r.cmd} ${r.code}`);
      if (r.code === 'limit_reached') {
        assert.match(r.message, /this room holds (\d+), the other rooms (\d+), and (\d+) are left/);
        const [, mine, rest, left] = /this room holds (\d+), the other rooms (\d+), and (\d+) are left/.exec(r.message).map(Number);
        assert.equal(mine + rest + left, maxAgents, `the budget adds up: ${r.message}`);
        // the room holds what is left: it steps the dearest crowd for a while
        if (full === 0) await sleep(1500);
      }
      if (r.code === 'rate_limited') await sleep(250);
      else if (full === 0 ? r.code === 'limit_reached' : r.type === 'ack' || r.code === 'limit_reached') full = (full + 1) % 3;
      await sleep(50);
    }
    const to = performance.now();
    await sleep(600);
    polling = false;
    await poller;

    const inWindow = samples.filter((s) => s.t >= from && s.t <= to + 600);
    const firstS = inWindow[0];
    const lastS = inWindow.at(-1);
    const seconds = (lastS.t - firstS.t) / 1000;
    const peakHeavy = Math.max(...inWindow.map((s) => s.rooms.get(heavy.code)?.agents ?? 0));
    console.log(`# budget: max_agents ${maxAgents}; the heavy room's commands ${JSON.stringify(tally(answers))}; its largest population ${peakHeavy}; ` +
      `agents in all rooms at most ${Math.max(...samples.map((s) => s.held))}`);
    for (const code of ['', ...others.map((o) => o.code)]) {
      const ticks = lastS.rooms.get(code).tick - firstS.rooms.get(code).tick;
      const perSample = inWindow.map((s) => Math.round(s.rooms.get(code).ticks_per_s));
      console.log(`# budget: ${code || 'the default room'}: ${ticks} ticks in ${seconds.toFixed(1)} s (${(ticks / seconds).toFixed(1)}/s); ticks_per_s [${perSample.join(' ')}]`);
      // The median second, not the mean: a stall of the whole machine (other
      // work on the two cores: it once took two seconds to 38) lowers every
      // room alike, and says nothing of what the heavy room does to this one,
      // which would show in most of its seconds.
      const median = [...perSample].sort((x, y) => x - y)[Math.floor(perSample.length / 2)];
      assert.ok(median >= MIN_TICKS_PER_S, `${code || 'the default room'} kept ${MIN_TICKS_PER_S} ticks a second in its median second: ${median} [${perSample.join(' ')}]`);
    }
    console.log(`# budget: the heavy room: ticks_per_s [${inWindow.map((s) => Math.round(s.rooms.get(heavy.code).ticks_per_s)).join(' ')}]`);
    assert.ok(peakHeavy > maxAgents / 2, `the heavy room held most of the budget: ${peakHeavy}`);
    assert.ok(samples.every((s) => s.held <= maxAgents), 'the budget was never overdrawn');
    assertBystanders('budget', bystanders, from, to);

    // Rooms adding at once: the heavy room gives its agents back, then four
    // rooms' operators add in turn as fast as answers come, together.
    await request(op, { type: 'reset', agents: 0 }, WAIT_MS);
    await sleep(2500); // the operator's budget earns another reset meanwhile; not needed here
    const ops = [op];
    for (const [i, o] of others.entries()) {
      const v = await openViewer(`${server.wsUrl}?room=${o.code}`, { name: `operator ${i}`, localAddress: `127.0.71.${i + 2}` });
      assert.equal((await request(v, { type: 'auth', token: o.token })).type, 'ack');
      ops.push(v);
      clients.push(v);
    }
    const adds = await Promise.all(ops.map(async (v) => {
      const got = [];
      for (let k = 0; k < 40; k++) {
        const r = await request(v, { type: 'add_agents', count: Math.ceil(maxAgents / 20) }, WAIT_MS);
        got.push(r.type === 'ack' ? 'ack' : r.code);
        if (r.code === 'rate_limited') await sleep(200);
      }
      return got;
    }));
    await sleep(300);
    const h = await health(server);
    const sum = h.rooms.reduce((s, r) => s + r.agents, 0);
    console.log(`# budget: four rooms adding at once: ${adds.map((a) => JSON.stringify(tally(a))).join(', ')}; ` +
      `agents in all rooms ${h.agents_all_rooms} (the rooms' own counts add up to ${sum}) of ${maxAgents}`);
    assert.ok(h.agents_all_rooms <= maxAgents, 'never past the budget');
    assert.equal(h.agents_all_rooms, sum, 'the budget\'s count is the rooms\' populations');
    assert.ok(adds.flat().includes('limit_reached'), 'the budget ran out');
  } finally {
    for (const c of clients) c.close();
    await Promise.all(bystanders.map((b) => b.close()));
    await stopClean(server, 'budget');
  }
});

// ------------------------------------------------------------------ (g)

test('(g) a world of no agents: a visitor\'s room reset to none, a room copied from it, and a server started with --agents 0 are served (the sanitizer build once stopped at the first snapshot)', { timeout: 60000 }, async () => {
  const server = await start({ agents: 50, args: ['--rate-scale', '4', '--max-agents', '1000'] });
  const clients = [];
  try {
    // A visitor makes a room, takes its operator role and empties it; from
    // inside it, a copy: a room that has never held an agent.
    const visitor = await openViewer(server.wsUrl, { name: 'visitor', localAddress: '127.0.80.1' });
    clients.push(visitor);
    const a = await makeRoom(visitor, { name: 'Emptied' });
    const op = await openViewer(`${server.wsUrl}?room=${a.code}`, { name: 'operator', localAddress: '127.0.80.2' });
    clients.push(op);
    assert.equal((await request(op, { type: 'auth', token: a.token })).type, 'ack');
    const reset = await patiently(op, { type: 'reset', agents: 0 });
    assert.equal(reset.type, 'ack', JSON.stringify(reset));
    const b = await makeRoom(op, { from: 'copy', name: 'Never held one' });
    const v1 = await openViewer(`${server.wsUrl}?room=${b.code}`, { name: 'v1 in the copy', localAddress: '127.0.80.3' });
    const v2 = await connectV2(`${server.wsUrl}?room=${b.code}`, { localAddress: '127.0.80.4' });
    clients.push(v1, v2);
    const snaps = [];
    for (let i = 0; i < 5; i++) snaps.push(await v1.nextSnapshot(() => true, 'a snapshot of the empty copy', WAIT_MS));
    await v2.waitFrame((f) => f.count === 0, 'a v2 frame of the empty copy', { timeoutMs: WAIT_MS });
    console.log(`# no agents: the copied room's snapshots: agents ${snaps.map((x) => x.agents).join(' ')}; the server ${server.proc.exitCode === null ? 'runs' : `exited ${server.proc.exitCode}`}`);
    assert.deepEqual(snaps.map((x) => x.agents), [0, 0, 0, 0, 0]);
    assert.equal((await healthz(server)).status, 200, 'the server still answers');
  } finally {
    for (const c of clients) c.close();
    await stopClean(server, 'no agents');
  }
  const empty = await start({ agents: 0, args: ['--max-agents', '1000'] });
  try {
    const v = await openViewer(empty.wsUrl, { name: 'viewer of an empty world', localAddress: '127.0.80.5' });
    const s = await v.nextSnapshot(() => true, 'a snapshot of --agents 0', WAIT_MS);
    assert.equal(s.agents, 0);
    v.close();
  } finally {
    await stopClean(empty, '--agents 0');
  }
});
