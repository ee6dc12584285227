// A bystander that watches a server from a process of its own
// (bystander_child.mjs): while a test attacks a server from this process,
// with hundreds of sockets on one event loop, a viewer on the same loop
// would measure the test's own stalls too and blame them on the server.
// Its arrivals come back on a pipe, on this process's performance.now()
// clock, for measure() (viewer.mjs).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { measure } from './viewer.mjs';
import { waitUntil } from './server.mjs';

const CHILD = fileURLToPath(new URL('./bystander_child.mjs', import.meta.url));

/**
 * Starts a bystander on url (protocol 'v1': snapshots; 'v2': frames of the
 * whole 1600 x 900 world), connecting from localAddress, and resolves once
 * its first snapshot arrived. Returns { measure(from, to), closeInfo, close() }.
 */
export async function startBystander(url, { protocol = 'v1', localAddress = '127.0.0.1', timeoutMs = 20000 } = {}) {
  const child = spawn(process.execPath, [CHILD, url, protocol, localAddress], { stdio: ['ignore', 'pipe', 'inherit'] });
  const b = { arrivals: [], ready: false, error: null, closeInfo: null, exited: false };
  let rest = '';
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const [first, second] = line.split(' ');
      if (first === 'ready') b.ready = true;
      else if (first === 'error') b.error = line.slice(6);
      else if (first === 'close') b.closeInfo = { code: Number(second) };
      else b.arrivals.push({ t: Number(first) - performance.timeOrigin, tick: Number(second) });
    }
  });
  child.on('exit', () => { b.exited = true; });
  try {
    await waitUntil(() => {
      if (b.error || b.exited) throw new Error(`the bystander could not watch ${url}: ${b.error ?? 'it exited'}`);
      return b.ready && b.arrivals.length > 0;
    }, 'the bystander\'s first snapshot', { timeoutMs, intervalMs: 50 });
  } catch (e) {
    child.kill();
    throw e;
  }
  return {
    measure: (from, to, windowMs) => measure(b.arrivals, from, to, windowMs),
    get closeInfo() { return b.closeInfo; },
    close: () => new Promise((resolve) => {
      if (b.exited) return resolve();
      child.once('exit', resolve);
      child.kill();
    }),
  };
}
