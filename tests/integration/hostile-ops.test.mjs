// Operations (issue 8, goal 6): /metrics in Prometheus text format whose
// counters move when people act; SIGTERM exits within a second even in the
// middle of heavy work; /healthz answers 503 when the simulation stops
// ticking (and not when it is merely paused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { startServer, httpGet, healthz, repoRoot, sleep, waitUntil, withTimeout } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { openViewer } from '../lib/viewer.mjs';

// ------------------------------------------------------------------ /metrics

/**
 * Parses the Prometheus text exposition format (version 0.0.4) strictly:
 * every line is a # HELP, a # TYPE, another comment, or a sample
 * `name{label="value",...} value [timestamp]`. Returns
 * { types: Map(family -> type), samples: [{ name, labels, value }], bad: [lines] }.
 */
function parsePrometheus(text) {
  const types = new Map();
  const samples = [];
  const bad = [];
  const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/;
  const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (m) types.set(m[1], m[2]);
      else if (line.startsWith('# TYPE')) bad.push(line);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) { bad.push(line); continue; }
    const labels = {};
    if (m[3]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      let l;
      while (consumed < m[3].length && (l = LABEL.exec(m[3]))) {
        labels[l[1]] = l[2];
        consumed = LABEL.lastIndex;
      }
      if (consumed !== m[3].length) { bad.push(line); continue; }
    }
    const value = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    if (Number.isNaN(value) && m[4] !== 'NaN') { bad.push(line); continue; }
    samples.push({ name: m[1], labels, value });
  }
  return { types, samples, bad };
}

async function scrape(server) {
  const res = await httpGet(server.metricsPort, '/metrics');
  return { res, ...parsePrometheus(res.body) };
}

/** The value of one sample (0 when absent: a labelled counter that has not counted yet). */
function value(m, name, labels = {}) {
  const hit = m.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return hit ? hit.value : 0;
}

// The series PROTOCOL.md ("HTTP status endpoints") documents, with their
// type where it follows from the name or is stated; each covers something
// the issue asks /metrics to show.
const DOCUMENTED = {
  connections: 'gauge',
  connections_accepted_total: 'counter',
  connections_refused_total: 'counter', // {reason}: refusals by reason
  closes_total: 'counter', // {code}: closes by code
  closed_stalled_total: 'counter',
  closed_idle_total: 'counter',
  pings_sent_total: 'counter',
  text_frames_sent_total: 'counter',
  text_bytes_sent_total: 'counter',
  snapshot_frames_sent_total: 'counter',
  snapshot_bytes_sent_total: 'counter',
  snapshots_skipped_total: 'counter', // frames skipped for slow clients
  news_coalesced_total: 'counter',
  agents: null,
  max_agents: null,
  paused: null,
  tick: null,
  uptime_seconds: null,
  seconds_since_last_tick: null,
  ticks_total: 'counter',
  tick_overruns_total: 'counter',
  snapshots_encoded_total: 'counter',
  step_seconds: 'histogram',
  commands_received_total: 'counter', // {cmd}: commands by kind
  commands_applied_total: 'counter',
  commands_rate_limited_total: 'counter',
  command_errors_total: 'counter', // {code}
  abuse_closes_total: 'counter',
  record_bytes: null,
  state_writes_total: 'counter',
};

