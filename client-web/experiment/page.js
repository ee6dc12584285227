// The experiment page (experiment.html): reads the CSV files of a
// `swarmcast experiment run … --out DIR` folder, chosen with the file
// input or dropped anywhere on the page, and shows the pictures that fit:
// summary.csv → a metric against a factor, the heat map (two factors or
// more), the up and down branches (a continuation); results.csv → a metric
// over ticks. Nothing is sent anywhere: the files are read in the page.
(function (ns) {
  'use strict';

  function start() {
    const status = document.getElementById('status');
    const input = document.getElementById('files');
    const views = {
      against: ns.againstView(document.getElementById('against')),
      heat: ns.heatView(document.getElementById('heat')),
      branches: ns.branchesView(document.getElementById('branches')),
      ticks: ns.ticksView(document.getElementById('ticks')),
    };
    // What the page shows, for people and for the browser test.
    const state = { loaded: [], errors: [] };
    window.swarmcastExperiment = state;

    function describe(name, table) {
      if (table.kind === 'results') {
        return `${name}: ${table.runs.length} runs, metrics ${table.metrics.join(', ')}`;
      }
      const factors = table.factors.filter((f) => f !== 'branch');
      const sweep = table.swept ? `, a continuation over ${table.swept}` : '';
      return `${name}: ${new Set(table.points.map((p) => p.point)).size} design points, ` +
        `factors ${factors.join(', ') || '(none)'}${sweep}, metrics ${table.metrics.join(', ')}`;
    }

    async function load(files) {
      const lines = [];
      state.errors = [];
      state.loaded = [];
      for (const file of files) {
        try {
          const table = ns.addBranches(ns.readTable(ns.parseCsv(await file.text())));
          if (table.kind === 'summary') {
            if (table.metrics.length === 0) throw new Error('no metric columns');
            views.against.show(table);
            views.heat.show(table);
            views.branches.show(table);
          } else {
            if (table.runs.length === 0) throw new Error('no rows');
            views.ticks.show(table);
          }
          state.loaded.push({ name: file.name, kind: table.kind });
          lines.push(describe(file.name, table));
        } catch (e) {
          state.errors.push(`${file.name}: ${e.message}`);
          lines.push(`${file.name}: ${e.message}`);
        }
      }
      status.textContent = lines.join(' · ');
      status.classList.toggle('error', state.errors.length > 0);
      document.body.dataset.loaded = String(state.loaded.length);
    }

    input.addEventListener('change', () => load([...input.files]));
    // Anywhere on the page takes a drop; the browser would otherwise open
    // the file instead of the page.
    document.addEventListener('dragover', (ev) => {
      ev.preventDefault();
      document.body.classList.add('dragging');
    });
    document.addEventListener('dragleave', (ev) => {
      if (ev.relatedTarget === null) document.body.classList.remove('dragging');
    });
    document.addEventListener('drop', (ev) => {
      ev.preventDefault();
      document.body.classList.remove('dragging');
      const files = [...(ev.dataTransfer?.files ?? [])];
      if (files.length) load(files);
    });
    if (typeof uPlot !== 'function') {
      status.textContent = 'The line plots need uPlot: run `npm ci` in client-web (the heat map works without it).';
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})(globalThis.SwarmcastExperiment ??= {});
