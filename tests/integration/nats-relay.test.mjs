// The scaled set-up for real: a nats-server on a loopback port, the
// simulation with --nats (and a state file), and two relays
// (`swarmcast relay --nats …`), each with the control token. What a viewer
// decodes through either relay is the simulation's own frame of the same
// seq; commands cross relays and are acked to their sender; a visitor's
// reset is refused at the relay; restarting nats-server or the simulation
// does not disconnect anyone; a dead relay's viewers move to the other one.
//
// Skipped (with the reason) when nats-server is not installed;
// scripts/deps.sh test installs it.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, httpGet, healthz, waitUntil, sleep } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay, waitHealthy } from '../lib/nats.mjs';

const AGENTS = 300;
const TOKEN = 'nats-relay-test-token';
// Generous: two cores shared with other work; every wait is for a condition.
const T = { timeout: 90000 };
const FRAME_WAIT = { timeoutMs: 20000 };

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';

/** A figure of a process's /metrics (0 when the series is absent). */
async function metric(server, name) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} ([0-9.e+-]+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}

/** The number of frames `c` has decoded; waits for `n` more after `from`. */
function moreFrames(c, from, n, what) {
  return c.waitFrame(() => true, what, { from: from + n - 1, ...FRAME_WAIT });
}

/**
 * A viewer given a list of relays, as the web client's `?relays=a,b`: when its
 * connection closes it connects to the next URL of the list (and on, round
 * the list, a bounded number of times).
 */
class RotatingViewer {
  constructor(urls) {
    this.urls = urls;
    this.index = 0;
    this.client = null;
    this.history = [];       // the URL of every connection, in order
    this.stopped = false;
  }

  async open() {
    const c = await connectV2(this.urls[this.index]);
    this.client = c;
    this.history.push(this.urls[this.index]);
    c.closed.then(() => this.rotate());
    return this;
  }

  async rotate() {
    for (let attempt = 0; attempt < 20 && !this.stopped; attempt++) {
      this.index = (this.index + 1) % this.urls.length;
      try {
        await this.open();
        return;
      } catch {
        await sleep(250);
      }
    }
  }

  close() {
    this.stopped = true;
    this.client?.close();
  }
}

