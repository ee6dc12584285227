#!/usr/bin/env node
// The rooms' figures (issue 24, docs/BENCHMARKS.md "Rooms"), measured from
// outside as users do: rooms are made with create_room over WebSocket (from
// several loopback addresses, as several classes would), viewers are the
// fan-out probe's (swarmcast-fanout --rooms, one low-overhead process),
// tick rates come from the server's detailed /healthz (every room's
// ticks_per_s, sampled each second, and its slowest_second) and its memory
// and CPU from /proc. Asserts nothing: prints tables, and exits 0.
//
//   node tests/bench/rooms.mjs [PART ...] [--build build-bench] [--rounds 3] [--seconds 15]
//     PART: load (50 rooms x 1,000 agents, 20 viewers each), fair (one room at the
//     whole population budget in its dearest crowd, 20 small rooms), idle (100
//     rooms nobody watches, before and after they rest), flood (room creation
//     from 1 and from 100 addresses, code guessing from one, with a bystander);
//     none: all four.
//   --rooms N --agents N --viewers N   the load part's shape (50, 1000, 20)
//   SWARMCAST_BENCH_ARGS="--metrics-hz 0"  more flags for every server it starts
//
// Build first: cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSWARMCAST_BENCH=ON
//              cmake --build build-bench -j2
// Needs the `ws` package (cd tests && npm ci) and 127.0.0.1-127.0.0.100
// (Linux routes all of 127.0.0.0/8 to lo).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const BUILD = path.resolve(repo, flag('--build', 'build-bench'));
const ROUNDS = Number(flag('--rounds', 3));
const SECONDS = Number(flag('--seconds', 15));
const N_ROOMS = Number(flag('--rooms', 50));
const AGENTS = Number(flag('--agents', 1000));
const VIEWERS = Number(flag('--viewers', 20));
const PORT = Number(flag('--port', 0));
const parts = args.length ? args : ['load', 'fair', 'idle', 'flood'];
const SERVER = path.join(BUILD, 'server/swarmcast');
const FANOUT = path.join(BUILD, 'tests/bench/swarmcast-fanout');
const LOG_DIR = fs.mkdtempSync('/tmp/swarmcast-rooms-bench-');
// Every session, connection and room the bench makes must fit.
const OPEN_LIMITS = ['--max-clients', '1200', '--max-per-address', '1200', '--connect-rate', '100000',
  '--connect-burst', '100000'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const log = (...m) => console.error('#', ...m);

// ---- the server ------------------------------------------------------------

let serverCount = 0;
async function startServer(extra, { port = PORT } = {}) {
  // Port 0 (the default): any free ones, as the server prints them.
  let mport = port ? port + 1000 : 0;
  const logPath = path.join(LOG_DIR, `server-${++serverCount}.log`);
  const out = fs.openSync(logPath, 'w');
  // SWARMCAST_BENCH_ARGS: more server flags for every server of the run (e.g. "--metrics-hz 0").
  const more = (process.env.SWARMCAST_BENCH_ARGS ?? '').split(' ').filter(Boolean);
  const argv = ['--port', String(port), '--metrics-listen', `127.0.0.1:${mport}`, '--web-root',
    path.join(repo, 'client-web'), ...OPEN_LIMITS, ...extra, ...more];
  const proc = spawn(SERVER, argv, { stdio: ['ignore', 'pipe', out] });
  let text = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start (${logPath})`)), 20000);
    proc.stdout.on('data', (d) => {
      text += d;
      const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
      const metrics = /metrics on http:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
      if (listening && metrics) {
        port = Number(listening[1]);
        mport = Number(metrics[1]);
        clearTimeout(timer);
        resolve();
      }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}); ${logPath}`)); });
  });
  proc.stdout.resume();
  log(`server pid ${proc.pid}: swarmcast ${argv.join(' ')}`);
  return {
    proc, pid: proc.pid, port, mport, argv, logPath,
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', resolve);
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 10000).unref();
    }),
  };
}

function getJson(port, p) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('healthz timed out')));
  });
}
const healthz = (s) => getJson(s.mport, '/healthz');

