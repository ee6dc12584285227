// The figures behind the real proxy (docs/BENCHMARKS.md, "Behind Caddy with
// TLS"): Debian's caddy with `tls internal` on loopback in front of the
// server (tests/lib/caddy.mjs, the role of docker/Caddyfile without Docker),
// a 2,000-agent flock. A benchmark, not a test: it prints figures and asserts
// nothing. Parts (all by default):
//
//   hop        two v2 viewers of the same view, one direct (ws://) and one
//              through Caddy (wss://); what the proxy hop adds to each
//              frame's arrival (same seq), p50 / p90 / p99
//   fanout     build/tests/bench/swarmcast-fanout --tls-ca through Caddy:
//              snapshots/s per viewer (median, p10) for each count, the
//              server's and Caddy's CPU (/proc/PID/stat) and Caddy's per viewer
//   direct     the same probe and counts straight to the server (ws://, the
//              same libwebsockets reader), for comparison on the same machine
//   addresses  40 viewers from 40 loopback addresses (127.0.0.2 … .41), then
//              200 from one (127.0.0.2), through Caddy, with the server's
//              own per-address defaults; then 200 from one with
//              --max-per-address M. They arrive over 5 s (a room scanning a
//              QR code) and retry like the page does after a refusal; how
//              many were served (the hello and frames) within 60 s, how many
//              needed a retry, and what refused the others
//
//   node tests/bench/proxy.mjs [--parts hop,fanout,direct,addresses] [--agents 2000]
//        [--seconds 10] [--counts 50,100,200,400] [--max-per-address 50]
//        [--trusted-proxy 127.0.0.1/32|none]
//
// --trusted-proxy (default 127.0.0.1/32, Caddy's address here) is passed to
// the server when its --help knows the flag: the viewers' addresses are then
// taken from Caddy's X-Forwarded-For; without it every viewer is Caddy's
// 127.0.0.1. SWARMCAST_BIN picks the server binary (caddy comes from PATH),
// SWARMCAST_FANOUT the fan-out probe (default build/tests/bench/swarmcast-fanout).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

import { startServer, sleep, serverBin, repoRoot, SERVER_OWN_CONNECT_LIMITS } from '../lib/server.mjs';
import { startCaddy } from '../lib/caddy.mjs';
import { seqViewer, addedByHop, describeAdded } from './seq_arrivals.mjs';
import { backoffDelay } from '../../client-web/net/connection.js';

function options(argv) {
  const o = { parts: 'hop,fanout,direct,addresses', agents: '2000', seconds: '10', counts: '50,100,200,400',
    'max-per-address': '50', 'trusted-proxy': '127.0.0.1/32' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || argv[i + 1] === undefined) {
      console.error('usage: proxy.mjs [--parts hop,fanout,direct,addresses] [--agents N] [--seconds S] [--counts N,N,…] ' +
        '[--max-per-address M] [--trusted-proxy CIDR|none]');
      process.exit(2);
    }
    o[key] = argv[i + 1];
  }
  return { ...o, parts: o.parts.split(','), agents: Number(o.agents), seconds: Number(o.seconds),
    maxPerAddress: Number(o['max-per-address']), trustedProxy: o['trusted-proxy'] };
}

/** "AVX-512" or "AVX2" (or neither), from /proc/cpuinfo: named beside every figure. */
function instructionSet() {
  const flags = (readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m) || ['', ''])[1].split(/\s+/);
  return flags.includes('avx512f') ? 'AVX-512' : flags.includes('avx2') ? 'AVX2' : 'neither AVX2 nor AVX-512';
}

