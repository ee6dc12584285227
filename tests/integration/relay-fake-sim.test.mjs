// A relay (`swarmcast --relay`) against a real nats-server, with the test
// playing the simulation's side of the subjects (tests/lib/nats_wire.mjs):
// what the relay asks for, what it forwards and refuses, how it rebuilds
// each viewer's frames from view and snapshot messages byte for byte, its
// "world restarting" banner and how it announces its viewers again to a
// simulation that came back. The real simulation with relays is the
// nats-relay suite's; this one pins the relay's own behaviour.
//   node --test tests/integration/relay-fake-sim.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { startServer, healthz, waitUntil } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { startNats } from '../lib/nats.mjs';
import { NatsWire, snapshotMsg, viewMsg, newsMsg, envelopeMsg, decodeEnvelope, ENVELOPE }
  from '../lib/nats_wire.mjs';

const TOKEN = 'relay-test-token';
const TAG = 7;
const WAIT = { timeoutMs: 8000 };

const HELLO = {
  type: 'hello', protocol: 2, server: 'fake', client_id: 0, world: { width: 800, height: 600 }, tick_hz: 60,
  snapshot_hz: 30, limits: { max_message_bytes: 4096, max_agents: 5000 }, role: 'visitor', control_token: true,
  params: [],
};

// The frame headers the fake simulation publishes: 20 bytes (the relay
// writes the chunk count at offset 16), told apart by their first byte.
function frameHeader(seq, scene) {
  const h = Buffer.alloc(scene ? 28 : 20);
  h[0] = scene ? 0xbb : 0xaa;
  h.writeUInt32LE(seq, 4);
  h.writeUInt32LE(seq * 2, 8); // the tick
  return h;
}

