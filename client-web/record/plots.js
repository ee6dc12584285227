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

import { METRICS, MetricsLog, formatMetric } from './metrics_log.js';
import { SPECIES_COLORS } from '../draw/palette.js';
import { downloadBlob, fileStamp } from './download.js';

export const UPLOT_URL = '../node_modules/uplot/dist/uPlot.esm.js';
// The plots follow new values at most this often.
export const PLOT_REDRAW_MS = 1000;
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
  bar.append(windowLabel, csvBtn);

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
      series: [{}, { stroke: SPECIES_COLORS[f.i % SPECIES_COLORS.length], width: 1.5, spanGaps: false, points: { show: false } }],
    };
  }

  // The x axis spans the window, or less while the log is younger than it.
  function xRange() {
    const t1 = now() / 1000;
    const first = log.length ? log.t[log.firstIndexSince(now(), windowS)] : t1 - windowS;
    return [Math.max(t1 - windowS, Math.min(first, t1 - 5)), t1];
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

  function draw(force = false) {
    clearTimeout(timer);
    timer = null;
    const t = now();
    if (!force && t - lastDraw < PLOT_REDRAW_MS) {
      timer = setTimeout(() => draw(), PLOT_REDRAW_MS - (t - lastDraw));
      return;
    }
    if (!isVisible()) return;
    lastDraw = t;
    status.hidden = !loadFailed && log.length > 0;
    for (const f of figures) {
      const latest = log.latest(f.i);
      const text = formatMetric(f.m, latest);
      if (text !== f.shown) {
        f.shown = text;
        f.value.textContent = text;
        f.fig.setAttribute('aria-label', `${f.m.label} over the last ${windowText(windowS)}: now ${text}`);
      }
      if (!uPlot) continue;
      const width = Math.floor(f.area.clientWidth);
      if (width <= 0) continue;
      const data = log.series(f.i, t, windowS);
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
  };
}
