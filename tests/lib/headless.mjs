// Running the swarmcast binary to completion (headless runs and replays) for
// the integration tests: the exit code and everything it printed, with a
// timeout so that nothing can hang.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

import { serverBin } from './server.mjs';

/**
 * Runs `swarmcast ...args` and resolves with { code, signal, stdout, stderr }
 * once it exits; kills it (and rejects) after timeoutMs.
 */
export function runSwarmcast(args, { timeoutMs = 30000 } = {}) {
  if (!existsSync(serverBin)) {
    return Promise.reject(new Error(`server binary not found: ${serverBin} (set SWARMCAST_BIN)`));
  }
  return new Promise((resolve, reject) => {
    const proc = spawn(serverBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stdout.on('data', (c) => { stdout += c; });
    proc.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`swarmcast ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    proc.on('error', (e) => { clearTimeout(timer); reject(e); });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Like runSwarmcast, and fails unless the exit code is 0. */
export async function runOk(args, opts) {
  const r = await runSwarmcast(args, opts);
  if (r.code !== 0) {
    throw new Error(`swarmcast ${args.join(' ')} exited with ${r.code} (signal ${r.signal})\n${r.stderr.slice(-2000)}`);
  }
  return r;
}