// The simulation's side: answers leases with the views asked for, collects
// envelopes, acks set_target, and publishes every leased view per seq.
class FakeSim {
  constructor(nc) {
    this.nc = nc;
    this.leases = [];
    this.envelopes = [];
    this.views = new Map(); // subject → { mode, rect, id }
    this.nextViewId = 1;
    this.answering = true;
    this.takenTags = new Set(); // leases with these tags are refused (another relay holds them)
    this.takenFirstTagOf = new Map(); // relay name → the tag of its first lease, refused once seen
    this.announceNext = false; // the next lease answer asks the relay to announce its viewers
    this.notJoinedOnce = new Set(); // rooms whose next lease is refused "not_joined" (no heartbeat heard yet)
    this.closedRooms = new Set(); // rooms whose leases are refused "no_room" (closed by their operator)
    this.seq = 0;
    this.timer = null;
    // Each relay writes on the subjects of its own tag (P.lease.<tag>, P.cmd.<tag>).
    nc.sub('swarmcast.lease.*', (subject, reply, payload) => {
      const req = JSON.parse(payload.toString('utf8'));
      req.subject = subject;
      this.leases.push(req);
      if (!this.answering) return;
      const name = req.relay.replace(/#.*/, '');
      if (this.takenFirstTagOf.has(name) && !this.takenFirstTagOf.get(name)) this.takenFirstTagOf.set(name, req.tag);
      if (this.takenTags.has(req.tag) || this.takenFirstTagOf.get(name) === req.tag) {
        nc.pub(reply, JSON.stringify({ ok: false, error: 'tag_taken' }));
        return;
      }
      if (req.room) { // a room's lease: its hello, or "not_joined" once if asked
        const refuse = this.notJoinedOnce.delete(req.room);
        if (this.closedRooms.has(req.room)) {
          nc.pub(reply, JSON.stringify({ ok: false, error: 'no_room', to: req.relay, room: req.room }));
          return;
        }
        nc.pub(reply, JSON.stringify(refuse ? { ok: false, error: 'not_joined', to: req.relay, room: req.room }
          : { ok: true, tag: req.tag, to: req.relay, room: req.room, views: req.views,
            hello: { ...HELLO, room: req.room, room_name: 'fake room' } }));
        return;
      }
      for (const v of req.views) {
        const s = `swarmcast.view.${v.m}.${v.l}.${v.x0}.${v.y0}.${v.x1}.${v.y1}`;
        if (!this.views.has(s)) this.views.set(s, { mode: v.m, rect: v, id: this.nextViewId++ });
      }
      const announce = this.announceNext;
      this.announceNext = false;
      nc.pub(reply, JSON.stringify({ ok: true, tag: req.tag, views: req.views, hello: HELLO, ...(announce && { announce: true }) }));
    });
    nc.sub('swarmcast.cmd.*', (subject, reply, payload) => {
      const e = decodeEnvelope(payload);
      if (!e) return;
      e.reply = reply;
      e.subject = subject;
      this.envelopes.push(e);
      if (e.kind !== ENVELOPE.TEXT) return;
      const msg = JSON.parse(e.text);
      if (msg.type === 'set_target') {
        nc.pub(reply, envelopeMsg({ kind: ENVELOPE.REPLY, clientId: e.clientId,
          text: JSON.stringify({ type: 'ack', id: msg.id, cmd: 'set_target', tick: 1 }) }));
      }
    });
  }

  publish() {
    const seq = ++this.seq;
    for (const [subject, v] of this.views) {
      this.nc.pub(subject, viewMsg({ seq, simViewId: v.id, mode: v.mode, rect: v.rect, key: Buffer.from(`key-${seq}`),
        delta: seq > 1 ? Buffer.from(`delta-${seq}`) : null, keyDelta: seq > 1 ? Buffer.from(`kd-${seq}`) : null }));
    }
    this.nc.pub('swarmcast.frame', snapshotMsg({ seq, header: frameHeader(seq, false), headerScene: frameHeader(seq, true) }));
  }

  // A simulation that restarted at once: its numbering and view ids start again.
  restartNumbering() {
    this.seq = 0;
    for (const v of this.views.values()) v.id = this.nextViewId++;
  }

  run() {
    if (!this.timer) this.timer = setInterval(() => this.publish(), 33);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
  }
}

// A viewer that keeps its binary frames as they came.
async function viewer(url, opts = {}) {
  const frames = [];
  const c = await connect(url, { protocols: ['swarmcast.v2'], timeoutMs: 5000, ...opts });
  c.ws.on('message', (data, isBinary) => { if (isBinary) frames.push(Buffer.from(data)); });
  c.frames = frames;
  return c;
}

let nats;
let nc;
let sim;
let relay;

before(async () => {
  nats = await startNats();
  nc = await NatsWire.connect(nats.port);
  sim = new FakeSim(nc);
  relay = await startServer({ args: ['--relay', '--nats', nats.url, '--relay-tag', String(TAG), '--relay-name', 'edge-test',
    '--control-token', TOKEN] });
  await waitUntil(() => sim.leases.length > 0, 'the relay\'s first lease', WAIT);
  sim.run();
});

after(async () => {
  sim?.pause();
  await relay?.stop();
  nc?.close();
  await nats?.stop();
});

test('the relay leases with its name and tag, and greets a viewer with its global id and role', async () => {
  assert.match(sim.leases[0].relay, /^edge-test#[0-9a-f]{8}$/, 'its name and this process\'s instance');
  assert.equal(sim.leases[0].tag, TAG);
  assert.equal(sim.leases[0].subject, `swarmcast.lease.${TAG}`, 'on the lease subject of its own tag');
  const v = await viewer(relay.wsUrl);
  const hello = v.hello;
  assert.equal(hello.protocol, 2);
  assert.equal(hello.role, 'visitor');
  assert.equal(hello.client_id >>> 22, TAG, 'the tag is in the top bits of the id');
  assert.ok((hello.client_id & 0x3fffff) > 0);
  assert.deepEqual(hello.world, HELLO.world);
  // The simulation hears of the viewer, as a visitor.
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.OPEN && e.clientId === hello.client_id && !e.operator),
    'an OPEN envelope for the viewer', WAIT);
  v.close();
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.CLOSE && e.clientId === hello.client_id),
    'a CLOSE envelope when the viewer leaves', WAIT);
});