test('/metrics is Prometheus text with every documented swarmcast_* series, and its counters move when people act', { timeout: 30000 }, async () => {
  const server = await startServer({ agents: 300 });
  try {
    const viewer = await openViewer(server.wsUrl, { name: 'viewer' });
    await viewer.nextSnapshot();
    const before = await scrape(server);
    console.log(`# /metrics: ${before.res.status} ${before.res.headers['content-type']}, ${before.res.body.length} bytes, ` +
      `${before.types.size} families, ${before.samples.length} samples`);
    assert.equal(before.res.status, 200, 'GET /metrics answers 200');
    assert.match(before.res.headers['content-type'] ?? '', /^text\/plain/, 'as text/plain');
    assert.deepEqual(before.bad, [], 'every line is a comment or a well-formed sample');
    for (const s of before.samples) {
      assert.ok(s.name.startsWith('swarmcast_'), `${s.name}: every series is swarmcast_*`);
      const family = before.types.has(s.name) ? s.name : s.name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(before.types.has(family), `${s.name} has a # TYPE line`);
    }
    const missing = Object.keys(DOCUMENTED).filter((n) => !before.types.has(`swarmcast_${n}`));
    assert.deepEqual(missing, [], 'every series PROTOCOL.md documents is there (with its # TYPE)');
    for (const [n, type] of Object.entries(DOCUMENTED)) {
      if (type) assert.equal(before.types.get(`swarmcast_${n}`), type, `swarmcast_${n} is a ${type}`);
    }
    // the step-time histogram: buckets that never decrease, +Inf equal to _count
    const h = 'swarmcast_step_seconds';
    const buckets = before.samples.filter((x) => x.name === `${h}_bucket`);
    const les = buckets.map((b) => (b.labels.le === '+Inf' ? Infinity : Number(b.labels.le)));
    assert.ok(buckets.length >= 3 && les.every((x) => !Number.isNaN(x)), `${h}: buckets with le labels`);
    for (let i = 1; i < buckets.length; i++) {
      assert.ok(les[i] > les[i - 1] && buckets[i].value >= buckets[i - 1].value, `${h}: buckets in order and cumulative`);
    }
    assert.equal(les[les.length - 1], Infinity, `${h}: a +Inf bucket`);
    assert.equal(buckets[buckets.length - 1].value, value(before, `${h}_count`), `${h}: the +Inf bucket equals _count`);
    assert.ok(before.samples.some((x) => x.name === `${h}_sum`), `${h}: _sum`);

    // act: commands of one kind, an unknown command, a client that closes
    // with 1000, a burst far past the budget
    const actor = await connect(server.wsUrl);
    for (let i = 0; i < 5; i++) await actor.command({ type: 'set_target', x: 10 + i, y: 10 });
    await actor.request({ type: 'bogus' });
    const leaver = await connect(server.wsUrl);
    leaver.close();
    await leaver.closed;
    const burster = await connect(server.wsUrl);
    for (let i = 0; i < 300; i++) burster.send({ type: 'clear_target' });
    await burster.waitFor(() => burster.texts.some((m) => m.code === 'rate_limited'), 'a rate_limited reply', { allowClosed: true }).catch(() => {});
    burster.close();
    await sleep(1200);
    const open = (await healthz(server)).body?.clients;
    const after = await scrape(server);

    const pairs = {
      ticks_total: [value(before, 'swarmcast_ticks_total'), value(after, 'swarmcast_ticks_total')],
      step_seconds_count: [value(before, `${h}_count`), value(after, `${h}_count`)],
      snapshot_frames_sent_total: [value(before, 'swarmcast_snapshot_frames_sent_total'), value(after, 'swarmcast_snapshot_frames_sent_total')],
      snapshot_bytes_sent_total: [value(before, 'swarmcast_snapshot_bytes_sent_total'), value(after, 'swarmcast_snapshot_bytes_sent_total')],
      'commands_applied_total{cmd="set_target"}': [value(before, 'swarmcast_commands_applied_total', { cmd: 'set_target' }), value(after, 'swarmcast_commands_applied_total', { cmd: 'set_target' })],
      'commands_received_total{cmd="set_target"}': [value(before, 'swarmcast_commands_received_total', { cmd: 'set_target' }), value(after, 'swarmcast_commands_received_total', { cmd: 'set_target' })],
      'command_errors_total{code="unknown_command"}': [value(before, 'swarmcast_command_errors_total', { code: 'unknown_command' }), value(after, 'swarmcast_command_errors_total', { code: 'unknown_command' })],
      'commands_rate_limited_total{cmd="clear_target"}': [value(before, 'swarmcast_commands_rate_limited_total', { cmd: 'clear_target' }), value(after, 'swarmcast_commands_rate_limited_total', { cmd: 'clear_target' })],
      'closes_total{code="1000"}': [value(before, 'swarmcast_closes_total', { code: '1000' }), value(after, 'swarmcast_closes_total', { code: '1000' })],
      connections_accepted_total: [value(before, 'swarmcast_connections_accepted_total'), value(after, 'swarmcast_connections_accepted_total')],
    };
    console.log(`# /metrics before -> after: ${Object.entries(pairs).map(([k, [a, b]]) => `${k} ${a} -> ${b}`).join('; ')}; ` +
      `connections ${value(after, 'swarmcast_connections')} (/healthz clients ${open})`);
    const grew = (k, by = 1) => assert.ok(pairs[k][1] >= pairs[k][0] + by, `${k} grows by at least ${by}: ${pairs[k].join(' -> ')}`);
    grew('ticks_total');
    grew('step_seconds_count');
    grew('snapshot_frames_sent_total');
    grew('snapshot_bytes_sent_total');
    grew('commands_applied_total{cmd="set_target"}', 5);
    grew('commands_received_total{cmd="set_target"}', 5);
    grew('command_errors_total{code="unknown_command"}');
    grew('commands_rate_limited_total{cmd="clear_target"}');
    grew('closes_total{code="1000"}');
    grew('connections_accepted_total', 3);
    assert.equal(value(after, 'swarmcast_connections'), open, 'the connections gauge agrees with /healthz');
    actor.close();
    viewer.close();
  } finally {
    await server.stop();
  }
});