/** Jiffies the whole machine spent busy and in all, from /proc/stat. */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + (f[4] || 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** The server's flags for the front: --trusted-proxy if this binary has it. */
function frontArgs(o) {
  if (o.trustedProxy === 'none') return [];
  const help = execFileSync(serverBin, ['--help'], { encoding: 'utf8' });
  return help.includes('--trusted-proxy') ? ['--trusted-proxy', o.trustedProxy] : [];
}

const o = options(process.argv.slice(2));
const isa = instructionSet();
const machine = `${os.cpus().length} cores, ${isa}, load ${os.loadavg()[0].toFixed(2)}`;
console.log(`# proxy.mjs: ${o.agents} agents, caddy ${execFileSync('caddy', ['version'], { encoding: 'utf8' }).split(' ')[0].trim()} ` +
  `with tls internal on loopback, ${machine}`);

async function withFront(serverOpts, fn) {
  const server = await startServer({ agents: o.agents, startTimeoutMs: 30000, ...serverOpts });
  let caddy = null;
  try {
    caddy = await startCaddy(server.port, { tls: true });
    return await fn(server, caddy);
  } finally {
    if (caddy) await caddy.stop();
    await server.stop();
  }
}

// ---------------------------------------------------------------- the hop
async function hop() {
  await withFront({ args: ['--max-clients', '64'] }, async (server, caddy) => {
    const direct = seqViewer(server.wsUrl);
    const front = seqViewer(caddy.wsUrl, { ca: caddy.ca });
    await Promise.all([direct.open, front.open]);
    await sleep(2000); // both past their first key
    direct.recording = front.recording = true;
    await sleep(o.seconds * 1000);
    direct.recording = front.recording = false;
    const added = addedByHop(direct, front);
    console.log(`\n## hop: ${o.seconds} s, ${machine}`);
    console.log(`frames: direct ${direct.at.size}, through Caddy ${front.at.size}, both ${added.length}; ` +
      `bytes/s per viewer ${(direct.bytes / o.seconds / 1e3).toFixed(1)} kB direct, ${(front.bytes / o.seconds / 1e3).toFixed(1)} kB through Caddy`);
    if (added.length) console.log(`added by Caddy with TLS (wss arrival − ws arrival, same seq; ${isa}): ${describeAdded(added)}`);
    else console.log('no seq arrived on both connections');
    direct.ws.close();
    front.ws.close();
  });
}

// ------------------------------------------------------------- the fan-out
async function fanout(front = true) {
  const probe = process.env.SWARMCAST_FANOUT || path.join(repoRoot, 'build/tests/bench/swarmcast-fanout');
  const counts = o.counts.split(',').map(Number);
  const most = Math.max(...counts);
  await withFront({
    args: ['--max-clients', String(most + 64), '--max-per-address', String(most + 64), ...frontArgs(o)],
    env: { SWARMCAST_CONNECT_RATE: '100000', SWARMCAST_CONNECT_BURST: '100000' },
  }, async (server, caddy) => {
    console.log(`\n## fanout ${front ? 'through Caddy (wss)' : 'direct (ws)'}, ${o.seconds} s per count, ${machine}`);
    const args = ['--port', String(server.port), '--pid', String(server.proc.pid), '--counts', o.counts,
      ...(server.metricsPort ? ['--metrics-port', String(server.metricsPort)] : []),
      '--seconds', String(o.seconds), ...(front
        ? ['--ports', String(caddy.port), '--other-pids', String(caddy.pid), '--tls-ca', caddy.caFile]
        : ['--reader', 'lws'])];
    console.log(`$ swarmcast-fanout ${args.join(' ')}`);
    const out = await new Promise((resolve, reject) => {
      const p = spawn(probe, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      // The whole machine's CPU between two rows (every process, ours and
      // anything else running): on a shared machine, what was left.
      let mark = machineCpu();
      p.stdout.on('data', (d) => {
        text += d;
        process.stdout.write(d);
        if (/^\| +\d+ \|/m.test(String(d))) {
          const now = machineCpu();
          console.log(`|       | the machine since the previous row: ${((now.busy - mark.busy) / (now.total - mark.total) * os.cpus().length * 100).toFixed(0)}% busy of ${os.cpus().length * 100}%`);
          mark = now;
        }
      });
      p.once('error', reject);
      p.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`swarmcast-fanout exited ${code}`))));
    });
    // Caddy's CPU per viewer, from the probe's rows: "| N | open | …" then
    // "|       | other processes' CPU: X%".
    if (!front) return;
    const lines = out.split('\n');
    console.log(`\nCaddy's CPU per viewer (${isa}; 100% = one core):`);
    for (let i = 0; i < lines.length; i++) {
      const m = /other processes' CPU: (\d+)%/.exec(lines[i]);
      const row = lines[i - 1] && lines[i - 1].split('|').map((c) => c.trim());
      if (!m || !row || !Number(row[2])) continue;
      console.log(`  ${row[2]} viewers (median ${row[3]} snapshots/s): Caddy ${m[1]}%, ` +
        `${(Number(m[1]) / Number(row[2])).toFixed(2)}% per viewer, server ${row[8]}`);
    }
  });
}

// ---------------------------------------------------------- the addresses
/**
 * One wss attempt from `localAddress`: resolves to { served } once it has the
 * hello and 3 binary frames, or { code } when it is closed first (its close
 * code, or "HTTP 429" when the handshake itself is refused).
 */
