// Dead connections: a client that never reads, one that stalls mid-frame or
// mid-message, one that goes silent, one that never answers the server's
// close frame. Each must lose its place within a stated time, while a
// well-behaved viewer (the `ws` library, which answers pings) stays connected
// for longer than every timeout. And the per-address connection limit.
//
// The server runs with short timeouts (--idle-timeout 3 --stall-timeout 3)
// to keep the test short; the defaults (30 s and 20 s) work the same way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, healthz, ownClients, sleep, waitClients, withTimeout } from '../lib/server.mjs';
import { RawSocket, encodeFrame, frameHeader, maskBytes, OP } from '../lib/raw.mjs';
import { openViewer, describe } from '../lib/viewer.mjs';

const IDLE_S = 3;
const STALL_S = 3;
// What a busy two-core machine may add to a timeout before the close is
// seen from outside: the server's timer granularity (its checks may run
// once a second), a scheduling delay, our /healthz polling (every 100 ms).
const MARGIN_S = 5;
// After its close frame the server waits this long for the client's answer
// before it cuts the connection (the misbehaving clients here never answer).
const CLOSE_HANDSHAKE_S = 2;
// A client that does not read is only stalled once the kernel buffers
// between us are full: the server's send buffer (128 KiB, PROTOCOL.md) and
// our receive window (128 KiB by default; it does not grow while nothing is
// read). 5,000 agents make 30 kB snapshots, 0.9 MB/s at 30 Hz: full within
// a second; FILL_S allows for a kernel with larger buffers.
const AGENTS = 5000;
const FILL_S = 3;

let server;
let good; // the well-behaved viewer, connected the whole time

before(async () => {
  server = await startServer({
    agents: AGENTS,
    args: ['--idle-timeout', String(IDLE_S), '--stall-timeout', String(STALL_S)],
  });
  good = await openViewer(server.wsUrl, { name: 'well-behaved viewer' });
  await good.nextSnapshot(() => true, 'a first snapshot');
});

after(async () => {
  good?.close();
  if (server) {
    const r = await server.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
  }
});

/** Seconds since `t0` (performance.now()), one decimal. */
const since = (t0) => Math.round((performance.now() - t0) / 100) / 10;

test('a client that never reads (but keeps sending pongs) is closed within stall-timeout plus the time to fill its buffers', { timeout: 60000 }, async () => {
  await waitClients(server, 1);
  const raw = await RawSocket.open(server.port);
  const t0 = performance.now();
  raw.pause();
  // Unsolicited pongs (RFC 6455 5.5.3) every half second: this client is not
  // idle, only the stall rule may close it.
  const heartbeat = setInterval(() => raw.write(encodeFrame(OP.PONG, 'alive')), 500);
  try {
    await waitClients(server, 2);
    const bound = STALL_S + FILL_S + MARGIN_S;
    await waitClients(server, 1, { timeoutMs: bound * 1000 + 2000 });
    const closedAfter = since(t0);
    clearInterval(heartbeat);
    // what the kernel still holds for us, then the end of the connection
    raw.resume();
    await raw.closedWithin(10000, 'the never-reading client\'s connection to end once it reads again');
    console.log(`# never reads: dropped from /healthz after ${closedAfter} s (stall-timeout ${STALL_S} s); ` +
      `then read ${(raw.bytes / 1e6).toFixed(1)} MB the kernel held, ${raw.counts.binary} snapshots; close frame ${JSON.stringify(raw.closeFrame)}`);
    assert.ok(closedAfter <= bound, `closed after ${closedAfter} s, bound ${bound} s`);
    assert.ok(closedAfter >= STALL_S - 1, `not before its stall-timeout: closed after ${closedAfter} s`);
    assert.equal(good.closeInfo, null, 'the well-behaved viewer is still connected');
  } finally {
    clearInterval(heartbeat);
    raw.destroy();
  }
});

/**
 * A handshaken raw client; `behave` does its misdeed. Resolves once the
 * server closed the connection with { name, raw, closeSeconds: when its close
 * frame came (or the connection ended, without one), seconds: when the
 * connection ended }.
 */