const CLK_TCK = 100;
function rssMB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
function statCpu(file) {
  try {
    const s = fs.readFileSync(file, 'utf8');
    const close = s.lastIndexOf(')');
    const f = s.slice(close + 2).split(' ');
    return { comm: s.slice(s.indexOf('(') + 1, close), cpu: (Number(f[11]) + Number(f[12])) / CLK_TCK };
  } catch { return null; }
}
const cpuOf = (pid) => statCpu(`/proc/${pid}/stat`).cpu;
function threadsOf(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const s = statCpu(`/proc/${pid}/task/${tid}/stat`);
    // schedstat: ns on a CPU, ns waiting on a run queue (ready but not running), time slices.
    try {
      const [run, wait, slices] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      if (s) Object.assign(s, { run, wait, slices });
    } catch { /* gone */ }
    if (s) out.set(tid, s);
  }
  return out;
}
/** CPU of the server's threads between two threadsOf, grouped by name: { name: {threads, busiest %, sum %} }. */
function threadShares(t0, t1, dt) {
  const by = {};
  for (const [tid, b] of t1) {
    const a = t0.get(tid);
    if (!a) continue;
    const pct = ((b.cpu - a.cpu) / dt) * 100;
    const g = (by[b.comm] ??= { threads: 0, max: 0, sum: 0, wait: 0, slices: 0 });
    g.threads++;
    g.sum += pct;
    g.max = Math.max(g.max, pct);
    g.wait += (b.wait ?? 0) - (a.wait ?? 0);
    g.slices += (b.slices ?? 0) - (a.slices ?? 0);
  }
  return by;
}
const sharesText = (by) => Object.entries(by).sort((a, b) => b[1].sum - a[1].sum)
  .map(([n, g]) => `${n}×${g.threads} ${g.sum.toFixed(0)}% (busiest ${g.max.toFixed(0)}%; ` +
    `${g.slices ? (g.wait / g.slices / 1e3).toFixed(0) : '–'} µs run-queue wait per wake-up)`).join(', ');

/** The machine's load, to print with each figure. */
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const machineCpu = () => {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: f[0] + f[1] + f[2] + f[5] + f[6] + f[7], all: f.reduce((a, b) => a + b, 0) };
};

// ---- clients -----------------------------------------------------------------

