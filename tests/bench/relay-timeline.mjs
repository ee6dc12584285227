// The timeline through a relay (docs/BENCHMARKS.md, "Timeline through
// relays"): the latency of a seek — the timeline message sent to the frame
// of that tick decoded — for a viewer of a relay and for a viewer of the
// simulation itself, alternated in one run (one seek each in turn, to the
// same tick), so that the ratio is fair on a loaded machine. Needs
// nats-server (scripts/deps.sh test).
//
//   node tests/bench/relay-timeline.mjs [--agents N] [--fill S] [--seeks K]
import { loadavg } from 'node:os';

import { startServer, sleep } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay, waitHealthy } from '../lib/nats.mjs';
import { timelineRequest } from '../lib/timeline.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const AGENTS = opt('agents', 10000);
const FILL_S = opt('fill', 30);
const SEEKS = opt('seeks', 40);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** ms from the seek sent to its tick's frame decoded; null when refused. */
async function seek(client, tick) {
  const from = client.frames.length;
  const sent = performance.now();
  const answer = await timelineRequest(client, { op: 'seek', tick }, { timeoutMs: 30000 });
  if (answer.type === 'error') return null;
  await client.waitFrame((f) => f.tick === tick, `tick ${tick}`, { from, timeoutMs: 30000 });
  return performance.now() - sent;
}

const natsBin = findNatsServer();
if (!natsBin) throw new Error('nats-server not found: install it with scripts/deps.sh test');
const nats = await startNats({ bin: natsBin });
const sim = await startServer({ agents: AGENTS, args: ['--nats', nats.url, '--max-agents', String(Math.max(AGENTS, 1000))],
  startTimeoutMs: 60000 });
const relay = await startRelay(nats.url, { args: ['--relay-name', 'bench'] });
try {
  await waitHealthy(relay, 'the relay');
  const direct = await connectV2(sim.wsUrl, { timeoutMs: 30000 });
  const viaRelay = await connectV2(relay.wsUrl, { timeoutMs: 30000 });
  await sleep(FILL_S * 1000);
  const times = { direct: [], relay: [] };
  for (let k = 0; k < SEEKS; k++) {
    const w = await timelineRequest(direct, { op: 'window' });
    const tick = w.from + Math.floor(Math.random() * (w.to - w.from));
    // A before B, then B before A: neither always goes first.
    const order = k % 2 ? [['relay', viaRelay], ['direct', direct]] : [['direct', direct], ['relay', viaRelay]];
    for (const [name, c] of order) {
      const ms = await seek(c, tick);
      if (ms !== null) times[name].push(ms);
    }
  }
  const line = (name) => `${name}: ${times[name].length} seeks, p50 ${pct(times[name], 0.5).toFixed(1)} ms, `
    + `p95 ${pct(times[name], 0.95).toFixed(1)} ms`;
  console.log(`agents ${AGENTS}, window ${FILL_S} s`);
  console.log(line('direct'));
  console.log(line('relay'));
  console.log(`relay / direct, p50: ${(pct(times.relay, 0.5) / pct(times.direct, 0.5)).toFixed(2)}`);
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const c of [direct, viaRelay]) c.close();
} finally {
  for (const p of [relay, sim]) await p.stop({ signal: 'SIGKILL' }).catch(() => {});
  await nats.stop({ signal: 'SIGKILL' });
}
