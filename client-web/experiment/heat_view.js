// "Two factors as a heat map": a metric's mean over two factors, the others
// held at a chosen value. Needs a summary with at least two factors.
(function (ns) {
  'use strict';

  ns.heatView = function heatView(section) {
    const controls = section.querySelector('.controls');
    const canvas = section.querySelector('canvas');
    const note = section.querySelector('.note');
    let table = null;
    const choice = { metric: null, x: null, y: null, fixed: {} };

    function render() {
      const factors = table.factors.filter((f) => f !== 'branch');
      if (!table.metrics.includes(choice.metric)) choice.metric = table.metrics[0];
      if (!factors.includes(choice.x)) choice.x = factors[0];
      if (!factors.includes(choice.y) || choice.y === choice.x) choice.y = factors.find((f) => f !== choice.x);
      ns.renderControls(controls, [
        { name: 'metric', text: 'mean of', options: ns.valueOptions(table.metrics), value: choice.metric },
        { name: 'x', text: 'across', options: ns.valueOptions(factors), value: choice.x },
        { name: 'y', text: 'up', options: ns.valueOptions(factors.filter((f) => f !== choice.x)), value: choice.y },
        ...ns.heldFactorSpecs(table, [choice.x, choice.y], choice.fixed),
      ], (name, value) => {
        if (!ns.applyHeldChange(choice.fixed, name, value)) choice[name] = value;
        render();
      });
      const grid = ns.heatGrid(table, { metric: choice.metric, x: choice.x, y: choice.y, fixed: choice.fixed });
      ns.drawHeatmap(canvas, grid, { x: choice.x, y: choice.y, metric: choice.metric });
      note.textContent = grid.ambiguous ? ns.COLLIDE_NOTE : '';
    }

    // A new width (the window resized): drawn again to fit.
    let width = 0;
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        const w = Math.floor(canvas.parentElement.clientWidth);
        if (table && !section.hidden && w !== width) { width = w; render(); }
      }).observe(canvas.parentElement);
    }

    return {
      show(t) {
        table = t;
        choice.fixed = {};
        section.hidden = t.factors.filter((f) => f !== 'branch').length < 2;
        if (!section.hidden) render();
      },
    };
  };
})(globalThis.SwarmcastExperiment ??= {});
