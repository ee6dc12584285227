// The metric plots: every field of the `metrics` message over the last few
// minutes, as small multiples drawn by uPlot (npm package `uplot`, served
// from client-web/node_modules by the server), and "Download CSV" of every
// metrics message the page has received (metrics_log.js).
//
// uPlot is loaded with a dynamic import, so a checkout without `npm ci` in
// client-web still has a working viewer: the plots then say what is
// missing, the CSV download still works.
//
// Drawing happens at most once per PLOT_REDRAW_MS and only while the plots
// are on screen (the panel open, the section expanded); the log records
// regardless.
//
// The plots follow the timeline (timeline/): while the page shows a moment
// of the past, showTick(tick) puts a cursor on every plot at that tick and
// the captions give the values of that moment — the metrics message the
// page read at that tick (or the newest before it). The page keeps its own
// history for this (metrics_log.js): the messages it received, with their
// ticks, are exactly the values of those moments, and the cursor is placed
// on the plots' time axis by them. For a tick from before the page opened
// (a late joiner, a run's room stepped ahead), the server sends the
// metrics of the tick shown (`"past": true`, PROTOCOL.md "Timeline"):
// the captions give those; the cursor needs the page's own rows (a time
// on its axis), so then it is not drawn.

import { METRICS, MetricsLog, formatMetric } from './metrics_log.js';
import { SPECIES_COLORS } from '../draw/palette.js';
import { downloadBlob, fileStamp } from './download.js';

export const UPLOT_URL = '../node_modules/uplot/dist/uPlot.esm.js';
// The plots follow new values at most this often.
export const PLOT_REDRAW_MS = 1000;
// The cursor follows the scrubbed tick at most this often.
export const CURSOR_REDRAW_MS = 100;
const CURSOR_COLOR = 'rgba(236, 240, 246, 0.85)';
// Choices of the time window, seconds.
export const WINDOWS = [60, 300, 900];
const DEFAULT_WINDOW_S = 300;
const PLOT_HEIGHT = 60;

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function windowText(s) {
  return s >= 60 ? `${s / 60} min` : `${s} s`;
}