/** A session at path from localAddress: resolves once hello came (or rejects with the close). */
function session(server, p, localAddress = '127.0.0.1', { protocol = 'swarmcast.v2' } = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${p}`, [protocol], { localAddress, handshakeTimeout: 10000 });
    const c = { ws, texts: [], waiters: new Set(), closed: null };
    const poke = () => { for (const w of [...c.waiters]) w(); };
    ws.on('message', (d, bin) => {
      if (bin) return;
      try { c.texts.push(JSON.parse(d.toString())); } catch { /* not JSON */ }
      if (c.texts.at(-1)?.type === 'hello') resolve(c);
      poke();
    });
    ws.on('unexpected-response', (req, res) => { req.destroy(); reject(new Error(`http ${res.statusCode}`)); });
    ws.on('error', (e) => reject(e));
    ws.on('close', (code, reason) => {
      c.closed = { code, reason: reason.toString() };
      reject(Object.assign(new Error(`closed ${code} ${reason}`), { code }));
      poke();
    });
    let nextId = 1;
    c.send = (m) => { const id = nextId++; ws.send(JSON.stringify({ ...m, id })); return id; };
    /** The reply (a text with that id) to the message sent. */
    c.request = (m, ms = 10000) => {
      const id = c.send(m);
      return new Promise((res2, rej2) => {
        const t = setTimeout(() => { c.waiters.delete(w); rej2(new Error(`no reply to ${m.type}`)); }, ms);
        const w = () => {
          const r = c.texts.find((x) => x.id === id && x.type !== 'param' && x.type !== 'activity');
          if (r || c.closed) { clearTimeout(t); c.waiters.delete(w); r ? res2(r) : rej2(new Error(`closed ${c.closed.code}`)); }
        };
        c.waiters.add(w);
        w();
      });
    };
    c.close = () => { try { ws.close(1000); } catch { /* closed */ } };
  });
}

/** Makes n rooms from the defaults, 20 per loopback address (each address's
 * budget: 20 at once), one fresh session per room (create_room costs 40 of a
 * session's budget of 60). Returns the room_created replies. */
async function makeRooms(server, n, { firstAddress = 10, fields = {} } = {}) {
  const made = new Array(n);
  const addresses = Math.ceil(n / 20);
  await Promise.all(Array.from({ length: addresses }, async (_, k) => {
    for (let i = k * 20; i < Math.min(n, (k + 1) * 20); i++) {
      const c = await session(server, '/ws', `127.0.0.${firstAddress + k}`);
      const r = await c.request({ type: 'create_room', from: 'defaults', name: `bench ${i}`, ...fields });
      c.close();
      if (r.type !== 'room_created') throw new Error(`create_room: ${JSON.stringify(r)}`);
      made[i] = r;
    }
  }));
  return made;
}

// ---- viewers (the fan-out probe) and the server's samples -----------------------

/** Samples /healthz once a second while running: every room's ticks_per_s
 * (the rate of its last whole second), plus RSS. */
function sampler(server) {
  const rooms = new Map(); // code -> { rates: [], first: {tick, t}, last: {tick, t}, slowest }
  const rss = [];
  const started = performance.now();
  let stop = false;
  const done = (async () => {
    while (!stop) {
      const t = performance.now();
      try {
        const h = await healthz(server);
        for (const r of h.rooms) {
          const e = rooms.get(r.code) ?? { rates: [], first: { tick: r.tick, t }, stepping: [] };
          if (r.ticks_per_s > 0) e.rates.push(r.ticks_per_s);
          (e.at ??= []).push(((t - started) / 1000).toFixed(0));
          e.last = { tick: r.tick, t };
          e.slowest = r.slowest_second;
          e.stepping.push(r.stepping);
          e.agents = r.agents;
          e.people = r.people;
          rooms.set(r.code, e);
        }
        rss.push(rssMB(server.pid));
      } catch (e) { log(`healthz: ${e.message}`); }
      await sleep(Math.max(0, 1000 - (performance.now() - t)));
    }
  })();
  return {
    rooms, rss,
    async stop() { stop = true; await done; },
  };
}

/** Runs the probe over codes (viewers per room, `rounds` rounds); during each
 * round's window samples /healthz, /proc. Resolves with one result per round. */
function fanout(server, codes, viewersPerRoom, { rounds = ROUNDS, seconds = SECONDS, warmup = 3, onWindow } = {}) {
  const n = codes.length * viewersPerRoom;
  const argv = ['--port', String(server.port), '--pid', String(server.pid), '--metrics-port', String(server.mport),
    '--rooms', codes.join(','), '--counts', Array(rounds).fill(n).join(','), '--seconds', String(seconds),
    '--warmup', String(warmup), '--threads'];
  log(`${path.relative(repo, FANOUT)} ${argv.join(' ').replace(/--rooms \S+/, `--rooms <${codes.length} codes>`)}`);
  const probe = spawn(FANOUT, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const results = [];
  let window = null;
  let stdout = '';
  return new Promise((resolve, reject) => {
    probe.stdout.on('data', (d) => {
      stdout += d;
      const lines = stdout.split('\n');
      stdout = lines.pop();
      for (const line of lines) {
        if (line.startsWith('#rooms ')) window.viewers = JSON.parse(line.slice(7));
        else if (/^\| +\d+ \|/.test(line)) window.row = line;
        else if (line.startsWith('|       | server threads:')) window.threadsLine = line;
        if (!line.startsWith('#rooms')) console.log(line);
      }
    });
    let errText = '';
    probe.stderr.on('data', async (d) => {
      errText += d;
      const lines = errText.split('\n');
      errText = lines.pop();
      for (const line of lines) {
        if (line === 'fanout: measuring') {
          window = { t0: performance.now(), cpu0: cpuOf(server.pid), th0: threadsOf(server.pid), m0: machineCpu(), self0: process.cpuUsage(),
            sampler: sampler(server), load: loadavg() };
          results.push(window);
          onWindow?.('start', window);
        } else if (line === 'fanout: measured') {
          const w = window;
          w.dt = (performance.now() - w.t0) / 1000;
          w.cpu = ((cpuOf(server.pid) - w.cpu0) / w.dt) * 100;
          const self = process.cpuUsage(w.self0);
          w.script = ((self.user + self.system) / 1e6 / w.dt) * 100; // this script's own CPU (its sessions)
          w.threads = threadShares(w.th0, threadsOf(server.pid), w.dt);
          const m1 = machineCpu();
          w.machine = ((m1.busy - w.m0.busy) / (m1.all - w.m0.all)) * 100 * 2; // % of one core, 2 cores
          w.stopSampling = w.sampler.stop();
          onWindow?.('end', w);
        } else if (line) console.error(line);
      }
    });
    probe.on('exit', async (code) => {
      for (const w of results) await w.stopSampling;
      code === 0 ? resolve(results) : reject(new Error(`swarmcast-fanout exited ${code}`));
    });
  });
}

/** Per room over a window: the lowest whole-second rate sampled, the mean
 * (ticks over time), and the server's own slowest_second. */
function roomTicks(w, codes) {
  return codes.map((code) => {
    const e = w.sampler.rooms.get(code);
    if (!e) return { code, min: NaN, mean: NaN, slowest: NaN };
    const mean = ((e.last.tick - e.first.tick) * 1000) / (e.last.t - e.first.t);
    // The seconds (from the window's start) whose sampled rate was below 58.
    const low = e.rates.map((x, k) => [x, e.at[k]]).slice(1).filter(([x]) => x < 58).map(([x, at]) => `${at}s:${x.toFixed(0)}`);
    return { code, min: Math.min(...e.rates.slice(1)), mean, slowest: e.slowest, agents: e.agents, low };
  });
}

// ---- the parts ---------------------------------------------------------------

const summary = [];
const say = (figure, value, target, note = '') => {
  summary.push({ figure, value, target, note });
};

async function partLoad() {
  console.log(`\n## load: ${N_ROOMS} rooms × ${AGENTS} agents, ${VIEWERS} viewers each (${N_ROOMS * VIEWERS} viewers)\n`);
  const server = await startServer(['--agents', String(AGENTS), '--max-agents', String((N_ROOMS + 1) * AGENTS + 1000),
    '--max-rooms', String(Math.max(100, N_ROOMS))]);
  try {
    const rss0 = rssMB(server.pid);
    const made = await makeRooms(server, N_ROOMS);
    const codes = made.map((m) => m.code);
    const rounds = await fanout(server, codes, VIEWERS);
    const perRound = rounds.map((w, i) => {
      const ticks = roomTicks(w, codes);
      const r = {
        minTick: Math.min(...ticks.map((t) => t.min)),
        minMean: Math.min(...ticks.map((t) => t.mean)),
        minSlowest: Math.min(...ticks.map((t) => t.slowest)),
        roomsBelow: ticks.filter((t) => t.min < 58).length,
        viewerMin: w.viewers.slowest, viewersBelow: w.viewers.below, viewerMedian: median(w.viewers.rooms.map((r) => r.median)),
        rss: Math.max(...w.sampler.rss), cpu: w.cpu, machine: w.machine, load: w.load,
      };
      console.log(`round ${i + 1}: slowest room second ${f1(r.minTick)} ticks/s (rooms below 58: ${r.roomsBelow}); ` +
        `lowest room mean ${f1(r.minMean)}; server's slowest_second (since start) min ${f1(r.minSlowest)}; ` +
        `slowest viewer ${f1(r.viewerMin)} snap/s (below 28: ${r.viewersBelow}), median ${f1(r.viewerMedian)}; ` +
        `RSS ${f1(r.rss)} MB; server CPU ${r.cpu.toFixed(0)}%, machine ${r.machine.toFixed(0)}% (load ${r.load})`);
      console.log(`  threads: ${sharesText(w.threads)}`);
      return r;
    });
    const m = (k) => median(perRound.map((r) => r[k]));
    say(`${N_ROOMS} rooms: every room's slowest second (ticks/s, min over rooms)`, f1(m('minTick')), '≥ 58',
      `rooms below 58 per round: ${perRound.map((r) => r.roomsBelow).join('/')}; lowest mean ${f1(m('minMean'))}`);
    say(`${N_ROOMS * VIEWERS} viewers: slowest viewer (snapshots/s)`, f1(m('viewerMin')), '≥ 28',
      `viewers below 28 per round: ${perRound.map((r) => r.viewersBelow).join('/')}; median viewer ${f1(m('viewerMedian'))}`);
    say(`server RSS, ${N_ROOMS} rooms + ${N_ROOMS * VIEWERS} viewers (MB)`, f1(m('rss')), 'report', `before the rooms: ${f1(rss0)} MB`);
    say('server CPU (% of one core; 200% = both)', m('cpu').toFixed(0), 'report',
      `machine ${m('machine').toFixed(0)}% incl. the probe`);
  } finally {
    await server.stop();
  }
}

