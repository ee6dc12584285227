// "A metric over ticks" from results.csv: the recorded rows of the chosen
// runs (the first few to start with), one line each, and the lines that
// serve them live (watch_view.js).
(function (ns) {
  'use strict';

  const FIRST_SHOWN = 3;

  function runText(run) {
    const values = Object.entries(run.factors).map(([f, v]) => `${f}=${v}`).join(' ');
    return `${run.runId} · ${values} · replicate ${run.replicate}`;
  }

  ns.ticksView = function ticksView(section) {
    const controls = section.querySelector('.controls');
    const runList = section.querySelector('select.runs');
    const chartArea = section.querySelector('.chart');
    const watch = ns.watchView(section.querySelector('.watch'));
    let table = null;
    const choice = { metric: null };

    function render() {
      if (!table.metrics.includes(choice.metric)) choice.metric = table.metrics[0];
      ns.renderControls(controls, [
        { name: 'metric', text: 'metric', options: ns.valueOptions(table.metrics), value: choice.metric },
      ], (name, value) => { choice[name] = value; render(); });
      const chosen = table.runs.filter((r, i) => runList.options[i]?.selected);
      watch.show(chosen);
      // One x axis for every run: the union of their ticks.
      const ticks = [...new Set(chosen.flatMap((r) => r.ticks))].sort((a, b) => a - b);
      const at = new Map(ticks.map((t, i) => [t, i]));
      ns.lineChart(chartArea, {
        xs: ticks,
        xLabel: 'tick',
        yLabel: choice.metric,
        spanGaps: true,
        points: ticks.length <= 60,
        lines: chosen.map((r) => {
          const values = ticks.map(() => null);
          r.ticks.forEach((t, k) => { values[at.get(t)] = r.values[choice.metric][k]; });
          return { label: `${choice.metric} · ${r.runId}`, values };
        }),
      });
    }

    runList.addEventListener('change', () => render());

    return {
      show(t) {
        table = t;
        section.hidden = false;
        runList.replaceChildren(...t.runs.map((r, i) => {
          const o = new Option(runText(r), r.runId);
          o.selected = i < FIRST_SHOWN;
          return o;
        }));
        runList.size = Math.min(8, Math.max(2, t.runs.length));
        render();
      },
    };
  };
})(globalThis.SwarmcastExperiment ??= {});