// ------------------------------------------------------------------ SIGTERM

/** SIGTERM now; resolves to { ms, code, signal } (ms from kill to exit), killing after 15 s. */
async function termAndTime(server) {
  const t0 = performance.now();
  server.proc.kill('SIGTERM');
  const r = await withTimeout(server.exited, 15000, 'the server to exit after SIGTERM').catch(async () => {
    server.proc.kill('SIGKILL');
    return { ...(await server.exited), killed: true };
  });
  return { ms: Math.round(performance.now() - t0), ...r };
}

// The issue's bound is one second. A loaded two-core machine may take a
// little longer to schedule the process's last steps and report its exit,
// so the assertion allows 1.5 s; the figure is printed. The landed server
// took 10-30 s here.
const EXIT_BOUND_MS = 1500;

for (const [when, waitForAck] of [['right after a reset to max_agents is sent', false], ['once a reset to max_agents is applied, with add_agents bursts queued', true]]) {
  test(`SIGTERM ${when} exits with code 0 within a second`, { timeout: 40000 }, async () => {
    // (a budget that affords a reset at once: a fresh connection has a quarter of one)
    const server = await startServer({ agents: 1000, args: ['--rate-scale', '4'] });
    const viewer = await openViewer(server.wsUrl, { name: 'viewer' });
    const actor = await connect(server.wsUrl);
    const max = actor.hello.limits.max_agents;
    let ack = null;
    const reset = actor.request({ type: 'reset', agents: max }, { timeoutMs: 8000 }).then((r) => { ack = r; }, () => {});
    if (waitForAck) {
      // (the landed server never answers: its step takes minutes; SIGTERM then comes after 8 s)
      await reset;
      for (let i = 0; i < 3; i++) actor.send({ type: 'add_agents', count: 10000 });
      actor.send({ type: 'set_param', name: 'coh_radius', value: 200 });
      await sleep(100);
    } else {
      await sleep(50);
    }
    const r = await termAndTime(server);
    const close = await withTimeout(viewer.closed, 2000, 'the viewer to be closed').catch(() => null);
    console.log(`# SIGTERM ${when} (max_agents ${max}, reset ${ack ? `${ack.type} ${ack.code ?? ''}` : 'not answered'}): ` +
      `exit after ${r.ms} ms, code ${r.code}, signal ${r.signal}${r.killed ? ' (SIGKILLed after 15 s)' : ''}; viewer closed with ${close?.code}`);
    assert.equal(r.killed, undefined, 'exited by itself');
    assert.equal(r.code, 0, `exit code 0\n${server.output()}`);
    assert.ok(r.ms <= EXIT_BOUND_MS, `exited ${r.ms} ms after SIGTERM (bound ${EXIT_BOUND_MS} ms)`);
    assert.equal(close?.code, 1001, 'the viewer was told the server is going away');
  });
}

