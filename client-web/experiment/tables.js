// The runner's two tables, recognised by their header (docs/EXPERIMENTS.md):
//   summary.csv: point, <factors…>, [stage], runs, then <metric>_mean,
//                <metric>_sd, <metric>_ci95 for each metric;
//   results.csv: run_id, point, replicate, seed, <factors…>, stage, tick,
//                then the metrics.
// Factor values stay strings (an enum parameter's value is a name; two
// values are the same when their text is); metrics become numbers or null.
(function (ns) {
  'use strict';

  function columnIndex(header) {
    const at = new Map();
    header.forEach((name, i) => at.set(name, i));
    return at;
  }

  function readSummary({ header, rows }) {
    const at = columnIndex(header);
    const runsAt = at.get('runs');
    const stageAt = at.get('stage');
    const factorsEnd = stageAt ?? runsAt;
    const factors = header.slice(1, factorsEnd);
    const metrics = [];
    for (let i = runsAt + 1; i < header.length; i++) {
      const m = /^(.*)_mean$/.exec(header[i]);
      if (m && at.has(`${m[1]}_ci95`)) metrics.push(m[1]);
    }
    const points = rows.map((r) => {
      const stats = {};
      for (const m of metrics) {
        stats[m] = {
          mean: ns.cellNumber(r[at.get(`${m}_mean`)]),
          sd: ns.cellNumber(r[at.get(`${m}_sd`)]),
          ci95: ns.cellNumber(r[at.get(`${m}_ci95`)]),
        };
      }
      const values = {};
      factors.forEach((f, k) => { values[f] = r[1 + k]; });
      return {
        point: Number(r[0]),
        factors: values,
        stage: stageAt === undefined ? null : Number(r[stageAt]),
        runs: Number(r[runsAt]),
        stats,
      };
    });
    return { kind: 'summary', factors, metrics, continuation: stageAt !== undefined, points };
  }

  function readResults({ header, rows }) {
    const at = columnIndex(header);
    const stageAt = at.get('stage');
    const tickAt = at.get('tick');
    const factors = header.slice(4, stageAt);
    const metrics = header.slice(tickAt + 1);
    const runs = [];
    const byId = new Map();
    for (const r of rows) {
      let run = byId.get(r[0]);
      if (!run) {
        const values = {};
        factors.forEach((f, k) => { values[f] = r[4 + k]; });
        run = {
          runId: r[0], point: Number(r[1]), replicate: Number(r[2]), seed: r[3],
          factors: values, ticks: [], values: Object.fromEntries(metrics.map((m) => [m, []])),
        };
        byId.set(r[0], run);
        runs.push(run);
      }
      run.ticks.push(Number(r[tickAt]));
      metrics.forEach((m, k) => run.values[m].push(ns.cellNumber(r[tickAt + 1 + k])));
    }
    return { kind: 'results', factors, metrics, runs };
  }

  // Parsed CSV → a summary or results table; throws for any other file.
  function readTable(parsed) {
    const h = parsed.header;
    if (h[0] === 'point' && h.includes('runs')) return readSummary(parsed);
    if (h[0] === 'run_id' && h.includes('tick') && h.includes('stage')) return readResults(parsed);
    throw new Error('not a summary.csv or results.csv of `swarmcast experiment run` (its header starts with ' +
      `"${h.slice(0, 3).join(',')}")`);
  }

  ns.readTable = readTable;
})(globalThis.SwarmcastExperiment ??= {});
