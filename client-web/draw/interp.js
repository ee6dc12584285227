// Interpolation between snapshots, so motion is smooth at the display's
// rate although snapshots come ~30 times a second.
//
// Frames are buffered with their arrival time; the picture shows the world
// as it was `delay` ms ago (about three snapshot intervals), between the two
// buffered frames around that moment. Items are matched by `ident` (frames.js);
// an item without a partner in the older frame (new in view), a keyed frame
// (identities reset) or a jump of more than half the world (wrap-around) is
// drawn where it is, not slid. Headings turn along the short arc.
//
// sample() reports `changed: false` when the result is the one it returned
// last time (the buffer has played out and nothing new came): the render
// loop then has nothing to redraw for the agents.

const SLOTS = 8; // frames kept: three intervals of delay need four, the rest is slack
export const DELAY_INTERVALS = 3;
const DEFAULT_INTERVAL_MS = 1000 / 30;
const MIN_INTERVAL_MS = 8;
const MAX_INTERVAL_MS = 250;
const TWO_PI = 2 * Math.PI;

function grow(arr, n, Type) {
  return arr.length >= n ? arr : new Type(Math.max(n, arr.length * 2, 64));
}

function newSlot() {
  return {
    t: 0, tick: 0, keyed: true, mode: null, view: '', count: 0, width: 0, height: 0,
    x: new Float32Array(0), y: new Float32Array(0), heading: new Float32Array(0),
    f: new Uint8Array(0), ident: new Uint32Array(0),
  };
}

export class Interpolator {
  constructor() {
    this.slots = [];
    this.interval = DEFAULT_INTERVAL_MS;
    this.lastArrival = -1;
    // ident → index in the older frame during a sample (−1: none).
    this.indexOf = new Int32Array(0).fill(-1);
    this.out = { count: 0, x: new Float32Array(0), y: new Float32Array(0), heading: new Float32Array(0), f: new Uint8Array(0), mode: null };
    this.key = ''; // what the last sample was made of: skips repeating it
  }

  get delay() {
    return DELAY_INTERVALS * this.interval;
  }

  clear() {
    this.slots.length = 0;
    this.lastArrival = -1;
    this.key = '';
  }