async function partFair() {
  console.log('\n## fair: one room at the whole population budget in its dearest crowd, 20 small rooms\n');
  // The budget this machine derives (the calibration at start: what its
  // threads step in half a tick in the dearest crowd), read from a first start.
  // The calibration's crowd steers by every client's target (--max-clients:
  // the default 512 here, as a default server has).
  const probeServer = await startServer(['--agents', '100', '--max-clients', '512']);
  const h0 = await healthz(probeServer);
  const calibration = fs.readFileSync(probeServer.logPath, 'utf8').split('\n').find((l) => /max agents/.test(l)) ?? '';
  await probeServer.stop();
  const budget = h0.max_agents;
  const dearest = /\(([^)]*)\), so/.exec(calibration)?.[1] ?? '?';
  console.log(`derived budget ${budget} agents; ${calibration.replace(/^swarmcast: /, '')}`);
  const SMALL = 20, SMALL_AGENTS = 100;
  // The big room gets the whole derived budget; the small rooms (and the
  // default room) are on top of it.
  const server = await startServer(['--agents', String(SMALL_AGENTS), '--max-agents',
    String(budget + (SMALL + 1) * SMALL_AGENTS), '--rate-scale', '20', '--max-clients', '512']);
  try {
    const made = await makeRooms(server, SMALL + 1);
    const big = made[SMALL];
    const small = made.slice(0, SMALL).map((m) => m.code);
    const op = await session(server, `/ws?room=${big.code}`, '127.0.0.50');
    const auth = await op.request({ type: 'auth', token: big.token });
    if (auth.type !== 'ack') throw new Error(`auth: ${JSON.stringify(auth)}`);
    // The dearest crowd of the calibration (server/src/sim/capacity.c): olfati3
    // with delayed positions and every predator, max_candidates at its top,
    // obstacles all round, every agent packed round one point.
    const setup = [
      { type: 'set_model', model: 'olfati3' },
      { type: 'set_param', name: 'max_candidates', value: 1024 },
      { type: 'set_param', name: 'delay_ticks', value: 30 },
      { type: 'set_param', name: 'delay_mode', value: 'positions' },
      { type: 'set_param', name: 'predators', value: 16 },
      { type: 'set_target', x: 800, y: 450 },
    ];
    for (let k = 0; k < 64; k++) {
      const a = (2 * Math.PI * k) / 64;
      setup.push({ type: 'add_obstacle', x: 800 + 150 * Math.cos(a), y: 450 + 150 * Math.sin(a), radius: 5 });
    }
    for (const m of setup) {
      const r = await op.request(m);
      if (r.type !== 'ack') throw new Error(`${m.type}: ${JSON.stringify(r)}`);
    }
    // Every other seat of the server in the big room, each with its target on a
    // ring round the crowd (as the calibration's), each looking at an empty
    // corner (its frames are tiny: this process need not read the crowd 480 times).
    const TARGETS = 512 - SMALL - 1 - 1 - 10;
    const crowd = [];
    for (let k = 0; k < TARGETS; k++) {
      const c = await session(server, `/ws?room=${big.code}`, `127.0.0.${60 + Math.floor(k / 200)}`);
      const a = (2 * Math.PI * k) / TARGETS;
      c.send({ type: 'view', x: 1590, y: 890, w: 1, h: 1 });
      c.send({ type: 'set_target', x: 800 + 100 * Math.cos(a), y: 450 + 100 * Math.sin(a) });
      crowd.push(c);
    }
    console.log(`${TARGETS} more people in the big room, each with a target`);
    let held = SMALL_AGENTS;
    while (held < budget) {
      const count = Math.min(10000, budget - held);
      const r = await op.request({ type: 'add_agents', count, x: 800, y: 450 });
      if (r.type !== 'ack') throw new Error(`add_agents ${count}: ${JSON.stringify(r)}`);
      held += count;
    }
    const over = await op.request({ type: 'add_agents', count: 1, x: 800, y: 450 });
    console.log(`big room ${big.code}: ${held} agents (one more: ${over.type} ${over.code ?? ''}: ${over.message ?? ''})`);
    // Is the crowd still dense? Its room's thread's CPU and the mean
    // nearest-neighbour distance of its metrics, a few times.
    for (let k = 0; k < 4; k++) {
      const th0 = threadsOf(server.pid), t0 = performance.now();
      await sleep(2000);
      const by = threadShares(th0, threadsOf(server.pid), (performance.now() - t0) / 1000);
      const nn = op.texts.findLast((m) => m.type === 'metrics')?.mean_nn_distance;
      console.log(`  the crowd after ${2 * k + 2} s: busiest simulation thread ${by['swarmcast-sim']?.max.toFixed(0)}% of a core, ` +
        `mean nearest-neighbour distance ${nn === undefined || nn === null ? '–' : nn.toFixed(2)} u`);
    }
    // One viewer in every small room and in the big one (nobody watching: they would rest).
    const codes = [...small, big.code];
    const rounds = await fanout(server, codes, 1);
    const perRound = rounds.map((w, i) => {
      const ticks = roomTicks(w, codes);
      const s = ticks.slice(0, SMALL), b = ticks[SMALL];
      const bigThread = Math.max(...Object.values(w.threads).map((g) => g.max));
      const r = { smallMin: Math.min(...s.map((t) => t.min)), smallBelow: s.filter((t) => t.min < 58).length,
        bigMin: b.min, bigMean: b.mean, bigAgents: b.agents, bigThread, cpu: w.cpu, load: w.load, script: w.script,
        machine: w.machine };
      r.nsPerAgentStep = (bigThread / 100) * 1e9 / (r.bigAgents * r.bigMean);
      console.log(`round ${i + 1}: small rooms' slowest second ${f1(r.smallMin)} (below 58: ${r.smallBelow}); big room ` +
        `${r.bigAgents} agents, slowest second ${f1(r.bigMin)}, mean ${f1(r.bigMean)}; busiest thread ${bigThread.toFixed(0)}% ` +
        `(${r.nsPerAgentStep.toFixed(0)} ns per agent-step on it); ` +
        `server CPU ${r.cpu.toFixed(0)}%, the 480 sessions' script ${r.script.toFixed(0)}%, machine ${r.machine.toFixed(0)}% ` +
        `(load ${r.load})`);
      console.log(`  threads: ${sharesText(w.threads)}`);
      const lows = ticks.filter((t) => t.low.length).map((t, k) => `${t.code === big.code ? 'big' : 'small'} ${t.low.join(' ')}`);
      if (lows.length) console.log(`  seconds below 58 (window second:ticks): ${lows.join('; ')}`);
      return r;
    });
    const m = (k) => median(perRound.map((r) => r[k]));
    say(`fair: 20 small rooms' slowest second beside one room of ${budget} agents in its dearest crowd`, f1(m('smallMin')),
      '≥ 58', `small rooms below 58 per round: ${perRound.map((r) => r.smallBelow).join('/')}; dearest case: ${dearest}`);
    say('fair: the big room itself (slowest second / mean ticks/s)', `${f1(m('bigMin'))} / ${f1(m('bigMean'))}`, 'report',
      `its simulation thread ${m('bigThread').toFixed(0)}% of a core, ${m('nsPerAgentStep').toFixed(0)} ns per agent-step ` +
      `(the calibration's dearest crowd: ${/costs at worst ([\d,]+) ns/.exec(calibration)?.[1]} ns)`);
    op.close();
    for (const c of crowd) c.close();
  } finally {
    await server.stop();
  }
}