test('frames are the simulation\'s header and chunks: a key first, then the key-delta, then deltas', async () => {
  const v = await viewer(relay.wsUrl);
  await waitUntil(() => v.frames.length >= 4, 'four frames', WAIT);
  const [first, second, third] = v.frames;
  assert.equal(first[0], 0xbb, 'the first frame carries the scene');
  assert.equal(first[16], 1, 'one chunk');
  const seq = first.readUInt32LE(4);
  assert.equal(first.subarray(28).toString(), `key-${seq}`);
  assert.equal(second[0], 0xaa);
  assert.equal(second.readUInt32LE(4), seq + 1);
  assert.equal(second.subarray(20).toString(), `kd-${seq + 1}`, 'after a key: the key-delta');
  assert.equal(third.subarray(20).toString(), `delta-${seq + 2}`);
  v.close();
});

test('a command goes to the simulation with the viewer\'s id and role, and its ack comes back', async () => {
  const v = await viewer(relay.wsUrl);
  const ack = await v.request({ type: 'set_target', x: 100, y: 200 }, WAIT);
  assert.equal(ack.type, 'ack');
  const text = sim.envelopes.find((e) => e.kind === ENVELOPE.TEXT && e.clientId === v.hello.client_id);
  assert.equal(JSON.parse(text.text).type, 'set_target');
  assert.equal(text.operator, false);
  assert.equal(text.reply, `swarmcast.reply.${TAG}`, 'answers go to the relay\'s own subject');
  assert.equal(text.subject, `swarmcast.cmd.${TAG}`, 'on the command subject of its own tag');
  v.close();
});

test('a visitor\'s reset is refused at the relay and never reaches the simulation; with the token it is forwarded', async () => {
  const v = await viewer(relay.wsUrl);
  const refused = await v.request({ type: 'reset', seed: 1, agents: 10 }, WAIT);
  assert.equal(refused.type, 'error');
  assert.equal(refused.code, 'forbidden');
  const guesser = await viewer(relay.wsUrl); // (a guess costs 40 of the 60 tokens a viewer starts with)
  const wrong = await guesser.request({ type: 'auth', token: 'guess' }, WAIT);
  assert.equal(wrong.code, 'bad_token');
  guesser.close();
  const auth = await v.request({ type: 'auth', token: TOKEN }, WAIT);
  assert.equal(auth.type, 'ack');
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.OPEN && e.clientId === v.hello.client_id && e.operator),
    'an OPEN envelope with the operator role', WAIT);
  // A reset costs the whole bucket (240 tokens at 80 a second): it waits until the bucket is full.
  await new Promise((r) => setTimeout(r, 3500));
  v.send({ type: 'reset', seed: 1, agents: 10 });
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.TEXT && e.clientId === v.hello.client_id &&
    JSON.parse(e.text).type === 'reset'), 'the operator\'s reset at the simulation', WAIT);
  const resets = sim.envelopes.filter((e) => e.kind === ENVELOPE.TEXT && JSON.parse(e.text).type === 'reset');
  assert.equal(resets.length, 1, 'only the operator\'s reset was forwarded');
  assert.equal(resets[0].operator, true);
  v.close();
});

test('ping, news and a kick are handled at the relay', async () => {
  const v = await viewer(relay.wsUrl);
  const mark = v.mark();
  v.send({ type: 'ping', id: 77 });
  await v.waitText((m) => m.type === 'pong' && m.id === 77, 'pong', { after: mark, ...WAIT });
  assert.ok(!sim.envelopes.some((e) => e.kind === ENVELOPE.TEXT && JSON.parse(e.text).type === 'ping'));
  nc.pub('swarmcast.news', newsMsg(0, '{"type":"metrics","tick":5}'));
  await v.waitText((m) => m.type === 'metrics' && m.tick === 5, 'the news', WAIT);
  nc.pub(`swarmcast.reply.${TAG}`, envelopeMsg({ kind: ENVELOPE.KICK, clientId: v.hello.client_id, code: 1008,
    text: 'kicked by the simulation' }));
  const closed = await v.closed;
  assert.equal(closed.code, 1008);
  assert.equal(closed.reason, 'kicked by the simulation');
});

