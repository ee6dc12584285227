// The timeline (PROTOCOL.md, "Timeline") on the real server: a viewer who
// seeks gets the world of that tick exactly as live viewers decoded it then
// (the same quantized items, digest for digest), while steering changed the
// world (targets, an obstacle, a parameter, a pause with single steps, a
// model switch), and so does the log served with --replay; scrubbing changes nothing for the others (they stay live, and the
// command log replays to the very world the server ended with); bad seeks
// get clear answers; the seats are bounded and the next viewer is told to
// come back; the window evicts its oldest past.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/timeline.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, spawnServer, sleep, webRoot } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { runOk } from '../lib/headless.mjs';
import { timelineRequest as timeline, liveByTick, seekMatchesLive } from '../lib/timeline.mjs';

const T = { timeout: 60000 };

test('a seek shows the world of that tick exactly as live viewers saw it, with steering; others stay live; the log is untouched', T, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-timeline-'));
  const log = path.join(dir, 'run.jsonl');
  const finalLive = path.join(dir, 'live.json');
  const finalReplay = path.join(dir, 'replay.json');
  const finalServed = path.join(dir, 'served.json');
  let seen;
  let chosen;
  const server = await startServer({
    agents: 1500,
    seed: 5,
    args: ['--record', log, '--final', finalLive, '--keyframe-seconds', '0.5', '--rate-scale', '100'],
  });
  try {
    const live = await connectV2(server.wsUrl);
    const other = await connectV2(server.wsUrl);
    const scrub = await connectV2(server.wsUrl);
    const steer = await connect(server.wsUrl);
    // Steering while the past is being made: targets, an obstacle, a
    // parameter, a pause with single steps, a model switch.
    for (let k = 0; k < 8; k++) {
      await steer.command({ type: 'set_target', x: 200 + 100 * k, y: 300 + 20 * k });
      if (k === 2) {
        await steer.command({ type: 'pause' });
        await steer.command({ type: 'step' });
        await steer.command({ type: 'step' });
        await steer.command({ type: 'resume' });
      }
      if (k === 3) await steer.command({ type: 'add_obstacle', x: 800, y: 450, radius: 40 });
      if (k === 5) await steer.command({ type: 'set_param', name: 'max_speed', value: 90 });
      if (k === 6) await steer.command({ type: 'set_model', model: 'olfati2' });
      await sleep(150);
    }
    await sleep(500);
    seen = liveByTick(live);
    const ticks = [...seen.keys()].sort((x, y) => x - y);
    assert.ok(ticks.length > 30, `live frames: ${ticks.length}`);
    // Ticks across the run: early, among the commands, late; forwards and back.
    chosen = [ticks[2], ticks[Math.floor(ticks.length / 2)], ticks[ticks.length - 3],
      ticks[Math.floor(ticks.length / 3)], ticks[Math.floor(ticks.length / 3) + 1],
      ticks[Math.floor(ticks.length / 4)], ticks[Math.floor((3 * ticks.length) / 4)]];
    const otherBefore = other.frames.length;
    for (const tick of chosen) await seekMatchesLive(scrub, tick, seen);
    // Paused: no live frames reach the scrubber meanwhile.
    const pausedAt = scrub.frames.length;
    await sleep(300);
    assert.equal(scrub.frames.length, pausedAt, 'a paused scrubber gets no frames');
    // The others went on live all along: their ticks only go forward, past
    // the newest tick the scrubber was shown.
    await other.waitFrame((f) => f.tick > ticks.at(-1) + 30, 'a live frame past the scrubbed ticks', { from: otherBefore });
    const otherFrames = other.frames.slice(otherBefore);
    for (let i = 1; i < otherFrames.length; i++) assert.ok(otherFrames[i].tick > otherFrames[i - 1].tick);
    // Step back one tick, then forward, then live.
    const stepped = await timeline(scrub, { op: 'step', by: -1 });
    assert.equal(stepped.tick, chosen.at(-1) - 1);
    await scrub.waitFrame((f) => f.tick === chosen.at(-1) - 1, 'the frame one tick back');
    const liveAgain = scrub.frames.length;
    const back = await timeline(scrub, { op: 'live' });
    assert.equal(back.mode, 'live');
    const { frame: first } = await scrub.waitFrame((f, i) => i >= liveAgain, 'a live frame after live', { from: liveAgain });
    assert.ok(first.keyed, 'back to live starts with a key');
    assert.ok(first.tick > chosen.at(-1));
    for (const c of [live, other, scrub, steer]) c.close();
  } finally {
    await server.stop();
  }
  // Nothing of the timeline reached the world or its log.
  const text = readFileSync(log, 'utf8');
  assert.ok(!text.includes('timeline'), 'the command log has no timeline entries');
  await runOk(['--headless', '--replay', log, '--final', finalReplay]);
  assert.equal(readFileSync(finalReplay, 'utf8'), readFileSync(finalLive, 'utf8'), 'the replay ends in the live world');

  // The log served (--replay without --headless): its whole run is on the
  // timeline, every tick the world the live viewers saw; it ends where the
  // headless replay ends; nothing changes it.
  const base = ['--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot, '--replay', log, '--final', finalServed];
  const clash = await spawnServer([...base, '--agents', '1500']).catch((e) => e);
  assert.ok(clash instanceof Error, 'a served --replay refuses --agents');
  const replayed = await spawnServer(base, { startTimeoutMs: 30000 });
  try {
    const viewer = await connectV2(replayed.wsUrl);
    const w = await timeline(viewer, { op: 'window' });
    assert.equal(w.from, 0);
    assert.ok(w.to >= Math.max(...chosen), JSON.stringify(w));
    for (const tick of chosen) {
      const from = viewer.frames.length;
      const answer = await timeline(viewer, { op: 'seek', tick });
      assert.equal(answer.type, 'timeline', JSON.stringify(answer));
      const { frame } = await viewer.waitFrame((f) => f.tick === tick, `the served frame of tick ${tick}`, { from });
      assert.equal(frame.digest, seen.get(tick).digest, `served tick ${tick} is the tick broadcast live`);
    }
    const refused = await viewer.request({ type: 'set_target', x: 10, y: 10 });
    assert.equal(refused.code, 'forbidden');
    viewer.close();
  } finally {
    await replayed.stop();
  }
  assert.equal(readFileSync(finalServed, 'utf8'), readFileSync(finalReplay, 'utf8'), 'served, the log ends where the headless replay does');
  rmSync(dir, { recursive: true, force: true });
});

