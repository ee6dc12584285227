// Test helpers around the v2 frame writer: a world (scene), random canonical
// item lists, and a comparison of a decoder's state with an expected list.
import assert from 'node:assert/strict';

import { canonical } from './wire2-writer.mjs';

export const SCENE = {
  width: 100, height: 50,
  obstacles: [{ id: 5, x: 40, y: 30, r: 4 }],
  targets: [{ clientId: 3, x: 80.5, y: 45.25 }],
}; // Wq = 1600, Hq = 800

/** A small deterministic PRNG (tests must be reproducible). */
export function prng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

/** n random items inside a w × h quanta view, canonical, px,py = rx,ry. */
export function randomItems(rand, n, w, h) {
  const items = [];
  for (let i = 0; i < n; i++) {
    const rx = Math.floor(rand() * w);
    const ry = Math.floor(rand() * h);
    items.push({ rx, ry, px: rx, py: ry, h: Math.floor(rand() * 1024), f: rand() < 0.1 ? 9 : 2 });
  }
  return items.sort(canonical);
}

/** Moves every item by a small random step, clamped into the view. */
export function randomMoves(rand, items, w, h, step = 3) {
  const clamp = (v, hi) => Math.max(0, Math.min(hi - 1, v));
  return items.map((it) => ({
    rx: clamp(it.rx + Math.round((rand() - 0.5) * 2 * step), w),
    ry: clamp(it.ry + Math.round((rand() - 0.5) * 2 * step), h),
    h: (it.h + Math.round((rand() - 0.5) * 40) + 1024) % 1024,
    f: rand() < 0.01 ? (it.f ^ 1) : it.f,
  }));
}

/** Asserts that a decoded state holds exactly `items` (canonical) at qx0,qy0. */
export function assertItems(state, items, qx0 = 0, qy0 = 0, what = 'state') {
  assert.equal(state.count, items.length, `${what}: count`);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (state.qx[i] !== it.rx + qx0 || state.qy[i] !== it.ry + qy0 || state.h[i] !== it.h || state.f[i] !== it.f) {
      assert.fail(`${what}: item ${i} is (${state.qx[i]}, ${state.qy[i]}, ${state.h[i]}, ${state.f[i]}), ` +
        `expected (${it.rx + qx0}, ${it.ry + qy0}, ${it.h}, ${it.f})`);
    }
  }
}