  // A frame arrived at time t (ms). Frames that change nothing about the
  // agents (paused: the same tick of the same view, so the same items, even
  // when re-sent as a key) are not buffered, so a paused world settles and
  // stays still.
  push(frame, t) {
    const newest = this.slots[this.slots.length - 1];
    const view = frame.rect ? `${frame.rect.x},${frame.rect.y},${frame.rect.w},${frame.rect.h}` : '';
    if (newest && frame.paused && frame.tick === newest.tick && frame.count === newest.count &&
        frame.mode === newest.mode && view === newest.view) return false;
    if (this.lastArrival >= 0 && !frame.paused) {
      const gap = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, t - this.lastArrival));
      // Slow average: one late frame must not stretch the delay for long.
      this.interval += (gap - this.interval) * 0.1;
    }
    this.lastArrival = t;
    const slot = this.slots.length >= SLOTS ? this.slots.shift() : newSlot();
    const n = frame.count;
    slot.t = t;
    slot.tick = frame.tick;
    slot.keyed = frame.keyed;
    slot.mode = frame.mode;
    slot.view = view;
    slot.count = n;
    slot.width = frame.width;
    slot.height = frame.height;
    slot.x = grow(slot.x, n, Float32Array);
    slot.y = grow(slot.y, n, Float32Array);
    slot.heading = grow(slot.heading, n, Float32Array);
    slot.f = grow(slot.f, n, Uint8Array);
    slot.ident = grow(slot.ident, n, Uint32Array);
    if (n > 0) {
      slot.x.set(frame.x.subarray(0, n));
      slot.y.set(frame.y.subarray(0, n));
      slot.heading.set(frame.heading.subarray(0, n));
      slot.f.set(frame.f.subarray(0, n));
      slot.ident.set(frame.ident.subarray(0, n));
    }
    this.slots.push(slot);
    return true;
  }

  // True while sample(now) would differ from the last one returned.
  moving(now) {
    return this.keyOf(now) !== this.key;
  }

  pick(now) {
    const s = this.slots;
    const rt = now - this.delay;
    if (s.length === 0) return null;
    let b = s.length - 1;
    if (rt >= s[b].t) return { a: s[b], b: s[b], alpha: 1, ib: b };
    while (b > 0 && s[b - 1].t > rt) b--;
    if (b === 0) return { a: s[0], b: s[0], alpha: 1, ib: 0 };
    const a = s[b - 1];
    const alpha = (rt - a.t) / Math.max(1e-6, s[b].t - a.t);
    return { a, b: s[b], alpha, ib: b };
  }

  keyOf(now) {
    const p = this.pick(now);
    if (!p) return 'empty';
    return p.alpha >= 1 || p.a === p.b ? `${p.b.t}:${p.b.tick}` : `${p.a.t}>${p.b.t}@${p.alpha}`;
  }

  // The agents to draw at time now: { count, x, y, heading, f, mode,
  // changed }. The arrays are reused: copy them to keep them.
  sample(now) {
    const key = this.keyOf(now);
    const out = this.out;
    if (key === this.key) {
      out.changed = false;
      return out;
    }
    this.key = key;
    out.changed = true;
    const p = this.pick(now);
    if (!p) {
      out.count = 0;
      out.mode = null;
      return out;
    }
    const { a, b } = p;
    const n = b.count;
    out.count = n;
    out.mode = b.mode;
    out.x = grow(out.x, n, Float32Array);
    out.y = grow(out.y, n, Float32Array);
    out.heading = grow(out.heading, n, Float32Array);
    out.f = grow(out.f, n, Uint8Array);
    if (n === 0) return out;
    out.f.set(b.f.subarray(0, n));
    const still = a === b || p.alpha >= 1 || b.keyed || a.mode !== b.mode || a.width !== b.width;
    if (still) {
      out.x.set(b.x.subarray(0, n));
      out.y.set(b.y.subarray(0, n));
      out.heading.set(b.heading.subarray(0, n));
      return out;
    }
    this.lerp(a, b, Math.max(0, p.alpha), out);
    return out;
  }

  lerp(a, b, t, out) {
    let maxIdent = 0;
    for (let j = 0; j < a.count; j++) if (a.ident[j] > maxIdent) maxIdent = a.ident[j];
    for (let i = 0; i < b.count; i++) if (b.ident[i] > maxIdent) maxIdent = b.ident[i];
    if (this.indexOf.length <= maxIdent) {
      this.indexOf = new Int32Array(Math.max(maxIdent + 1, this.indexOf.length * 2));
      this.indexOf.fill(-1);
    }
    const idx = this.indexOf;
    for (let j = 0; j < a.count; j++) idx[a.ident[j]] = j;
    const halfW = b.width / 2;
    const halfH = b.height / 2;
    const { x, y, heading } = out;
    for (let i = 0; i < b.count; i++) {
      const j = idx[b.ident[i]];
      const bx = b.x[i];
      const by = b.y[i];
      const bh = b.heading[i];
      if (j < 0) {
        x[i] = bx;
        y[i] = by;
        heading[i] = bh;
        continue;
      }
      const dx = bx - a.x[j];
      const dy = by - a.y[j];
      if (dx > halfW || dx < -halfW || dy > halfH || dy < -halfH) {
        // Wrapped round the world (or respawned): no slide across the picture.
        x[i] = bx;
        y[i] = by;
        heading[i] = bh;
        continue;
      }
      x[i] = a.x[j] + dx * t;
      y[i] = a.y[j] + dy * t;
      let dh = bh - a.heading[j];
      if (dh > Math.PI) dh -= TWO_PI;
      else if (dh < -Math.PI) dh += TWO_PI;
      heading[i] = a.heading[j] + dh * t;
    }
    for (let j = 0; j < a.count; j++) idx[a.ident[j]] = -1;
  }
}