async function misbehave(name, behave, { autoPong = false, boundS }) {
  const raw = await RawSocket.open(server.port, { autoPong });
  const t0 = performance.now();
  const stop = behave(raw);
  try {
    await raw.closedWithin((boundS + CLOSE_HANDSHAKE_S) * 1000 + 2000, `${name}: the server to close the connection`);
    const seconds = since(t0);
    const closeSeconds = raw.closeFrameAt ? Math.round((raw.closeFrameAt - t0) / 100) / 10 : seconds;
    return { name, raw, closeSeconds, seconds };
  } finally {
    stop?.();
    raw.destroy();
  }
}

test('a frame cut short, a message left half-sent, a silent client and an unanswered close frame all lose their place while a well-behaved viewer stays', { timeout: 60000 }, async () => {
  await waitClients(server, 1);
  const goodFrom = performance.now();
  const results = await Promise.all([
    // announces 4000 bytes, sends 100, then nothing at all (a pong could not
    // be told apart from the rest of the payload): idle or stall rule
    misbehave('frame cut short', (raw) => {
      const key = Buffer.from([1, 2, 3, 4]);
      raw.write(Buffer.concat([frameHeader(OP.TEXT, 4000, { maskKey: key }), maskBytes(Buffer.alloc(100, 0x61), key)]));
    }, { boundS: Math.max(IDLE_S, STALL_S) + MARGIN_S }),
    // a first fragment without FIN, then only pongs to the server's pings:
    // not idle, so only the half-sent rule may close it (1008)
    misbehave('message left half-sent', (raw) => {
      raw.write(encodeFrame(OP.TEXT, '{"type":"set_target","x":1', { fin: false }));
    }, { autoPong: true, boundS: STALL_S + MARGIN_S }),
    // reads everything, sends nothing, not even a pong: the idle rule (1001)
    misbehave('silent', () => {}, { boundS: IDLE_S + MARGIN_S }),
    // invalid UTF-8 makes the server close (1007); this client reads on but
    // never answers the close frame
    misbehave('never answers the close frame', (raw) => {
      raw.write(encodeFrame(OP.TEXT, Buffer.from([0x22, 0xe2, 0x28, 0xa1, 0x22])));
    }, { boundS: STALL_S + MARGIN_S }),
  ]);
  const goodTo = performance.now();
  const m = good.measure(goodFrom, goodTo);
  for (const r of results) {
    console.log(`# ${r.name}: close frame after ${r.closeSeconds} s, connection ended after ${r.seconds} s; close frame ${JSON.stringify(r.raw.closeFrame)}; ` +
      `pings seen ${r.raw.pingsSeen}, pongs sent ${r.raw.pongsSent}; data frames after the close frame ${r.raw.dataFramesAfterClose}; ` +
      `close frames ${r.raw.closeFrames.length}`);
  }
  console.log(`# the well-behaved viewer meanwhile (${Math.round((goodTo - goodFrom) / 100) / 10} s): ${describe(m)}; closed ${JSON.stringify(good.closeInfo)}`);

  const [cut, half, silent, unanswered] = results;
  for (const r of results) {
    // (+2: the server's timers run about once a second, and this machine may be busy)
    assert.ok(r.seconds <= r.closeSeconds + CLOSE_HANDSHAKE_S + 2,
      `${r.name}: the connection ends at most ${CLOSE_HANDSHAKE_S} s (+2) after the close frame: ${r.closeSeconds} s, then ${r.seconds} s`);
  }
  assert.ok(cut.closeSeconds <= Math.max(IDLE_S, STALL_S) + MARGIN_S, `frame cut short: closed after ${cut.closeSeconds} s`);
  assert.ok(half.closeSeconds <= STALL_S + MARGIN_S, `half-sent: closed after ${half.closeSeconds} s`);
  assert.ok(half.closeSeconds >= STALL_S - 1, `half-sent: not before its stall-timeout (${half.closeSeconds} s)`);
  assert.ok(half.raw.pongsSent > 0, 'the half-sent client answered pings, so it was not idle');
  assert.equal(half.raw.closeFrame?.code, 1008, `half-sent: closed with 1008: ${JSON.stringify(half.raw.closeFrame)}`);
  assert.ok(silent.closeSeconds <= IDLE_S + MARGIN_S, `silent: closed after ${silent.closeSeconds} s`);
  assert.ok(silent.closeSeconds >= IDLE_S - 1, `silent: not before its idle-timeout (${silent.closeSeconds} s)`);
  assert.ok(silent.raw.pingsSeen > 0, 'the server pinged the silent client');
  assert.equal(silent.raw.closeFrame?.code, 1001, `silent: closed with 1001: ${JSON.stringify(silent.raw.closeFrame)}`);
  assert.equal(unanswered.raw.closeFrame?.code, 1007, 'invalid UTF-8: close frame 1007');
  assert.ok(unanswered.closeSeconds <= 2, `invalid UTF-8 is answered at once with its close frame (${unanswered.closeSeconds} s)`);
  for (const r of results) {
    assert.equal(r.raw.dataFramesAfterClose, 0, `${r.name}: no data frame after the server's close frame (RFC 6455 5.5.1)`);
    assert.ok(r.raw.closeFrames.length <= 1, `${r.name}: one close frame at most: ${JSON.stringify(r.raw.closeFrames)}`);
  }

  // the well-behaved viewer outlived every timeout and kept its snapshots
  assert.equal(good.closeInfo, null, 'the well-behaved viewer is still connected');
  assert.ok(goodTo - goodFrom > Math.max(IDLE_S, STALL_S) * 1000, 'the viewer was watched for longer than both timeouts');
  assert.ok(m.minSnapshots > 0, `the well-behaved viewer got snapshots every second: ${describe(m)}`);
  await waitClients(server, 1);
});