suite('the scaled set-up: nats-server, the simulation with --nats, two relays', { skip }, () => {
  let dir, nats, sim, r1, r2, simArgs;
  const viewers = [];
  const track = (c) => { viewers.push(c); return c; };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-nats-'));
    nats = await startNats({ bin: natsBin });
    // --rate-scale 4: a fresh operator can afford `auth` and then a reset
    // (a reset costs a whole budget) at both the relay and the simulation.
    const limits = ['--control-token', TOKEN, '--rate-scale', '4'];
    simArgs = ['--nats', nats.url, ...limits, '--state-file', path.join(dir, 'state.json')];
    sim = await startServer({ agents: AGENTS, args: simArgs });
    r1 = await startRelay(nats.url, { args: [...limits, '--relay-name', 'r1'] });
    r2 = await startRelay(nats.url, { args: [...limits, '--relay-name', 'r2'] });
    await waitHealthy(r1, 'relay 1');
    await waitHealthy(r2, 'relay 2');
  });

  after(async () => {
    for (const v of viewers) v.close();
    for (const p of [r1, r2, sim]) await p?.stop({ signal: 'SIGKILL' }).catch(() => {});
    await nats?.stop({ signal: 'SIGKILL' });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('viewers on both relays decode the same agents as a viewer of the simulation, frame by frame', T, async () => {
    const direct = track(await connectV2(sim.wsUrl));
    const a = track(await connectV2(r1.wsUrl));
    const b = track(await connectV2(r2.wsUrl));
    for (const c of [a, b]) {
      assert.equal(c.hello.protocol, 2, 'a relay speaks v2');
      assert.equal(c.hello.world.width, direct.hello.world.width);
      assert.ok(c.hello.params.some((p) => p.name === 'w_sep'), 'the relay\'s hello lists the parameters');
    }
    for (const c of [direct, a, b]) await c.waitFrame((f) => f.mode === 'detail', '60 frames', { from: 60, ...FRAME_WAIT });
    const bySeq = (c) => new Map(c.frames.filter((f) => f.mode === 'detail').map((f) => [f.seq, f]));
    const ref = bySeq(direct);
    for (const [name, c] of [['relay 1', a], ['relay 2', b]]) {
      let compared = 0;
      for (const [seq, f] of bySeq(c)) {
        const d = ref.get(seq);
        if (!d || JSON.stringify(d.rect) !== JSON.stringify(f.rect)) continue;
        assert.equal(f.count, d.count, `${name}: items at seq ${seq}`);
        assert.equal(f.digest, d.digest, `${name}: decoded agents at seq ${seq}`);
        compared++;
      }
      assert.ok(compared >= 30, `${name}: ${compared} frames compared with the simulation's`);
      assert.equal(c.frames.at(-1).count, AGENTS);
      assert.deepEqual(c.decodeErrors, []);
      console.log(`# ${name}: ${compared} frames equal to the simulation's own, seq ${c.frames[0].seq}..${c.frames.at(-1).seq}`);
    }
    direct.close();
  });

  test('a parameter changed by an operator on relay 1 is acked to it and seen by a viewer on relay 2', T, async () => {
    const a = track(await connectV2(r1.wsUrl));
    const b = track(await connectV2(r2.wsUrl));
    assert.equal(a.hello.role, 'visitor', 'the relay has the control token');
    const auth = await a.request({ type: 'auth', token: TOKEN }, { timeoutMs: 10000 });
    assert.equal(auth.type, 'ack', JSON.stringify(auth));
    assert.equal(auth.role, 'operator');
    const mark = b.mark();
    const value = 2.75;
    const ack = await a.request({ type: 'set_param', name: 'w_sep', value }, { timeoutMs: 10000 });
    assert.equal(ack.type, 'ack', JSON.stringify(ack));
    assert.equal(ack.cmd, 'set_param');
    const seen = await b.waitText((m) => m.type === 'param' && m.name === 'w_sep', 'the param message at relay 2',
      { after: mark, timeoutMs: 10000 });
    assert.equal(seen.value, value);
    // Presence crosses too: a's name, set at relay 1, is listed at relay 2.
    const named = await a.request({ type: 'hello', name: 'Ada at r1' }, { timeoutMs: 10000 });
    assert.equal(named.type, 'ack', JSON.stringify(named));
    const listed = await b.waitText((m) => m.type === 'presence' && m.clients.some((c) => c.name === 'Ada at r1'),
      'presence at relay 2 listing the viewer of relay 1', { after: mark, timeoutMs: 10000 });
    const entry = listed.clients.find((c) => c.name === 'Ada at r1');
    assert.equal(entry.role, 'operator');
    assert.equal(entry.id, a.hello.client_id, 'the presence id is the one the relay gave in its hello');
    a.close();
    b.close();
  });

  test('a viewer without the control token at a relay cannot reset the world; one with it can', T, async () => {
    const visitor = track(await connectV2(r1.wsUrl));
    const operator = track(await connectV2(r2.wsUrl));
    await visitor.waitFrame((f) => f.count === AGENTS, 'a frame of the world');
    const forbiddenAtSim = await metric(sim, 'swarmcast_command_errors_total{code="forbidden"}');
    const refused = await visitor.request({ type: 'reset', agents: 10, seed: 3 }, { timeoutMs: 10000 });
    assert.equal(refused.type, 'error', JSON.stringify(refused));
    assert.equal(refused.code, 'forbidden');
    // A message the simulation answers, sent after the reset on the same
    // connection: once it is acked, a forwarded reset would have reached the
    // simulation (one relay, one NATS connection, in order).
    const fence = await visitor.request({ type: 'hello', name: 'Vic the visitor' }, { timeoutMs: 10000 });
    assert.equal(fence.type, 'ack', JSON.stringify(fence));
    assert.equal(await metric(sim, 'swarmcast_command_errors_total{code="forbidden"}'), forbiddenAtSim,
      'the relay refused the reset itself, it never reached the simulation');
    const from = visitor.frames.length;
    await moreFrames(visitor, from, 30, '30 frames after the refused reset');
    assert.ok(visitor.frames.slice(from).every((f) => f.count === AGENTS), 'the population did not change');

    assert.equal((await operator.request({ type: 'auth', token: TOKEN }, { timeoutMs: 10000 })).role, 'operator');
    const done = await operator.request({ type: 'reset', agents: 120, seed: 5 }, { timeoutMs: 10000 });
    assert.equal(done.type, 'ack', JSON.stringify(done));
    await visitor.waitFrame((f) => f.count === 120, 'a frame of the reset world at relay 1', { from, ...FRAME_WAIT });
    assert.deepEqual(visitor.decodeErrors, []);
    visitor.close();
    operator.close();
  });

  test('restarting nats-server resumes the stream on both relays without disconnecting a viewer', T, async () => {
    const a = track(await connectV2(r1.wsUrl));
    const b = track(await connectV2(r2.wsUrl));
    for (const c of [a, b]) await moreFrames(c, 0, 10, 'frames before the restart');
    await nats.stop();
    // Both relays notice (their /healthz turns 503) before NATS comes back.
    for (const r of [r1, r2]) {
      await waitUntil(async () => (await healthz(r)).status === 503, 'a relay to report the lost NATS', { timeoutMs: 20000 });
    }
    const marks = [a.frames.length, b.frames.length];
    const lastSeq = Math.max(a.frames.at(-1).seq, b.frames.at(-1).seq);
    await nats.start();
    for (const [i, c] of [a, b].entries()) {
      const { index } = await c.waitFrame((f) => f.seq > lastSeq, 'a frame after NATS came back', { from: marks[i], timeoutMs: 30000 });
      await moreFrames(c, index, 30, '30 frames after NATS came back');
      assert.equal(c.closeInfo, null, 'the viewer stayed connected');
      assert.deepEqual(c.decodeErrors, []);
    }
    await waitHealthy(r1, 'relay 1 after NATS came back');
    await waitHealthy(r2, 'relay 2 after NATS came back');
    const reconnects = await metric(r1, 'swarmcast_nats_reconnects_total');
    assert.ok(reconnects >= 1, `relay 1 counted ${reconnects} reconnects`);
    a.close();
    b.close();
  });

  test('restarting the simulation shows the relays\' viewers "restarting", then frames again on the same connection', T, async () => {
    const a = track(await connectV2(r1.wsUrl));
    const b = track(await connectV2(r2.wsUrl));
    assert.equal((await a.request({ type: 'auth', token: TOKEN }, { timeoutMs: 10000 })).role, 'operator');
    for (const c of [a, b]) await moreFrames(c, 0, 10, 'frames before the restart');
    const marks = [a.mark(), b.mark()];
    const stopped = await sim.stop();
    assert.equal(stopped.code, 0, 'the simulation exits cleanly (and writes its state file)');
    for (const [i, c] of [a, b].entries()) {
      await c.waitText((m) => m.type === 'status' && m.state === 'restarting', 'the "restarting" status',
        { after: marks[i], timeoutMs: 20000 });
    }
    const frameMarks = [a.frames.length, b.frames.length];
    sim = await startServer({ agents: AGENTS, args: simArgs });
    for (const [i, c] of [a, b].entries()) {
      await c.waitText((m) => m.type === 'status' && m.state === 'running', 'the "running" status',
        { after: marks[i], timeoutMs: 30000 });
      await moreFrames(c, frameMarks[i], 30, '30 frames from the restarted simulation');
      assert.equal(c.closeInfo, null, 'the viewer stayed connected');
      assert.deepEqual(c.decodeErrors, []);
    }
    // The relay told the new simulation who its viewers are, with their
    // roles: the operator's command is applied and acked.
    const ack = await a.request({ type: 'set_param', name: 'w_ali', value: 1.5 }, { timeoutMs: 15000 });
    assert.equal(ack.type, 'ack', JSON.stringify(ack));
    await b.waitText((m) => m.type === 'param' && m.name === 'w_ali' && m.value === 1.5, 'the param at relay 2', { timeoutMs: 10000 });
    a.close();
    b.close();
  });

  test('killing relay 1 leaves relay 2\'s viewers untouched, and relay 1\'s viewers move to relay 2', T, async () => {
    const urls = [r1.wsUrl, r2.wsUrl];
    const moving = [await new RotatingViewer(urls).open(), await new RotatingViewer(urls).open()];
    for (const v of moving) track(v);
    const staying = track(await connectV2(r2.wsUrl));
    for (const v of moving) await moreFrames(v.client, 0, 10, 'frames at relay 1');
    await moreFrames(staying, 0, 10, 'frames at relay 2');
    const before = staying.frames.length;

    await r1.stop({ signal: 'SIGKILL' });
    for (const v of moving) {
      await waitUntil(() => v.history.length === 2, 'a viewer of relay 1 to reconnect', { timeoutMs: 20000 });
      assert.deepEqual(v.history, urls, 'it went to the next relay of its list');
      await moreFrames(v.client, 0, 30, 'frames at relay 2 after the move');
      assert.equal(v.client.hello.protocol, 2);
      assert.deepEqual(v.client.decodeErrors, []);
    }
    await moreFrames(staying, before, 60, 'frames at relay 2 after relay 1 died');
    assert.equal(staying.closeInfo, null, 'relay 2\'s viewer stayed connected');
    assert.deepEqual(staying.decodeErrors, []);
    // The frames kept their pace: consecutive seqs apart from the odd skip.
    const seqs = staying.frames.slice(before).map((f) => f.seq);
    const gaps = seqs.slice(1).filter((s, i) => s !== seqs[i] + 1).length;
    assert.ok(gaps <= seqs.length / 4, `${gaps} gaps in ${seqs.length} frames`);
    await waitHealthy(r2, 'relay 2');
  });

  test('the relay and the simulation exit 0 on SIGTERM (under ASan: nothing leaked or misused at exit)', T, async () => {
    const relayExit = await r2.stop({ timeoutMs: 10000 });
    assert.deepEqual(relayExit, { code: 0, signal: null }, r2.output());
    const simExit = await sim.stop({ timeoutMs: 10000 });
    assert.deepEqual(simExit, { code: 0, signal: null }, sim.output());
  });
});
