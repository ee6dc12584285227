// Starting and stopping the real swarmcast server for the integration and
// browser tests.
//
//   SWARMCAST_BIN       the server binary (default: build/server/swarmcast
//                       next to this checkout)
//   SWARMCAST_WEB_ROOT  the web client directory (default: client-web/)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');

export const serverBin = process.env.SWARMCAST_BIN || path.join(repoRoot, 'build/server/swarmcast');
export const webRoot = process.env.SWARMCAST_WEB_ROOT || path.join(repoRoot, 'client-web');

const LISTEN_RE = /swarmcast listening on http:\/\/127\.0\.0\.1:(\d+)\//;

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
 * "swarmcast listening on http://127.0.0.1:PORT/" line.
 *
 * Returns { proc, port, httpUrl, wsUrl, output(), exited, stop() }:
 *   exited   a promise of { code, signal } once the process has ended
 *   stop()   SIGTERM, then waits (with a timeout) for the exit; resolves to
 *            { code, signal }. Kills with SIGKILL if it does not end in time.
 */
export async function startServer({ agents = 300, seed = 7, args = [], startTimeoutMs = 10000 } = {}) {
  if (!existsSync(serverBin)) {
    throw new Error(`server binary not found: ${serverBin} (set SWARMCAST_BIN)`);
  }
  const argv = ['--bind', '127.0.0.1', '--port', '0', '--agents', String(agents),
    '--seed', String(seed), '--web-root', webRoot, ...args];
  const proc = spawn(serverBin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
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

  const port = await withTimeout(new Promise((resolve, reject) => {
    proc.on('error', (e) => reject(new Error(`cannot start ${serverBin}: ${e.message}`)));
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = LISTEN_RE.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.stderr.on('data', (chunk) => { err += chunk; });
    exited.then(({ code, signal }) => reject(new Error(
      `server exited (code ${code}, signal ${signal}) before listening\n${output()}`)));
  }), startTimeoutMs, `the server's "swarmcast listening on" line`).catch((e) => {
    proc.kill('SIGKILL');
    throw e;
  });

  const server = {
    proc,
    port,
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
