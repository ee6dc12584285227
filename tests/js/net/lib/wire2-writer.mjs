// Test-only builder of protocol v2 frames (protocol/PROTOCOL.md, "Protocol
// version 2"): a bit writer and helpers that write exactly the codes a test
// names. It is deliberately naive (one array element per bit) and is not an
// encoder: it never chooses anything, the tests do.

export class BitWriter {
  constructor() {
    this.bits = [];
  }

  /** u(n): v's n low bits, least significant first; v < 2^53. */
  u(v, n) {
    for (let i = 0; i < n; i++) this.bits.push(Math.floor(v / 2 ** i) % 2);
    return this;
  }

  /** EG(k) of v ≥ 0. */
  eg(v, k) {
    const w = v + 2 ** k;
    let b = 0;
    while (2 ** b <= w) b++; // bitlength(w)
    for (let i = 0; i < b - k - 1; i++) this.bits.push(0);
    this.bits.push(1);
    return this.u(w - 2 ** (b - 1), b - 1);
  }

  /** SE(k) of a signed s. */
  se(s, k) {
    return this.eg(s >= 0 ? 2 * s : -2 * s - 1, k);
  }

  /** Raw zero bits (for malformed streams). */
  zeros(n) {
    for (let i = 0; i < n; i++) this.bits.push(0);
    return this;
  }

  bytes() {
    const out = new Uint8Array(Math.ceil(this.bits.length / 8));
    this.bits.forEach((bit, i) => { out[i >> 3] |= bit << (i & 7); });
    return out;
  }
}

export const wrapH = (d) => ((((d + 512) % 1024) + 1024) % 1024) - 512;
export const wrapL = (d) => ((((d + 32) % 64) + 64) % 64) - 32;
export const bitLength = (v) => (v <= 0 ? 0 : Math.floor(Math.log2(v)) + 1);

/** Canonical comparison of {rx, ry, h, f, px, py} items. */
export function canonical(a, b) {
  return a.ry - b.ry || a.rx - b.rx || a.h - b.h || a.f - b.f || a.py - b.py || a.px - b.px;
}

/** Writes items as key items (in the order given). */
function writeItems(w, items, bx, kGap, kH) {
  w.u(kGap, 4).u(kH, 4);
  let prev = { ry: 0, h: 0, f: 0 };
  for (const it of items) {
    w.eg(it.ry - prev.ry, kGap);
    w.u(it.rx, bx);
    w.se(wrapH(it.h - prev.h), kH);
    if (it.f === prev.f) w.u(1, 1);
    else w.u(0, 1).u(it.f, 8);
    prev = it;
  }
}

/** A detail key payload. */
export function keyPayload(items, { bx, kGap = 2, kH = 3, count = items.length }) {
  const w = new BitWriter();
  w.eg(count, 4);
  writeItems(w, items, bx, kGap, kH);
  return w.bytes();
}

/**
 * A detail delta payload from explicit codes: exits (ascending indices into
 * the old list), residuals [ex, ey, eh] per stay, flagChanges [[stayIndex,
 * f]...] ascending, entries (items, written in the order given).
 */
export function deltaPayload({ exits = [], residuals = [], flagChanges = [], entries = [], bx,
  kE = 1, kx = 1, ky = 1, kh = 2, kGap = 2, kH = 3 }) {
  const w = new BitWriter();
  w.eg(exits.length, 4).u(kE, 4);
  exits.forEach((idx, i) => w.eg(i === 0 ? idx : idx - exits[i - 1] - 1, kE));
  w.u(kx, 4).u(ky, 4).u(kh, 4);
  for (const [ex, ey, eh] of residuals) w.se(ex, kx).se(ey, ky).se(eh, kh);
  w.eg(flagChanges.length, 4);
  flagChanges.forEach(([idx, f], i) => w.eg(i === 0 ? idx : idx - flagChanges[i - 1][0] - 1, 4).u(f, 8));
  w.eg(entries.length, 4);
  writeItems(w, entries, bx, kGap, kH);
  return w.bytes();
}

/**
 * Plans a delta from `old` (the canonical list, items {rx, ry, h, f, px, py})
 * to the stays' new values `moves` (one {rx, ry, h, f} per non-exiting item,
 * in list order) plus `entries`. Returns { payload, expect } where expect is
 * the list the decoder must then hold (canonical, with px, py).
 */
