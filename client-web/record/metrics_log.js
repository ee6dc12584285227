// The metrics the page has received, kept for the plots and for "Download
// CSV": one row per `metrics` message (PROTOCOL.md), with the time it
// arrived. Pure (no DOM), so Node tests can drive it.

// Every field of the `metrics` message, in the CSV's column order, with
// what the plots call it and its unit.
export const METRICS = [
  { key: 'agents', label: 'Agents', unit: '', integer: true },
  { key: 'polarization', label: 'Polarization', unit: '', range: [0, 1] },
  { key: 'milling', label: 'Milling', unit: '', range: [0, 1] },
  { key: 'mean_nn_distance', label: 'Nearest neighbour', unit: 'u' },
  { key: 'clusters', label: 'Clusters', unit: '', integer: true },
  { key: 'largest_cluster', label: 'Largest cluster', unit: '', integer: true },
  { key: 'collisions', label: 'Collisions', unit: '', integer: true },
  { key: 'penetrations', label: 'Agents in obstacles', unit: '', integer: true },
  { key: 'min_clearance', label: 'Obstacle clearance', unit: 'u' },
  { key: 'oscillation', label: 'Oscillation (turn rate)', unit: 'rad/s' },
];

// The plots show this much history; the log keeps more for the CSV.
export const PLOT_WINDOW_S = 300;
// Rows kept at most: two hours at the default 4 messages a second.
export const LOG_MAX_ROWS = 28800;

// Columns: time (s since the Unix epoch, as uPlot wants it), tick, then one
// per metric; a value the message did not carry (or null) is null.
export class MetricsLog {
  constructor(maxRows = LOG_MAX_ROWS) {
    this.maxRows = maxRows;
    this.t = [];
    this.tick = [];
    this.values = METRICS.map(() => []);
    // The first row of the current run of ticks: a reset (or a restarted
    // server) starts the ticks again, and the timeline's past with them.
    this.runStart = 0;
  }

  get length() {
    return this.t.length;
  }

  // msg: a `metrics` message; nowMs: when it arrived (Date.now()).
  add(msg, nowMs) {
    const last = this.tick.length ? this.tick[this.tick.length - 1] : null;
    if (Number.isFinite(msg.tick) && last !== null && msg.tick < last) this.runStart = this.t.length;
    this.t.push(nowMs / 1000);
    this.tick.push(Number.isFinite(msg.tick) ? msg.tick : null);
    METRICS.forEach((m, i) => {
      const v = msg[m.key];
      this.values[i].push(typeof v === 'number' && Number.isFinite(v) ? v : null);
    });
    if (this.t.length > this.maxRows) {
      const drop = this.t.length - this.maxRows;
      this.t.splice(0, drop);
      this.tick.splice(0, drop);
      for (const col of this.values) col.splice(0, drop);
      this.runStart = Math.max(0, this.runStart - drop);
    }
  }

  clear() {
    this.runStart = 0;
    this.t.length = 0;
    this.tick.length = 0;
    for (const col of this.values) col.length = 0;
  }

  // The index of the first row within the last windowS seconds of nowMs.
  firstIndexSince(nowMs, windowS = PLOT_WINDOW_S) {
    const from = nowMs / 1000 - windowS;
    let lo = 0;
    let hi = this.t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.t[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // uPlot's data for metric i over the window: [times, values].
  series(i, nowMs, windowS = PLOT_WINDOW_S) {
    const from = this.firstIndexSince(nowMs, windowS);
    return [this.t.slice(from), this.values[i].slice(from)];
  }

  // The moment of tick `tick` as this log knows it (the timeline's scrubbed
  // tick): the newest row of the current run at or before that tick — the
  // metrics a viewer read at that moment — and the time the plots put that
  // tick at, between the rows around it. null when the log has no row that
  // old (the page opened later) or none yet.
  atTick(tick) {
    let lo = this.runStart;
    let hi = this.t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tick[mid] !== null && this.tick[mid] <= tick) lo = mid + 1;
      else hi = mid;
    }
    const row = lo - 1;
    if (row < this.runStart || this.tick[row] === null) return null;
    let t = this.t[row];
    const next = row + 1;
    if (next < this.t.length && this.tick[next] !== null && this.tick[next] > this.tick[row]) {
      t += ((tick - this.tick[row]) / (this.tick[next] - this.tick[row])) * (this.t[next] - this.t[row]);
    }
    return { row, tick: this.tick[row], t, values: this.values.map((col) => col[row]) };
  }

  // The oldest tick of the current run this log has (null: none).
  firstTick() {
    for (let r = this.runStart; r < this.t.length; r++) if (this.tick[r] !== null) return this.tick[r];
    return null;
  }

  // The newest value of metric i (null if none or not known).
  latest(i) {
    const col = this.values[i];
    return col.length ? col[col.length - 1] : null;
  }

  // Every row kept, as CSV (RFC 4180: comma separated, CRLF line ends, a
  // header row). Time in ISO 8601 UTC with milliseconds; unknown values
  // empty.
  toCsv() {
    const lines = [['time', 'tick', ...METRICS.map((m) => m.key)].join(',')];
    for (let r = 0; r < this.t.length; r++) {
      const cells = [new Date(Math.round(this.t[r] * 1000)).toISOString(), this.tick[r] ?? ''];
      for (const col of this.values) cells.push(col[r] ?? '');
      lines.push(cells.join(','));
    }
    return lines.join('\r\n') + '\r\n';
  }
}

// A value as a plot's title shows it.
export function formatMetric(m, v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  if (m.integer) return Math.round(v).toLocaleString('en-US');
  const digits = m.range ? 3 : Math.abs(v) >= 100 ? 0 : 1;
  return `${v.toFixed(digits)}${m.unit ? ` ${m.unit}` : ''}`;
}