test('play runs the past forward to live; pause freezes the present', T, async () => {
  const server = await startServer({ agents: 500, args: ['--keyframe-seconds', '0.5'] });
  try {
    const scrub = await connectV2(server.wsUrl);
    await sleep(3000);
    const paused = await timeline(scrub, { op: 'pause' });
    assert.equal(paused.mode, 'paused');
    assert.ok(paused.tick > 0 && paused.tick === paused.to, JSON.stringify(paused));
    const p = await timeline(scrub, { op: 'seek', tick: paused.from });
    assert.equal(p.tick, paused.from);
    const from = scrub.frames.length;
    const playing = await timeline(scrub, { op: 'play', speed: 2 });
    assert.equal(playing.mode, 'playing');
    assert.equal(playing.speed, 2);
    // 2× catches up with the present: the server says so and the viewer is live.
    const ended = await scrub.waitText((m) => m.type === 'timeline' && m.why === 'reached_live', 'the playback reaching live', { timeoutMs: 20000 });
    assert.equal(ended.mode, 'live');
    // The past's frames are keys whose seq is their tick (live frames count
    // snapshots): about 1.5 s of them at 2×, each further on.
    const played = scrub.frames.slice(from).filter((f) => f.keyed && f.seq === f.tick);
    assert.ok(played.length >= 5, `frames while playing: ${played.length}`);
    for (let i = 1; i < played.length; i++) assert.ok(played[i].tick >= played[i - 1].tick, 'the past plays forward');
    assert.ok(played.at(-1).tick > played[0].tick + 60, `played from ${played[0].tick} to ${played.at(-1).tick}`);
    scrub.close();
  } finally {
    await server.stop();
  }
});

