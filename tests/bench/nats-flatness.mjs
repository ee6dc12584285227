// Is the simulation's work flat in the number of viewers when they watch
// through relays? Starts nats-server, the simulation with --nats and two
// relays on loopback; for each count N of viewers (spread evenly over the
// relays by swarmcast-fanout, which reads every frame) it waits until the
// relays hold them, then samples for --window seconds:
//
//   sim CPU      the simulation process's CPU (/proc/PID/stat; 100% = one core)
//   step ms      mean simulation step (swarmcast_step_seconds_sum / _count)
//   encode ms    mean encode per snapshot (swarmcast_encode_seconds_total / snapshots)
//   pub msg/s, pub kB/s   what the simulation published to NATS
//                (swarmcast_nats_published_messages_total / _bytes_total)
//   relay CPU    each relay's CPU, and what the relays sent their viewers
//
// and prints a table; the fan-out probe's own output (snapshots per second
// per viewer) follows. A benchmark, not a test: it asserts nothing.
//
//   node tests/bench/nats-flatness.mjs [--counts 0,2,1000,2000,4000] [--agents 2000]
//        [--window 8] [--sim-threads N] [--fanout build/tests/bench/swarmcast-fanout]
//
// The simulation publishes the default (whole-world) view from the start,
// so the row with no viewer is the baseline: the "change" line compares
// every row with the first one.
//
// The probe spreads its viewers itself with --ports P1,P2 when it has that
// option (and then reports the simulation's CPU and tick, and the relays' CPU
// with --other-pids); otherwise one probe per relay takes N/2 each.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, httpGet, waitUntil, sleep, repoRoot } from '../lib/server.mjs';
import { startNats, startRelay } from '../lib/nats.mjs';