export function planDelta(old, { exits = [], moves, entries = [], bx, ...ks }) {
  const gone = new Set(exits);
  const stays = old.filter((_, i) => !gone.has(i));
  if (moves.length !== stays.length) throw new Error('one move per stay');
  const residuals = stays.map((it, j) => [
    moves[j].rx - (2 * it.rx - it.px), moves[j].ry - (2 * it.ry - it.py), wrapH(moves[j].h - it.h)]);
  const flagChanges = [];
  stays.forEach((it, j) => { if (moves[j].f !== it.f) flagChanges.push([j, moves[j].f]); });
  const sortedEntries = [...entries].sort(canonical);
  const payload = deltaPayload({ exits, residuals, flagChanges, entries: sortedEntries, bx, ...ks });
  const expect = [
    ...stays.map((it, j) => ({ ...moves[j], px: it.rx, py: it.ry })),
    ...sortedEntries.map((e) => ({ ...e, px: e.rx, py: e.ry })),
  ].sort(canonical);
  return { payload, expect };
}

/** A LOD key payload from density and heading codes (row-major arrays). */
export function lodKeyPayload(d, a, { kD = 1, kA = 2 } = {}) {
  const w = new BitWriter();
  w.u(kD, 4).u(kA, 4);
  let prevA = 0;
  for (let i = 0; i < d.length; i++) {
    w.eg(d[i], kD);
    if (d[i] > 0) {
      w.se(wrapL(a[i] - prevA), kA);
      prevA = a[i];
    }
  }
  return w.bytes();
}

/** A LOD delta payload from the old and new codes. */
export function lodDeltaPayload(oldD, oldA, d, a, { kD = 1, kA = 2 } = {}) {
  const w = new BitWriter();
  w.u(kD, 4).u(kA, 4);
  for (let i = 0; i < d.length; i++) {
    w.se(d[i] - oldD[i], kD);
    if (d[i] > 0) w.se(wrapL(a[i] - (oldD[i] > 0 ? oldA[i] : 0)), kA);
  }
  return w.bytes();
}

/** One chunk: the 18-byte header and the payload. */
export function chunk({ type, level = 0, x0 = 0, y0 = 0, x1 = 1, y1 = 1, seq, payload }) {
  const out = new Uint8Array(18 + payload.length);
  const dv = new DataView(out.buffer);
  out[0] = type;
  out[1] = level;
  dv.setUint16(2, x0, true);
  dv.setUint16(4, y0, true);
  dv.setUint16(6, x1, true);
  dv.setUint16(8, y1, true);
  dv.setUint32(10, seq, true);
  dv.setUint32(14, payload.length, true);
  out.set(payload, 18);
  return out;
}

/**
 * A whole frame. scene: { width, height, obstacles: [{id,x,y,r}], targets:
 * [{clientId,x,y}] } or null; chunks: Uint8Arrays from chunk().
 */
export function frame({ seq, tick = seq, population = 0, paused = false, scene = null, chunks = [],
  kind = 0x53, version = 2 }) {
  const sceneBytes = scene ? 12 + 16 * scene.obstacles.length + 12 * scene.targets.length : 0;
  const chunkBytes = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(20 + sceneBytes + chunkBytes);
  const dv = new DataView(out.buffer);
  out[0] = kind;
  out[1] = version;
  dv.setUint16(2, (paused ? 1 : 0) | (scene ? 2 : 0), true);
  dv.setUint32(4, seq, true);
  dv.setUint32(8, tick, true);
  dv.setUint32(12, population, true);
  dv.setUint16(16, chunks.length, true);
  let off = 20;
  if (scene) {
    dv.setFloat32(off, scene.width, true);
    dv.setFloat32(off + 4, scene.height, true);
    dv.setUint16(off + 8, scene.obstacles.length, true);
    dv.setUint16(off + 10, scene.targets.length, true);
    off += 12;
    for (const o of scene.obstacles) {
      dv.setUint32(off, o.id, true);
      dv.setFloat32(off + 4, o.x, true);
      dv.setFloat32(off + 8, o.y, true);
      dv.setFloat32(off + 12, o.r, true);
      off += 16;
    }
    for (const t of scene.targets) {
      dv.setUint32(off, t.clientId, true);
      dv.setFloat32(off + 4, t.x, true);
      dv.setFloat32(off + 8, t.y, true);
      off += 12;
    }
  }
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
