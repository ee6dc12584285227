// The relay hop's added latency: starts nats-server, the simulation with
// --nats and one relay on loopback; one process holds two v2 viewers of the
// same (default, whole-world) view, one connected to the simulation and one
// through the relay, and notes when each frame's seq (bytes 4..7 of the v2
// frame header, PROTOCOL.md) arrives on each. The relay's frame of a seq
// minus the direct one is what the hop (simulation → NATS → relay → viewer)
// adds; prints its p50 / p90 / p99 / max over the run. A benchmark, not a
// test: it prints figures and asserts nothing.
//
//   node tests/bench/relay-hop.mjs [--agents 2000] [--seconds 15] [--snapshot-hz 30]
//
// SWARMCAST_BIN picks the server binary (default build/server/swarmcast),
// NATS_SERVER the nats-server binary (default: PATH, then /usr/sbin).
import os from 'node:os';
import { startServer, httpGet, waitUntil, sleep } from '../lib/server.mjs';
import { startNats, startRelay } from '../lib/nats.mjs';
import { seqViewer as viewer, addedByHop, describeAdded } from './seq_arrivals.mjs';

function options(argv) {
  const o = { agents: 2000, seconds: 15, 'snapshot-hz': 30 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || argv[i + 1] === undefined || !Number.isFinite(Number(argv[i + 1]))) {
      console.error('usage: relay-hop.mjs [--agents N] [--seconds S] [--snapshot-hz HZ]');
      process.exit(2);
    }
    o[key] = Number(argv[i + 1]);
  }
  return o;
}

const o = options(process.argv.slice(2));
const nats = await startNats();
const sim = await startServer({
  agents: o.agents,
  args: ['--nats', nats.url, '--snapshot-hz', String(o['snapshot-hz'])],
  startTimeoutMs: 30000,
});
const relay = await startRelay(nats.url);
try {
  await waitUntil(async () => (await httpGet(relay.metricsPort, '/healthz')).status === 200, 'the relay to get frames',
    { timeoutMs: 30000, intervalMs: 200 });
  const direct = viewer(sim.wsUrl);
  const hop = viewer(relay.wsUrl);
  await Promise.all([direct.open, hop.open]);
  await sleep(2000); // both past their first key
  direct.recording = hop.recording = true;
  await sleep(o.seconds * 1000);
  direct.recording = hop.recording = false;
  const added = addedByHop(direct, hop);
  console.log(`relay hop: ${o.agents} agents, ${o['snapshot-hz']} snapshots/s, ${o.seconds} s, ` +
    `${os.cpus().length} cores (${os.loadavg()[0].toFixed(2)} load), nats-server ${nats.url}`);
  console.log(`frames: direct ${direct.at.size}, through the relay ${hop.at.size}, both ${added.length} ` +
    `(${(added.length / o.seconds).toFixed(1)}/s); bytes/s per viewer: direct ${(direct.bytes / o.seconds / 1e3).toFixed(1)} kB, ` +
    `relay ${(hop.bytes / o.seconds / 1e3).toFixed(1)} kB`);
  if (added.length === 0) {
    console.log('no seq arrived on both connections');
    process.exitCode = 1;
  } else {
    console.log(`added by the hop (relay arrival − direct arrival, same seq): ${describeAdded(added)}`);
  }
  direct.ws.close();
  hop.ws.close();
} finally {
  await relay.stop().catch(() => {});
  await sim.stop().catch(() => {});
  await nats.stop();
}
