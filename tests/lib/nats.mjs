// The scaled set-up for the integration tests and benchmarks: a real
// nats-server on a free loopback port, the simulation with --nats, and
// relays (`swarmcast relay --nats …`), all on 127.0.0.1.
//
//   NATS_SERVER   the nats-server binary (default: found on PATH, or Debian's
//                 /usr/sbin/nats-server, which a user's PATH may not list)
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { spawnServer, withTimeout, sleep, webRoot, healthz, waitUntil } from './server.mjs';

/** The nats-server binary, or null when it is not installed. */
export function findNatsServer() {
  const candidates = process.env.NATS_SERVER
    ? [process.env.NATS_SERVER]
    : [...(process.env.PATH || '').split(':').filter(Boolean).map((d) => path.join(d, 'nats-server')),
      '/usr/sbin/nats-server', '/usr/bin/nats-server'];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch { /* next */ }
  }
  return null;
}

/** A TCP port on 127.0.0.1 that nobody listens on right now. */
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

/** Resolves once a TCP connection to 127.0.0.1:port succeeds (tries every 50 ms). */
export async function waitForPort(port, { timeoutMs = 10000, what = `port ${port}` } = {}) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port }, () => { sock.destroy(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

// Every nats-server started here dies with the test process, and its
// temporary folder (JetStream's store) goes with it.
const natsRunning = new Set();
const natsDirs = new Set();
process.on('exit', () => {
  for (const p of natsRunning) {
    try { p.kill('SIGKILL'); } catch { /* already gone */ }
  }
  for (const d of natsDirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A nats-server on 127.0.0.1 and a free port, started and waited for (the
 * port answers); `args` add flags (`-c FILE`), `env` variables (a config
 * file's $VAR). Returns { port, url, start(), stop(), restart(), output() }:
 * stop() ends the process (SIGTERM, SIGKILL after timeoutMs); start() starts
 * it again on the same port, so that clients reconnect to the same URL.
 * JetStream (`-js`, or a config file's `jetstream`) keeps its store in a
 * new temporary folder of this server's (`dir`), unless `args` name one
 * with `-sd`: never nats-server's default /tmp/nats/jetstream, where an
 * earlier run's streams would still be. The folder outlives restart() (a
 * restarted server finds its streams, as a real one does) and is removed
 * when the process exits.
 */
export async function startNats({ bin = findNatsServer(), args = [], env = {} } = {}) {
  if (!bin) throw new Error('nats-server not found (scripts/deps.sh test installs it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swarmcast-nats-server-'));
  natsDirs.add(dir);
  if (!args.some((a) => a === '-sd' || a === '--store_dir' || a.startsWith('--store_dir='))) {
    args = [...args, '-sd', path.join(dir, 'jetstream')];
  }
  const port = await freePort();
  let proc = null;
  let exited = null;
  let log = '';
  const nats = {
    port,
    dir,
    url: `nats://127.0.0.1:${port}`,
    output: () => log.slice(-4000),
    get pid() { return proc && proc.pid; },
    async start() {
      proc = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), ...args],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
      natsRunning.add(proc);
      const p = proc;
      exited = new Promise((resolve) => p.on('exit', (code, signal) => { natsRunning.delete(p); resolve({ code, signal }); }));
      for (const s of [proc.stdout, proc.stderr]) s.on('data', (c) => { log += c; });
      await Promise.race([
        waitForPort(port, { what: `nats-server on 127.0.0.1:${port}` }),
        exited.then(({ code }) => { throw new Error(`nats-server exited (code ${code}) before listening:\n${log.slice(-2000)}`); }),
      ]);
    },
    async stop({ signal = 'SIGTERM', timeoutMs = 5000 } = {}) {
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(signal);
      try {
        await withTimeout(exited, timeoutMs, 'nats-server to exit');
      } catch {
        proc.kill('SIGKILL');
        await exited;
      }
    },
    async restart() {
      await nats.stop();
      await nats.start();
    },
  };
  await nats.start();
  return nats;
}

/**
 * `swarmcast relay --nats URL` on 127.0.0.1 and an ephemeral port; the
 * handle of lib/server.mjs (port, wsUrl, stop(), …).
 */
export function startRelay(natsUrl, { args = [], env = {}, startTimeoutMs = 10000 } = {}) {
  return spawnServer(['relay', '--nats', natsUrl, '--bind', '127.0.0.1', '--port', '0', '--web-root', webRoot, ...args],
    { env, startTimeoutMs });
}

/** Waits until the process's /healthz answers 200 (a relay: connected and fed frames). */
export function waitHealthy(server, what, timeoutMs = 30000) {
  let last = null;
  return waitUntil(async () => {
    last = await healthz(server);
    return last.status === 200;
  }, `${what}: /healthz 200`, { timeoutMs, intervalMs: 200 }).catch((e) => {
    throw new Error(`${e.message}; last: ${last && last.status} ${last && last.text}\n${server.output()}`);
  });
}
