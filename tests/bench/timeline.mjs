// The timeline's costs (docs/BENCHMARKS.md, "Timeline"): the memory of the
// kept past per minute of window, and the latency of a seek — from the
// timeline message sent to the frame of that tick decoded — at ticks drawn
// across the whole window, with the live tick rate meanwhile.
//
//   node tests/bench/timeline.mjs [--agents N] [--fill S] [--seeks K] [--scrubbers M] [--watchers W]
//                                 [--keyframe-seconds S] [--history-minutes M] [--history-mb MB]
//
// --fill: seconds to let the window fill before seeking (600: a full
// 10-minute window). --scrubbers: viewers seeking at once (each its own
// seat); --watchers: live viewers beside them, whose frame rate is reported.
import { startServer, httpGet, sleep } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { uptime, loadavg } from 'node:os';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const AGENTS = opt('agents', 10000);
const FILL_S = opt('fill', 60);
const SEEKS = opt('seeks', 100);
const SCRUBBERS = opt('scrubbers', 1);
const WATCHERS = opt('watchers', 1);
const KEYFRAME_S = opt('keyframe-seconds', 0.5);
const HISTORY_MIN = opt('history-minutes', 10);
const HISTORY_MB = opt('history-mb', 256);
// The server in a session of its own (as a service runs), so that the
// kernel's autogroup scheduling shares the cores between it and this
// harness rather than letting the harness's decoding outweigh the seats'
// niced threads; --same-session measures the old way.
const OWN_SESSION = !process.argv.includes('--same-session');
const WORLD = (() => { const i = process.argv.indexOf('--world'); return i > 0 ? process.argv[i + 1] : null; })();

async function metrics(server) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const get = (name) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(body)?.[1]);
  return {
    bytes: get('swarmcast_timeline_bytes'), keyframes: get('swarmcast_timeline_keyframes'),
    window: get('swarmcast_timeline_window_ticks'), ticks: get('swarmcast_ticks_total'),
    overruns: get('swarmcast_tick_overruns_total'), rebuildMax: get('swarmcast_timeline_rebuild_seconds_max'),
    requests: get('swarmcast_timeline_requests_total'), steps: get('swarmcast_timeline_steps_total'),
    phase: Object.fromEntries(['wait', 'restore', 'steps', 'encode'].map((p) => [p,
      Number(new RegExp(`^swarmcast_timeline_seconds_total\\{phase="${p}"\\} ([0-9.e+-]+)$`, 'm').exec(body)?.[1])])),
  };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

const server = await startServer({
  agents: AGENTS,
  args: ['--max-agents', String(Math.max(AGENTS, 1000)), '--history-minutes', String(HISTORY_MIN),
    '--history-mb', String(HISTORY_MB), '--keyframe-seconds', String(KEYFRAME_S),
    '--timeline-seats', String(Math.max(SCRUBBERS, 1)), '--max-clients', String(SCRUBBERS + WATCHERS + 8),
    ...(WORLD ? ['--world', WORLD] : [])],
  startTimeoutMs: 60000, ownSession: OWN_SESSION,
});
try {
  const watchers = [];
  for (let i = 0; i < WATCHERS; i++) watchers.push(await connectV2(server.wsUrl, { timeoutMs: 30000 }));
  const scrubbers = [];
  for (let i = 0; i < SCRUBBERS; i++) scrubbers.push(await connectV2(server.wsUrl, { timeoutMs: 30000 }));
  const t0 = Date.now();
  while (Date.now() - t0 < FILL_S * 1000) {
    await sleep(Math.min(30000, FILL_S * 1000 - (Date.now() - t0)));
    const m = await metrics(server);
    console.log(`fill ${((Date.now() - t0) / 1000).toFixed(0)} s: window ${m.window} ticks, ${m.keyframes} keyframes, `
      + `${(m.bytes / 1048576).toFixed(1)} MiB (${(m.bytes / 1048576 / Math.max(m.window / 3600, 1e-9)).toFixed(2)} MiB per minute of window)`);
  }
  const before = await metrics(server);
  const watchedBefore = watchers.map((w) => w.frames.length);
  const started = Date.now();
  const latencies = [];
  // Each scrubber seeks SEEKS times, one after the other, to ticks drawn
  // uniformly over the window (told by the server's answer).
  await Promise.all(scrubbers.map(async (s) => {
    let window = null;
    for (let k = 0; k < SEEKS; k++) {
      if (!window) {
        const mark = s.mark();
        const msg = s.send({ type: 'timeline', op: 'window' });
        window = await s.waitText((m) => m.type === 'timeline' && m.id === msg.id, 'window', { after: mark });
      }
      const tick = window.from + Math.floor(Math.random() * (window.to - window.from));
      const from = s.frames.length;
      const sent = performance.now();
      const mark = s.mark();
      const msg = s.send({ type: 'timeline', op: 'seek', tick });
      const answer = await s.waitText((m) => (m.type === 'timeline' || m.type === 'error') && m.id === msg.id, 'answer', { after: mark });
      if (answer.type === 'error') { window = null; continue; }
      await s.waitFrame((f) => f.tick === tick, `tick ${tick}`, { from, timeoutMs: 30000 });
      latencies.push(performance.now() - sent);
      window.to = answer.to, window.from = answer.from;
    }
  }));
  const seconds = (Date.now() - started) / 1000;
  const after = await metrics(server);
  const watchedRates = watchers.map((w, i) => (w.frames.length - watchedBefore[i]) / seconds);
  console.log(`agents ${AGENTS}, keyframe every ${KEYFRAME_S} s, window ${after.window} ticks (${(after.window / 3600).toFixed(2)} min), `
    + `${(after.bytes / 1048576).toFixed(1)} MiB kept, ${(after.bytes / 1048576 / Math.max(after.window / 3600, 1e-9)).toFixed(2)} MiB per minute`);
  console.log(`seeks: ${latencies.length} by ${SCRUBBERS} scrubber(s): p50 ${pct(latencies, 0.5).toFixed(1)} ms, `
    + `p95 ${pct(latencies, 0.95).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; longest rebuild ${(after.rebuildMax * 1000).toFixed(1)} ms`);
  const served = after.requests - before.requests;
  const per = (p) => ((after.phase[p] - before.phase[p]) / Math.max(served, 1) * 1000).toFixed(1);
  console.log(`where a seek's time went on the server (mean of ${served} requests): wait for the seat's thread ${per('wait')} ms, `
    + `restore ${per('restore')} ms, ${((after.steps - before.steps) / Math.max(served, 1)).toFixed(1)} steps ${per('steps')} ms, `
    + `encode ${per('encode')} ms; the rest of the mean ${(latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(1)} ms `
    + `is the hand-over to the loop, the network and this client's decoding`);
  console.log(`server in ${OWN_SESSION ? 'its own session' : "this harness's session"}`);
  console.log(`live: ${((after.ticks - before.ticks) / seconds).toFixed(1)} ticks/s, ${after.overruns - before.overruns} overruns; `
    + `watchers' snapshots/s min ${Math.min(...watchedRates).toFixed(1)}, median ${pct(watchedRates, 0.5).toFixed(1)}`);
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, machine up ${(uptime() / 3600).toFixed(1)} h`);
  for (const c of [...watchers, ...scrubbers]) c.close();
} finally {
  await server.stop();
}
