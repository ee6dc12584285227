// A heat map of a grid (grouping.js heatGrid) on a canvas: one cell per
// pair of factor values, its colour the metric's mean on a viridis-like
// scale from the grid's minimum to its maximum, its value written in it
// when there is room; a cell with no value is left grey. A colour bar on
// the right gives the scale. A sampled design (Latin hypercube, a table)
// fills few cells of its grid: when both factors are numbers and fewer than
// half the cells have a value, each point is drawn as a coloured dot where
// its values put it instead.
(function (ns) {
  'use strict';

  // Stops of the viridis colour map (perceptually even, readable in grey).
  const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const HEIGHT = 360;
  const MARGIN = { left: 80, right: 90, top: 12, bottom: 52 };
  const FONT = '12px system-ui, sans-serif';

  // t in [0, 1] → [r, g, b].
  function colorAt(t) {
    const s = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
    const i = Math.min(STOPS.length - 2, Math.floor(s));
    const f = s - i;
    return STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f));
  }

  const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;
  const formatValue = (v) => (Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v)) : v.toPrecision(3));
  // A factor's value as an axis shows it: a long decimal (a sampled
  // design's) to four significant digits.
  const axisText = (s) => (ns.cellNumber(s) === null || s.length <= 6 ? s : String(Number(Number(s).toPrecision(4))));

  function isSparse(grid) {
    if (![...grid.xs, ...grid.ys].every((v) => ns.cellNumber(v) !== null)) return false;
    const filled = grid.cells.flat().filter((v) => v !== null).length;
    return filled < (grid.xs.length * grid.ys.length) / 2;
  }

  // [lo, hi] of numeric strings, widened when they are all one value.
  function extent(values) {
    const v = values.map(Number);
    const lo = Math.min(...v);
    const hi = Math.max(...v);
    return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
  }

  // The sampled form: dots at their values, five numbers on each axis.
  function drawDots(ctx, grid, area, color) {
    const [x0, x1] = extent(grid.xs);
    const [y0, y1] = extent(grid.ys);
    const inset = 10;
    const px = (v) => area.left + inset + ((v - x0) / (x1 - x0)) * (area.width - 2 * inset);
    const py = (v) => area.top + area.height - inset - ((v - y0) / (y1 - y0)) * (area.height - 2 * inset);
    ctx.fillStyle = '#f0f1f4';
    ctx.fillRect(area.left, area.top, area.width, area.height);
    grid.cells.forEach((cells, row) => cells.forEach((v, col) => {
      if (v === null) return;
      ctx.beginPath();
      ctx.arc(px(Number(grid.xs[col])), py(Number(grid.ys[row])), 7, 0, 2 * Math.PI);
      ctx.fillStyle = css(color(v));
      ctx.fill();
      ctx.strokeStyle = 'rgba(0, 0, 0, 0.35)';
      ctx.stroke();
    }));
    ctx.fillStyle = '#3d4450';
    for (let k = 0; k <= 4; k++) {
      const xv = x0 + ((x1 - x0) * k) / 4;
      const yv = y0 + ((y1 - y0) * k) / 4;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'top';
      ctx.fillText(axisText(String(xv)), px(xv), area.top + area.height + 4);
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      ctx.fillText(axisText(String(yv)), area.left - 6, py(yv));
    }
  }

  // grid: { xs, ys, cells, min, max }; labels: { x, y, metric }.
  function drawHeatmap(canvas, grid, labels) {
    const width = Math.max(360, Math.floor(canvas.parentElement.clientWidth));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(HEIGHT * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${HEIGHT}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, HEIGHT);
    ctx.font = FONT;
    const plotW = width - MARGIN.left - MARGIN.right;
    const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
    const cw = plotW / grid.xs.length;
    const ch = plotH / grid.ys.length;
    const span = grid.max - grid.min;
    const t = (v) => (span > 0 ? (v - grid.min) / span : 0.5);
    // Rows: the first y value at the bottom, as on a plot's y axis.
    const cellTop = (row) => MARGIN.top + (grid.ys.length - 1 - row) * ch;
    const sparse = isSparse(grid);
    if (sparse) {
      drawDots(ctx, grid, { left: MARGIN.left, top: MARGIN.top, width: plotW, height: plotH }, (v) => colorAt(t(v)));
    } else grid.cells.forEach((cells, row) => cells.forEach((v, col) => {
      const x = MARGIN.left + col * cw;
      const y = cellTop(row);
      const rgb = v === null ? [210, 210, 210] : colorAt(t(v));
      ctx.fillStyle = css(rgb);
      ctx.fillRect(x, y, Math.ceil(cw), Math.ceil(ch));
      if (v === null || cw < 34 || ch < 16) return;
      const light = rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114 > 140;
      ctx.fillStyle = light ? '#000' : '#fff';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(formatValue(v), x + cw / 2, y + ch / 2);
    }));
    // Axes: each value under its column and beside its row, then the names.
    ctx.fillStyle = '#3d4450';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const everyX = Math.max(1, Math.ceil(48 / cw));
    grid.xs.forEach((v, col) => {
      if (!sparse && col % everyX === 0) ctx.fillText(axisText(v), MARGIN.left + (col + 0.5) * cw, MARGIN.top + plotH + 4);
    });
    ctx.fillText(labels.x, MARGIN.left + plotW / 2, MARGIN.top + plotH + 26);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const everyY = Math.max(1, Math.ceil(16 / ch));
    grid.ys.forEach((v, row) => {
      if (!sparse && row % everyY === 0) ctx.fillText(axisText(v), MARGIN.left - 6, cellTop(row) + ch / 2);
    });
    ctx.save();
    ctx.translate(14, MARGIN.top + plotH / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillText(labels.y, 0, 0);
    ctx.restore();
    // The colour bar.
    const barX = width - MARGIN.right + 16;
    for (let i = 0; i < plotH; i++) {
      ctx.fillStyle = css(colorAt(1 - i / plotH));
      ctx.fillRect(barX, MARGIN.top + i, 14, 1.5);
    }
    ctx.fillStyle = '#3d4450';
    ctx.textAlign = 'left';
    if (grid.min !== null) {
      ctx.textBaseline = 'top';
      ctx.fillText(formatValue(grid.max), barX + 18, MARGIN.top);
      ctx.textBaseline = 'bottom';
      ctx.fillText(formatValue(grid.min), barX + 18, MARGIN.top + plotH);
    }
    canvas.setAttribute('aria-label', `heat map of the mean of ${labels.metric} over ${labels.x} and ${labels.y}` +
      (grid.min === null ? ': no values' : `, from ${formatValue(grid.min)} to ${formatValue(grid.max)}`));
  }

  ns.heatColorAt = colorAt;
  ns.drawHeatmap = drawHeatmap;
})(globalThis.SwarmcastExperiment ??= {});
