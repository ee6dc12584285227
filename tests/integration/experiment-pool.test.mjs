// The elastic pool of experiment workers on a real nats-server with
// JetStream (`swarmcast experiment run FILE --out DIR --nats URL`, any number
// of `swarmcast worker --nats URL`): a worker killed in the middle of a run,
// a worker that joins mid-sweep, a worker that takes its NATS from
// SWARMCAST_NATS (as in Docker) and whose other variables reach no run, a run that fails by itself and one whose
// workers are all lost, a coordinator killed and started again, and garbage
// on the pool's subjects. Each ends with the folder's tables compared, byte
// for byte, with the local runner's (`--workers 2`) of the same file.
//
// Skipped (with the reason) when nats-server is not installed;
// scripts/deps.sh test installs it.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/integration/experiment-pool.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { connect } from 'nats';

import { runSwarmcast } from '../lib/headless.mjs';
import { findNatsServer, startNats } from '../lib/nats.mjs';
import { serverBin, waitUntil } from '../lib/server.mjs';

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';
// Generous: two cores shared with other work; every wait is for a condition.
const T = { timeout: 180000, skip };
const WAIT = { timeoutMs: 60000, intervalMs: 50 };
// Short enough for a test, long enough that a worker can be killed mid-run.
const ACK = ['--ack-wait', '1', '--max-deliver', '3'];

let dir;
let nats;
const procs = new Set();
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-pool-'));
  if (natsBin) nats = await startNats({ args: ['-js', '-sd', path.join(dir, 'jetstream')] });
});
after(async () => {
  for (const p of procs) p.kill('SIGKILL');
  if (nats) await nats.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function write(name, content) {
  const p = path.join(dir, name);
  writeFileSync(p, JSON.stringify(content, null, 2));
  return p;
}
const read = (d, name) => readFileSync(path.join(d, name), 'utf8');

/** swarmcast with these arguments, its output gathered; { proc, log(), exited, waitFor(re) }. */
function start(args, env = {}) {
  const proc = spawn(serverBin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  procs.add(proc);
  let log = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (c) => { log += c; });
  proc.stderr.on('data', (c) => { log += c; });
  const exited = new Promise((resolve) => proc.on('close', (code, signal) => { procs.delete(proc); resolve({ code, signal }); }));
  return {
    proc,
    exited,
    log: () => log,
    async waitFor(re, what = String(re)) {
      await waitUntil(() => re.test(log), `${what}`, WAIT).catch((e) => {
        throw new Error(`${e.message}\n${log.slice(-1500)}`);
      });
      return log.match(re);
    },
  };
}
const worker = (name, env) => start(['worker', '--nats', nats.url, '--name', name], env);
const coordinator = (file, out, extra = []) => start(['experiment', 'run', file, '--out', out, '--nats', nats.url, ...ACK, ...extra]);

async function stopWorker(w) {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  w.proc.kill('SIGTERM');
  const r = await w.exited;
  assert.equal(r.code, 0, `a worker exits 0 on SIGTERM:\n${w.log().slice(-1000)}`);
}

/** The local runner's folder for the same file (computed once per file). */
const localRuns = new Map();
async function local(file, env = {}) {
  if (!localRuns.has(file)) {
    const out = `${file}.local`;
    const r = await new Promise((resolve) => {
      const p = spawn(serverBin, ['experiment', 'run', file, '--out', out, '--workers', '2'], { env: { ...process.env, ...env } });
      let err = '';
      p.stderr.on('data', (c) => { err += c; });
      p.on('close', (code) => resolve({ code, err }));
    });
    localRuns.set(file, { out, code: r.code });
  }
  return localRuns.get(file);
}

async function sameTables(file, out, env) {
  const l = await local(file, env);
  assert.equal(read(out, 'results.csv'), read(l.out, 'results.csv'), 'results.csv as the local runner writes it');
  assert.equal(read(out, 'summary.csv'), read(l.out, 'summary.csv'), 'summary.csv as the local runner writes it');
  return l;
}

function runIdsOf(out) {
  const rows = read(out, 'results.csv').trim().split('\n').slice(1);
  return rows.map((r) => r.split(','));
}

const SWEEP = {
  scenario: { agents: 300, world: { width: 600, height: 400 } },
  factors: [{ param: 'w_ali', values: [0.5, 1, 1.5, 2] }],
  replicates: 2, master_seed: 5, steps: 2500, record_every: 500,
  metrics: ['polarization', 'clusters'],
};

test('two workers, one killed mid-run: every run once, the killed one delivered again', T, async () => {
  // runs of a few tenths of a second, so that the kill surely lands inside one
  const file = write('kill.json', { ...SWEEP, scenario: { ...SWEEP.scenario, agents: 800 }, steps: 3000 });
  const out = path.join(dir, 'kill');
  const a = worker('a');
  const b = worker('b');
  const c = coordinator(file, out);
  const [, index] = await a.waitFor(/running \S+ run \S+ \(index (\d+), delivery 1\)/, 'worker a starting a run');
  a.proc.kill('SIGKILL');
  const done = await c.exited;
  assert.equal(done.code, 0, c.log());
  await stopWorker(b);
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 8, ok: 8, failed: 0, not_done: 0 });
  const killed = manifest.runs[Number(index)];
  assert.ok(killed.deliveries >= 2, `the killed worker's run was delivered again: ${JSON.stringify(killed)}`);
  assert.match(b.log(), new RegExp(`\\(index ${index}, delivery [2-9]\\)`));
  // every run exactly once, each with all its rows
  const ids = runIdsOf(out).map((r) => r[0]);
  const perRun = new Map();
  for (const id of ids) perRun.set(id, (perRun.get(id) || 0) + 1);
  assert.equal(perRun.size, 8);
  assert.equal(new Set(perRun.values()).size, 1, 'each run has the same number of rows: none written twice');
  await sameTables(file, out);
});

