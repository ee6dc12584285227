// A low-overhead bystander: a real WebSocket viewer (the `ws` library, which
// answers pings) that reads every message but decodes of a snapshot only its
// header (tick, flags, counts), so it can watch a world of any size and keep
// a log of when each snapshot arrived. The tests measure from that log what a
// person watching would have seen: snapshots per second, tick advance per
// second, the longest gap, and the control panel (the newest value of every
// parameter, from hello and the `param` broadcasts).
import WebSocket from 'ws';
import { withTimeout } from './server.mjs';
import { SUBPROTOCOL } from './client.mjs';

export class Viewer {
  constructor(ws, { name = 'viewer' } = {}) {
    this.ws = ws;
    this.name = name;
    this.hello = null;
    this.texts = [];       // every JSON text message (hello, param, metrics, ack, error)
    this.arrivals = [];    // { t: performance.now(), tick, paused, agents, obstacles, targets, bytes }
    this.panel = new Map(); // parameter name -> newest value seen (hello, then param messages)
    this.closeInfo = null;
    this.errors = [];
    this.waiters = new Set();
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString(), at: performance.now() };
        this.notify();
        resolve(this.closeInfo);
      });
    });
    ws.on('error', (e) => { this.errors.push(e); this.notify(); });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const b = data;
        if (b.length >= 24 && b[0] === 0x53) {
          this.arrivals.push({
            t: performance.now(),
            tick: b.readUInt32LE(4),
            paused: (b.readUInt16LE(2) & 1) === 1,
            agents: b.readUInt32LE(16),
            obstacles: b.readUInt16LE(20),
            targets: b.readUInt16LE(22),
            bytes: b.length,
          });
        }
      } else {
        let m;
        try { m = JSON.parse(data.toString('utf8')); } catch { m = null; }
        if (m) {
          this.texts.push(m);
          if (m.type === 'hello') {
            this.hello = m;
            for (const p of m.params ?? []) this.panel.set(p.name, p.value);
          } else if (m.type === 'param' && m.species === undefined) {
            this.panel.set(m.name, m.value);
          }
        }
      }
      this.notify();
    });
  }

  notify() {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with check()'s first truthy value, checked now and after every
   * message; rejects after timeoutMs (a number, or { timeoutMs } as for Client).
   */
  waitFor(check, what, opts = 5000) {
    const timeoutMs = typeof opts === 'number' ? opts : (opts.timeoutMs ?? 5000);
    return new Promise((resolve, reject) => {
      let timer = null;
      const done = () => { clearTimeout(timer); this.waiters.delete(waiter); };
      const waiter = () => {
        let v;
        try { v = check(); } catch (e) { done(); reject(e); return; }
        if (v) { done(); resolve(v); }
      };
      timer = setTimeout(() => { done(); reject(new Error(`${this.name}: timed out after ${timeoutMs} ms waiting for ${what}`)); }, timeoutMs);
      this.waiters.add(waiter);
      waiter();
    });
  }

  /** The next snapshot header to arrive after this call that satisfies pred. */
  nextSnapshot(pred = () => true, what = 'a snapshot', timeoutMs = 5000) {
    const from = this.arrivals.length;
    return this.waitFor(() => this.arrivals.slice(from).find(pred), what, timeoutMs);
  }

  get last() {
    return this.arrivals[this.arrivals.length - 1] ?? null;
  }

  send(obj) {
    this.ws.send(JSON.stringify(obj));
  }

  /** Measures the interval [from, to] (performance.now() times); see measure(). */
  measure(from, to, windowMs = 1000) {
    return measure(this.arrivals, from, to, windowMs);
  }

  close() {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }

  terminate() {
    this.ws.terminate();
  }
}

/**
 * Figures of the snapshots that arrived in [from, to), cut into whole windows
 * of windowMs (a last partial window is left out):
 *   snapshots  per window: how many arrived
 *   ticks      per window: how far the world's tick advanced, counting a
 *              reset (the tick going back) as an advance from 0
 *   minSnapshots, minTicks, maxGapMs (the longest time without a snapshot,
 *   the edges of the interval included), rate (snapshots/s overall),
 *   tickRate (ticks/s overall)
 */
export function measure(arrivals, from, to, windowMs = 1000) {
  const n = Math.max(0, Math.floor((to - from) / windowMs));
  const snapshots = new Array(n).fill(0);
  const ticks = new Array(n).fill(0);
  let prevTick = null;
  let prevT = from;
  let maxGapMs = 0;
  let totalTicks = 0;
  let count = 0;
  for (const a of arrivals) {
    if (a.t < from) { prevTick = a.tick; continue; }
    if (a.t >= to) break;
    const w = Math.floor((a.t - from) / windowMs);
    const advance = prevTick === null ? 0 : (a.tick >= prevTick ? a.tick - prevTick : a.tick);
    if (w < n) {
      snapshots[w]++;
      ticks[w] += advance;
    }
    totalTicks += advance;
    count++;
    maxGapMs = Math.max(maxGapMs, a.t - prevT);
    prevT = a.t;
    prevTick = a.tick;
  }
  maxGapMs = Math.max(maxGapMs, to - prevT);
  const seconds = (to - from) / 1000;
  return {
    windows: n,
    snapshots,
    ticks,
    minSnapshots: n ? Math.min(...snapshots) : 0,
    minTicks: n ? Math.min(...ticks) : 0,
    maxGapMs: Math.round(maxGapMs),
    rate: seconds > 0 ? count / seconds : 0,
    tickRate: seconds > 0 ? totalTicks / seconds : 0,
  };
}

/** A one-line summary of measure()'s figures, for the CI log. */
export function describe(m) {
  const r = (x) => Math.round(x * 10) / 10;
  return `${m.windows} windows; snapshots/s min ${m.minSnapshots} mean ${r(m.rate)} [${m.snapshots.join(' ')}]; ` +
    `ticks/s min ${m.minTicks} mean ${r(m.tickRate)} [${m.ticks.join(' ')}]; longest gap ${m.maxGapMs} ms`;
}

/**
 * Opens a viewer (subprotocol swarmcast.v1) and waits for its hello.
 * Options: origin, localAddress (to connect from another loopback address),
 * headers, timeoutMs, autoPong (default true, as any library does).
 */
export async function openViewer(url, { name, origin, localAddress, headers, timeoutMs = 5000, autoPong = true, waitHello = true } = {}) {
  const ws = new WebSocket(url, [SUBPROTOCOL], {
    handshakeTimeout: timeoutMs, maxPayload: 256 * 1024 * 1024, origin, localAddress, headers, autoPong,
  });
  const v = new Viewer(ws, { name });
  await withTimeout(new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('close', (code) => reject(new Error(`closed with ${code} before opening`)));
  }), timeoutMs, `${name ?? 'a viewer'}: a WebSocket connection to ${url}`);
  if (waitHello) await v.waitFor(() => v.hello, 'hello', timeoutMs);
  return v;
}