// ------------------------------------------------------------------ /healthz

const freezeBin = process.env.SWARMCAST_FREEZE_THREAD || path.join(repoRoot, 'build/tests/swarmcast-freeze-thread');

/** The server's simulation thread, by the name it gives itself (server/src/app/sim_thread.c: SIM_THREAD_NAME). */
function simulationThread(pid) {
  return readdirSync(`/proc/${pid}/task`).map(Number)
    .find((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'swarmcast-sim');
}

test('/healthz says ok while running and while paused, 503 "stalled" when the simulation thread stops ticking, ok again after', { timeout: 40000 }, async (t) => {
  const server = await startServer({ agents: 5000, args: ['--threads', '1'] });
  try {
    const running = await healthz(server);
    assert.equal(running.status, 200);
    assert.equal(running.body.status, 'ok');

    // pausing is not a stall
    const c = await connect(server.wsUrl);
    await c.command({ type: 'pause' });
    await sleep(2600);
    const paused = await healthz(server);
    await c.command({ type: 'resume' });
    c.close();
    console.log(`# /healthz running: ${running.status} ${running.text}; paused 2.6 s: ${paused.status} ${paused.text}`);
    assert.equal(paused.status, 200, 'a pause is not a stall');
    assert.equal(paused.body.status, 'ok');
    assert.equal(paused.body.paused, true);

    // Freeze only the simulation thread (ptrace), as a step that never
    // returns would: the network thread goes on answering.
    if (!existsSync(freezeBin)) {
      t.skip(`no ${freezeBin} (build the swarmcast-freeze-thread target)`);
      return;
    }
    await sleep(500);
    const tid = simulationThread(server.proc.pid);
    const FREEZE_S = 4;
    const freezer = spawn(freezeBin, [String(tid), String(FREEZE_S)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    freezer.stdout.on('data', (d) => { out += d; });
    freezer.stderr.on('data', (d) => { out += d; });
    const freezerExit = new Promise((resolve) => freezer.on('exit', (code) => resolve(code)));
    const frozen = await Promise.race([
      waitUntil(() => out.includes('frozen'), 'the simulation thread to be frozen', { timeoutMs: 5000, intervalMs: 20 }).then(() => true),
      freezerExit.then((code) => (code === 77 ? 'not permitted' : `exit ${code}: ${out}`)),
    ]);
    if (frozen !== true) {
      if (frozen === 'not permitted') { t.skip(`ptrace not permitted here: ${out.trim()}`); return; }
      assert.fail(`could not freeze the simulation thread: ${frozen}`);
    }
    const t0 = performance.now();
    const seen = [];
    let stalled = null;
    while (performance.now() - t0 < (FREEZE_S - 0.3) * 1000) {
      const h = await healthz(server, { timeoutMs: 2000 });
      seen.push(`${((performance.now() - t0) / 1000).toFixed(1)}s:${h.status}`);
      if (h.status === 503 && !stalled) stalled = { at: (performance.now() - t0) / 1000, body: h.body };
      await sleep(200);
    }
    await freezerExit;
    const back = await waitUntil(async () => {
      const h = await healthz(server);
      return h.status === 200 && h.body.status === 'ok' ? h : null;
    }, '/healthz to say ok again after the thaw', { timeoutMs: 5000 }).catch((e) => e);
    console.log(`# /healthz with the simulation thread (tid ${tid}) frozen for ${FREEZE_S} s: ${seen.join(' ')}; ` +
      `first 503 at ${stalled ? `${stalled.at.toFixed(1)} s ${JSON.stringify(stalled.body)}` : 'never'}; after: ${back instanceof Error ? back.message : back.text}`);
    assert.ok(stalled, '/healthz answers 503 while the tick is frozen');
    assert.equal(stalled.body?.status, 'stalled');
    assert.ok(!(back instanceof Error), 'ok again once the thread runs');
  } finally {
    await server.stop();
  }
});
