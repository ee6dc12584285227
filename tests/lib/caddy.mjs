// Debian's Caddy as a real reverse proxy on loopback, for the benchmarks and
// tests that need the HTTPS front (docker/Caddyfile's role) without Docker:
// `tls internal` (Caddy's own CA, its root in a temporary folder) or plain
// HTTP, no admin endpoint, stopped by its pid.
//
//   CADDY  the caddy binary (default: PATH, then /usr/bin/caddy)
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { waitUntil } from './server.mjs';

export const caddyBin = process.env.CADDY || (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' }).trim() || '/usr/bin/caddy';
  } catch {
    return '/usr/bin/caddy';
  }
})();

/** A TCP port free on 127.0.0.1 right now (Caddy has no "port 0"). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts caddy in front of 127.0.0.1:upstreamPort on a free loopback port and
 * waits until /healthz answers through it. `tls` (default true): HTTPS from
 * Caddy's internal CA, whose root certificate is returned as `ca` (a Buffer)
 * and `caFile`. `directives` go inside the site block before reverse_proxy.
 *
 * Returns { proc, pid, port, url, wsUrl, ca, caFile, stop() }.
 */
export async function startCaddy(upstreamPort, { tls = true, directives = '' } = {}) {
  if (!existsSync(caddyBin)) throw new Error(`caddy not found: ${caddyBin} (apt-get install caddy, or set CADDY)`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swarmcast-caddy-'));
  const port = await freePort();
  const scheme = tls ? 'https' : 'http';
  // No redirect server on port 80 (it may be taken, and needs root): only
  // the one site address.
  writeFileSync(path.join(dir, 'Caddyfile'), `{
	admin off
	skip_install_trust
	storage file_system ${dir}/data
	auto_https disable_redirects
	http_port ${await freePort()}
}
${scheme}://127.0.0.1:${port} {
	${tls ? 'tls internal' : ''}
	${directives}
	reverse_proxy 127.0.0.1:${upstreamPort}
}
`);
  const proc = spawn(caddyBin, ['run', '--config', path.join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'xdg-data'), XDG_CONFIG_HOME: path.join(dir, 'xdg-config') },
  });
  let log = '';
  proc.stderr.on('data', (d) => { log = (log + d).slice(-8000); });
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const caFile = path.join(dir, 'data/pki/authorities/local/root.crt');
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => {
      if (proc.exitCode !== null) throw new Error(`caddy exited (${proc.exitCode}): ${log}`);
      if (tls && !existsSync(caFile)) return false;
      const ca = tls ? readFileSync(caFile) : undefined;
      return (await get(`${scheme}://127.0.0.1:${port}/healthz`, ca)) === 200;
    }, 'caddy to answer /healthz through to the server', { timeoutMs: 30000, intervalMs: 200 });
  } catch (e) {
    await stop();
    throw new Error(`${e.message}\n${log}`);
  }
  return {
    proc, pid: proc.pid, port, caFile: tls ? caFile : null, ca: tls ? readFileSync(caFile) : null,
    url: `${scheme}://127.0.0.1:${port}/`, wsUrl: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}/ws`, stop,
  };
}

/** The status of a GET (0 if it failed), trusting `ca` for https. */
function get(url, ca) {
  return new Promise((resolve) => {
    const mod = url.startsWith('https:') ? https : http;
    const req = mod.get(url, { ca, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}
