// swarmcast snapshot decoder, protocol version 2 (see protocol/PROTOCOL.md,
// "Protocol version 2").
//
// Used by the browser client and by the Node tests; no dependencies. A v2
// frame carries one view of the world (a rectangle of tiles) either as a key
// (the whole state) or as deltas from the state the decoder already holds, in
// a bit-packed payload. Per-item data lives in typed arrays only (no per-item
// objects), so a 10,000-item delta decodes in well under 2 ms.
//
// Every frame is decoded into scratch buffers and committed only at the end:
// a frame that is rejected (WireError) leaves the decoder's state as it was.

export const WIRE2_KIND = 0x53;
export const WIRE2_VERSION = 2;
export const FRAME_HEADER_BYTES = 20;
export const SCENE_HEADER_BYTES = 12;
export const OBSTACLE_BYTES = 16;
export const TARGET_BYTES = 12;
export const CHUNK_HEADER_BYTES = 18;

export const FRAME_FLAG_PAUSED = 1;
export const FRAME_FLAG_SCENE = 2;

export const CHUNK_DETAIL_KEY = 1;
export const CHUNK_DETAIL_DELTA = 2;
export const CHUNK_LOD_KEY = 3;
export const CHUNK_LOD_DELTA = 4;

/** Positions are sent in quanta of 1/16 unit, headings in 1024 steps. */
export const POSITION_QUANTA_PER_UNIT = 16;
export const HEADING_STEPS = 1024;
/** LOD: cells per tile per axis, density and heading code ranges. */
export const LOD_CELLS_PER_TILE = 8;
export const LOD_MAX_DENSITY = 63;
export const LOD_HEADING_STEPS = 64;
export const MAX_LEVEL = 7;
/** Any count above this is malformed. */
export const MAX_COUNT = 1 << 22;
/** An ident that has not been given yet (an entry, until the frame commits). */
const NO_IDENT = 0xffffffff;
/** An ident freed at frame s is handed out again at frame s + 4 at the earliest. */
export const IDENT_QUARANTINE_FRAMES = 4;

const TWO_PI = 2 * Math.PI;
const RADIANS_PER_STEP = TWO_PI / HEADING_STEPS;
/** Bytes of zeros after the copied frame, so a 32-bit peek never leaves it. */
const PAD_BYTES = 16;

const POW2 = new Float64Array(64);
for (let i = 0; i < 64; i++) POW2[i] = 2 ** i;

/** A frame the decoder refuses; the decoder's state is unchanged. */
export class WireError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WireError';
  }
}

function fail(message) {
  throw new WireError(message);
}

// ---------------------------------------------------------------------------
// Bit reader (exported for the tests): LSB-first over a zero-padded copy of the frame. Reads past a
// payload's end see other bytes (or the padding), so every read is followed
// by a check of the position against the payload's end.

export class BitReader {
  constructor() {
    this.b = new Uint8Array(256);
    this.pos = 0; // bit position
    this.end = 0; // bit position of the payload's end
  }

  /** Copies the frame (the reader's bytes are never the caller's). */
  load(bytes) {
    if (this.b.length < bytes.length + PAD_BYTES) {
      this.b = new Uint8Array(bytes.length + PAD_BYTES + (bytes.length >> 1));
    } else {
      this.b.fill(0, bytes.length, bytes.length + PAD_BYTES);
    }
    this.b.set(bytes, 0);
  }

  /** Reads `bytes` from its start to its end (tests). */
  attach(bytes) {
    this.load(bytes);
    this.setRange(0, bytes.length);
    return this;
  }

  setRange(byteStart, byteEnd) {
    this.pos = byteStart * 8;
    this.end = byteEnd * 8;
  }

  remaining() {
    return this.end - this.pos;
  }

  /** The next 32 bits (unsigned), bit 0 = the next bit of the stream. */
  peek32() {
    const b = this.b;
    const p = this.pos;
    const i = p >>> 3;
    const off = p & 7;
    const lo = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    if (off === 0) return lo >>> 0;
    return ((lo >>> off) | (b[i + 4] << (32 - off))) >>> 0;
  }

  overrun() {
    if (this.pos > this.end) fail('payload read past its end');
  }

