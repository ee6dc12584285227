// Starting and stopping the real swarmcast server for the integration and
// browser tests.
//
//   SWARMCAST_BIN       the server binary (default: build/server/swarmcast
//                       next to this checkout)
//   SWARMCAST_WEB_ROOT  the web client directory (default: client-web/)
//   SWARMCAST_TEST_ROOMS  N > 0: every server startServer starts is given N
//                       rooms, each with a viewer (lib/test_rooms.mjs), so
//                       that a suite written for one world meets a server of
//                       many; stop() then checks the rooms came through
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');

export const serverBin = process.env.SWARMCAST_BIN || path.join(repoRoot, 'build/server/swarmcast');
export const webRoot = process.env.SWARMCAST_WEB_ROOT || path.join(repoRoot, 'client-web');

// The sim prints "swarmcast listening on http://127.0.0.1:PORT/ (…)"; a relay's
// line may name its mode before "listening".
const LISTEN_RE = /swarmcast[a-z ]* listening on http:\/\/127\.0\.0\.1:(\d+)\//;
// Then "swarmcast metrics on http://127.0.0.1:PORT/metrics …" (the
// operations listener, --metrics-listen; absent with --metrics-listen off).
const METRICS_RE = /swarmcast metrics on http:\/\/(?:127\.0\.0\.1|\[::1\]):(\d+)\/metrics/;

// Every server started here is killed when the test process exits, whatever
// happened to the test.
const running = new Set();
process.on('exit', () => {
  for (const p of running) {
    try { p.kill('SIGKILL'); } catch { /* already gone */ }
  }
});

/** Rejects with `what` after `ms` unless `promise` settles first. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the server on 127.0.0.1 with an ephemeral port and waits for its
 * "swarmcast listening on http://127.0.0.1:PORT/" line. `env` adds
 * environment variables (SWARMCAST_* configure the server too).
 *
 * Returns { proc, port, metricsPort, httpUrl, wsUrl, output(), exited, stop() }:
 *   metricsPort  the operations listener's (/metrics, the detailed
 *            /healthz), or null when the server has none
 *   exited   a promise of { code, signal } once the process has ended
 *   stop()   SIGTERM, then waits (with a timeout) for the exit; resolves to
 *            { code, signal }. Kills with SIGKILL if it does not end in time.
 */
export async function startServer({ agents = 300, seed = 7, args = [], env = {}, startTimeoutMs = 10000, testRooms = TEST_ROOMS } = {}) {
  const argv = ['--bind', '127.0.0.1', '--port', '0', '--agents', String(agents),
    '--seed', String(seed), '--web-root', webRoot, ...args];
  if (!(testRooms > 0)) return spawnServer(argv, { env, startTimeoutMs });
  // The rooms' viewers are sessions: a --max-clients the suite gave makes
  // room for them, so that the suite's own clients find the places it
  // counted on.
  const mc = argv.lastIndexOf('--max-clients');
  if (mc >= 0) argv[mc + 1] = String(Number(argv[mc + 1]) + testRooms);
  const { makeTestRooms } = await import('./test_rooms.mjs');
  let server;
  for (let attempt = 0; ; attempt++) {
    server = await spawnServer(argv, { env, startTimeoutMs });
    try {
      // (as many creators at once as the suite's own --max-clients leaves places)
      server.testRooms = await makeTestRooms(server, testRooms, { parallel: mc >= 0 ? Math.min(4, Math.max(1, Number(argv[mc + 1]) - testRooms)) : 4 });
      break;
    } catch (e) {
      await server.stop({ signal: 'SIGKILL' });
      if (e.moreAgents && attempt === 0 && !argv.includes('--max-agents')) {
        argv.push('--max-agents', String(e.maxAgents + e.moreAgents));
        console.log(`# rooms knob: the default room holds the whole budget (${e.maxAgents}); started again with --max-agents ${e.maxAgents + e.moreAgents}`);
        continue;
      }
      throw new Error(`SWARMCAST_TEST_ROOMS=${testRooms}: the rooms could not be made: ${e.message}\n${server.output()}`);
    }
  }
  const stop = server.stop;
  server.stop = async (opts) => {
    const rooms = server.testRooms;
    server.testRooms = null;
    if (!rooms || server.proc.exitCode !== null || server.proc.signalCode !== null) return stop(opts);
    const problems = await rooms.check();
    rooms.close();
    const exit = await stop(opts);
    if (problems.length) {
      throw new Error(`SWARMCAST_TEST_ROOMS=${testRooms}: the other rooms did not come through this test: ${problems.join('; ')}`);
    }
    return exit;
  };
  return server;
}

/** The rooms every server gets from SWARMCAST_TEST_ROOMS (0: none). */
export const TEST_ROOMS = Number(process.env.SWARMCAST_TEST_ROOMS || 0);

/** The sessions of the suite in a /healthz body: its clients less the rooms knob's viewers. */
export function ownClients(server, body) {
  return body?.clients === undefined ? undefined : body.clients - (server.testRooms?.count ?? 0);
}