test('a v1 client is closed with 1003', async () => {
  const ws = new WebSocket(relay.wsUrl, ['swarmcast.v1']);
  const code = await new Promise((resolve) => ws.on('close', (c) => resolve(c)));
  assert.equal(code, 1003);
});

test('without snapshots the viewers see "world restarting", and the viewers are announced again when the simulation answers', async () => {
  const v = await viewer(relay.wsUrl);
  v.send({ type: 'hello', name: 'Ada' });
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.TEXT && e.clientId === v.hello.client_id &&
    JSON.parse(e.text).name === 'Ada'), 'the viewer\'s hello at the simulation', WAIT);
  assert.equal((await healthz(relay)).status, 200);
  // The simulation goes away: no snapshots, no lease answers.
  sim.pause();
  sim.answering = false;
  const mark = v.mark();
  await v.waitText((m) => m.type === 'status' && m.state === 'restarting', 'the restarting status', { after: mark, ...WAIT });
  const h = await healthz(relay);
  assert.equal(h.status, 503);
  assert.equal(h.body.status, 'restarting');
  // A viewer joining now is told at once.
  const late = await viewer(relay.wsUrl);
  await late.waitText((m) => m.type === 'status' && m.state === 'restarting', 'the status for a late joiner', WAIT);
  // It comes back (with no memory of the relay's viewers).
  const before = sim.envelopes.length;
  sim.answering = true;
  sim.run();
  await v.waitText((m) => m.type === 'status' && m.state === 'running', 'the running status', { after: mark, ...WAIT });
  await waitUntil(() => sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.OPEN && e.clientId === v.hello.client_id),
    'the viewer announced again', WAIT);
  await waitUntil(() => sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.TEXT && e.clientId === v.hello.client_id &&
    JSON.parse(e.text).name === 'Ada'), 'the viewer\'s name sent again', WAIT);
  assert.equal((await healthz(relay)).status, 200);
  v.close();
  late.close();
});

test('a simulation that restarts within a second (its seq starts again) hears of the viewers again', async () => {
  const v = await viewer(relay.wsUrl);
  await waitUntil(() => v.frames.length >= 2, 'frames', WAIT);
  const before = sim.envelopes.length;
  const n = v.frames.length;
  sim.restartNumbering();
  await waitUntil(() => sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.OPEN && e.clientId === v.hello.client_id),
    'the viewer announced again', WAIT);
  // Its frames go on, from a key (no delta can follow across the restart).
  await waitUntil(() => v.frames.slice(n).some((f) => f.subarray(f[0] === 0xbb ? 28 : 20).toString().startsWith('key-')),
    'a key after the restart', WAIT);
  v.close();
});

test('a lease answer that asks for a census gets every viewer announced again, and only that', async () => {
  const v = await viewer(relay.wsUrl);
  await waitUntil(() => v.frames.length >= 2, 'frames', WAIT);
  const before = sim.envelopes.length;
  sim.announceNext = true;
  await waitUntil(() => sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.OPEN && e.clientId === v.hello.client_id),
    'the viewer announced again', WAIT);
  // A census re-announces; it does not replay the viewer's hello (a restart does).
  assert.ok(!sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.TEXT && e.clientId === v.hello.client_id));
  v.close();
});