  /** u(n), 0 ≤ n ≤ 53 (EG needs up to 47 bits). */
  u(n) {
    if (n <= 24) {
      const v = n === 0 ? 0 : (this.peek32() & ((1 << n) - 1));
      this.pos += n;
      if (this.pos > this.end) fail('payload read past its end');
      return v;
    }
    let v = 0;
    let got = 0;
    while (got < n) {
      const t = n - got > 24 ? 24 : n - got;
      v += (this.peek32() & ((1 << t) - 1)) * POW2[got];
      this.pos += t;
      got += t;
    }
    if (this.pos > this.end) fail('payload read past its end');
    return v;
  }

  /** EG(k): an unsigned Exp-Golomb code with k low bits; values up to 2^47. */
  eg(k) {
    const w = this.peek32();
    if (w !== 0) {
      const m = 31 - Math.clz32(w & -w); // zeros before the one bit
      const n = m + k;
      if (m + 1 + n <= 32) {
        const x = n === 0 ? 0 : ((w >>> (m + 1)) & ((1 << n) - 1));
        this.pos += m + 1 + n;
        if (this.pos > this.end) fail('payload read past its end');
        return POW2[n] + x - POW2[k];
      }
    }
    return this.egSlow(k);
  }

  egSlow(k) {
    let m = 0;
    for (;;) {
      const w = this.peek32();
      if (w !== 0) {
        const z = 31 - Math.clz32(w & -w);
        m += z;
        this.pos += z + 1;
        break;
      }
      m += 32;
      this.pos += 32;
      if (m > 32 || this.pos > this.end) break;
    }
    if (m > 32) {
      if (this.pos > this.end) fail('payload read past its end');
      fail('Exp-Golomb prefix longer than 32 bits');
    }
    if (this.pos > this.end) fail('payload read past its end');
    const n = m + k;
    return POW2[n] + this.u(n) - POW2[k];
  }

  /** SE(k): a signed value, zigzag-mapped onto EG(k). */
  se(k) {
    const z = this.eg(k);
    if (z < 0x80000000) return (z >>> 1) ^ -(z & 1);
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }
}

// ---------------------------------------------------------------------------
// Item sets: the detail view's list as parallel typed arrays. Recycled through
// a small pool, never handed to the caller (the caller gets copies).

class ItemSet {
  constructor(cap) {
    this.n = 0;
    this.alloc(cap);
  }

  alloc(cap) {
    this.cap = cap;
    this.rx = new Int32Array(cap);
    this.ry = new Int32Array(cap);
    this.px = new Int32Array(cap);
    this.py = new Int32Array(cap);
    this.h = new Uint16Array(cap);
    this.f = new Uint8Array(cap);
    this.id = new Uint32Array(cap);
  }

  /** Capacity for n items, keeping the first `keep`. */
  reserve(n, keep) {
    if (n <= this.cap) return;
    const old = this;
    const { rx, ry, px, py, h, f, id } = old;
    this.alloc(Math.max(n, this.cap + (this.cap >> 1)));
    if (keep > 0) {
      this.rx.set(rx.subarray(0, keep));
      this.ry.set(ry.subarray(0, keep));
      this.px.set(px.subarray(0, keep));
      this.py.set(py.subarray(0, keep));
      this.h.set(h.subarray(0, keep));
      this.f.set(f.subarray(0, keep));
      this.id.set(id.subarray(0, keep));
    }
  }
}

/** Canonical order: (ry, rx, h, f, py, px) ascending. Returns <0, 0, >0. */
function cmpItems(s, a, b) {
  let d = s.ry[a] - s.ry[b];
  if (d !== 0) return d;
  d = s.rx[a] - s.rx[b];
  if (d !== 0) return d;
  d = s.h[a] - s.h[b];
  if (d !== 0) return d;
  d = s.f[a] - s.f[b];
  if (d !== 0) return d;
  d = s.py[a] - s.py[b];
  if (d !== 0) return d;
  return s.px[a] - s.px[b];
}

/**
 * Sorts perm[lo, hi) (indices into s) canonically. After a delta the list is
 * nearly sorted: check in O(n) first, then insertion sort, which is linear in
 * the total displacement; if that exceeds a budget (a scrambled list), a
 * merge sort finishes the job in O(n log n).
 */
