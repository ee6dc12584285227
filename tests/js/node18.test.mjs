// The suites run on Debian 12's own Node.js (18.20), which the README's
// scripts/test.sh uses on a fresh machine, even where this runs on a newer
// Node: the JavaScript the suites run (tests/, and the client-web modules
// they import) and the runner's options (tests/CMakeLists.txt,
// package.json) use nothing 18.20 lacks (tests/lib/node18_compat.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { node18Problems, node18FlagProblems } from '../lib/node18_compat.mjs';

const testsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function jsFilesUnder(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') out.push(...jsFilesUnder(p));
    } else if (/\.(mjs|js)$/.test(e.name)) {
      out.push(p);
    }
  }
  return out;
}

// The modules outside tests/ that the suites import, and what they import.
function importedOutside(files) {
  const seen = new Set();
  const queue = [...files];
  while (queue.length) {
    const file = queue.pop();
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), m[1]);
      if (target.startsWith(testsDir + path.sep) || seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return [...seen];
}

test('each rule finds what Node 18.20 lacks and passes what it has', () => {
  const bad = {
    "import { suite, test } from 'node:test';": /suite from node:test/,
    "import { test, describe as suite } from 'node:test'; import { styleText } from 'node:util';": /styleText from node:util/,
    "import { globSync } from 'node:fs';": /globSync from node:fs/,
    'const s = xs.toSorted((a, b) => a - b);': /Array\.prototype\.toSorted/,
    'if (!text.isWellFormed()) throw 1;': /String\.prototype\.isWellFormed/,
    'const g = Object.groupBy(xs, f);': /Object\.groupBy/,
    'const { promise, resolve } = Promise.withResolvers();': /Promise\.withResolvers/,
    'const here = import.meta.dirname;': /import\.meta\.dirname/,
    "mock.timers.enable({ apis: ['setTimeout'] });": /mock\.timers/,
    'const emoji = /^\\p{RGI_Emoji}$/v;': /v flag/,
    "const ws = new WebSocket('ws://127.0.0.1:1/');": /global WebSocket/,
    'const id = crypto.randomUUID();': /global crypto/,
  };
  for (const [code, want] of Object.entries(bad)) {
    const problems = node18Problems(code);
    assert.ok(problems.some((p) => want.test(p)), `${code} -> ${JSON.stringify(problems)}`);
  }
  const good = [
    "import { test, describe as suite, before, after, mock } from 'node:test';",
    "import WebSocket from 'ws';\nconst ws = new WebSocket('ws://127.0.0.1:1/');",
    "import { randomUUID } from 'node:crypto';\nimport crypto from 'node:crypto';\nconst id = crypto.randomUUID();",
    'const last = xs.findLast((x) => x > 1); const ok = Object.hasOwn(o, "k");',
    '// Node 20 has xs.toSorted(), import.meta.dirname and suite from node:test\nconst x = 1;',
    'const letters = /^\\p{L}+$/u; const ratio = a / v;',
    'import data from "./p.json" with { type: "json" };',
  ];
  for (const code of good) assert.deepEqual(node18Problems(code), [], code);
  // In the page's own modules the browser's globals are fine.
  assert.deepEqual(node18Problems("const ws = new WebSocket(url, 'swarmcast.v2');", { isSuite: false }), []);

  assert.deepEqual(node18FlagProblems('node --test --test-reporter=spec --test-concurrency=1 js/'), []);
  assert.match(node18FlagProblems('node --test --test-timeout=5000 js/').join(), /--test-timeout/);
  assert.match(node18FlagProblems('node --test --test-force-exit js/').join(), /--test-force-exit/);
});

test('the suites, the helpers and the client-web modules they import use nothing Node 18.20 lacks', () => {
  // This test and the rules quote what they look for; they run under 18.20
  // themselves (scripts/test.sh on a fresh Debian 12).
  const quoting = new Set([fileURLToPath(import.meta.url), path.join(testsDir, 'lib', 'node18_compat.mjs')]);
  const suites = jsFilesUnder(testsDir).filter((f) => !quoting.has(f));
  const outside = importedOutside(suites);
  assert.ok(suites.length > 40 && outside.length > 10, `${suites.length} test files, ${outside.length} modules outside`);
  const found = [];
  for (const file of suites) {
    for (const p of node18Problems(readFileSync(file, 'utf8'))) found.push(`${path.relative(testsDir, file)}: ${p}`);
  }
  for (const file of outside) {
    for (const p of node18Problems(readFileSync(file, 'utf8'), { isSuite: false })) {
      found.push(`${path.relative(testsDir, file)}: ${p}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the test runner is started with options Node 18.20 knows', () => {
  const cmake = readFileSync(path.join(testsDir, 'CMakeLists.txt'), 'utf8');
  const scripts = Object.values(JSON.parse(readFileSync(path.join(testsDir, 'package.json'), 'utf8')).scripts);
  assert.match(cmake, /--test-reporter=spec/); // the text read is the one that starts the runner
  assert.deepEqual([...node18FlagProblems(cmake), ...scripts.flatMap(node18FlagProblems)], []);
});
