// The line the experiment page shows to watch a run live
// (client-web/experiment/watch_command.js).
//   node --test tests/js/experiment/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadClassicScripts } from '../../lib/classic_scripts.mjs';

const X = loadClassicScripts(['experiment/watch_command.js'], 'SwarmcastExperiment');

test('the scenario of the run, then the server with it', () => {
  assert.equal(X.watchCommand('results/', '30442f789204ed62'),
    'swarmcast experiment scenario results/ 30442f789204ed62 > run.json && swarmcast --scenario run.json');
});

test('no folder yet: DIR, for the reader to replace', () => {
  assert.equal(X.watchCommand('  ', '30442f789204ed62'),
    'swarmcast experiment scenario DIR 30442f789204ed62 > run.json && swarmcast --scenario run.json');
});

test('a folder the shell would split or expand is quoted', () => {
  assert.equal(X.watchCommand("my runs/it's $HOME", 'ab'),
    "swarmcast experiment scenario 'my runs/it'\\''s $HOME' ab > run.json && swarmcast --scenario run.json");
  assert.equal(X.watchCommand('a;rm -rf x', 'ab'),
    "swarmcast experiment scenario 'a;rm -rf x' ab > run.json && swarmcast --scenario run.json");
});
