// The shell line that serves one run of a sweep live (docs/RESEARCH.md, "Watching one
// run of a sweep"): its scenario written by the runner, then the server
// started with it. Pure: the page shows it beside the runs it lists.
(function (ns) {
  'use strict';

  // A word the shell takes as it is; anything else is single-quoted.
  function shellWord(text) {
    if (/^[A-Za-z0-9_./:=@%+-]+$/.test(text)) return text;
    return `'${text.replace(/'/g, `'\\''`)}'`;
  }

  /** `swarmcast experiment scenario DIR RUN_ID > run.json && swarmcast --scenario run.json` */
  ns.watchCommand = function watchCommand(dir, runId) {
    const folder = shellWord(dir.trim() === '' ? 'DIR' : dir.trim());
    return `swarmcast experiment scenario ${folder} ${shellWord(runId)} > run.json && swarmcast --scenario run.json`;
  };
})(globalThis.SwarmcastExperiment ??= {});
