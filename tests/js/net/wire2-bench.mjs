// Micro-benchmark of the v2 decoder (client-web/net/wire2.js): median time to
// decode a detail delta of N moving items, and a key, in node. Prints figures;
// asserts nothing (not a test: timings on a shared machine are not results).
// The CPU time (user + system of this process) is printed next to the wall
// time: on a busy machine it is the closer of the two to an idle one's.
//   node tests/js/net/wire2-bench.mjs [N ...]     (default 1000 10000 100000)
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

import { Wire2Decoder } from '../../../client-web/net/wire2.js';
import { chunk, frame, keyPayload, planDelta, bitLength } from './lib/wire2-writer.mjs';
import { prng, randomItems } from './lib/wire2-model.mjs';

const FRAMES = 20;
const ROUNDS = 5;

function buildStream(n) {
  // A world of about n/4 agents per 100×100 units, so density stays sane.
  const side = Math.max(100, Math.round(Math.sqrt(n / 4) * 100 / 10));
  const scene = { width: side, height: side, obstacles: [], targets: [] };
  const wq = side * 16;
  const bx = bitLength(wq - 1);
  const rand = prng(n);
  let list = randomItems(rand, n, wq, wq);
  // Each agent has a velocity of up to ±6 quanta per snapshot that drifts a
  // little: the residual after prediction is small, rows change often.
  for (const it of list) {
    it.vx = Math.round((rand() - 0.5) * 12);
    it.vy = Math.round((rand() - 0.5) * 12);
  }
  const frames = [frame({ seq: 1, scene, chunks: [chunk({ type: 1, seq: 1, payload: keyPayload(list, { bx }) })] })];
  for (let seq = 2; seq <= FRAMES + 1; seq++) {
    const moves = list.map((it) => {
      const vx = it.vx + Math.round((rand() - 0.5) * 2);
      const vy = it.vy + Math.round((rand() - 0.5) * 2);
      return {
        rx: Math.max(0, Math.min(wq - 1, it.rx + vx)), ry: Math.max(0, Math.min(wq - 1, it.ry + vy)),
        h: (it.h + Math.round((rand() - 0.5) * 8) + 1024) % 1024, f: it.f, vx, vy,
      };
    });
    const p = planDelta(list, { moves, bx, kx: 1, ky: 1, kh: 2 });
    frames.push(frame({ seq, chunks: [chunk({ type: 2, seq, payload: p.payload })] }));
    list = p.expect;
  }
  return frames;
}

// A full collection before each timed round, so that the garbage of building
// the frames is not collected inside a decode.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const sizes = process.argv.slice(2).map(Number).filter((v) => v > 0);
for (const n of sizes.length ? sizes : [1000, 10000, 100000]) {
  const frames = buildStream(n);
  const keyTimes = [];
  const deltaTimes = [];
  const deltaCpu = [];
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    const dec = new Wire2Decoder();
    let t = performance.now();
    dec.decode(frames[0]);
    keyTimes.push(performance.now() - t);
    for (let i = 1; i < frames.length; i++) {
      const c = process.cpuUsage();
      t = performance.now();
      dec.decode(frames[i]);
      const wall = performance.now() - t;
      const cpu = process.cpuUsage(c);
      if (round > 0) { // round 0 warms the JIT
        deltaTimes.push(wall);
        deltaCpu.push((cpu.user + cpu.system) / 1000);
      }
    }
  }
  const bytes = median(frames.slice(1).map((f) => f.length));
  console.log(`${String(n).padStart(7)} items: delta ${median(deltaTimes).toFixed(3)} ms median ` +
    `(CPU ${median(deltaCpu).toFixed(3)} ms) ` +
    `(max ${Math.max(...deltaTimes).toFixed(3)}), key ${median(keyTimes.slice(1)).toFixed(3)} ms, ` +
    `delta ${(bytes / n).toFixed(2)} B/item`);
}