function attempt(caddy, localAddress) {
  return new Promise((resolve) => {
    const ws = new WebSocket(caddy.wsUrl, 'swarmcast.v2', { ca: caddy.ca, localAddress });
    let hello = false, frames = 0, settled = false;
    const settle = (r) => { if (!settled) { settled = true; resolve({ ...r, ws }); } };
    const timer = setTimeout(() => settle({ code: 'timeout' }), 30000);
    ws.on('message', (data, isBinary) => {
      if (!isBinary) hello = hello || JSON.parse(data.toString('utf8')).type === 'hello';
      else if (hello && ++frames === 3) { clearTimeout(timer); settle({ served: true }); }
    });
    ws.on('close', (code) => { clearTimeout(timer); settle({ code }); });
    // Refused before the upgrade (the per-address connection rate: 429).
    ws.on('unexpected-response', (req, res) => {
      clearTimeout(timer);
      settle({ code: `HTTP ${res.statusCode}` });
      res.resume();
      req.destroy();
    });
    ws.on('error', () => {});
  });
}

/**
 * A person's page: tries again after a refusal with the page's own backoff
 * (client-web/net/connection.js: 0.5, 1, 2, 4, then 5 s) until `deadline`.
 * Resolves to { served, tries, at (ms since `t0`), code (the last refusal) }.
 */
async function person(caddy, localAddress, t0, deadline) {
  for (let tries = 1; ; tries++) {
    const r = await attempt(caddy, localAddress);
    if (r.served) return { served: true, tries, at: performance.now() - t0, ws: r.ws };
    r.ws.terminate();
    const wait = backoffDelay(tries - 1);
    if (performance.now() + wait > deadline) return { served: false, tries, code: r.code };
    await sleep(wait);
  }
}

/** `addresses.length` people arriving over `arrivalS` seconds; who got in within `patienceS`. */
async function crowd(caddy, addresses, label, { arrivalS = 5, patienceS = 60 } = {}) {
  const t0 = performance.now();
  const deadline = t0 + patienceS * 1000;
  const people = addresses.map((a, i) => sleep((arrivalS * 1000 * i) / addresses.length)
    .then(() => person(caddy, a, t0, deadline)));
  const results = await Promise.all(people);
  const served = results.filter((r) => r.served);
  const retried = served.filter((r) => r.tries > 1).length;
  const refused = {};
  for (const r of results) if (!r.served) refused[r.code] = (refused[r.code] || 0) + 1;
  const last = served.length ? Math.max(...served.map((r) => r.at)) / 1000 : 0;
  console.log(`${label}, arriving over ${arrivalS} s: ${served.length} of ${addresses.length} served ` +
    `(${retried} after the page's retry; the last in at ${last.toFixed(1)} s)` +
    (served.length < addresses.length
      ? `; not in after ${patienceS} s: ${Object.entries(refused).map(([c, n]) => `${n} last refused with ${c}`).join(', ')}`
      : ''));
  for (const r of results) if (r.ws) r.ws.terminate();
  await sleep(1500); // the server lets them go before the next crowd
}

async function addresses() {
  const trusted = frontArgs(o);
  const flags = trusted.length ? trusted.join(' ') : 'no --trusted-proxy (every viewer is Caddy\'s 127.0.0.1)';
  console.log(`\n## addresses through Caddy (wss), the server's own per-address defaults, ${flags}; ${machine}`);
  // The server's own connection limits (tests/lib/server.mjs otherwise
  // raises them for the suites), room for 500 viewers in all.
  await withFront({ args: ['--max-clients', '500', ...trusted], env: SERVER_OWN_CONNECT_LIMITS }, async (_server, caddy) => {
    await crowd(caddy, Array.from({ length: 40 }, (_, i) => `127.0.0.${i + 2}`), '40 viewers from 40 addresses');
    await crowd(caddy, Array.from({ length: 200 }, () => '127.0.0.2'), '200 viewers from one address');
  });
  await withFront({
    args: ['--max-clients', '500', '--max-per-address', String(o.maxPerAddress), ...trusted],
    env: SERVER_OWN_CONNECT_LIMITS,
  }, async (_server, caddy) => {
    await crowd(caddy, Array.from({ length: 200 }, () => '127.0.0.2'), `200 viewers from one address, --max-per-address ${o.maxPerAddress}`);
  });
}

for (const part of o.parts) {
  if (part === 'hop') await hop();
  else if (part === 'fanout') await fanout();
  else if (part === 'direct') await fanout(false);
  else if (part === 'addresses') await addresses();
  else { console.error(`unknown part ${part}`); process.exit(2); }
}