test('a worker that joins mid-sweep takes runs', T, async () => {
  const file = write('join.json', { ...SWEEP, master_seed: 6 });
  const out = path.join(dir, 'join');
  const a = worker('a');
  const c = coordinator(file, out);
  await a.waitFor(/ran \S+ run \S+ in [\d.]+ s: ok/, 'worker a finishing a run');
  const b = worker('b');
  const done = await c.exited;
  assert.equal(done.code, 0, c.log());
  await stopWorker(a);
  await stopWorker(b);
  assert.match(b.log(), /ran \S+ run \S+ in [\d.]+ s: ok/, `the late worker ran something:\n${b.log()}`);
  await sameTables(file, out);
});

test('a worker\'s environment (SWARMCAST_NATS as docker/compose-pool.yml sets it, and others) reaches no run', T, async () => {
  // The worker takes its NATS from the environment only. A population, a
  // world and a tick rate left in it (or in the local runner's shell) would
  // change a run without changing its id: every run is what its files say.
  const exported = { SWARMCAST_AGENTS: '40', SWARMCAST_WORLD: '300x200', SWARMCAST_TICK_HZ: '30' };
  const file = write('env.json', { ...SWEEP, scenario: {}, replicates: 1, master_seed: 8, steps: 600 });
  const out = path.join(dir, 'env');
  const w = start(['worker'], { SWARMCAST_NATS: nats.url, ...exported });
  const c = coordinator(file, out);
  const done = await c.exited;
  await stopWorker(w);
  assert.equal(done.code, 0, `${c.log()}\n${w.log().slice(-1000)}`);
  assert.match(w.log(), new RegExp(`connected to ${nats.url.replace(/[.]/g, '\\.')}`));
  await sameTables(file, out); // the local runner in a clean environment
  const l = await sameTables(file, out, { SWARMCAST_NATS: nats.url, ...exported });
  assert.equal(l.code, 0, 'the local runner with the same variables set writes the same tables');
});

test('a run that fails by itself is failed at once; the rest finish; exit status 3', T, async () => {
  const file = write('poison.json', {
    scenario: { world: { width: 400, height: 300 } },
    factors: [{ param: 'agents', values: [40, 9000000, 50] }], replicates: 2, steps: 30,
  });
  const out = path.join(dir, 'poison');
  const w = worker('w');
  const c = coordinator(file, out);
  const done = await c.exited;
  await stopWorker(w);
  assert.equal(done.code, 3, c.log());
  assert.match(c.log(), /failed: 9000000 agents is above --max-agents/);
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 6, ok: 4, failed: 2, not_done: 0 });
  assert.deepEqual(manifest.runs.map((x) => x.status), ['ok', 'ok', 'failed', 'failed', 'ok', 'ok']);
  assert.deepEqual(manifest.runs.map((x) => x.deliveries), [1, 1, 1, 1, 1, 1], 'no retries for a run that fails by itself');
  const l = await sameTables(file, out);
  assert.equal(l.code, 3);
});