test('bad timeline messages get clear errors and change nothing', T, async () => {
  const server = await startServer({ agents: 300, args: ['--history-minutes', '0.05', '--keyframe-seconds', '0.25'] });
  try {
    const v2 = await connectV2(server.wsUrl);
    await sleep(500);
    const cases = [
      [{ op: 'seek', tick: -5 }, 'bad_request', /tick/],
      [{ op: 'seek', tick: 'soon' }, 'bad_request', /tick/],
      [{ op: 'seek' }, 'bad_request', /tick/],
      [{ op: 'rewind' }, 'bad_request', /unknown op/],
      [{ op: 'play', speed: 100 }, 'bad_request', /speed/],
      [{ op: 'play', speed: 0 }, 'bad_request', /speed/],
      [{ op: 'step', by: 0 }, 'bad_request', /by/],
      [{ op: 'seek', tick: 1e12 }, 'out_of_window', /not happened/],
    ];
    for (const [body, code, why] of cases) {
      const answer = await timeline(v2, body);
      assert.equal(answer.type, 'error', JSON.stringify(body));
      assert.equal(answer.code, code, JSON.stringify(answer));
      assert.equal(answer.cmd, 'timeline');
      assert.match(answer.message, why);
    }
    // The window evicts its oldest past: 0.05 minutes = 3 s.
    await sleep(4500);
    const w = await timeline(v2, { op: 'window' });
    assert.equal(w.mode, 'live');
    assert.ok(w.from > 0 && w.to - w.from <= 3 * 60 + 15 + 1, JSON.stringify(w));
    const old = await timeline(v2, { op: 'seek', tick: 0 });
    assert.equal(old.code, 'out_of_window');
    assert.equal(old.from, w.from);
    // v1 clients get no timeline.
    const v1 = await connect(server.wsUrl);
    const answer = await timeline(v1, { op: 'seek', tick: w.to });
    assert.equal(answer.code, 'bad_request');
    assert.match(answer.message, /swarmcast\.v2/);
    v1.close();
    v2.close();
  } finally {
    await server.stop();
  }
});

test('seats are bounded: the next scrubber is told why and when to come back; a flood costs bounded work', T, async () => {
  const server = await startServer({ agents: 1000, args: ['--timeline-seats', '1'] });
  try {
    const a = await connectV2(server.wsUrl);
    const b = await connectV2(server.wsUrl);
    const watcher = await connectV2(server.wsUrl);
    await sleep(1000);
    const got = await timeline(a, { op: 'pause' });
    assert.equal(got.mode, 'paused');
    const refused = await timeline(b, { op: 'seek', tick: got.tick });
    assert.equal(refused.code, 'timeline_busy');
    assert.ok(refused.retry_after_ms > 0);
    assert.match(refused.message, /--timeline-seats/);
    // The seat goes with the viewer who held it.
    a.close();
    await sleep(300);
    const now = await timeline(b, { op: 'seek', tick: got.tick });
    assert.equal(now.type, 'timeline', JSON.stringify(now));
    // Thousands of seeks: answered or refused for the budget, never queued
    // as work; the live viewer's stream goes on.
    const mark = b.mark();
    const before = watcher.frames.length;
    for (let k = 0; k < 2000; k++) b.send({ type: 'timeline', op: 'seek', tick: got.tick - (k % 30) });
    await sleep(1500);
    const answers = b.textsSince(mark).filter((m) => m.type === 'timeline' || (m.type === 'error' && m.cmd === 'timeline'));
    assert.ok(answers.some((m) => m.code === 'rate_limited') || b.ws.readyState !== 1, 'the flood met the budget');
    const tickBefore = watcher.frames[before - 1].tick;
    await watcher.waitFrame((f) => f.tick > tickBefore + 60, 'the live viewer a second further on', { from: before });
    for (const c of [b, watcher]) c.close();
  } finally {
    await server.stop();
  }
});

