// The timeline's costs (docs/BENCHMARKS.md, "Timeline"): the memory of the
// kept past per minute of window, and the latency of a seek — from the
// timeline message sent to the frame of that tick decoded — at ticks drawn
// across the whole window, with the live tick rate meanwhile.
//
//   node tests/bench/timeline.mjs [--agents N] [--fill S] [--seeks K] [--scrubbers M] [--watchers W]
//                                 [--keyframe-seconds S] [--history-minutes M] [--history-mb MB]
//                                 [--world WxH] [--same-session]
//                                 [--fanout V [--fanout-seconds S]] [--share-back S --viewers V]
//
// --fanout V: instead of timed seeks, the scrubbers seek continuously while
// V more viewers watch live through swarmcast-fanout (C, one thread, frames
// read and not decoded); then the same V alone, without scrubbing (A, then
// B, in one run). --share-back S --viewers V: V live viewers (header-only
// readers, here), then the first scrubber, an operator, seeks S seconds
// back and shares it: the time until every viewer has a frame of that tick,
// and the server's CPU while they watch it against while they watched live.
//
// --fill: seconds to let the window fill before seeking (600: a full
// 10-minute window). --scrubbers: viewers seeking at once (each its own
// seat); --watchers: live viewers beside them, whose frame rate is reported.
import { startServer, httpGet, sleep } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { uptime, loadavg } from 'node:os';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { repoRoot } from '../lib/server.mjs';

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
const FANOUT = opt('fanout', 0);
const FANOUT_S = opt('fanout-seconds', 15);
const SHARE_BACK_S = opt('share-back', 0);
const VIEWERS = opt('viewers', 0);
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
    '--timeline-seats', String(Math.max(SCRUBBERS, 1)), '--max-clients', String(SCRUBBERS + WATCHERS + FANOUT + VIEWERS + 8),
    '--max-per-address', String(SCRUBBERS + WATCHERS + FANOUT + VIEWERS + 8), '--connect-rate', '100000', '--connect-burst', '100000',
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
  if (FANOUT > 0) {
    await beside(server, scrubbers);
    for (const c of [...watchers, ...scrubbers]) c.close();
  } else if (SHARE_BACK_S > 0) {
    await share(server, scrubbers[0]);
    for (const c of [...watchers, ...scrubbers]) c.close();
  } else {
    await seeks(server, watchers, scrubbers);
  }
} finally {
  await server.stop();
}

/** Seeks back to back by each scrubber until stop() says so; their count. */
async function scrubUntil(scrubbers, stopped) {
  let n = 0;
  await Promise.all(scrubbers.map(async (s) => {
    while (!stopped()) {
      const mark = s.mark();
      const asked = s.send({ type: 'timeline', op: 'window' });
      const w = await s.waitText((m) => m.type === 'timeline' && m.id === asked.id, 'window', { after: mark });
      const tick = w.from + Math.floor(Math.random() * (w.to - w.from));
      const from = s.frames.length;
      const m2 = s.mark();
      const msg = s.send({ type: 'timeline', op: 'seek', tick });
      const answer = await s.waitText((m) => (m.type === 'timeline' || m.type === 'error') && m.id === msg.id, 'answer', { after: m2 });
      if (answer.type === 'error') continue;
      await s.waitFrame((f) => f.tick === tick, `tick ${tick}`, { from, timeoutMs: 30000 });
      n++;
    }
  }));
  return n;
}

/** swarmcast-fanout's row for V viewers over FANOUT_S seconds. */
function fanoutRow(server) {
  const bin = path.join(repoRoot, 'build/tests/bench/swarmcast-fanout');
  if (!existsSync(bin)) throw new Error(`${bin} not built`);
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['--port', String(server.port), '--pid', String(server.proc.pid), '--counts', String(FANOUT),
      '--seconds', String(FANOUT_S), '--warmup', '3', '--protocol', 'swarmcast.v2', '--metrics-port', String(server.metricsPort)]);
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => process.stderr.write(d));
    p.on('exit', (code) => {
      const row = out.split('\n').find((l) => /^\|\s+\d+ \|/.test(l));
      if (code !== 0 || !row) reject(new Error(`swarmcast-fanout: exit ${code}\n${out}`));
      const c = row.split('|').map((x) => x.trim());
      resolve({ viewers: +c[1], open: +c[2], median: +c[3], p10: +c[4], cpu: c[8], tickHz: +c[10], overruns: +c[11], row });
    });
  });
}

