// Churn: 1,000 connect/disconnect cycles, 100 at once, half of them closing
// cleanly and half vanishing (TCP reset), some before their hello, while two
// bystanders watch. Measured
// from outside: the server's resident memory before and after, the
// bystanders' snapshots, /healthz "clients" afterwards and, when the server
// is built with AddressSanitizer, a clean LeakSanitizer report at exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { startServer, rssKiB, sleep, waitClients, withTimeout } from '../lib/server.mjs';
import { openViewer, describe } from '../lib/viewer.mjs';

const CYCLES = 1000;
const AT_ONCE = 100;
// The 100 simultaneous clients come from 10 loopback addresses (10 each),
// as many people would, so that the per-address limit (default 16) does not
// refuse them; --max-clients is raised above 100 for the same reason.
const ADDRESSES = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`);
// Resident memory may grow by at most this much over the 1,000 cycles
// (measured after a first wave of 100, which lets the allocator and
// libwebsockets reach their working size; the landed server grew by 0.1 MB).
// A session costs several kB (its 4 kB reassembly buffer, its outbox, lws's
// buffers and per-session data): leaking 8 kB per session, less than one
// whole session, would pass the bound. Under AddressSanitizer freed memory
// sits in quarantine, so the bound is not applied there: LeakSanitizer
// checks leaks at exit instead.
const RSS_GROWTH_BOUND_KIB = 8 * 1024;

function isSanitized(pid) {
  return /libasan|libclang_rt\.asan/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

/**
 * One cycle, four ways in turn: wait for a snapshot then close (1000) or
 * vanish (RST); close right after hello; vanish right after the handshake,
 * before hello.
 */
async function cycle(url, i) {
  const kind = i % 4;
  const v = await openViewer(url, {
    name: `churn ${i}`, localAddress: ADDRESSES[i % ADDRESSES.length], timeoutMs: 15000, waitHello: kind !== 3,
  });
  if (kind <= 1) await v.nextSnapshot(() => true, 'a snapshot', 15000);
  if (kind === 0 || kind === 2) {
    v.close();
    await withTimeout(v.closed, 15000, `churn ${i} to close`);
  } else {
    v.terminate();
  }
}

async function wave(url, first) {
  const results = await Promise.allSettled(Array.from({ length: AT_ONCE }, (_, k) => cycle(url, first + k)));
  return results.filter((r) => r.status === 'rejected').map((r) => r.reason.message);
}

test('1,000 connect/disconnect cycles, 100 at once: memory comes back, the count returns to the bystanders, no leak', { timeout: 150000 }, async () => {
  const server = await startServer({ agents: 1000, args: ['--max-clients', '128'] });
  const bystanders = [];
  let exit;
  try {
    for (const name of ['bystander 1', 'bystander 2']) bystanders.push(await openViewer(server.wsUrl, { name }));
    const rssStart = rssKiB(server.proc.pid);
    const sanitized = isSanitized(server.proc.pid);
    const warmFailures = await wave(server.wsUrl, 0);
    assert.deepEqual(warmFailures, [], 'every warm-up cycle completed');
    await waitClients(server, 2, { timeoutMs: 10000 });
    const rssBefore = rssKiB(server.proc.pid);

    const from = performance.now();
    const failures = [];
    for (let first = AT_ONCE; first < AT_ONCE + CYCLES; first += AT_ONCE) failures.push(...await wave(server.wsUrl, first));
    const to = performance.now();
    await waitClients(server, 2, { timeoutMs: 10000 });
    // the server has let every session go; give freed memory a moment
    await sleep(500);
    const rssAfter = rssKiB(server.proc.pid);
    const m = bystanders.map((b) => b.measure(from, to));

    console.log(`# churn: ${CYCLES} cycles, ${AT_ONCE} at once, in ${Math.round(to - from)} ms (${Math.round(CYCLES / ((to - from) / 1000))}/s); failures ${failures.length}`);
    console.log(`# churn: VmRSS ${rssStart} kB at start, ${rssBefore} kB after the warm-up wave, ${rssAfter} kB after ${CYCLES} cycles: ` +
      `growth ${rssAfter - rssBefore} kB (bound ${RSS_GROWTH_BOUND_KIB} kB${sanitized ? ', not applied: sanitizer build' : ''})`);
    m.forEach((x, i) => console.log(`# churn: ${bystanders[i].name}: ${describe(x)}`));

    assert.deepEqual(failures.slice(0, 5), [], `every cycle completed (${failures.length} failed)`);
    if (!sanitized) {
      assert.ok(rssAfter - rssBefore < RSS_GROWTH_BOUND_KIB,
        `resident memory grew by ${rssAfter - rssBefore} kB over ${CYCLES} cycles (bound ${RSS_GROWTH_BOUND_KIB} kB)`);
    }
    // The bystanders stay and keep being served. Their per-second figures
    // are printed but not asserted here: 100 handshakes at once are the loop
    // thread's work too, and under a sanitizer on a loaded machine a second
    // may pass without a snapshot; the per-second guarantee is checked by
    // the flood, handshake and rate-limit suites.
    for (const [i, b] of bystanders.entries()) {
      assert.equal(b.closeInfo, null, `${b.name} is still connected`);
      assert.ok(m[i].rate > 0, `${b.name} got snapshots during the churn: ${describe(m[i])}`);
      await b.nextSnapshot(() => true, `${b.name}: a snapshot after the churn`);
    }
  } finally {
    for (const b of bystanders) b.close();
    exit = await server.stop({ timeoutMs: 10000 });
  }
  const leak = /LeakSanitizer|AddressSanitizer/.test(server.output());
  console.log(`# churn: server exit ${JSON.stringify(exit)}; sanitizer report: ${leak ? 'yes' : 'none'}`);
  assert.ok(!leak, `no sanitizer report\n${server.output()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, `clean exit\n${server.output()}`);
});