test('a truncated, hand-edited or hostile recording is refused at open with its line and the reason', T, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-timeline-bad-'));
  try {
    // A real header to build on (a short headless recording is not possible:
    // take the server's own).
    const good = path.join(dir, 'good.jsonl');
    const server = await startServer({ agents: 100, args: ['--record', good] });
    await sleep(300);
    await server.stop();
    const header = readFileSync(good, 'utf8').split('\n')[0];
    const cases = [
      ['empty', '', /empty, not a --record log/],
      ['not a header', '{"hello":1}\n', /:1: not a --record header/],
      ['a bad command', `${header}\n{"tick":5,"cmd":{"type":"set_target","x":"far"}}\n`, /:2: /],
      ['out of order', `${header}\n{"tick":50,"cmd":{"type":"pause","client_id":1}}\n{"tick":20,"cmd":{"type":"resume","client_id":1}}\n`, /:3: tick 20 is before/],
      ['after the end', `${header}\n{"end_tick":10}\n{"tick":12,"cmd":{"type":"pause","client_id":1}}\n`, /:3: text after the end_tick line/],
      ['truncated', `${header}\n{"tick":5,"cmd":{"type":"set_ta`, /:2: /],
    ];
    for (const [what, text, why] of cases) {
      const file = path.join(dir, `${what.replace(/ /g, '-')}.jsonl`);
      writeFileSync(file, text);
      const err = await spawnServer(['--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot, '--replay', file])
        .then((s) => { s.stop(); return null; }, (e) => e);
      assert.ok(err, `${what}: refused`);
      assert.match(err.message, why, `${what}: ${err.message.slice(-300)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an operator shares a moment: everyone watching live follows it with one rebuild; a viewer may leave it; live ends it', T, async () => {
  const server = await startServer({ agents: 500, args: ['--keyframe-seconds', '0.5'] });
  try {
    const op = await connectV2(server.wsUrl);
    const a = await connectV2(server.wsUrl);
    const b = await connectV2(server.wsUrl);
    await sleep(1500);
    const notYet = await timeline(op, { op: 'share' });
    assert.equal(notYet.code, 'bad_request', 'share needs a moment first');
    const paused = await timeline(op, { op: 'pause' });
    const tick = paused.tick - 30;
    await timeline(op, { op: 'seek', tick });
    const fromA = a.frames.length;
    const fromB = b.frames.length;
    const shared = await timeline(op, { op: 'share' });
    assert.equal(shared.type, 'timeline', JSON.stringify(shared));
    const told = await a.waitText((m) => m.type === 'timeline' && m.why === 'shared', 'the news of the share');
    assert.equal(told.mode, 'following');
    await a.waitFrame((f) => f.tick === tick && f.keyed, `a at tick ${tick}`, { from: fromA });
    await b.waitFrame((f) => f.tick === tick && f.keyed, `b at tick ${tick}`, { from: fromB });
    // b leaves the shared moment; a follows the operator one step on.
    const back = await timeline(b, { op: 'live' });
    assert.equal(back.mode, 'live');
    const bLive = b.frames.length;
    await b.waitFrame((f, i) => i >= bLive && f.tick > tick + 30, 'b live again', { from: bLive });
    const fromA2 = a.frames.length;
    await timeline(op, { op: 'step', by: 1 });
    await a.waitFrame((f) => f.tick === tick + 1, 'a one tick on', { from: fromA2 });
    assert.ok(!b.frames.slice(bLive).some((f) => f.tick === tick + 1 && f.seq === f.tick), 'b no longer follows');
    // The operator goes live: so does everyone who followed.
    await timeline(op, { op: 'live' });
    const ended = await a.waitText((m) => m.type === 'timeline' && m.why === 'share_ended', 'the end of the share');
    assert.equal(ended.mode, 'live');
    const aLive = a.frames.length;
    await a.waitFrame((f, i) => i >= aLive && f.tick > tick + 30, 'a live again', { from: aLive });
    for (const c of [op, a, b]) c.close();
  } finally {
    await server.stop();
  }
});