test('a run whose workers are all lost is failed after max_deliver deliveries', T, async () => {
  // run 0 lasts a while (so a worker is surely killed in it), run 1 a moment
  const file = write('lost.json', {
    ...SWEEP, factors: [{ param: 'agents', values: [1500, 50] }], replicates: 1, master_seed: 7, steps: 3000,
  });
  const out = path.join(dir, 'lost');
  const c = coordinator(file, out, ['--max-deliver', '2']);
  // Every worker is killed as soon as it starts run 0, until the coordinator gives up on it.
  let finished = false;
  c.exited.then(() => { finished = true; });
  while (!finished) {
    const w = worker('doomed');
    await Promise.race([w.waitFor(/\(index 0, delivery \d+\)/, 'run 0 delivered').catch(() => {}), c.exited]);
    w.proc.kill('SIGKILL');
    await w.exited;
  }
  const done = await c.exited;
  assert.equal(done.code, 3, c.log());
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.equal(manifest.runs[0].status, 'failed');
  assert.match(manifest.runs[0].why, /^worker lost 2 times/);
  assert.equal(manifest.runs[0].deliveries, 2);
  assert.equal(manifest.runs[1].status, 'ok');
  assert.match(c.log(), /failed: worker lost 2 times/);
  // the next run of the same command tries the failed one again, like the local runner
  const w = worker('again');
  const again = coordinator(file, out);
  const r = await again.exited;
  await stopWorker(w);
  assert.equal(r.code, 0, again.log());
  await sameTables(file, out);
});

test('a worker stopped by SIGTERM mid-run gives its run back and exits 0', T, async () => {
  const file = write('term.json', {
    ...SWEEP, factors: [{ param: 'agents', values: [1500, 50] }], replicates: 1, master_seed: 10, steps: 3000,
  });
  const out = path.join(dir, 'term');
  const c = coordinator(file, out);
  const a = worker('a');
  await a.waitFor(/\(index 0, delivery 1\)/, 'run 0 started');
  a.proc.kill('SIGTERM');
  const r = await a.exited;
  assert.equal(r.code, 0, a.log());
  assert.match(a.log(), /given back/);
  const b = worker('b');
  const done = await c.exited;
  await stopWorker(b);
  assert.equal(done.code, 0, c.log());
  // given back at once (a nak), not after ack_wait: delivered again, to b
  assert.match(b.log(), /\(index 0, delivery 2\)/);
  await sameTables(file, out);
});

test('a coordinator killed and started again finishes with the same files', T, async () => {
  const file = write('resume.json', { ...SWEEP, master_seed: 8, replicates: 3, steps: 6000 });
  const out = path.join(dir, 'resume');
  const a = worker('a');
  const b = worker('b');
  const first = coordinator(file, out);
  await waitUntil(() => existsSync(path.join(out, 'runs.journal')) &&
    (read(out, 'runs.journal').match(/^@end /gm) || []).length >= 2, 'two runs in the journal', WAIT);
  first.proc.kill('SIGKILL');
  await first.exited;
  // the workers go on; their results wait on the stream
  await a.waitFor(/ran \S+ run [\s\S]*ran \S+ run [\s\S]*ran \S+ run /, 'worker a going on');
  const second = coordinator(file, out);
  const done = await second.exited;
  await stopWorker(a);
  await stopWorker(b);
  assert.equal(done.code, 0, second.log());
  assert.match(second.log(), /holds \d+ of these 12 runs already/);
  assert.match(second.log(), /\(([1-9]\d*) results were waiting\)/, 'results that came while it was down were read');
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 12, ok: 12, failed: 0, not_done: 0 });
  await sameTables(file, out);
});