test('a relay with a random tag that another relay holds takes another one', async () => {
  sim.takenFirstTagOf.set('edge-random', 0);
  const second = await startServer({ args: ['--relay', '--nats', nats.url, '--relay-name', 'edge-random'] });
  try {
    await waitUntil(() => sim.takenFirstTagOf.get('edge-random'), 'its first lease', WAIT);
    const first = sim.takenFirstTagOf.get('edge-random');
    await waitUntil(() => sim.leases.some((l) => l.relay.startsWith('edge-random#') && l.tag !== first &&
      l.subject === `swarmcast.lease.${l.tag}`), 'a lease with a new tag, on that tag\'s subject', WAIT);
    await waitUntil(async () => (await healthz(second)).status === 200, 'the second relay serving', WAIT);
    const v = await viewer(second.wsUrl, { timeoutMs: 8000 });
    assert.notEqual(v.hello.client_id >>> 22, first);
    v.close();
  } finally {
    await second.stop();
  }
});

test('a relay with a fixed tag (--relay-tag: its NATS user\'s) waits for it to be free, then announces its viewers', async () => {
  const leasesOf = () => sim.leases.filter((l) => l.relay.startsWith('edge-fixed#'));
  sim.takenTags.add(9); // a predecessor's lease, say
  const second = await startServer({ args: ['--relay', '--nats', nats.url, '--relay-tag', '9', '--relay-name', 'edge-fixed'] });
  try {
    await waitUntil(() => leasesOf().length >= 2, 'two refused leases', WAIT);
    sim.takenTags.delete(9); // it ran out
    await waitUntil(async () => (await healthz(second)).status === 200, 'the relay serving', WAIT);
    const v = await viewer(second.wsUrl, { timeoutMs: 8000 });
    assert.equal(v.hello.client_id >>> 22, 9, 'the viewer is of the fixed tag');
    // Refused again while the viewer watches: it keeps the viewer and the tag.
    const asked = leasesOf().length;
    sim.takenTags.add(9);
    await waitUntil(() => leasesOf().length >= asked + 2, 'refused leases', WAIT);
    const before = sim.envelopes.length;
    sim.takenTags.delete(9);
    await waitUntil(() => sim.envelopes.slice(before).some((e) => e.kind === ENVELOPE.OPEN &&
      e.clientId === v.hello.client_id && e.subject === 'swarmcast.cmd.9'), 'the viewer announced once granted', WAIT);
    assert.equal(v.ws.readyState, WebSocket.OPEN, 'the viewer stayed connected');
    assert.ok(leasesOf().every((l) => l.tag === 9 && l.subject === 'swarmcast.lease.9'), 'every lease kept the tag');
    assert.match(second.output(), /relay tag 9 \(--relay-tag\) is held by another relay; waiting/);
    v.close();
  } finally {
    await second.stop();
  }
});

test('a relay started without the token of a simulation that has one makes no operators', async () => {
  // The simulation's hello says control_token: true; this relay has none.
  const second = await startServer({ args: ['--relay', '--nats', nats.url, '--relay-tag', '11'] });
  try {
    await waitUntil(async () => (await healthz(second)).status === 200, 'the second relay serving', WAIT);
    const v = await viewer(second.wsUrl, { timeoutMs: 8000 });
    assert.equal(v.hello.role, 'visitor');
    const refused = await v.request({ type: 'reset', seed: 1, agents: 10 }, WAIT);
    assert.equal(refused.code, 'forbidden');
    const auth = await v.request({ type: 'auth', token: 'anything' }, WAIT);
    assert.equal(auth.code, 'bad_token', 'a relay without the token cannot grant the role');
    assert.ok(!sim.envelopes.some((e) => e.clientId === v.hello.client_id && e.operator),
      'no envelope of its viewer claims the operator role');
    v.close();
  } finally {
    await second.stop();
  }
});