// The per-address limit on new sessions (--connect-rate, --connect-burst)
// is made for strangers on the Internet; the suites open hundreds of
// sessions from 127.0.0.1 in seconds, so every server started here gets a
// generous one through the environment, unless a test's own env or flags
// say otherwise. SERVER_OWN_CONNECT_LIMITS (as `env`) restores the server's
// defaults, for the suites that test them.
const TEST_CONNECT_LIMITS = { SWARMCAST_CONNECT_RATE: '1000', SWARMCAST_CONNECT_BURST: '1000' };
export const SERVER_OWN_CONNECT_LIMITS = { SWARMCAST_CONNECT_RATE: '', SWARMCAST_CONNECT_BURST: '' };

/**
 * Runs the server binary with exactly `argv` (which must make it listen on
 * 127.0.0.1) and waits for its "… listening on http://127.0.0.1:PORT/" line;
 * the same handle as startServer. The relay mode (`swarmcast relay …`) is
 * started this way (lib/nats.mjs).
 */
export async function spawnServer(argv, { env = {}, startTimeoutMs = 10000 } = {}) {
  if (!existsSync(serverBin)) {
    throw new Error(`server binary not found: ${serverBin} (set SWARMCAST_BIN)`);
  }
  const proc = spawn(serverBin, argv, {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...TEST_CONNECT_LIMITS, ...process.env, ...env },
  });
  running.add(proc);
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    });
  });
  const output = () => `--- stdout ---\n${out.slice(-4000)}\n--- stderr ---\n${err.slice(-4000)}`;

  const { port, metricsPort } = await withTimeout(new Promise((resolve, reject) => {
    proc.on('error', (e) => reject(new Error(`cannot start ${serverBin}: ${e.message}`)));
    // The metrics line follows the listening line (flushed together),
    // unless --metrics-listen is off.
    const flag = argv.lastIndexOf('--metrics-listen');
    const listen = flag >= 0 ? argv[flag + 1] : { ...process.env, ...env }.SWARMCAST_METRICS_LISTEN;
    const metricsOff = listen === 'off';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = LISTEN_RE.exec(out);
      const mm = METRICS_RE.exec(out);
      if (m && (mm || metricsOff)) resolve({ port: Number(m[1]), metricsPort: mm ? Number(mm[1]) : null });
    });
    proc.stderr.on('data', (chunk) => { err += chunk; });
    exited.then(({ code, signal }) => reject(new Error(
      `server exited (code ${code}, signal ${signal}) before listening\n${output()}`)));
  }), startTimeoutMs, `the server's "listening on" line`).catch((e) => {
    proc.kill('SIGKILL');
    throw e;
  });

  const server = {
    proc,
    argv,
    port,
    metricsPort,
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    exited,
    output,
    async stop({ signal = 'SIGTERM', timeoutMs = 5000 } = {}) {
      if (proc.exitCode !== null || proc.signalCode !== null) return exited;
      proc.kill(signal);
      try {
        return await withTimeout(exited, timeoutMs, `the server to exit after ${signal}`);
      } catch (e) {
        proc.kill('SIGKILL');
        await exited;
        throw e;
      }
    },
  };
  return server;
}

/**
 * GET `path` from 127.0.0.1:port with node:http (the path goes out exactly
 * as written). Resolves to { status, headers, body }.
 */
export function httpGet(port, path, { timeoutMs = 3000, headers = {} } = {}) {
  return withTimeout(new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  }), timeoutMs, `GET ${path}`);
}

/**
 * GET the detailed /healthz of the operations listener (--metrics-listen):
 * { status, body } with the body parsed as JSON (null if it is not). The
 * public port's /healthz says only "ok" or "unavailable" (publicHealthz).
 */
export async function healthz(server, opts) {
  const res = await httpGet(server.metricsPort, '/healthz', opts);
  let body = null;
  try { body = JSON.parse(res.body); } catch { /* reported by the caller */ }
  return { status: res.status, body, text: res.body };
}

/** GET the public port's /healthz: { status, text } ("ok" or "unavailable"). */
export async function publicHealthz(server, opts) {
  const res = await httpGet(server.port, '/healthz', opts);
  return { status: res.status, text: res.body };
}

/** Resident memory of a process in KiB (VmRSS of /proc/<pid>/status). */
export function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]);
}

/**
 * Calls check() every intervalMs until it returns a truthy value (resolved)
 * or timeoutMs passes (rejected, naming `what` and the last value seen).
 * check may be async.
 */
export async function waitUntil(check, what, { timeoutMs = 5000, intervalMs = 100 } = {}) {
  const deadline = performance.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await check();
    } catch (e) {
      last = e;
    }
    if (last && !(last instanceof Error)) return last;
    if (performance.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await sleep(intervalMs);
  }
}

/** Waits until /healthz reports exactly `n` clients; returns the figure history for the log. */
export async function waitClients(server, n, { timeoutMs = 5000 } = {}) {
  let last = null;
  await waitUntil(async () => {
    const h = await healthz(server);
    last = ownClients(server, h.body);
    return last === n;
  }, `/healthz to report ${n} clients${server.testRooms ? ` (besides the rooms knob's ${server.testRooms.count} viewers)` : ''}`, { timeoutMs }).catch((e) => {
    throw new Error(`${e.message}; last reported: ${last}`);
  });
  return last;
}

/** A /metrics figure (a series without labels) of a process's operations listener; 0 when absent. */
export async function metric(proc, name) {
  const { body } = await httpGet(proc.metricsPort, '/metrics');
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}