function sortPerm(s, perm, lo, hi, tmp) {
  let i = lo + 1;
  while (i < hi && cmpItems(s, perm[i - 1], perm[i]) <= 0) i++;
  if (i >= hi) return;
  let budget = 16 * (hi - lo) + 64;
  for (; i < hi; i++) {
    const p = perm[i];
    let j = i - 1;
    while (j >= lo && cmpItems(s, perm[j], p) > 0) {
      perm[j + 1] = perm[j];
      j--;
      budget--;
    }
    perm[j + 1] = p;
    if (budget < 0) {
      mergeSortPerm(s, perm, lo, hi, tmp);
      return;
    }
  }
}

function mergeSortPerm(s, perm, lo, hi, tmp) {
  let src = perm;
  let dst = tmp;
  const n = hi - lo;
  for (let width = 1; width < n; width *= 2) {
    for (let a = lo; a < hi; a += 2 * width) {
      const mid = Math.min(a + width, hi);
      const end = Math.min(a + 2 * width, hi);
      let i = a;
      let j = mid;
      let k = a;
      while (i < mid && j < end) dst[k++] = cmpItems(s, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < end) dst[k++] = src[j++];
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== perm) perm.set(src.subarray(lo, hi), lo);
}

// ---------------------------------------------------------------------------

function bitLength(v) {
  // v ≥ 0, < 2^53
  if (v <= 0) return 0;
  if (v < 0x100000000) return 32 - Math.clz32(v);
  return 32 + bitLength(Math.floor(v / 0x100000000));
}

function sameRect(v, level, x0, y0, x1, y1, wq, hq) {
  return v.level === level && v.x0 === x0 && v.y0 === y0 && v.x1 === x1 && v.y1 === y1 &&
    v.wq === wq && v.hq === hq;
}

const emptyI32 = new Int32Array(0);
const emptyU16 = new Uint16Array(0);
const emptyU8 = new Uint8Array(0);
const emptyF32 = new Float32Array(0);
const emptyU32 = new Uint32Array(0);

/**
 * Decodes a connection's v2 frames, in order. `decode(frame)` returns the
 * state after the frame (see PROTOCOL.md); the returned object and its arrays
 * are never modified afterwards (a renderer may keep them to interpolate).
 */
export class Wire2Decoder {
  constructor() {
    this.state = null;
    this._r = new BitReader();
    this._scene = null;
    this._view = null; // { mode, level, x0..y1, wq, hq, qx0.., seq, set | d,a,cols,rows }
    this._pool = [];
    this._used = []; // sets taken from the pool during the current frame
    this._perm = new Uint32Array(0);
    this._perm2 = new Uint32Array(0);
    this._exits = new Uint32Array(0);
    this._rowCounts = new Uint32Array(0);
    this._freed = new Uint32Array(64); // idents left during the current frame
    this._nFreed = 0;
    // Ident allocator (committed state only; changed in _commit).
    this._frame = 0;
    this._nextIdent = 0;
    this._freeStack = new Uint32Array(64);
    this._nFree = 0;
    this._quarantine = new Uint32Array(128); // pairs (ident, frame freed)
    this._qHead = 0;
    this._qTail = 0;
  }

  /** Decodes one frame (ArrayBuffer or a typed-array view). */
  decode(frame) {
    let bytes;
    if (frame instanceof ArrayBuffer) bytes = new Uint8Array(frame);
    else if (ArrayBuffer.isView(frame)) bytes = new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength);
    else fail('a frame is an ArrayBuffer or a typed array');
    this._used.length = 0;
    this._nFreed = 0;
    try {
      return this._decode(bytes);
    } catch (e) {
      for (const s of this._used) this._pool.push(s);
      this._used.length = 0;
      if (e instanceof WireError) throw e;
      if (e instanceof RangeError) throw new WireError(`malformed frame (${e.message})`);
      throw e;
    }
  }

  _decode(bytes) {
    const len = bytes.length;
    if (len < FRAME_HEADER_BYTES) fail(`truncated frame header (${len} bytes)`);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, len);
    if (bytes[0] !== WIRE2_KIND) fail(`not a snapshot frame (kind 0x${bytes[0].toString(16)})`);
    if (bytes[1] !== WIRE2_VERSION) fail(`unsupported version ${bytes[1]}`);
    const flags = dv.getUint16(2, true);
    const seq = dv.getUint32(4, true);
    const tick = dv.getUint32(8, true);
    const population = dv.getUint32(12, true);
    const nChunks = dv.getUint16(16, true);
    let off = FRAME_HEADER_BYTES;

    let scene = this._scene;
    if (flags & FRAME_FLAG_SCENE) {
      if (len < off + SCENE_HEADER_BYTES) fail('truncated scene');
      const width = dv.getFloat32(off, true);
      const height = dv.getFloat32(off + 4, true);
      const nObs = dv.getUint16(off + 8, true);
      const nTgt = dv.getUint16(off + 10, true);
      off += SCENE_HEADER_BYTES;
      if (len < off + nObs * OBSTACLE_BYTES + nTgt * TARGET_BYTES) fail('truncated scene records');
      const obstacles = new Array(nObs);
      for (let i = 0; i < nObs; i++, off += OBSTACLE_BYTES) {
        obstacles[i] = {
          id: dv.getUint32(off, true), x: dv.getFloat32(off + 4, true),
          y: dv.getFloat32(off + 8, true), r: dv.getFloat32(off + 12, true),
        };
      }
      const targets = new Array(nTgt);
      for (let i = 0; i < nTgt; i++, off += TARGET_BYTES) {
        targets[i] = {
          clientId: dv.getUint32(off, true), x: dv.getFloat32(off + 4, true), y: dv.getFloat32(off + 8, true),
        };
      }
      scene = { width, height, obstacles, targets };
    }

    let view = this._view;
    let keyed = false;
    if (nChunks > 0) this._r.load(bytes);
    for (let c = 0; c < nChunks; c++) {
      if (len < off + CHUNK_HEADER_BYTES) fail(`truncated chunk header (chunk ${c})`);
      const type = bytes[off];
      const level = bytes[off + 1];
      const x0 = dv.getUint16(off + 2, true);
      const y0 = dv.getUint16(off + 4, true);
      const x1 = dv.getUint16(off + 6, true);
      const y1 = dv.getUint16(off + 8, true);
      const cseq = dv.getUint32(off + 10, true);
      const plen = dv.getUint32(off + 14, true);
      off += CHUNK_HEADER_BYTES;
      if (plen > len - off) fail(`truncated chunk payload (chunk ${c})`);
      if (type < CHUNK_DETAIL_KEY || type > CHUNK_LOD_DELTA) fail(`unknown chunk type ${type}`);
      if (level > MAX_LEVEL) fail(`level ${level} above ${MAX_LEVEL}`);
      const tiles = 1 << level;
      if (x0 >= x1 || y0 >= y1 || x1 > tiles || y1 > tiles) {
        fail(`bad rectangle [${x0},${x1})×[${y0},${y1}) at level ${level}`);
      }
      if (!scene) fail('a chunk before any scene');
      const wq = Math.ceil(scene.width * POSITION_QUANTA_PER_UNIT);
      const hq = Math.ceil(scene.height * POSITION_QUANTA_PER_UNIT);
      if (!(wq >= 1 && wq <= 0x7fffffff && hq >= 1 && hq <= 0x7fffffff)) {
        fail(`world size ${scene.width}×${scene.height} out of range`);
      }
      const isKey = type === CHUNK_DETAIL_KEY || type === CHUNK_LOD_KEY;
      const mode = type <= CHUNK_DETAIL_DELTA ? 'detail' : 'lod';
      if (!isKey) {
        if (!view || view.mode !== mode || !sameRect(view, level, x0, y0, x1, y1, wq, hq) ||
            view.seq !== ((cseq - 1) >>> 0)) {
          fail(`delta to seq ${cseq} does not follow the state held`);
        }
      }
      const next = {
        mode, level, x0, y0, x1, y1, wq, hq,
        qx0: Math.floor((x0 * wq) / tiles), qx1: Math.floor((x1 * wq) / tiles),
        qy0: Math.floor((y0 * hq) / tiles), qy1: Math.floor((y1 * hq) / tiles),
        seq: cseq, set: null, cols: 0, rows: 0, d: null, a: null,
      };
      this._r.setRange(off, off + plen);
      switch (type) {
        case CHUNK_DETAIL_KEY: next.set = this._detailKey(next); break;
        case CHUNK_DETAIL_DELTA: next.set = this._detailDelta(view.set, next); break;
        case CHUNK_LOD_KEY: this._lod(null, next); break;
        default: this._lod(view, next); break;
      }
      this._endOfPayload(off + plen, c);
      if (isKey) keyed = true;
      view = next;
      off += plen;
    }
    if (off !== len) fail(`${len - off} bytes after the last chunk`);
    return this._commit({ flags, seq, tick, population, scene, view, keyed, changed: nChunks > 0 });
  }

  /** The payload must end within the last byte read (padding is zero bits). */
  _endOfPayload(endByte, c) {
    const r = this._r;
    const used = (r.pos + 7) >>> 3;
    if (used !== endByte) fail(`chunk ${c}: ${endByte - used} unread payload bytes`);
    if (r.pos < r.end && r.u(r.end - r.pos) !== 0) fail(`chunk ${c}: padding bits are not zero`);
  }

  _takeSet(n) {
    const s = this._pool.length > 0 ? this._pool.pop() : new ItemSet(Math.max(n, 16));
    s.reserve(n, 0);
    s.n = 0;
    this._used.push(s);
    return s;
  }

  _checkCount(n, what, minBits) {
    if (n > MAX_COUNT) fail(`${what} ${n} above 2^22`);
    if (n * minBits > this._r.remaining()) fail(`${what} ${n} exceeds the payload`);
  }

  /** Reads n key-coded items into s at [at, at + n); px,py := rx,ry. */
  _readItems(s, at, n, v) {
    const r = this._r;
    const kGap = r.u(4);
    const kH = r.u(4);
    const w = v.qx1 - v.qx0;
    const hgt = v.qy1 - v.qy0;
    const bx = bitLength(w - 1);
    const { rx, ry, px, py, h, f, id } = s;
    let ry0 = 0;
    let h0 = 0;
    let f0 = 0;
    for (let i = at, end = at + n; i < end; i++) {
      const y = ry0 + r.eg(kGap);
      const x = r.u(bx);
      const dh = r.se(kH);
      if (y >= hgt) fail(`item row ${y} outside the view (${hgt} rows)`);
      if (x >= w) fail(`item column ${x} outside the view (${w} columns)`);
      if (dh < -512 || dh > 511) fail(`heading step ${dh} outside [-512, 511]`);
      const hh = (h0 + dh) & 1023;
      if (r.u(1) === 0) f0 = r.u(8);
      rx[i] = x; ry[i] = y; px[i] = x; py[i] = y; h[i] = hh; f[i] = f0; id[i] = NO_IDENT;
      ry0 = y;
      h0 = hh;
    }
  }

  _detailKey(v) {
    const r = this._r;
    const n = r.eg(4);
    this._checkCount(n, 'item count', 3);
    const s = this._takeSet(n);
    this._readItems(s, 0, n, v);
    s.n = n;
    return this._sorted(s, n, 0, v.qy1 - v.qy0);
  }

  _detailDelta(src, v) {
    const r = this._r;
    const N = src.n;
    const nExits = r.eg(4);
    if (nExits > N) fail(`${nExits} exits from ${N} items`);
    this._checkCount(nExits, 'exit count', 1);
    const kE = r.u(4);
    if (this._exits.length < nExits + 1) this._exits = new Uint32Array(Math.max(nExits + 1, 2 * this._exits.length));
    const exits = this._exits;
    let prev = -1;
    for (let e = 0; e < nExits; e++) {
      const idx = prev + 1 + r.eg(kE);
      if (idx >= N) fail(`exit index ${idx} out of range (${N} items)`);
      exits[e] = idx;
      prev = idx;
    }
    exits[nExits] = N; // sentinel
    const kx = r.u(4);
    const ky = r.u(4);
    const kh = r.u(4);
    const S = N - nExits;
    this._checkCount(S, 'stay count', 3);
    const s = this._takeSet(S);
    const w = v.qx1 - v.qx0;
    const hgt = v.qy1 - v.qy0;
    const { rx, ry, px, py, h, f, id } = s;
    const srx = src.rx, sry = src.ry, spx = src.px, spy = src.py, sh = src.h, sf = src.f, sid = src.id;
    let e = 0;
    let nextExit = exits[0];
    for (let i = 0, j = 0; i < N; i++) {
      if (i === nextExit) {
        const gone = sid[i];
        if (gone !== NO_IDENT) this._free(gone);
        nextExit = exits[++e];
        continue;
      }
      const x0 = srx[i];
      const y0 = sry[i];
      const x = 2 * x0 - spx[i] + r.se(kx);
      const y = 2 * y0 - spy[i] + r.se(ky);
      const dh = r.se(kh);
      if (x < 0 || x >= w || y < 0 || y >= hgt) fail(`item ${j} moved outside the view to (${x}, ${y})`);
      if (dh < -512 || dh > 511) fail(`heading step ${dh} outside [-512, 511]`);
      rx[j] = x; ry[j] = y; px[j] = x0; py[j] = y0;
      h[j] = (sh[i] + dh) & 1023;
      f[j] = sf[i];
      id[j] = sid[i];
      j++;
    }
    const nFlags = r.eg(4);
    this._checkCount(nFlags, 'flag change count', 9);
    prev = -1;
    for (let k = 0; k < nFlags; k++) {
      const idx = prev + 1 + r.eg(4);
      if (idx >= S) fail(`flag change index ${idx} out of range (${S} stays)`);
      f[idx] = r.u(8);
      prev = idx;
    }
    // The stays' order is checked after the flag changes (f is part of the key).
    const nEntries = r.eg(4);
    this._checkCount(nEntries, 'entry count', 3);
    s.reserve(S + nEntries, S);
    this._readItems(s, S, nEntries, v);
    s.n = S + nEntries;
    return this._sorted(s, S, nEntries, hgt);
  }

  /**
   * Puts s (stays [0, S), entries [S, S + E)) into canonical order: each part
   * is sorted on its own (usually already sorted), then they are merged.
   * Returns s itself when nothing moved, else a new set.
   */
  _sorted(s, S, E, rows) {
    const n = S + E;
    let inOrder = true;
    for (let i = 1; i < n; i++) {
      if (cmpItems(s, i - 1, i) > 0) { inOrder = false; break; }
    }
    if (inOrder) return s;
    if (this._perm.length < n) {
      this._perm = new Uint32Array(n + (n >> 1));
      this._perm2 = new Uint32Array(n + (n >> 1));
    }
    const perm = this._perm;
    const tmp = this._perm2;
    for (let i = 0; i < n; i++) perm[i] = i;
    this._sortPart(s, perm, 0, S, tmp, rows);
    this._sortPart(s, perm, S, n, tmp, rows);
    // Merge [0, S) and [S, n) into tmp.
    let i = 0;
    let j = S;
    let k = 0;
    while (i < S && j < n) tmp[k++] = cmpItems(s, perm[j], perm[i]) < 0 ? perm[j++] : perm[i++];
    while (i < S) tmp[k++] = perm[i++];
    while (j < n) tmp[k++] = perm[j++];
    const d = this._takeSet(n);
    for (let q = 0; q < n; q++) {
      const p = tmp[q];
      d.rx[q] = s.rx[p]; d.ry[q] = s.ry[p]; d.px[q] = s.px[p]; d.py[q] = s.py[p];
      d.h[q] = s.h[p]; d.f[q] = s.f[p]; d.id[q] = s.id[p];
    }
    d.n = n;
    return d;
  }

  /**
   * Sorts perm[lo, hi) (identity on entry). Items that moved to another row
   * jump over whole rows, which insertion sort pays for item by item: when
   * the view has not too many rows, a stable counting sort by row goes
   * first, so the insertion sort only reorders items within their rows.
   */
  _sortPart(s, perm, lo, hi, tmp, rows) {
    const n = hi - lo;
    if (n < 2) return;
    let i = lo + 1;
    while (i < hi && cmpItems(s, i - 1, i) <= 0) i++;
    if (i >= hi) return;
    if (n >= 64 && rows <= Math.max(1 << 16, 4 * n)) {
      if (this._rowCounts.length < rows + 1) this._rowCounts = new Uint32Array(rows + 1);
      const counts = this._rowCounts;
      counts.fill(0, 0, rows + 1);
      const ry = s.ry;
      for (let k = lo; k < hi; k++) counts[ry[k] + 1]++;
      for (let r = 1; r <= rows; r++) counts[r] += counts[r - 1];
      for (let k = lo; k < hi; k++) perm[lo + counts[ry[k]]++] = k;
    }
    sortPerm(s, perm, lo, hi, tmp);
  }

  _free(ident) {
    if (this._nFreed === this._freed.length) {
      const bigger = new Uint32Array(this._freed.length * 2);
      bigger.set(this._freed);
      this._freed = bigger;
    }
    this._freed[this._nFreed++] = ident;
  }

  _lod(old, v) {
    const r = this._r;
    const cols = (v.x1 - v.x0) * LOD_CELLS_PER_TILE;
    const rows = (v.y1 - v.y0) * LOD_CELLS_PER_TILE;
    const cells = cols * rows;
    const kD = r.u(4);
    const kA = r.u(4);
    if (cells > r.remaining()) fail(`${cells} LOD cells exceed the payload`);
    const d = new Uint8Array(cells);
    const a = new Uint8Array(cells);
    if (old === null) {
      let prevA = 0;
      for (let i = 0; i < cells; i++) {
        const dd = r.eg(kD);
        if (dd > LOD_MAX_DENSITY) fail(`density code ${dd} above ${LOD_MAX_DENSITY}`);
        d[i] = dd;
        if (dd > 0) {
          const da = r.se(kA);
          if (da < -32 || da > 31) fail(`LOD heading step ${da} outside [-32, 31]`);
          prevA = (prevA + da) & 63;
          a[i] = prevA;
        }
      }
    } else {
      const od = old.d;
      const oa = old.a;
      for (let i = 0; i < cells; i++) {
        const dd = od[i] + r.se(kD);
        if (dd < 0 || dd > LOD_MAX_DENSITY) fail(`density code ${dd} outside [0, ${LOD_MAX_DENSITY}]`);
        d[i] = dd;
        if (dd > 0) {
          const da = r.se(kA);
          if (da < -32 || da > 31) fail(`LOD heading step ${da} outside [-32, 31]`);
          a[i] = (oa[i] + da) & 63;
        }
      }
    }
    v.cols = cols;
    v.rows = rows;
    v.d = d;
    v.a = a;
  }

  // -------------------------------------------------------------------------
  // Commit: nothing below can fail.

  _commit({ flags, seq, tick, population, scene, view, keyed, changed }) {
    this._frame++;
    const prevState = this.state;
    const oldView = this._view;
    this._scene = scene;
    this._view = view;
    // Sets: keep the view's, recycle the others (including the old one).
    const keep = view && view.set;
    for (const s of this._used) if (s !== keep) this._pool.push(s);
    this._used.length = 0;
    if (oldView && oldView.set && oldView.set !== keep) this._pool.push(oldView.set);
    while (this._pool.length > 4) this._pool.pop();

    const state = {
      seq, tick, paused: (flags & FRAME_FLAG_PAUSED) !== 0, population, scene,
      mode: view ? view.mode : null,
      rect: null, keyed, viewSeq: view ? view.seq : null,
      count: 0, qx: emptyI32, qy: emptyI32, h: emptyU16, f: emptyU8,
      x: emptyF32, y: emptyF32, heading: emptyF32, ident: emptyU32, identLimit: 0, lod: null,
    };
    if (view) {
      const tiles = 1 << view.level;
      const sw = scene.width / tiles;
      const sh = scene.height / tiles;
      state.rect = {
        level: view.level, x0: view.x0, y0: view.y0, x1: view.x1, y1: view.y1,
        qx0: view.qx0, qy0: view.qy0, qx1: view.qx1, qy1: view.qy1,
        x: view.x0 * sw, y: view.y0 * sh, w: (view.x1 - view.x0) * sw, h: (view.y1 - view.y0) * sh,
      };
    }
    if (!changed && prevState) {
      // Only the header (and maybe the scene) changed: same items, same arrays.
      for (const k of ['count', 'qx', 'qy', 'h', 'f', 'x', 'y', 'heading', 'ident', 'identLimit', 'lod']) {
        state[k] = prevState[k];
      }
      this._releaseQuarantine();
      this.state = state;
      return state;
    }
    if (view && view.mode === 'lod') {
      this._resetIdents();
      state.lod = { cols: view.cols, rows: view.rows, d: view.d, a: view.a };
    } else if (view) {
      const s = view.set;
      if (keyed) this._resetIdents();
      else this._releaseQuarantine();
      this._assignIdents(s);
      this._quarantineFreed(keyed);
      const n = s.n;
      const qx = new Int32Array(n);
      const qy = new Int32Array(n);
      const x = new Float32Array(n);
      const y = new Float32Array(n);
      const heading = new Float32Array(n);
      const { qx0, qy0 } = view;
      const { rx, ry } = s;
      const hs = s.h;
      for (let i = 0; i < n; i++) {
        const ax = rx[i] + qx0;
        const ay = ry[i] + qy0;
        qx[i] = ax;
        qy[i] = ay;
        x[i] = ax / POSITION_QUANTA_PER_UNIT;
        y[i] = ay / POSITION_QUANTA_PER_UNIT;
        heading[i] = hs[i] * RADIANS_PER_STEP;
      }
      state.count = n;
      state.qx = qx;
      state.qy = qy;
      state.h = s.h.slice(0, n);
      state.f = s.f.slice(0, n);
      state.x = x;
      state.y = y;
      state.heading = heading;
      state.ident = s.id.slice(0, n);
      state.identLimit = this._nextIdent;
    }
    this.state = state;
    return state;
  }

  _resetIdents() {
    this._nextIdent = 0;
    this._nFree = 0;
    this._qHead = 0;
    this._qTail = 0;
  }

  /** Idents freed at least IDENT_QUARANTINE_FRAMES frames ago become free. */
  _releaseQuarantine() {
    const q = this._quarantine;
    const limit = this._frame - IDENT_QUARANTINE_FRAMES;
    while (this._qHead < this._qTail && q[2 * this._qHead + 1] <= limit) {
      if (this._nFree === this._freeStack.length) {
        const bigger = new Uint32Array(this._freeStack.length * 2);
        bigger.set(this._freeStack);
        this._freeStack = bigger;
      }
      this._freeStack[this._nFree++] = q[2 * this._qHead];
      this._qHead++;
    }
    if (this._qHead === this._qTail) {
      this._qHead = 0;
      this._qTail = 0;
    }
  }

  _assignIdents(s) {
    const id = s.id;
    for (let i = 0, n = s.n; i < n; i++) {
      if (id[i] !== NO_IDENT) continue;
      id[i] = this._nFree > 0 ? this._freeStack[--this._nFree] : this._nextIdent++;
    }
  }

  _quarantineFreed(keyed) {
    if (keyed) return; // a key starts the idents afresh
    const n = this._nFreed;
    if (n === 0) return;
    if (2 * (this._qTail + n) > this._quarantine.length) {
      // Compact, then grow if still short.
      const live = this._qTail - this._qHead;
      const need = 2 * (live + n);
      const q = need > this._quarantine.length ? new Uint32Array(Math.max(need, 2 * this._quarantine.length)) : this._quarantine;
      if (q === this._quarantine) q.copyWithin(0, 2 * this._qHead, 2 * this._qTail);
      else q.set(this._quarantine.subarray(2 * this._qHead, 2 * this._qTail));
      this._quarantine = q;
      this._qHead = 0;
      this._qTail = live;
    }
    const q = this._quarantine;
    for (let i = 0; i < n; i++) {
      q[2 * this._qTail] = this._freed[i];
      q[2 * this._qTail + 1] = this._frame;
      this._qTail++;
    }
    this._nFreed = 0;
  }
}