test('a lease answer addressed to another relay of the same tag is not taken as its own', async () => {
  const waiting = /relay tag 7 \(--relay-tag\) is held by another relay; waiting/;
  const asked = sim.leases.length;
  // Both hear P.reply.7: another relay that asked for tag 7 is refused.
  nc.pub(`swarmcast.reply.${TAG}`, JSON.stringify({ ok: false, error: 'tag_taken', to: 'intruder#00000001' }));
  await waitUntil(() => sim.leases.length >= asked + 2, 'two more leases', WAIT);
  assert.doesNotMatch(relay.output(), waiting, 'the relay kept its tag as granted');
  // The same refusal addressed to it is its own.
  const me = sim.leases.at(-1).relay;
  nc.pub(`swarmcast.reply.${TAG}`, JSON.stringify({ ok: false, error: 'tag_taken', to: me }));
  await waitUntil(() => waiting.test(relay.output()), 'the relay waiting for its tag', WAIT);
  await waitUntil(async () => (await healthz(relay)).status === 200, 'the relay leased again', WAIT);
});

test('a room\'s lease refused "not_joined" (no heartbeat heard yet): the relay sends its heartbeat, then the room\'s lease again, and greets the viewer', async () => {
  const code = 'K7PXM3QD';
  sim.notJoinedOnce.add(code);
  const mark = sim.leases.length;
  const v = await viewer(`${relay.wsUrl}?room=${code}`);
  assert.equal(v.hello.room, code, 'greeted with the room\'s hello');
  assert.ok(!sim.notJoinedOnce.has(code), 'the first lease of the room was refused');
  const sent = sim.leases.slice(mark).map((l) => l.room || '');
  const refused = sent.indexOf(code);
  assert.deepEqual(sent.slice(refused + 1, refused + 3), ['', code], `the leases after the refusal: ${sent}`);
  assert.doesNotMatch(relay.output(), /refused the lease of room/, 'not_joined is no refusal to report');
  v.close();
});

test('a room closed at the simulation (its viewers kicked 4410): a viewer arriving before the relay\'s room goes is not greeted into it', async () => {
  const code = 'M3QD7PXK';
  const first = await viewer(`${relay.wsUrl}?room=${code}`);
  const stays = await viewer(`${relay.wsUrl}?room=${code}`); // the kick of its own is still on the way
  // The room closes: its leases are answered "no_room" from now on, and
  // the simulation kicks its viewers; no lease is answered meanwhile, so
  // that the newcomer arrives while the relay still serves the room.
  sim.answering = false;
  sim.closedRooms.add(code);
  nc.pub(`swarmcast.reply.${TAG}`, envelopeMsg({ kind: ENVELOPE.KICK, clientId: first.hello.client_id, code: 4410,
    text: 'room closed' }));
  assert.equal((await first.closed).code, 4410);
  const late = new WebSocket(`${relay.wsUrl}?room=${code}`, ['swarmcast.v2']);
  const texts = [];
  late.on('message', (d, binary) => { if (!binary) texts.push(JSON.parse(d.toString()).type); });
  const lateClosed = new Promise((resolve) => late.on('close', (c) => resolve(c)));
  try {
    await new Promise((resolve) => late.on('open', resolve));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(texts, [], 'no hello of a room the simulation closed');
  } finally {
    sim.answering = true;
  }
  assert.equal(await lateClosed, 4404, 'the newcomer is told there is no such room');
  assert.equal((await stays.closed).code, 4410, 'the one still there is told the room closed');
  assert.deepEqual(texts, []);
});

test('SIGTERM closes the viewers with 1001 and the relay exits cleanly (under ASan: no leak report)', async () => {
  const v = await viewer(relay.wsUrl);
  await waitUntil(() => v.frames.length >= 2, 'frames', WAIT);
  const r = await relay.stop();
  assert.equal((await v.closed).code, 1001);
  assert.equal(r.code, 0, relay.output());
  assert.ok(!/LeakSanitizer|AddressSanitizer|runtime error/.test(relay.output()), relay.output());
  // The simulation heard of the viewer leaving without waiting for the lease to run out.
  await waitUntil(() => sim.envelopes.some((e) => e.kind === ENVELOPE.CLOSE && e.clientId === v.hello.client_id),
    'a CLOSE envelope at shutdown', WAIT);
});