test('the well-behaved viewer, which only answers pings, is still connected after more than twice both timeouts', { timeout: 30000 }, async () => {
  const connectedFor = (performance.now() - good.arrivals[0].t) / 1000;
  if (connectedFor < 2 * Math.max(IDLE_S, STALL_S)) await sleep((2 * Math.max(IDLE_S, STALL_S) - connectedFor) * 1000 + 500);
  assert.equal(good.closeInfo, null, 'still connected');
  await good.nextSnapshot(() => true, 'a snapshot');
  const sent = good.texts.filter((m) => m.type === 'ack' || m.type === 'error').length;
  assert.equal(sent, 0, 'it never sent a command (only pongs kept it alive)');
  console.log(`# well-behaved viewer: connected ${Math.round((performance.now() - good.arrivals[0].t) / 100) / 10} s, ${good.arrivals.length} snapshots, still open`);
});

test('--max-per-address 3: the 4th connection from 127.0.0.1 is closed with 1013, the first three stay, another address is served', { timeout: 30000 }, async () => {
  const small = await startServer({ agents: 50, args: ['--max-per-address', '3'] });
  const viewers = [];
  try {
    for (let i = 0; i < 3; i++) viewers.push(await openViewer(small.wsUrl, { name: `127.0.0.1 #${i + 1}` }));
    const fourth = await openViewer(small.wsUrl, { name: '127.0.0.1 #4', waitHello: false });
    viewers.push(fourth);
    const code = (await withTimeout(fourth.closed, 5000, 'the 4th connection to be closed')).code;
    assert.equal(code, 1013);
    assert.equal(fourth.hello, null, 'the 4th got no hello');
    for (const v of viewers.slice(0, 3)) {
      await v.nextSnapshot(() => true, `${v.name}: a snapshot after the 4th was refused`);
      assert.equal(v.closeInfo, null, `${v.name} stays`);
    }
    const other = await openViewer(small.wsUrl, { name: '127.0.0.2 #1', localAddress: '127.0.0.2' });
    viewers.push(other);
    await other.nextSnapshot(() => true, 'a snapshot for a client from another address');
    viewers[0].close();
    await viewers[0].closed;
    await waitClients(small, 3);
    const again = await openViewer(small.wsUrl, { name: '127.0.0.1 #5' });
    viewers.push(again);
    await again.nextSnapshot(() => true, 'a snapshot for the one that took the freed place');
    const h = await healthz(small);
    console.log(`# --max-per-address 3: the 4th from 127.0.0.1 closed with ${code}; 127.0.0.2 served; after one left a new one was served; /healthz clients ${ownClients(small, h.body)}`);
    assert.equal(ownClients(small, h.body), 4);
  } finally {
    for (const v of viewers) v.close();
    await small.stop();
  }
});
