// The timeline through relays (protocol/PROTOCOL.md, "Timeline" and "NATS
// subjects"; docs/ARCHITECTURE.md, "The timeline through relays"): a real
// nats-server, the simulation with --nats and two relays. The past is kept
// by the simulation; a relay's viewer scrubs through its relay and gets
// the frame of a tick exactly as the simulation's own live viewers decoded
// it then (digest for digest), while the relay's other viewers stay live;
// `live` brings it back. The seats, refusals and budgets are the
// simulation's, and one relay holds at most half the seats; a seat goes
// with its viewer, and with a relay that vanished. An operator's share
// reaches the relay's viewers. A flood of timeline
// messages stops at the relay's budget; bogus envelopes on NATS change
// nothing.
//
// Skipped (with the reason) when nats-server is not installed;
// scripts/deps.sh test installs it.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, waitUntil, sleep, metric, healthz } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay, waitHealthy } from '../lib/nats.mjs';
import { NatsWire, ENVELOPE, envelopeMsg, scrubViewText } from '../lib/nats_wire.mjs';
import { timelineRequest as timeline, liveByTick, seekMatchesLive } from '../lib/timeline.mjs';

const AGENTS = 1000;
const SEATS = 4;
const T = { timeout: 90000 };

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';

suite('the timeline through a relay', { skip }, () => {
  let nats, sim, relay, flooded, wire;
  const clients = [];
  const track = (c) => { clients.push(c); return c; };
  const seatsUsed = () => metric(sim, 'swarmcast_timeline_seats_used');

  before(async () => {
    nats = await startNats({ bin: natsBin });
    sim = await startServer({ agents: AGENTS, seed: 5,
      args: ['--nats', nats.url, '--rate-scale', '10', '--keyframe-seconds', '0.5', '--timeline-seats', String(SEATS)] });
    // relay: a budget that is not what most tests are about; flooded: the
    // default budget, for the flood (and it vanishes at the end).
    relay = await startRelay(nats.url, { args: ['--rate-scale', '10', '--relay-name', 'scrub-a'] });
    flooded = await startRelay(nats.url, { args: ['--relay-name', 'scrub-b'] });
    await waitHealthy(relay, 'relay a');
    await waitHealthy(flooded, 'relay b');
    wire = await NatsWire.connect(nats.port);
  });

  after(async () => {
    for (const c of clients) c.close();
    wire?.close();
    for (const p of [relay, flooded, sim]) await p?.stop({ signal: 'SIGKILL' }).catch(() => {});
    await nats?.stop({ signal: 'SIGKILL' });
  });

  test('a relay viewer seeks: the frame of that tick is the one live viewers decoded; the others stay live; live returns', T, async () => {
    const live = track(await connectV2(sim.wsUrl));
    const scrub = track(await connectV2(relay.wsUrl));
    const other = track(await connectV2(relay.wsUrl));
    // Steering while the past is made: the ticks differ from one another.
    for (let k = 0; k < 6; k++) {
      live.send({ type: 'set_target', x: 200 + 150 * k, y: 300 + 40 * k });
      if (k === 3) live.send({ type: 'set_param', name: 'max_speed', value: 90 });
      await sleep(250);
    }
    await sleep(500);
    const seen = liveByTick(live);
    const ticks = [...seen.keys()].sort((x, y) => x - y);
    assert.ok(ticks.length > 30, `live frames: ${ticks.length}`);
    const chosen = [ticks[3], ticks[Math.floor(ticks.length / 2)], ticks.at(-3), ticks[Math.floor(ticks.length / 3)],
      ticks[Math.floor(ticks.length / 3) + 1]];
    const otherBefore = other.frames.length;
    for (const tick of chosen) await seekMatchesLive(scrub, tick, seen, 'the relay viewer sees the world live viewers saw');
    // Paused: no live frame reaches the scrubbing relay viewer meanwhile.
    const pausedAt = scrub.frames.length;
    await sleep(400);
    assert.equal(scrub.frames.length, pausedAt, 'a paused relay viewer gets no frames');
    // The relay's other viewer went on live all along.
    await other.waitFrame((f) => f.tick > ticks.at(-1) + 30, 'the other relay viewer live, further on', { from: otherBefore });
    const otherFrames = other.frames.slice(otherBefore);
    for (let i = 1; i < otherFrames.length; i++) assert.ok(otherFrames[i].tick > otherFrames[i - 1].tick, 'only forward');
    // A step back to the tick seen live before the last one chosen.
    const by = chosen[3] - chosen[4];
    const stepFrom = scrub.frames.length;
    const stepped = await timeline(scrub, { op: 'step', by });
    assert.equal(stepped.tick, chosen[3]);
    const { frame: back } = await scrub.waitFrame((f) => f.tick === chosen[3], `the frame ${-by} tick(s) back`, { from: stepFrom });
    assert.equal(back.digest, seen.get(chosen[3]).digest, 'a step lands on the world live viewers saw');
    // live: the next frame is a live key (it may come before the answer).
    const liveAgain = scrub.frames.length;
    const answer = await timeline(scrub, { op: 'live' });
    assert.equal(answer.mode, 'live');
    const { frame: first } = await scrub.waitFrame((f, i) => i >= liveAgain, 'a live frame after live', { from: liveAgain });
    assert.ok(first.keyed, 'back to live starts with a key');
    assert.ok(first.tick > ticks.at(-1));
    await scrub.waitFrame((f, i) => i > liveAgain + 10, 'live frames go on', { from: liveAgain });
    // Playing the past to the present brings it back to live by itself.
    const w = await timeline(scrub, { op: 'pause' });
    await timeline(scrub, { op: 'seek', tick: w.to - 20 });
    await timeline(scrub, { op: 'play', speed: 8 });
    const ended = await scrub.waitText((m) => m.type === 'timeline' && m.why === 'reached_live', 'the playback reaching live',
      { timeoutMs: 20000 });
    assert.equal(ended.mode, 'live');
    const afterPlay = scrub.frames.length;
    await scrub.waitFrame((f, i) => i > afterPlay + 5 && f.tick > ended.tick, 'live frames after the playback', { from: afterPlay });
    assert.ok(await metric(relay, 'swarmcast_relay_past_frames_total') >= chosen.length + 1);
    assert.equal(await metric(relay, 'swarmcast_relay_scrubbing'), 0);
    for (const c of [live, scrub, other]) c.close();
    await waitUntil(async () => (await seatsUsed()) === 0, 'every seat free again', { timeoutMs: 10000 });
  });

  test('through a relay the refusals are the same; one relay holds half the seats; a seat goes with its viewer', T, async () => {
    const [r1, r2, r3] = [track(await connectV2(relay.wsUrl)), track(await connectV2(relay.wsUrl)),
      track(await connectV2(relay.wsUrl))];
    const direct = track(await connectV2(sim.wsUrl));
    const cases = [
      [{ op: 'seek', tick: -5 }, 'bad_request', /tick/],
      [{ op: 'rewind' }, 'bad_request', /unknown op/],
      [{ op: 'play', speed: 100 }, 'bad_request', /speed/],
      [{ op: 'seek', tick: 1e12 }, 'out_of_window', /not happened/],
      [{ op: 'share' }, 'bad_request', /seek or pause first/],
    ];
    for (const [body, code, why] of cases) {
      const answer = await timeline(r1, body);
      assert.equal(answer.type, 'error', JSON.stringify(body));
      assert.equal(answer.code, code, JSON.stringify(answer));
      assert.equal(answer.cmd, 'timeline');
      assert.match(answer.message, why);
    }
    const window = await timeline(r1, { op: 'window' });
    assert.equal(window.mode, 'live');
    assert.ok(window.to > window.from, JSON.stringify(window));
    assert.equal((await timeline(r1, { op: 'pause' })).mode, 'paused');
    assert.equal((await timeline(r2, { op: 'seek', tick: window.from })).mode, 'paused');
    const busy = await timeline(r3, { op: 'pause' });
    assert.equal(busy.code, 'timeline_busy', `the relay's share is ${SEATS / 2} seats: ${JSON.stringify(busy)}`);
    assert.ok(busy.retry_after_ms > 0);
    // The seats the relay may not take are there for others.
    assert.equal((await timeline(direct, { op: 'pause' })).mode, 'paused', 'a direct viewer still gets a seat');
    assert.equal(await seatsUsed(), 3);
    // r3 was refused: it stays live.
    const r3From = r3.frames.length;
    await r3.waitFrame((f, i) => i > r3From + 5, 'the refused relay viewer still live', { from: r3From });
    // r1 leaves: its seat is free, and r3 may take it.
    r1.close();
    await waitUntil(async () => (await seatsUsed()) === 2, 'the seat of the relay viewer who left, free', { timeoutMs: 10000 });
    const now = await timeline(r3, { op: 'pause' });
    assert.equal(now.mode, 'paused', JSON.stringify(now));
    for (const c of [r2, r3, direct]) c.close();
    await waitUntil(async () => (await seatsUsed()) === 0, 'every seat free again', { timeoutMs: 10000 });
  });

  test('an operator\'s share reaches the relay\'s viewers, and one who comes meanwhile: they follow it, may leave it, and go live when it ends', T, async () => {
    const op = track(await connectV2(sim.wsUrl)); // a server without a token: everyone is an operator
    const [a, b] = [track(await connectV2(relay.wsUrl)), track(await connectV2(relay.wsUrl))];
    await a.waitFrame((f) => f.tick > 90, 'a\'s frames past tick 90');
    const paused = await timeline(op, { op: 'pause' });
    const tick = paused.tick - 30;
    await timeline(op, { op: 'seek', tick });
    const [fromA, fromB] = [a.frames.length, b.frames.length];
    const shared = await timeline(op, { op: 'share' });
    assert.equal(shared.type, 'timeline', JSON.stringify(shared));
    const told = await a.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the news of the share at the relay');
    assert.equal(told.mode, 'following');
    assert.equal(told.tick, tick);
    await a.waitFrame((f) => f.tick === tick && f.keyed, `a at tick ${tick}`, { from: fromA });
    await b.waitFrame((f) => f.tick === tick && f.keyed, `b at tick ${tick}`, { from: fromB });
    const still = a.frames.length;
    await sleep(400);
    assert.equal(a.frames.length, still, 'a follower of a paused share gets no live frames');
    // b leaves the shared moment (its live key may come before the answer);
    // a follows the operator one step on.
    const bLive = b.frames.length;
    assert.equal((await timeline(b, { op: 'live' })).mode, 'live');
    await b.waitFrame((f, i) => i >= bLive && f.tick > tick + 30, 'b live again', { from: bLive })
      .then(({ frame }) => assert.ok(frame.keyed, 'b\'s first live frame is a key'));
    const fromA2 = a.frames.length;
    await timeline(op, { op: 'step', by: 1 });
    await a.waitFrame((f) => f.tick === tick + 1, 'a one tick on', { from: fromA2 });
    assert.ok(!b.frames.slice(bLive).some((f) => f.tick === tick + 1), 'b no longer follows');
    // c comes to the relay during the share: it follows it too, told so,
    // and its first frame is the moment shown.
    const c = track(await connectV2(relay.wsUrl));
    const toldC = await c.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the late relay viewer told of the share');
    assert.equal(toldC.mode, 'following');
    assert.equal(toldC.tick, tick + 1);
    const { frame: firstC } = await c.waitFrame(() => true, 'the late relay viewer\'s first frame');
    assert.ok(firstC.keyed && firstC.tick === tick + 1, `c's first frame: ${JSON.stringify(firstC)}`);
    assert.equal(firstC.digest, a.frames.findLast((f) => f.tick === tick + 1).digest, 'c sees what a sees');
    const cLive = c.frames.length;
    assert.equal((await timeline(c, { op: 'live' })).mode, 'live');
    await c.waitFrame((f, i) => i >= cLive && f.tick > tick + 30, 'c live again', { from: cLive });
    // The operator goes live: so does the relay's follower.
    const aLive = a.frames.length;
    await timeline(op, { op: 'live' });
    const ended = await a.waitText((m) => m.type === 'timeline' && m.why === 'share_ended', 'the end of the share at the relay');
    assert.equal(ended.mode, 'live');
    await a.waitFrame((f, i) => i >= aLive && f.tick > tick + 30, 'a live again', { from: aLive })
      .then(({ frame }) => assert.ok(frame.keyed, 'a\'s first live frame is a key'));
    // An operator at the relay shares for the simulation's own viewers.
    const p2 = await timeline(a, { op: 'pause' });
    assert.equal(p2.mode, 'paused');
    const fromOp = op.frames.length;
    assert.equal((await timeline(a, { op: 'share' })).type, 'timeline');
    await op.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the simulation\'s viewer told of the relay operator\'s share');
    await op.waitFrame((f) => f.tick === p2.tick && f.keyed, 'the simulation\'s viewer at the shared tick', { from: fromOp });
    await timeline(a, { op: 'live' });
    await op.waitText((m) => m.type === 'timeline' && m.why === 'share_ended', 'the end of the relay operator\'s share');
    for (const v of [op, a, b, c]) v.close();
    await waitUntil(async () => (await seatsUsed()) === 0, 'every seat free again', { timeoutMs: 10000 });
  });

  test('hostile: a flood of timeline messages stops at the relay; bogus envelopes change nothing; a vanished relay frees its seats', T, async () => {
    const flood = track(await connectV2(flooded.wsUrl));
    const watcher = track(await connectV2(flooded.wsUrl));
    const paused = await timeline(flood, { op: 'pause' });
    assert.equal(paused.mode, 'paused');
    await watcher.waitFrame(() => true, 'the watcher\'s first frame');
    const forwardedBefore = await metric(flooded, 'swarmcast_relay_timeline_forwarded_total');
    const mark = flood.mark();
    const watched = watcher.frames.length;
    for (let k = 0; k < 2000; k++) flood.send({ type: 'timeline', op: 'seek', tick: paused.tick - (k % 30) });
    await sleep(1500);
    const forwarded = (await metric(flooded, 'swarmcast_relay_timeline_forwarded_total')) - forwardedBefore;
    assert.ok(forwarded < 700, `the relay forwarded ${forwarded} of 2000 timeline messages`);
    const refused = flood.textsSince(mark).filter((m) => m.type === 'error' && m.code === 'rate_limited');
    assert.ok(refused.length > 0 || flood.ws.readyState !== 1, 'the flood met the relay\'s budget');
    const tickBefore = watcher.frames[watched - 1].tick;
    await watcher.waitFrame((f) => f.tick > tickBefore + 60, 'the watcher a second further on', { from: watched });

    // Bogus envelopes, both ways, under the relay's tag.
    const { body } = await healthz(flooded);
    const tag = body.tag;
    const id = watcher.hello.client_id;
    assert.equal(id >>> 22, tag, 'a relay viewer\'s id carries its relay\'s tag');
    const refusedBefore = await metric(sim, 'swarmcast_nats_refused_total');
    const badBefore = await metric(flooded, 'swarmcast_relay_bad_messages_total');
    const bogusToSim = [
      envelopeMsg({ kind: ENVELOPE.SCRUB_VIEW, clientId: id, text: scrubViewText('d', { l: 0, x0: 0, y0: 0, x1: 2, y1: 1 }) }),
      envelopeMsg({ kind: ENVELOPE.SCRUB_VIEW, clientId: id, text: Buffer.from([0, 0, 0]) }),
      envelopeMsg({ kind: ENVELOPE.SCRUB_VIEW, clientId: id, text: scrubViewText('d', { l: 0, x0: 0, y0: 0, x1: 1, y1: 1 }) }).subarray(0, 20),
      envelopeMsg({ kind: ENVELOPE.PAST, clientId: id, text: Buffer.from([1, 2, 3]) }),
      envelopeMsg({ kind: ENVELOPE.LIVE, clientId: id }),
      envelopeMsg({ kind: 10, clientId: id }),
    ];
    for (const m of bogusToSim) wire.pub(`swarmcast.cmd.${tag}`, m);
    const bogusToRelay = [
      envelopeMsg({ kind: ENVELOPE.PAST, clientId: id, text: Buffer.alloc(0) }).subarray(0, 12),
      envelopeMsg({ kind: 10, clientId: id }),
      envelopeMsg({ kind: ENVELOPE.PAST, clientId: (tag << 22 | 999999) >>> 0, text: Buffer.from([1, 2, 3]) }),
      envelopeMsg({ kind: ENVELOPE.LIVE, clientId: id }),
    ];
    for (const m of bogusToRelay) wire.pub(`swarmcast.reply.${tag}`, m);
    wire.pub('swarmcast.shared', Buffer.from([0x53, 0x42, 2, 5, 1, 0]));
    await wire.flush();
    await waitUntil(async () => (await metric(sim, 'swarmcast_nats_refused_total')) >= refusedBefore + 5,
      'the simulation refused the bogus envelopes', { timeoutMs: 5000 });
    await waitUntil(async () => (await metric(flooded, 'swarmcast_relay_bad_messages_total')) >= badBefore + 3,
      'the relay refused the bogus envelopes', { timeoutMs: 5000 });
    // The watcher (its relay told LIVE without scrubbing) is live as before,
    // and may still scrub.
    const w2 = watcher.frames.length;
    await watcher.waitFrame((f, i) => i > w2 + 5, 'the watcher still live', { from: w2 });
    const seek = await timeline(watcher, { op: 'seek', tick: paused.tick });
    assert.equal(seek.mode, 'paused', JSON.stringify(seek));
    await watcher.waitFrame((f) => f.tick === paused.tick && f.keyed, 'the watcher\'s frame of the past');

    // The relay vanishes (no CLOSE for its viewers): its seats come free
    // when its lease runs out.
    await waitUntil(async () => (await seatsUsed()) >= 1, 'the relay\'s viewers hold seats', { timeoutMs: 5000 });
    await flooded.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await seatsUsed()) === 0, 'the vanished relay\'s seats free', { timeoutMs: 20000, intervalMs: 250 });
    assert.equal(await metric(sim, 'swarmcast_nats_relays'), 1, 'one relay left');
  });

  test('a relay viewer scrubbing when the simulation restarts is live again on the same connection', T, async () => {
    const v = track(await connectV2(relay.wsUrl));
    const paused = await timeline(v, { op: 'pause' });
    await v.waitFrame((f) => f.tick === paused.tick && f.keyed, 'its frame of the past');
    await sim.stop({ signal: 'SIGKILL' });
    sim = await startServer({ agents: AGENTS, seed: 5,
      args: ['--nats', nats.url, '--rate-scale', '10', '--keyframe-seconds', '0.5', '--timeline-seats', String(SEATS)] });
    const from = v.frames.length;
    await v.waitFrame((f, i) => i > from + 10, 'live frames of the restarted simulation', { from, timeoutMs: 30000 });
    assert.ok(v.frames.slice(from).some((f) => f.keyed), 'live again from a key');
    assert.equal(await metric(relay, 'swarmcast_relay_scrubbing'), 0);
    assert.equal(v.ws.readyState, 1, 'the same connection');
  });

  test('a share the simulation never ended (it restarted): a viewer coming to the relay afterwards watches live', T, async () => {
    const op = track(await connectV2(sim.wsUrl));
    const follower = track(await connectV2(relay.wsUrl));
    await follower.waitFrame((f) => f.tick > 0, 'a live frame at the relay');
    await timeline(op, { op: 'pause' });
    await timeline(op, { op: 'share' });
    await follower.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the relay viewer follows the share');
    await sim.stop({ signal: 'SIGKILL' });
    sim = await startServer({ agents: AGENTS, seed: 5,
      args: ['--nats', nats.url, '--rate-scale', '10', '--keyframe-seconds', '0.5', '--timeline-seats', String(SEATS)] });
    const from = follower.frames.length;
    await follower.waitFrame((f, i) => i > from + 10, 'the follower live again', { from, timeoutMs: 30000 });
    // The restarted simulation will never end that share: a newcomer must
    // not follow it (before, it got the shared frame and then nothing).
    const late = track(await connectV2(relay.wsUrl));
    await late.waitFrame((f, i) => i > 10, 'a newcomer\'s live frames', { timeoutMs: 30000 });
    assert.equal(late.texts.filter((m) => m.type === 'timeline' && m.why === 'shared').length, 0, 'not told of a share');
  });

  test('a reset reaches a relay\'s viewers watching live: each is told the new base, as direct viewers are', T, async () => {
    const op = track(await connectV2(sim.wsUrl));
    const viewer = track(await connectV2(relay.wsUrl));
    await viewer.waitFrame((f) => f.tick > 30, 'live frames at the relay');
    const ack = await op.command({ type: 'reset', seed: 9, agents: AGENTS });
    const direct = await op.waitText((m) => m.type === 'timeline' && m.why === 'reset', 'the news of the reset, direct');
    const told = await viewer.waitText((m) => m.type === 'timeline' && m.why === 'reset', 'the news of the reset, through the relay');
    assert.equal(told.base, ack.tick, 'the live world\'s tick 0 is at the reset');
    assert.equal(told.base, direct.base);
    assert.equal(told.mode, 'live');
    // Its live frames are the new world's: their ticks start again.
    const from = viewer.frames.length;
    await viewer.waitFrame((f, i) => i >= from && f.tick < 30, 'a live frame of the new world', { from });
    // A share after it: the relay's news of it, and of its end, carry that base too.
    await timeline(op, { op: 'pause' });
    await timeline(op, { op: 'share' });
    const shared = await viewer.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the share, through the relay');
    await timeline(op, { op: 'live' });
    const ended = await viewer.waitText((m) => m.type === 'timeline' && m.why === 'share_ended', 'the share\'s end, through the relay');
    assert.equal(shared.base, ack.tick);
    assert.equal(ended.base, ack.tick);
    assert.equal(ended.mode, 'live');
  });

  test('the relay and the simulation exit 0 on SIGTERM while a relay viewer scrubs (under ASan: nothing leaked)', T, async () => {
    const last = track(await connectV2(relay.wsUrl));
    const paused = await timeline(last, { op: 'pause' });
    await last.waitFrame((f) => f.tick === paused.tick && f.keyed, 'its frame of the past');
    const relayExit = await relay.stop();
    assert.deepEqual(relayExit, { code: 0, signal: null }, `the relay's exit\n${relay.output()}`);
    const simExit = await sim.stop();
    assert.deepEqual(simExit, { code: 0, signal: null }, `the simulation's exit\n${sim.output()}`);
  });
});
