// The live server under load: starts the real server with many agents on
// loopback, lets WebSocket viewers read every frame for a while, and prints
// what it held — ticks per second, tick overruns (from /healthz),
// snapshots and bytes per second per viewer. A benchmark, not a test: it
// prints figures and asserts nothing about speed.
//
//   node tests/bench/live.mjs [--agents 100000] [--world 8090x8090]
//                             [--viewers 2] [--seconds 10] [--threads N]
//
// SWARMCAST_BIN picks the server binary (default build/server/swarmcast).
import WebSocket from 'ws';
import { startServer, sleep } from '../lib/server.mjs';
import { SUBPROTOCOL } from '../lib/client.mjs';

function options(argv) {
  const o = { agents: 100000, world: '8090x8090', viewers: 2, seconds: 10, threads: null };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || argv[i + 1] === undefined) {
      console.error(`usage: live.mjs [--agents N] [--world WxH] [--viewers N] [--seconds S] [--threads N]`);
      process.exit(2);
    }
    o[key] = key === 'world' ? argv[i + 1] : Number(argv[i + 1]);
  }
  return o;
}

async function health(url) {
  const r = await fetch(new URL('/healthz', url));
  return r.json();
}

function viewer(wsUrl) {
  const ws = new WebSocket(wsUrl, SUBPROTOCOL);
  const v = { ws, frames: 0, bytes: 0, counting: false };
  ws.on('message', (data, isBinary) => {
    if (isBinary && v.counting) {
      v.frames++;
      v.bytes += data.length;
    }
  });
  v.open = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return v;
}

const o = options(process.argv.slice(2));
const args = ['--world', o.world];
if (o.threads) args.push('--threads', String(o.threads));
const server = await startServer({ agents: o.agents, args, startTimeoutMs: 30000 });
try {
  const viewers = Array.from({ length: o.viewers }, () => viewer(server.wsUrl));
  await Promise.all(viewers.map((v) => v.open));
  await sleep(2000); // past the start: the first snapshots, the first sorts
  const before = await health(`http://127.0.0.1:${server.metricsPort}`);
  const t0 = performance.now();
  for (const v of viewers) v.counting = true;
  await sleep(o.seconds * 1000);
  for (const v of viewers) v.counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const after = await health(`http://127.0.0.1:${server.metricsPort}`);
  for (const v of viewers) v.ws.close();

  const ticks = after.tick - before.tick;
  console.log(`live server: ${o.agents} agents, world ${o.world}, ${o.viewers} viewer(s), ${seconds.toFixed(1)} s`);
  console.log(`  ticks/s            ${(ticks / seconds).toFixed(1)}`);
  console.log(`  tick overruns      ${after.tick_overruns - before.tick_overruns} (since start: ${after.tick_overruns})`);
  viewers.forEach((v, k) => {
    console.log(`  viewer ${k}: ${(v.frames / seconds).toFixed(1)} snapshots/s, ` +
      `${(v.bytes / seconds / 1e6).toFixed(1)} MB/s, ${v.frames ? Math.round(v.bytes / v.frames) : 0} B/snapshot`);
  });
} finally {
  await server.stop();
}
