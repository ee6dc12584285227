// Continuation sweeps (docs/EXPERIMENTS.md, "Continuation"): a summary with
// a `stage` column holds, per design point, one row per stage of the chain,
// in the order the swept factor went (up, down, or up then back down). The
// branches are the chain's monotone stretches: split where the direction
// turns, so hysteresis shows as two lines over the same swept values. Pure.
(function (ns) {
  'use strict';

  // The swept values in stage order → each stage's branch: 'up' or 'down'
  // (a later stretch in a direction already used gets a number: 'up 2').
  // A turning point belongs to the stretch that reached it; a chain of one
  // value is 'up'.
  function branchLabels(values) {
    const v = values.map(Number);
    const labels = [];
    const used = new Map();
    let direction = null;
    let label = 'up';
    for (let i = 0; i < v.length; i++) {
      const step = i + 1 < v.length ? Math.sign(v[i + 1] - v[i]) : 0;
      // Stage i belongs to the stretch that arrived at it; stage 0 to the
      // one it starts.
      const arriving = i > 0 ? Math.sign(v[i] - v[i - 1]) : step;
      const d = arriving < 0 ? 'down' : 'up';
      if (d !== direction) {
        direction = d;
        const n = (used.get(d) ?? 0) + 1;
        used.set(d, n);
        label = n === 1 ? d : `${d} ${n}`;
      }
      labels.push(label);
    }
    return labels;
  }

  // Marks each row of a continuation summary with its branch: adds the
  // pseudo-factor `branch` to the table (so a picture can hold it at a
  // value or draw one line per branch), and sets table.swept (the factor
  // whose value changes along a chain) and table.turns (the swept values
  // where one branch hands over to the next, in order). A summary without
  // stages is returned as it is.
  function addBranches(table) {
    if (!table.continuation) return table;
    const chains = new Map();
    for (const p of table.points) {
      if (!chains.has(p.point)) chains.set(p.point, []);
      chains.get(p.point).push(p);
    }
    for (const rows of chains.values()) rows.sort((a, b) => a.stage - b.stage);
    const swept = table.factors.find((f) => [...chains.values()].some(
      (rows) => rows.some((r) => r.factors[f] !== rows[0].factors[f])));
    // Every chain goes the same path (one swept factor, one list of values):
    // the first says where the branches turn.
    let turns = null;
    for (const rows of chains.values()) {
      const labels = swept ? branchLabels(rows.map((r) => r.factors[swept])) : rows.map(() => 'up');
      rows.forEach((r, i) => { r.factors.branch = labels[i]; });
      turns ??= rows.filter((r, i) => i + 1 < rows.length && labels[i + 1] !== labels[i]).map((r) => r.factors[swept]);
    }
    return { ...table, factors: [...table.factors, 'branch'], swept: swept ?? null, turns: turns ?? [] };
  }

  // The metric against the swept factor, one line per branch, the other
  // factors held at `fixed`. Where a branch starts from the previous one's
  // turning point it has no row of its own there (the top is not repeated);
  // the previous branch's value is drawn there too, so the lines meet as
  // the chain did.
  function hysteresis(table, { metric, fixed = {} }) {
    const { branch, ...others } = fixed;
    const series = ns.seriesAgainst(table, { metric, x: table.swept, by: 'branch', fixed: others });
    series.lines.forEach((line, k) => {
      const turn = table.turns[k - 1];
      const i = series.xs.indexOf(turn);
      if (k === 0 || i < 0 || line.mean[i] !== null) return;
      const before = series.lines[k - 1];
      line.mean[i] = before.mean[i];
      line.lo[i] = before.lo[i];
      line.hi[i] = before.hi[i];
    });
    return series;
  }

  ns.branchLabels = branchLabels;
  ns.addBranches = addBranches;
  ns.hysteresis = hysteresis;
})(globalThis.SwarmcastExperiment ??= {});