/** Four scrubbers (or --scrubbers) seeking continuously beside FANOUT live viewers; then the viewers alone. */
async function beside(server, scrubbers) {
  let done = false;
  const before = await metrics(server);
  const scrubbing = scrubUntil(scrubbers, () => done);
  const withScrub = await fanoutRow(server);
  done = true;
  const n = await scrubbing;
  const after = await metrics(server);
  const alone = await fanoutRow(server);
  const served = after.requests - before.requests;
  const mean = (after.phase.wait + after.phase.restore + after.phase.steps + after.phase.encode
    - before.phase.wait - before.phase.restore - before.phase.steps - before.phase.encode) / Math.max(served, 1) * 1000;
  console.log(`${FANOUT} live viewers (swarmcast-fanout, raw reader) beside ${scrubbers.length} scrubbers seeking back to back `
    + `(${n} seeks, ${mean.toFixed(0)} ms of server work each): live ${withScrub.tickHz} ticks/s, ${withScrub.overruns} overruns; `
    + `viewers' snapshots/s median ${withScrub.median}, p10 ${withScrub.p10}; server CPU ${withScrub.cpu}`);
  console.log(`the same ${FANOUT} viewers without scrubbing: live ${alone.tickHz} ticks/s, ${alone.overruns} overruns; `
    + `snapshots/s median ${alone.median}, p10 ${alone.p10}; server CPU ${alone.cpu}`);
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

/** The server's CPU (user + system seconds) from /proc. */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** VIEWERS viewers that read each frame's header (seq, tick) only. */
async function headerViewers(url, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(url, 'swarmcast.v2');
    const v = { ws, frames: 0, wanted: null, reachedAt: null };
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      v.frames++;
      if (v.wanted !== null && v.reachedAt === null && data.readUInt32LE(8) === v.wanted) v.reachedAt = performance.now();
    });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    out.push(v);
  }
  return out;
}

/** An operator takes VIEWERS viewers SHARE_BACK_S seconds back. */
async function share(server, op) {
  const viewers = await headerViewers(server.wsUrl, VIEWERS);
  await sleep(3000);
  const pid = server.proc.pid;
  const framesNow = () => viewers.reduce((a, v) => a + v.frames, 0);
  let c0 = cpuSeconds(pid);
  let t0 = performance.now();
  const f0 = framesNow();
  await sleep(10000);
  const liveSeconds = (performance.now() - t0) / 1000;
  const liveCpu = (cpuSeconds(pid) - c0) / liveSeconds;
  const liveRate = (framesNow() - f0) / VIEWERS / liveSeconds;
  const mark = op.mark();
  const asked = op.send({ type: 'timeline', op: 'window' });
  const w = await op.waitText((m) => m.type === 'timeline' && m.id === asked.id, 'window', { after: mark });
  const tick = Math.max(w.from, w.to - Math.round(SHARE_BACK_S * 60));
  const from = op.frames.length;
  const m1 = op.mark();
  const sent = op.send({ type: 'timeline', op: 'seek', tick });
  await op.waitText((m) => m.type === 'timeline' && m.id === sent.id, 'seek', { after: m1 });
  await op.waitFrame((f) => f.tick === tick, `the operator at ${tick}`, { from, timeoutMs: 30000 });
  for (const v of viewers) v.wanted = tick;
  const began = performance.now();
  const m2 = op.mark();
  const shared = op.send({ type: 'timeline', op: 'share' });
  const answer = await op.waitText((m) => (m.type === 'timeline' || m.type === 'error') && m.id === shared.id, 'share', { after: m2 });
  if (answer.type === 'error') throw new Error(JSON.stringify(answer));
  const deadline = began + 60000;
  while (viewers.some((v) => v.reachedAt === null) && performance.now() < deadline) await sleep(5);
  const reached = viewers.filter((v) => v.reachedAt !== null).map((v) => v.reachedAt - began).sort((a, b) => a - b);
  c0 = cpuSeconds(pid);
  t0 = performance.now();
  await sleep(10000);
  const shareCpu = (cpuSeconds(pid) - c0) / ((performance.now() - t0) / 1000);
  const back = (w.to - tick) / 60;
  console.log(`an operator shares tick ${tick} (${back.toFixed(0)} s back in a window of ${((w.to - w.from) / 60).toFixed(0)} s) `
    + `with ${VIEWERS} live viewers: ${reached.length} showed it; the first after ${reached[0]?.toFixed(0)} ms, half after `
    + `${pct(reached, 0.5)?.toFixed(0)} ms, every one after ${reached.at(-1)?.toFixed(0)} ms`);
  console.log(`server CPU (100% = one core): ${(liveCpu * 100).toFixed(0)}% while they watched live `
    + `(${liveRate.toFixed(1)} frames/s each), ${(shareCpu * 100).toFixed(0)}% while they watch the shared moment`);
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const v of viewers) v.ws.close();
}

async function seeks(server, watchers, scrubbers) {
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
}
