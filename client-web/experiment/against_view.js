// "A metric against a factor": the mean over replicates with its 95%
// interval, one line per value of a second factor if one is chosen, every
// other factor held at a chosen value.
(function (ns) {
  'use strict';

  const NONE = '';

  ns.againstView = function againstView(section) {
    const controls = section.querySelector('.controls');
    const chartArea = section.querySelector('.chart');
    const note = section.querySelector('.note');
    let table = null;
    const choice = { metric: null, x: null, by: NONE, fixed: {} };

    function render() {
      const factors = table.factors;
      if (!table.metrics.includes(choice.metric)) choice.metric = table.metrics[0];
      // The x axis: a real factor (not a continuation's branch).
      const xChoices = factors.filter((f) => f !== 'branch');
      if (!xChoices.includes(choice.x)) choice.x = table.swept ?? xChoices[0];
      const byChoices = factors.filter((f) => f !== choice.x);
      if (choice.by !== NONE && !byChoices.includes(choice.by)) choice.by = NONE;
      const free = [choice.x, choice.by].filter((f) => f !== NONE);
      ns.renderControls(controls, [
        { name: 'metric', text: 'metric', options: ns.valueOptions(table.metrics), value: choice.metric },
        { name: 'x', text: 'against', options: ns.valueOptions(xChoices), value: choice.x },
        { name: 'by', text: 'one line per', options: [[NONE, '(one line)'], ...ns.valueOptions(byChoices)], value: choice.by },
        ...ns.heldFactorSpecs(table, free, choice.fixed),
      ], (name, value) => {
        if (!ns.applyHeldChange(choice.fixed, name, value)) choice[name] = value;
        render();
      });
      const by = choice.by === NONE ? null : choice.by;
      const s = ns.seriesAgainst(table, { metric: choice.metric, x: choice.x, by, fixed: choice.fixed });
      ns.lineChart(chartArea, {
        xs: s.xs,
        names: !s.numericX,
        xLabel: choice.x,
        yLabel: `${choice.metric} (mean, 95% interval)`,
        lines: s.lines.map((l) => ({
          label: by ? `${choice.metric} · ${by} = ${l.value}` : choice.metric,
          values: l.mean, lo: l.lo, hi: l.hi,
        })),
      });
      const held = Object.entries(choice.fixed).filter(([, v]) => v !== ns.ANY_VALUE)
        .map(([f, v]) => `${f} = ${v}`).join(', ');
      note.textContent = (held ? `Held at ${held}. ` : '') +
        'The band and whiskers: the 95% interval of the mean over the replicates (Student\'s t).' +
        (s.ambiguous ? ` ${ns.COLLIDE_NOTE}` : '');
    }

    return {
      show(t) {
        table = t;
        section.hidden = false;
        // A new file: its first factor against x (in a continuation one
        // other than the swept one: the branches have a view of their own),
        // a line per value of the next (or per branch) when they are few.
        const others = t.factors.filter((f) => f !== 'branch' && f !== t.swept);
        choice.x = others[0] ?? t.swept;
        choice.fixed = {};
        const next = [...others.slice(1), ...(t.continuation ? ['branch'] : [])];
        choice.by = next.find((f) => ns.distinctValues(t.points, f).length <= ns.LINE_COLORS.length) ?? NONE;
        render();
      },
    };
  };
})(globalThis.SwarmcastExperiment ??= {});
