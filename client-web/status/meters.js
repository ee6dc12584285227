// What the status line measures about the stream: ticks per second,
// snapshots per second, kilobits per second in, round-trip time and frames
// drawn per second. Pure (no DOM, the clock passed in), so Node tests can
// drive it.
//
// Rates are counted over a sliding window of RATE_WINDOW_MS: the events in
// the window divided by its length, so that a burst after a stall (a busy
// machine, a slow network, a page still loading while messages queue) does
// not read as a faster stream. A rate is null until the meter has watched a
// whole window (nothing is known yet), never a made-up figure.

export const RATE_WINDOW_MS = 2000;
// Round-trip samples kept (the median of them is shown).
export const RTT_SAMPLES = 9;
// A command older than this without a reply is forgotten (it never counts).
export const RTT_FORGET_MS = 10000;
// At most this many commands awaiting replies are remembered.
const RTT_PENDING_MAX = 64;

// Events in time order; rate() = events per second over the window.
export class RateMeter {
  constructor(windowMs = RATE_WINDOW_MS) {
    this.windowMs = windowMs;
    this.times = [];
    this.amounts = [];
    this.since = null; // the first event's time
  }

  add(t, amount = 1) {
    if (this.since === null) this.since = t;
    this.times.push(t);
    this.amounts.push(amount);
  }

  trim(now) {
    let drop = 0;
    while (drop < this.times.length && this.times[drop] <= now - this.windowMs) drop++;
    if (drop) {
      this.times.splice(0, drop);
      this.amounts.splice(0, drop);
    }
  }

  // Amount per second over the last window. With `perEvent` false the
  // amounts of the window are summed and divided by the window's length
  // (bytes per second); with true the events are counted (snapshots per
  // second).
  rate(now, { perEvent = true } = {}) {
    this.trim(now);
    const n = this.times.length;
    if (perEvent) {
      if (this.since === null || now - this.since < this.windowMs) return null;
      return (n * 1000) / this.windowMs;
    }
    if (n === 0) return null;
    let sum = 0;
    for (const a of this.amounts) sum += a;
    return (sum * 1000) / this.windowMs;
  }

  clear() {
    this.times.length = 0;
    this.amounts.length = 0;
    this.since = null;
  }
}

// The simulation's ticks per second, from the ticks of the snapshots seen:
// the tick advance over the window divided by its time. A reset (the tick
// going back) counts as an advance from 0; a paused world gives 0.
export class TickRateMeter {
  constructor(windowMs = RATE_WINDOW_MS) {
    this.windowMs = windowMs;
    this.samples = []; // { t, advance }
    this.lastTick = null;
    this.since = null;
  }

  add(t, tick) {
    if (!Number.isFinite(tick)) return;
    if (this.since === null) this.since = t;
    const advance = this.lastTick === null ? 0 : tick >= this.lastTick ? tick - this.lastTick : tick;
    this.lastTick = tick;
    this.samples.push({ t, advance });
  }

  rate(now) {
    let drop = 0;
    while (drop < this.samples.length && this.samples[drop].t <= now - this.windowMs) drop++;
    if (drop) this.samples.splice(0, drop);
    if (this.since === null || now - this.since < this.windowMs) return null;
    // Every advance that arrived within the window.
    let ticks = 0;
    for (const s of this.samples) ticks += s.advance;
    return (ticks * 1000) / this.windowMs;
  }

  clear() {
    this.samples.length = 0;
    this.lastTick = null;
    this.since = null;
  }
}

// Round-trip time from a command to its reply (`ack` or `error` with the
// same id). The server applies a command at the start of its next tick, so
// a sample includes up to one tick of waiting: an honest upper bound of the
// network's round trip. Shown as the median of the last RTT_SAMPLES.
export class RttMeter {
  constructor() {
    this.sentAt = new Map(); // id → time sent
    this.samples = [];
  }

  sent(id, t) {
    if (id === null || id === undefined) return;
    this.sentAt.set(id, t);
    if (this.sentAt.size > RTT_PENDING_MAX) {
      // Forget the oldest (a Map iterates in insertion order).
      this.sentAt.delete(this.sentAt.keys().next().value);
    }
  }

  replied(id, t) {
    const at = this.sentAt.get(id);
    if (at === undefined) return null;
    this.sentAt.delete(id);
    if (t - at > RTT_FORGET_MS) return null;
    const ms = Math.max(0, t - at);
    this.samples.push(ms);
    if (this.samples.length > RTT_SAMPLES) this.samples.shift();
    return ms;
  }

  median() {
    if (this.samples.length === 0) return null;
    const s = [...this.samples].sort((a, b) => a - b);
    return s[(s.length - 1) >> 1];
  }

  // A new connection: replies to the old one's commands will never come.
  reset() {
    this.sentAt.clear();
    this.samples.length = 0;
  }
}

// UTF-8 length of a string (a text message's bytes on the wire), without
// allocating.
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4; // a surrogate pair: one 4-byte character
      i++;
    } else n += 3;
  }
  return n;
}

// Every meter of one page. The wiring (main.js) feeds it; the status line
// reads figures().
export class StreamMeters {
  constructor() {
    this.ticks = new TickRateMeter();
    this.snapshots = new RateMeter();
    this.bytes = new RateMeter();
    this.frames = new RateMeter();
    this.rtt = new RttMeter();
  }

  snapshot(t, tick) {
    this.snapshots.add(t);
    this.ticks.add(t, tick);
  }

  received(t, bytes) {
    this.bytes.add(t, bytes);
  }

  frameDrawn(t) {
    this.frames.add(t);
  }

  // A new connection: what the old one measured says nothing about it.
  reconnected() {
    this.ticks.clear();
    this.snapshots.clear();
    this.bytes.clear();
    this.rtt.reset();
  }

  // { tickRate, snapshotRate, kbitIn, rttMs, fps }, each a number or null.
  figures(now) {
    const bytesPerS = this.bytes.rate(now, { perEvent: false });
    return {
      tickRate: this.ticks.rate(now),
      snapshotRate: this.snapshots.rate(now),
      kbitIn: bytesPerS === null ? null : (bytesPerS * 8) / 1000,
      rttMs: this.rtt.median(),
      fps: this.frames.rate(now),
    };
  }
}
