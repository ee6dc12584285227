// Debian's Caddy as a real reverse proxy in front of a server, for the
// tests: its own temporary directory (Caddyfile, storage, HOME), no admin
// endpoint, a free port on 127.0.0.1, stopped by its pid. Plain HTTP, or
// HTTPS from Caddy's internal CA (`tls internal`; the root certificate is
// then `ca`, for the clients).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import nodeTls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil, withTimeout } from './server.mjs';

/**
 * Whether a TLS handshake with 127.0.0.1:port verifies against the root
 * certificate at rootCrt (for `servername`, or the address itself). Caddy
 * writes its root before it has issued the site's certificate, and a busy
 * machine shows the gap: a test's first request would fail there.
 */
function tlsAnswers(port, rootCrt, servername) {
  let ca;
  try { ca = readFileSync(rootCrt); } catch { return Promise.resolve(false); }
  return new Promise((resolve) => {
    const socket = nodeTls.connect({ host: '127.0.0.1', port, ca, servername, timeout: 2000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => { socket.destroy(); resolve(false); });
  });
}

/** Whether a caddy binary is on PATH. */
export function caddyAvailable() {
  return spawnSync('caddy', ['version'], { stdio: 'ignore' }).status === 0;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const c = net.connect({ host: '127.0.0.1', port });
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

// Every caddy started here dies with the test process, and its folder (its
// CA, certificates, Caddyfile) goes with it, stop() called or not.
const running = new Set();
const dirs = new Set();
process.on('exit', () => {
  for (const p of running) {
    try { p.kill('SIGKILL'); } catch { /* gone */ }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs `caddy run` with the Caddyfile `config` and the environment `env`
 * (HOME and Caddy's data and config folders in `dir`, removed by stop()),
 * and waits until `ready()` says so. Returns { proc, pid, output(), stop() }.
 */
/** A new temporary folder, removed when the process exits if not before. */
function tempDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

async function runCaddy(config, dir, env, ready, what) {
  const proc = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config'), ...env },
  });
  running.add(proc);
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (c) => { out += c; });
  proc.stderr.on('data', (c) => { out += c; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => { running.delete(proc); resolve({ code, signal }); }));
  const output = () => out.slice(-4000);
  await waitUntil(async () => proc.exitCode === null && await ready(), what, { timeoutMs: 20000, intervalMs: 100 }).catch(async (e) => {
    proc.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
    throw new Error(`${e.message}\n${output()}`);
  });
  return {
    proc,
    pid: proc.pid,
    output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await withTimeout(exited, 5000, 'caddy to exit').catch(() => { proc.kill('SIGKILL'); return exited; });
      }
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
}

/**
 * Starts Caddy proxying 127.0.0.1:<port> to 127.0.0.1:<upstreamPort>.
 * Returns { port, pid, url, wsUrl, ca (a Buffer, with tls), caFile (its
 * path), output(), stop() }.
 */
export async function startCaddy(upstreamPort, { tls = false } = {}) {
  const dir = tempDir('swarmcast-caddy-');
  const port = await freePort();
  const storage = path.join(dir, 'storage');
  // With TLS, no HTTP->HTTPS redirect server: it would take port 80 (or
  // fail without root), and two runs at once would fight over it.
  const global = tls
    ? `{\n\tadmin off\n\tskip_install_trust\n\tstorage file_system ${storage}\n` +
      `\tauto_https disable_redirects\n\thttp_port ${await freePort()}\n}\n`
    : `{\n\tadmin off\n\tauto_https off\n\tstorage file_system ${storage}\n}\n`;
  const site = tls
    ? `https://127.0.0.1:${port} {\n\ttls internal\n\treverse_proxy 127.0.0.1:${upstreamPort}\n}\n`
    : `http://127.0.0.1:${port} {\n\treverse_proxy 127.0.0.1:${upstreamPort}\n}\n`;
  const config = path.join(dir, 'Caddyfile');
  writeFileSync(config, global + site);
  const rootCrt = path.join(storage, 'pki/authorities/local/root.crt');
  const caddy = await runCaddy(config, dir, {},
    async () => await portOpen(port) && (!tls || (existsSync(rootCrt) && await tlsAnswers(port, rootCrt))),
    `caddy listening on 127.0.0.1:${port}`);
  const scheme = tls ? 'https' : 'http';
  return {
    ...caddy,
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    wsUrl: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}/ws`,
    ca: tls ? readFileSync(rootCrt) : undefined,
    caFile: tls ? rootCrt : undefined,
  };
}

/**
 * Runs the project's own docker/Caddyfile (the HTTPS front of the compose
 * files) as it is, outside Docker: SWARMCAST_DOMAIN localhost, so it serves
 * https://localhost from its internal CA, on free ports instead of 80 and
 * 443, in front of `upstreams` (ports on 127.0.0.1). Returns { httpPort,
 * httpsPort, ca, pid, output(), stop() }.
 */
export async function startShippedCaddy(upstreams) {
  const dir = tempDir('swarmcast-caddyfile-');
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const rootCrt = path.join(dir, 'data/caddy/pki/authorities/local/root.crt');
  const config = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docker/Caddyfile');
  const caddy = await runCaddy(config, dir, {
    SWARMCAST_DOMAIN: 'localhost', // what the compose files pass without a domain
    SWARMCAST_UPSTREAMS: upstreams.map((p) => `127.0.0.1:${p}`).join(' '),
    SWARMCAST_HTTP_PORT: String(httpPort),
    SWARMCAST_HTTPS_PORT: String(httpsPort),
  }, async () => await portOpen(httpsPort) && existsSync(rootCrt) && await tlsAnswers(httpsPort, rootCrt, 'localhost'),
  `docker/Caddyfile listening on ${httpsPort}`);
  return { ...caddy, httpPort, httpsPort, ca: readFileSync(rootCrt) };
}
