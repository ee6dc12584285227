// Loads the web client's classic (non-module) scripts into this Node
// process, the way the page's <script> tags load them, for unit tests of
// their pure parts. They run in this realm (vm.runInThisContext), so their
// arrays and objects compare with assert.deepEqual like the test's own.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

import { repoRoot } from './server.mjs';

/** Runs client-web/<file> for each file, in order; returns globalThis[namespace]. */
export function loadClassicScripts(files, namespace) {
  for (const f of files) {
    const filename = path.join(repoRoot, 'client-web', f);
    vm.runInThisContext(readFileSync(filename, 'utf8'), { filename });
  }
  return globalThis[namespace];
}