test('garbage on the pool subjects crashes nobody and changes nothing', T, async () => {
  const file = write('garbage.json', { ...SWEEP, master_seed: 9 });
  const out = path.join(dir, 'garbage');
  // The runs go on the stream with no worker there; garbage follows them.
  const first = coordinator(file, out);
  const [, hash] = await first.waitFor(/runs on SWARMCAST_EXP_([0-9a-f]{16})/, 'the stream');
  const nc = await connect({ servers: nats.url });
  const enc = new TextEncoder();
  const base = `swarmcast.exp.${hash}`;
  const head = (o) => enc.encode(`${JSON.stringify({ pool: 1, experiment: hash, ...o })}\n`);
  const badRuns = [
    enc.encode('garbage'), new Uint8Array(0), new Uint8Array(900 * 1024).fill(0x7b), enc.encode('{"pool":1}'),
    head({ kind: 'run', spec: 1, index: 1e12, run: '0000000000000000' }),
    head({ kind: 'run', spec: 1, index: 0, run: 'zz' }),
    head({ kind: 'run', spec: 99999, index: 0, run: '0123456789abcdef' }),
    head({ kind: 'run', experiment: 'ffffffffffffffff', spec: 1, index: 0, run: '0123456789abcdef' }),
  ];
  const result = (o) => head({
    kind: 'result', index: 0, run: '0123456789abcdef', attempt: '0000000000000001', status: 'ok', why: '', rows: 1,
    deliveries: 1, bytes: 4, offset: 0, parts: 1, part: 0, ...o,
  });
  const badResults = [
    enc.encode('garbage'), new Uint8Array(900 * 1024).fill(0x41), result({}),
    result({ bytes: 200 * 1024 * 1024, parts: 300, offset: 0 }),
    result({ part: 5, parts: 2 }), result({ status: 'maybe' }), result({ bytes: -1 }), result({ index: 'x' }),
  ];
  for (const m of badRuns) nc.publish(`${base}.run`, m);
  for (const m of badResults) nc.publish(`${base}.result`, m);
  nc.publish(`${base}.spec`, enc.encode('not a spec'));
  nc.publish(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.SWARMCAST_EXP_${hash}.workers`, enc.encode('{"stream_seq":"x"}'));
  await nc.flush();
  await nc.close();
  // The coordinator goes (its results will wait); a worker takes the runs and the garbage.
  first.proc.kill('SIGKILL');
  await first.exited;
  const w = worker('w');
  // six are not runs at all; two look like runs but name none of this plan's (failed, and dropped by the coordinator)
  await w.waitFor(/(not a run of ours, dropped[\s\S]*){6}/, 'six bad run messages dropped');
  await w.waitFor(/(\) failed: the worker[\s\S]*){2}/, 'two runs that are not in the plan failed');
  const second = coordinator(file, out);
  const done = await second.exited;
  assert.equal(done.code, 0, second.log());
  assert.match(second.log(), /not a result of ours, dropped/);
  assert.match(second.log(), /\(8 results were waiting\)/);
  assert.equal(w.proc.exitCode, null, 'the worker is still there');
  await stopWorker(w);
  const manifest = JSON.parse(read(out, 'manifest.json'));
  assert.deepEqual(manifest.totals, { runs: 8, ok: 8, failed: 0, not_done: 0 });
  await sameTables(file, out);
});

test('rows larger than one message come in parts; a design table travels with the experiment', T, async () => {
  writeFileSync(path.join(dir, 'points.csv'), 'w_ali,border\n0.25,wrap\n1.5,bounce\n');
  // every step recorded: about 1.5 MB of rows per run, over the 1 MB a message holds
  const file = write('big.json', {
    scenario: { agents: 10, world: { width: 200, height: 200 } },
    factors: [{ param: 'w_ali', lo: 0, hi: 3 }, { param: 'border' }], design: { table: 'points.csv' },
    replicates: 1, steps: 25000, record_every: 1, metrics: ['polarization', 'milling'],
  });
  const out = path.join(dir, 'big');
  const w = worker('w');
  const c = coordinator(file, out);
  const done = await c.exited;
  await stopWorker(w);
  assert.equal(done.code, 0, c.log());
  const rows = read(out, 'results.csv');
  assert.ok(rows.length > 2 * 1024 * 1024, `${rows.length} bytes of rows`);
  assert.equal(read(out, 'design.csv'), 'w_ali,border\n0.25,wrap\n1.5,bounce\n');
  await sameTables(file, out);
});

test('bad options are refused before anything runs', { skip }, async () => {
  const file = write('opts.json', SWEEP);
  const r = await runSwarmcast(['experiment', 'run', file, '--out', path.join(dir, 'opts'), '--nats', 'nats://127.0.0.1:1', '--workers', '2']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--nats spreads the runs over the pool's workers/);
  const w = await runSwarmcast(['worker']);
  assert.equal(w.code, 2);
  assert.match(w.stderr, /--nats URL is needed/);
});