async function partIdle() {
  console.log('\n## idle: 100 rooms nobody watches, stepping and then resting\n');
  const IDLE = 100, STOP = 30, SAMPLE = 10;
  const server = await startServer(['--agents', String(AGENTS), '--max-agents', String((IDLE + 1) * AGENTS),
    '--max-rooms', String(IDLE), '--room-idle-stop', String(STOP)]);
  try {
    const measure = async (what) => {
      const c0 = cpuOf(server.pid), t0 = performance.now(), th0 = threadsOf(server.pid);
      await sleep(SAMPLE * 1000);
      const dt = (performance.now() - t0) / 1000;
      const r = { cpu: ((cpuOf(server.pid) - c0) / dt) * 100, rss: rssMB(server.pid), threads: threadShares(th0, threadsOf(server.pid), dt),
        tasks: fs.readdirSync(`/proc/${server.pid}/task`).length, load: loadavg() };
      const h = await healthz(server);
      r.stepping = h.rooms.filter((x) => x.code && x.stepping).length;
      console.log(`${what}: RSS ${f1(r.rss)} MB, CPU ${r.cpu.toFixed(1)}% over ${SAMPLE} s, ${r.tasks} threads, ` +
        `${r.stepping} rooms stepping (load ${r.load})`);
      console.log(`  threads: ${sharesText(r.threads)}`);
      return r;
    };
    await sleep(2000);
    const base = await measure('no room but the default');
    const t = performance.now();
    await makeRooms(server, IDLE);
    console.log(`made ${IDLE} rooms in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const stepping = await measure(`${IDLE} rooms, stepping (not yet --room-idle-stop ${STOP} s)`);
    while ((await healthz(server)).rooms.some((x) => x.code && x.stepping)) await sleep(1000);
    await sleep(2000);
    const resting = await measure(`${IDLE} rooms, resting`);
    const per = (r) => ((r.rss - base.rss) / IDLE);
    say(`idle: ${IDLE} rooms × ${AGENTS} agents stepping, nobody watching: CPU / RSS delta`,
      `${stepping.cpu.toFixed(0)}% / +${f1(stepping.rss - base.rss)} MB`, 'report', `${per(stepping).toFixed(2)} MB per room`);
    say(`idle: ${IDLE} rooms resting: CPU / RSS delta`, `${resting.cpu.toFixed(1)}% / +${f1(resting.rss - base.rss)} MB`, 'report',
      `${per(resting).toFixed(2)} MB per room; ${resting.tasks - base.tasks} more threads (${((resting.tasks - base.tasks) / IDLE).toFixed(0)} per room)`);
    say('idle: the server with no room but the default', `${base.cpu.toFixed(1)}% / ${f1(base.rss)} MB`, 'report');
  } finally {
    await server.stop();
  }
}

/** A bystander (the probe, VIEWERS viewers) in a room of its own while flood() runs in its window. */
async function withBystander(server, code, flood) {
  let result = null;
  const rounds = await fanout(server, [code], 1, {
    rounds: 1, seconds: 20, warmup: 2,
    onWindow: (phase) => { if (phase === 'start') result = flood(); },
  });
  return { flood: await result, bystander: rounds[0].viewers.slowest };
}

/** Tries create_room `tries` times from address, a fresh session each (a
 * session's budget pays for one), every `gapMs`. Counts the answers. */
async function createFlood(server, address, tries, gapMs) {
  const answers = {};
  for (let i = 0; i < tries; i++) {
    const t = performance.now();
    let a;
    try {
      const c = await session(server, '/ws', address);
      const r = await c.request({ type: 'create_room', from: 'defaults' });
      a = r.type === 'room_created' ? 'made' : r.code;
      if (r.message && !answers[a]) Object.defineProperty(answers, `${a} message`, { value: r.message, enumerable: false });
      c.close();
    } catch (e) { a = e.message.split(' ').slice(0, 2).join(' '); }
    answers[a] = (answers[a] ?? 0) + 1;
    await sleep(Math.max(0, gapMs - (performance.now() - t)));
  }
  return answers;
}
const answersText = (a) => Object.entries(a).map(([k, v]) => `${v} ${k}`).join(', ');

async function partFlood() {
  console.log('\n## flood: room creation from 1 and from 100 addresses, code guessing from one, with a bystander\n');
  const fresh = async () => {
    const server = await startServer(['--agents', '200', '--max-agents', '100000']);
    const [home] = await makeRooms(server, 1, { firstAddress: 200 });
    return { server, code: home.code };
  };
  let { server, code } = await fresh();
  try {
    // One address: 40 tries, one every 0.4 s (16 s).
    let r = await withBystander(server, code, () => createFlood(server, '127.0.0.2', 40, 400));
    console.log(`creation from one address, 40 tries in 16 s: ${answersText(r.flood)} ("${r.flood['rate_limited message']}"); ` +
      `bystander's slowest viewer ${f1(r.bystander)}/s`);
    say('flood: create_room from one address (40 tries in 16 s)', answersText(r.flood), '20 made, then rate_limited',
      `bystander ${f1(r.bystander)} snapshots/s (≥ 28)`);
    await server.stop();
    ({ server, code } = await fresh());
    // 100 addresses (127.0.0.1 … 127.0.0.100), 3 tries each, at once.
    r = await withBystander(server, code, async () => {
      const all = await Promise.all(Array.from({ length: 100 }, (_, k) => createFlood(server, `127.0.0.${k + 1}`, 3, 0)));
      const sum = {};
      for (const a of all) {
        for (const [k, v] of Object.entries(a)) sum[k] = (sum[k] ?? 0) + v;
        if (a['limit_reached message'] && !sum['limit_reached message']) {
          Object.defineProperty(sum, 'limit_reached message', { value: a['limit_reached message'], enumerable: false });
        }
      }
      return sum;
    });
    console.log(`creation from 100 addresses, 3 each: ${answersText(r.flood)} ("${r.flood['limit_reached message']}"); ` +
      `bystander's slowest viewer ${f1(r.bystander)}/s`);
    say('flood: create_room from 100 addresses (3 each, at once; --max-rooms 100, one room is the bystander\'s)',
      answersText(r.flood), '99 made, then limit_reached', `bystander ${f1(r.bystander)} snapshots/s (≥ 28)`);
    await server.stop();
    ({ server, code } = await fresh());
    // Code guessing from one address: as fast as it goes for 15 s.
    r = await withBystander(server, code, async () => {
      const answers = {};
      const t0 = performance.now();
      let n = 0;
      const timeline = [];
      while (performance.now() - t0 < 15000) {
        const wrong = `ZZZZ${'23456789'[n % 8]}${'ABCDEFGH'[(n >> 3) % 8]}${'JKMNPQRS'[(n >> 6) % 8]}Z`;
        n++;
        let a;
        try { const c = await session(server, `/ws?room=${wrong}`, '127.0.0.3'); a = 'open!'; c.close(); } catch (e) { a = e.code ? `${e.code}` : e.message; }
        answers[a] = (answers[a] ?? 0) + 1;
        if (a !== timeline.at(-1)?.a) timeline.push({ a, t: ((performance.now() - t0) / 1000).toFixed(1) });
      }
      // The right code from the guessing address: refused unread; from another address: in.
      let right;
      try { (await session(server, `/ws?room=${code}`, '127.0.0.3')).close(); right = 'open'; } catch (e) { right = `${e.code}`; }
      let other;
      try { (await session(server, `/ws?room=${code}`, '127.0.0.4')).close(); other = 'open'; } catch (e) { other = `${e.code}`; }
      return { answers, n, right, other, timeline };
    });
    const g = r.flood;
    console.log(`guessing from one address: ${g.n} tries in 15 s: ${answersText(g.answers)}; first answers ` +
      `${g.timeline.map((x) => `${x.a}@${x.t}s`).join(' ')}; the right code then: ${g.right} from it, ${g.other} from another ` +
      `address; bystander ${f1(r.bystander)}/s`);
    say('flood: code guessing from one address (15 s, back to back)', answersText(g.answers), '30 × 4404, then 4429',
      `right code after: ${g.right} from the guesser, ${g.other} from another address; bystander ${f1(r.bystander)} snapshots/s (≥ 28)`);
  } finally {
    await server.stop();
  }
}

const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
const isa = / avx512f /.test(cpuinfo) ? 'AVX-512' : / avx2 /.test(cpuinfo) ? 'AVX2' : 'SSE';
const model = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? '?';
console.log(`# rooms bench: ${model}, ${fs.readdirSync('/sys/devices/system/cpu').filter((d) => /^cpu\d+$/.test(d)).length} CPUs, ${isa}; ` +
  `load ${loadavg()}; logs in ${LOG_DIR}`);
for (const p of parts) {
  if (p === 'load') await partLoad();
  else if (p === 'fair') await partFair();
  else if (p === 'idle') await partIdle();
  else if (p === 'flood') await partFlood();
  else throw new Error(`no part ${p}`);
}
console.log(`\n## figures (${isa}; medians of ${ROUNDS} rounds of ${SECONDS} s where there are rounds)\n`);
console.log('| figure | measured | target | notes |\n|---|---|---|---|');
for (const s of summary) console.log(`| ${s.figure} | ${s.value} | ${s.target} | ${s.note} |`);
