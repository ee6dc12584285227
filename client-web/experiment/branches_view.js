// "Continuation: the up and the down branch": a continuation sweep's metric
// against the swept factor, one line per branch, so that hysteresis (the
// collective memory of Couzin et al. 2002) shows as two lines that part.
(function (ns) {
  'use strict';

  ns.branchesView = function branchesView(section) {
    const controls = section.querySelector('.controls');
    const chartArea = section.querySelector('.chart');
    const collide = section.querySelector('.collide');
    let table = null;
    const choice = { metric: null, fixed: {} };

    function render() {
      if (!table.metrics.includes(choice.metric)) choice.metric = table.metrics[0];
      ns.renderControls(controls, [
        { name: 'metric', text: 'metric', options: ns.valueOptions(table.metrics), value: choice.metric },
        ...ns.heldFactorSpecs(table, [table.swept, 'branch'], choice.fixed),
      ], (name, value) => {
        if (!ns.applyHeldChange(choice.fixed, name, value)) choice[name] = value;
        render();
      });
      const s = ns.hysteresis(table, { metric: choice.metric, fixed: choice.fixed });
      ns.lineChart(chartArea, {
        xs: s.xs,
        names: !s.numericX,
        xLabel: `${table.swept} (swept)`,
        yLabel: `${choice.metric} (mean, 95% interval)`,
        lines: s.lines.map((l) => ({ label: `${choice.metric} · ${l.value}`, values: l.mean, lo: l.lo, hi: l.hi })),
      });
      collide.textContent = s.ambiguous ? ns.COLLIDE_NOTE : '';
    }

    return {
      show(t) {
        table = t;
        choice.fixed = {};
        section.hidden = !(t.continuation && t.swept);
        if (!section.hidden) render();
      },
    };
  };
})(globalThis.SwarmcastExperiment ??= {});