// deps: { root (an element to fill), isVisible() → whether the plots are
// on screen, now() → ms since the epoch }
export function createPlots(deps) {
  const { root } = deps;
  const now = deps.now ?? (() => Date.now());
  const isVisible = deps.isVisible ?? (() => root.offsetParent !== null);
  const log = new MetricsLog();
  let windowS = DEFAULT_WINDOW_S;
  let uPlot = null; // the library, once loaded
  let loadFailed = false;
  let lastDraw = -Infinity;
  let timer = null;
  let timerDue = 0;
  let cursorTick = null; // the timeline's tick, while the page shows the past
  let moment = null; // the log's row for it (MetricsLog.atTick), or null
  let served = null; // the server's metrics of a tick of the past: { tick, values }

  // ---- DOM ----
  const bar = el('div', 'plots-bar');
  const windowLabel = el('label', 'plots-window');
  windowLabel.append(el('span', null, 'last'));
  const windowSelect = el('select', 'plots-window-select');
  windowSelect.name = 'plot-window';
  windowSelect.setAttribute('aria-label', 'time window of the plots');
  for (const s of WINDOWS) windowSelect.append(new Option(windowText(s), String(s)));
  windowSelect.value = String(windowS);
  windowLabel.append(windowSelect);
  const csvBtn = el('button', 'btn btn-csv', 'Download CSV');
  csvBtn.type = 'button';
  csvBtn.title = 'every metrics message this page received (up to two hours), as a CSV file';
  csvBtn.dataset.action = 'download-csv';
  const momentLabel = el('span', 'plots-moment', '');
  momentLabel.hidden = true;
  bar.append(windowLabel, momentLabel, csvBtn);

  const status = el('div', 'plots-status', 'waiting for metrics…');
  const grid = el('div', 'plots-grid');
  const figures = METRICS.map((m, i) => {
    const fig = el('figure', 'plot');
    fig.dataset.metric = m.key;
    fig.setAttribute('role', 'img');
    const caption = el('figcaption', 'plot-caption');
    const name = el('span', 'plot-name', m.label);
    const value = el('span', 'plot-value', '—');
    caption.append(name, value);
    const area = el('div', 'plot-area');
    fig.append(caption, area);
    grid.append(fig);
    return { m, i, fig, value, area, chart: null, shown: null };
  });
  // Sweeps made with `swarmcast experiment run` are read on a page of
  // their own (experiment.html: their CSV files, no server needed).
  const experimentLink = el('a', 'plots-experiment-link', 'Experiment results (sweeps) ↗');
  experimentLink.href = 'experiment.html';
  experimentLink.target = '_blank';
  experimentLink.rel = 'noopener';
  experimentLink.title = 'plot the summary.csv of `swarmcast experiment run` on the experiment page';
  root.replaceChildren(bar, status, grid, experimentLink);

  csvBtn.addEventListener('click', (ev) => {
    downloadBlob(new Blob([log.toCsv()], { type: 'text/csv' }), `swarmcast-metrics-${fileStamp()}.csv`);
    if (ev.detail > 0) csvBtn.blur();
  });
  windowSelect.addEventListener('change', () => {
    windowS = Number(windowSelect.value);
    draw(true);
  });

  import(UPLOT_URL).then(
    (mod) => {
      uPlot = mod.default;
      draw(true);
    },
    () => {
      loadFailed = true;
      status.textContent = 'plots need uPlot: run `npm ci` in client-web (the CSV download works without it)';
      status.hidden = false;
    },
  );

  function options(f, width) {
    const axis = {
      stroke: '#6d788b',
      grid: { stroke: 'rgba(138, 150, 170, 0.12)', width: 1 },
      ticks: { show: false },
      font: '10px system-ui, sans-serif',
    };
    return {
      width,
      height: PLOT_HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: true, range: (u, lo, hi) => xRange(lo, hi) },
        y: f.m.range ? { range: f.m.range } : { range: (u, lo, hi) => yRange(f.m, lo, hi) },
      },
      // Small multiples: no time labels (the window is named above the
      // plots), a narrow value axis.
      axes: [
        { ...axis, show: false },
        { ...axis, size: 32, space: 14 },
      ],
      hooks: { draw: [(u) => drawCursor(u, f)] },
      series: [{}, { stroke: SPECIES_COLORS[f.i % SPECIES_COLORS.length], width: 1.5, spanGaps: false, points: { show: false } }],
    };
  }

  // The x axis spans the window, or less while the log is younger than it;
  // further back when the cursor is older than the window (its data is
  // then drawn too: see seriesFor).
  function xRange() {
    const t1 = now() / 1000;
    const first = log.length ? log.t[log.firstIndexSince(now(), windowS)] : t1 - windowS;
    const lo = Math.max(t1 - windowS, Math.min(first, t1 - 5));
    return [moment && moment.t < lo ? moment.t - windowS * 0.05 : lo, t1];
  }

  function seriesFor(i, t) {
    const span = moment ? Math.max(windowS, t / 1000 - moment.t + windowS * 0.05) : windowS;
    return log.series(i, t, span);
  }

  // A vertical line at the scrubbed tick, and a dot on the value there.
  // Where it is drawn goes into the figure's data-cursor-x (CSS pixels
  // from the canvas's left) and data-cursor-tick (none when no cursor), for
  // tests and anyone reading the DOM.
  function drawCursor(u, f) {
    delete f.fig.dataset.cursorX;
    delete f.fig.dataset.cursorTick;
    if (!moment) return;
    const x = u.valToPos(moment.t, 'x', true);
    const { left, top, width, height } = u.bbox;
    if (!(x >= left - 0.5 && x <= left + width + 0.5)) return;
    const dpr = u.ctx.canvas.width / Math.max(1, u.width);
    f.fig.dataset.cursorX = (x / dpr).toFixed(1);
    f.fig.dataset.cursorTick = String(cursorTick);
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = CURSOR_COLOR;
    ctx.lineWidth = Math.max(1, Math.round(dpr));
    ctx.beginPath();
    ctx.moveTo(Math.round(x) + 0.5, top);
    ctx.lineTo(Math.round(x) + 0.5, top + height);
    ctx.stroke();
    const v = moment.values[f.i];
    if (typeof v === 'number' && Number.isFinite(v)) {
      ctx.fillStyle = CURSOR_COLOR;
      ctx.beginPath();
      ctx.arc(x, u.valToPos(v, 'y', true), 3 * dpr, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.restore();
  }

  // The values of tick `tick`: the newest row at or before it, of the
  // page's own or the server's: { tick, values } or null.
  function valuesAt(tick) {
    const own = log.atTick(tick);
    const theirs = served && served.tick <= tick ? served : null;
    if (own && theirs) return theirs.tick > own.tick ? theirs : own;
    return own ?? theirs;
  }

  // The bar's words for the moment the captions show.
  function showMoment(values) {
    momentLabel.hidden = cursorTick === null;
    if (cursorTick === null) return;
    if (values) {
      momentLabel.textContent = `at tick ${cursorTick.toLocaleString('en-US')}`;
      momentLabel.title = `the values of tick ${cursorTick} (the metrics of tick ${values.tick})`;
    } else {
      const first = log.firstTick();
      momentLabel.textContent = `no metrics of tick ${cursorTick.toLocaleString('en-US')} here`;
      momentLabel.title = first === null ? 'this page has received no metrics yet'
        : `this page has the metrics from tick ${first} on (it opened then)`;
    }
  }

  function yRange(m, lo, hi) {
    if (lo === null || hi === null) return [0, 1];
    if (m.integer) {
      const top = Math.max(1, Math.ceil(hi * 1.1));
      return [Math.min(0, Math.floor(lo)), top];
    }
    if (hi === lo) return [lo - 1, hi + 1];
    const pad = (hi - lo) * 0.1;
    return [lo - pad, hi + pad];
  }

  // A draw now (force), or once gapMs after the last one; a draw already
  // due sooner stands (the cursor's come sooner than new values').
  function draw(force = false, gapMs = PLOT_REDRAW_MS) {
    const t = now();
    if (!force && t - lastDraw < gapMs) {
      const due = lastDraw + gapMs;
      if (timer !== null && timerDue <= due) return;
      clearTimeout(timer);
      timerDue = due;
      timer = setTimeout(() => {
        timer = null;
        draw(true);
      }, due - t);
      return;
    }
    clearTimeout(timer);
    timer = null;
    if (!isVisible()) return;
    lastDraw = t;
    status.hidden = !loadFailed && log.length > 0;
    const past = cursorTick !== null;
    moment = past ? log.atTick(cursorTick) : null;
    const values = past ? valuesAt(cursorTick) : null;
    showMoment(values);
    for (const f of figures) {
      const text = formatMetric(f.m, past ? values?.values[f.i] : log.latest(f.i));
      if (text !== f.shown) {
        f.shown = text;
        f.value.textContent = text;
        const when = past ? `at tick ${cursorTick}` : 'now';
        f.fig.setAttribute('aria-label', `${f.m.label} over the last ${windowText(windowS)}: ${when} ${text}`);
      }
      f.fig.classList.toggle('is-past', past);
      if (!moment) delete f.fig.dataset.cursorX, delete f.fig.dataset.cursorTick;
      if (!uPlot) continue;
      const width = Math.floor(f.area.clientWidth);
      if (width <= 0) continue;
      const data = seriesFor(f.i, t);
      if (!f.chart) {
        f.chart = new uPlot(options(f, width), data, f.area);
      } else {
        if (f.chart.width !== width) f.chart.setSize({ width, height: PLOT_HEIGHT });
        f.chart.setData(data);
      }
    }
  }

  if (typeof ResizeObserver === 'function') new ResizeObserver(() => draw(true)).observe(grid);

  return {
    log,
    onMetrics(msg) {
      log.add(msg, now());
      draw();
    },
    // A new session (hello): a restarted server's world is another story,
    // but its history is still worth downloading: kept. Redraw now.
    refresh: () => draw(true),
    csv: () => log.toCsv(),
    // The timeline's tick while the page shows the past; null when live.
    showTick(tick) {
      const next = Number.isFinite(tick) ? tick : null;
      if (next === cursorTick) return;
      cursorTick = next;
      if (next === null) {
        moment = null;
        served = null;
        draw(true);
      } else {
        draw(false, CURSOR_REDRAW_MS);
      }
    },
    // The server's metrics of a tick of the past (`"past": true`): not the
    // live log's (nor the CSV's), only what the captions show of that moment.
    onPastMetrics(msg) {
      if (!Number.isFinite(msg.tick)) return;
      served = { tick: msg.tick, values: METRICS.map((m) => (typeof msg[m.key] === 'number' && Number.isFinite(msg[m.key]) ? msg[m.key] : null)) };
      if (cursorTick !== null) draw(false, CURSOR_REDRAW_MS);
    },
    // What the captions show: null while live, else { tick, metricsTick
    // (the row's: null when none is known that old), values }.
    moment() {
      if (cursorTick === null) return null;
      const m = valuesAt(cursorTick);
      return { tick: cursorTick, metricsTick: m?.tick ?? null, values: m?.values ?? null };
    },
  };
}