function options(argv) {
  const o = {
    counts: '0,2,1000,2000,4000', agents: 2000, window: 8, 'sim-threads': 0,
    fanout: process.env.SWARMCAST_FANOUT || path.join(repoRoot, 'build/tests/bench/swarmcast-fanout'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || argv[i + 1] === undefined) {
      console.error('usage: nats-flatness.mjs [--counts 0,2,1000,2000,4000] [--agents N] [--window S] [--sim-threads N] [--fanout PATH]');
      process.exit(2);
    }
    o[key] = typeof o[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  o.counts = o.counts.split(',').map(Number);
  return o;
}

const TICKS_PER_S = 100; // sysconf(_SC_CLK_TCK) on Linux
/** utime + stime of a process, in seconds. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
}

/** Every unlabelled series of /metrics, and labelled ones by their full name. */
async function metrics(server) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const out = {};
  for (const line of body.split('\n')) {
    const m = /^([a-z0-9_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** One sample of a process: time, CPU seconds, metrics. */
async function sample(server) {
  return { t: performance.now() / 1000, cpu: cpuSeconds(server.proc.pid), m: await metrics(server) };
}

const rate = (a, b, name) => ((b.m[name] ?? NaN) - (a.m[name] ?? NaN)) / (b.t - a.t);
const ratio = (a, b, num, den) => ((b.m[num] ?? NaN) - (a.m[num] ?? NaN)) / ((b.m[den] ?? NaN) - (a.m[den] ?? NaN));

const o = options(process.argv.slice(2));
if (!existsSync(o.fanout)) {
  console.error(`swarmcast-fanout not found at ${o.fanout} (build it, or pass --fanout)`);
  process.exit(2);
}
const help = spawnSync(o.fanout, ['--help'], { encoding: 'utf8' });
const hasPorts = /--ports/.test(`${help.stdout}${help.stderr}`);
const maxViewers = Math.max(...o.counts);
const net = ['--max-clients', String(maxViewers + 64), '--max-per-address', String(maxViewers + 64)];

const nats = await startNats();
const simArgs = ['--nats', nats.url];
if (o['sim-threads']) simArgs.push('--threads', String(o['sim-threads']));
const sim = await startServer({ agents: o.agents, args: simArgs, startTimeoutMs: 30000 });
const relays = [await startRelay(nats.url, { args: net }), await startRelay(nats.url, { args: net })];
const rows = [];
const probeLogs = [];
try {
  for (const r of relays) {
    await waitUntil(async () => (await httpGet(r.port, '/healthz')).status === 200, 'a relay to get frames',
      { timeoutMs: 30000, intervalMs: 200 });
  }
  for (const n of o.counts) {
    const probes = [];
    if (n > 0) {
      // The probe measures for longer than our window, so that it holds its
      // viewers throughout (it exits by itself afterwards).
      const common = ['--seconds', String(o.window + 6), '--warmup', '2', '--protocol', 'swarmcast.v2'];
      const share = (i) => Math.floor(n / relays.length) + (i < n % relays.length ? 1 : 0);
      const runs = hasPorts
        ? [['--ports', relays.map((r) => r.port).join(','), '--port', String(sim.port), '--pid', String(sim.proc.pid),
          '--other-pids', relays.map((r) => r.proc.pid).join(','), '--counts', String(n), ...common]]
        : relays.map((r, i) => ['--port', String(r.port), '--pid', String(r.proc.pid), '--counts', String(share(i)), ...common]);
      for (const args of runs) {
        const p = spawn(o.fanout, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        const probe = { p, out: '', done: null };
        p.stdout.on('data', (c) => { probe.out += c; });
        p.stderr.on('data', (c) => { probe.out += c; });
        probe.done = new Promise((resolve) => p.on('exit', resolve));
        probes.push(probe);
      }
      await waitUntil(async () => {
        let held = 0;
        for (const r of relays) held += (await metrics(r)).swarmcast_connections ?? 0;
        return held >= n;
      }, `${n} viewers on the relays`, { timeoutMs: 60000, intervalMs: 250 });
      await sleep(2000); // past the probe's warm-up and every first key
    } else {
      await sleep(1000);
    }
    const s0 = await sample(sim);
    const r0 = await Promise.all(relays.map(sample));
    await sleep(o.window * 1000);
    const s1 = await sample(sim);
    const r1 = await Promise.all(relays.map(sample));
    rows.push({
      viewers: n,
      simCpu: (100 * (s1.cpu - s0.cpu)) / (s1.t - s0.t),
      stepMs: 1000 * ratio(s0, s1, 'swarmcast_step_seconds_sum', 'swarmcast_step_seconds_count'),
      encodeMs: 1000 * ratio(s0, s1, 'swarmcast_encode_seconds_total', 'swarmcast_encode_snapshots_total'),
      pubMsgs: rate(s0, s1, 'swarmcast_nats_published_messages_total'),
      pubKB: rate(s0, s1, 'swarmcast_nats_published_bytes_total') / 1e3,
      relayCpu: relays.map((_, i) => (100 * (r1[i].cpu - r0[i].cpu)) / (r1[i].t - r0[i].t)),
      relayMB: relays.map((_, i) => rate(r0[i], r1[i], 'swarmcast_v2_bytes_sent_total') / 1e6),
      held: r1.map((x) => x.m.swarmcast_connections ?? 0),
    });
    for (const probe of probes) {
      await probe.done;
      probeLogs.push(`--- ${n} viewers: ${o.fanout} ---\n${probe.out.trim()}`);
    }
  }
} finally {
  for (const r of relays) await r.stop().catch(() => {});
  await sim.stop().catch(() => {});
  await nats.stop();
}

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
console.log(`simulation flatness: ${o.agents} agents, two relays, ${o.window} s windows, ` +
  `${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ` +
  `probe ${hasPorts ? 'one, --ports' : 'one per relay'}`);
console.log('viewers | held (r1+r2) | sim CPU % | step ms | encode ms | pub msg/s | pub kB/s | relay CPU % (r1, r2) | relays sent MB/s');
for (const r of rows) {
  console.log(`${String(r.viewers).padStart(7)} | ${r.held.join('+').padStart(12)} | ${f(r.simCpu).padStart(9)} | ` +
    `${f(r.stepMs, 3).padStart(7)} | ${f(r.encodeMs, 3).padStart(9)} | ${f(r.pubMsgs).padStart(9)} | ${f(r.pubKB).padStart(8)} | ` +
    `${r.relayCpu.map((x) => f(x)).join(', ').padStart(20)} | ${f(r.relayMB.reduce((a, b) => a + b, 0), 2)}`);
}
const base = rows[0];
if (base) {
  const worst = (k) => Math.max(...rows.map((r) => Math.abs(r[k] / base[k] - 1) * 100));
  console.log(`largest change from ${base.viewers} viewers: sim CPU ${f(worst('simCpu'))}%, step ${f(worst('stepMs'))}%, ` +
    `published msg/s ${f(worst('pubMsgs'))}%, published bytes/s ${f(worst('pubKB'))}%`);
}
for (const l of probeLogs) console.log(l);
