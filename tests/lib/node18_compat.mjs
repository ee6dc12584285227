// What Debian 12's own Node.js (18.20) lacks, found in the text of the
// JavaScript the suites run. The README's scripts/test.sh runs on that Node,
// while CI machines have Node 20, where a suite that uses something newer
// still passes: a suite that imported node:test's `suite` broke every fresh
// Debian 12 and nothing here noticed. Each rule names what is missing and in
// which Node it came; the list holds what a suite plausibly reaches for, it
// is not all of Node 20.

// node:test's exports in Node 18.20.4 (Debian 12's nodejs 18.20.4+dfsg).
export const NODE_TEST_EXPORTS_18 = new Set([
  'after', 'afterEach', 'before', 'beforeEach', 'default', 'describe', 'it',
  'mock', 'only', 'run', 'skip', 'test', 'todo',
]);

// Test-runner options `node --help` of 18.20 lists.
export const TEST_FLAGS_18 = new Set([
  '--test', '--test-concurrency', '--test-name-pattern', '--test-only',
  '--test-reporter', '--test-reporter-destination', '--test-shard',
  '--experimental-test-coverage',
]);

// Named imports from node modules that came after 18.20.
const NEWER_NAMED_IMPORTS = {
  fs: { glob: '22', globSync: '22', openAsBlob: '19.8' },
  'fs/promises': { glob: '22' },
  util: { styleText: '20.12', parseEnv: '21.7' },
  process: { loadEnvFile: '21.7', getBuiltinModule: '22.3' },
  path: { matchesGlob: '22.5' },
};

// Language and library features newer than V8 10.2 / Node 18.20.
const NEWER_FEATURES = [
  [/\.(toSorted|toReversed|toSpliced)\(/, 'Array.prototype.$1 (Node 20)'],
  [/\.(isWellFormed|toWellFormed)\(/, 'String.prototype.$1 (Node 20)'],
  [/\b(Object|Map)\.groupBy\b/, '$1.groupBy (Node 21)'],
  [/\bPromise\.withResolvers\b/, 'Promise.withResolvers (Node 22)'],
  [/\bArray\.fromAsync\b/, 'Array.fromAsync (Node 22)'],
  [/\bimport\.meta\.(dirname|filename)\b/, 'import.meta.$1 (Node 20.11)'],
  [/\bmock\.timers\b/, 'mock.timers (its 18.20 API differs from 20\'s)'],
  [/\bt\.(plan|assert)\b/, 'the test context\'s $1 (Node 22)'],
  [/\\p\{[^}\n]*\}[^\n]*?\/[dgimsuy]*v[dgimsuy]*(?![\w$])/, 'a RegExp with the v flag (Node 20)'],
  [/new RegExp\([^)]*,\s*['"][a-z]*v[a-z]*['"]\)/, 'a RegExp with the v flag (Node 20)'],
];

// Globals a browser has and Node 18 does not: fine in client-web's code for
// the page, but a suite must import them (ws's WebSocket, node:crypto).
const NEWER_GLOBALS = [
  ['WebSocket', /\bnew WebSocket\b|\bWebSocket\.(OPEN|CLOSED|CONNECTING|CLOSING)\b/, 'Node 22'],
  ['crypto', /(?<![\w.$])crypto\.\w/, 'Node 19'],
  ['navigator', /(?<![\w.$])navigator\.\w/, 'Node 21'],
  ['CustomEvent', /\bnew CustomEvent\b/, 'Node 19'],
  ['File', /\bnew File\(/, 'Node 20'],
];

// Comments say what they like; only code counts.
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function namedImports(code) {
  const out = [];
  for (const m of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?([\w/]+)['"]/g)) {
    for (const spec of m[1].split(',')) {
      const name = spec.trim().split(/\s+as\s+/)[0];
      if (name) out.push({ module: m[2], name });
    }
  }
  return out;
}

function declares(code, name) {
  return new RegExp(`import\\s+(\\*\\s+as\\s+)?${name}\\b|import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}|` +
    `(const|let|var)\\s+${name}\\b|\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=|globalThis\\.${name}\\s*=`).test(code);
}

// Problems in one file's text, as strings; none when it runs on Node 18.20.
// `isSuite`: the file is test code (tests/…), where the browser's globals
// must be imported; client-web's modules are also the page's, where they
// are not.
export function node18Problems(text, { isSuite = true } = {}) {
  const code = stripComments(text);
  const problems = [];
  for (const { module, name } of namedImports(code)) {
    if (module === 'test' && !NODE_TEST_EXPORTS_18.has(name)) {
      problems.push(`imports ${name} from node:test, which Node 18.20 does not export`);
    }
    const since = NEWER_NAMED_IMPORTS[module]?.[name];
    if (since) problems.push(`imports ${name} from node:${module} (Node ${since})`);
  }
  for (const [re, what] of NEWER_FEATURES) {
    const m = code.match(re);
    if (m) problems.push(`uses ${what.replace('$1', m[1])}: ${m[0].trim()}`);
  }
  if (isSuite) {
    for (const [name, re, since] of NEWER_GLOBALS) {
      if (re.test(code) && !declares(code, name)) {
        problems.push(`uses the global ${name} without importing it (a global only since ${since})`);
      }
    }
  }
  return problems;
}

// Problems in a command line that starts node's test runner (from
// tests/CMakeLists.txt or package.json): options 18.20 does not know.
export function node18FlagProblems(text) {
  const problems = [];
  for (const m of text.matchAll(/(?<![\w-])(--(?:experimental-)?test[\w-]*)/g)) {
    if (!TEST_FLAGS_18.has(m[1])) problems.push(`passes ${m[1]}, which node 18.20 does not know`);
  }
  return problems;
}
