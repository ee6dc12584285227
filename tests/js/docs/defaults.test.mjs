// Docs that cannot drift (issue 27): every default, limit and cost that
// README.md, docs/*.md and protocol/PROTOCOL.md state is the binary's.
//   - the options' and parameters' defaults as `swarmcast --help` prints them,
//     compared with every table of defaults and every "`--flag` N",
//     "`--flag` (N …)", "N (`--flag`)" and "`--flag` … (default N)" in prose
//     (parameters likewise: "`max_candidates` (256, at most 1024)");
//   - the other limits (stated_limits.mjs) against the sources' constants.
// A mention of a flag with a number that is not its default (a benchmark's
// set-up, a past figure) is listed in NOT_DEFAULTS below with why.
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/js/docs/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { serverBin } from '../../lib/server.mjs';
import { lineAt, readDocs, tables } from './doc_files.mjs';
import { NUMBER, normalizeValue, parseOptions, parseParams, readEnvFileDefaults, readHelp } from './help_options.mjs';
import { paramLimits, statedLimits, WORDS } from './stated_limits.mjs';

const help = readHelp(serverBin);
const options = parseOptions(help);
const params = parseParams(help);
const docs = readDocs();

// Mentions of a flag or parameter followed by a number that is not a claim
// about its default: the text around it (enough to be unique) and why.
const NOT_DEFAULTS = [
  ['The load part gives `--max-agents` 52,000', 'a benchmark\'s set-up (BENCHMARKS)'],
  ['helper with `--threads` 2', 'a benchmark\'s set-up (BENCHMARKS)'],
];

// Defaults the help describes in words rather than as a value: the docs must
// say the same in their words (each pair: a phrase of the help's default,
// phrases one of which the docs' default must hold).
const DESCRIBED = {
  '--web-root': { help: /directory of the web client/, docs: [/client-web/, /share\/swarmcast/] },
  '--max-agents': { help: /\(derived from/, docs: [/derived/] },
  '--threads': { help: /\(the machine's cores\)/, docs: [/the machine's cores/] },
  '--metrics-listen': { help: /\(127\.0\.0\.1:PORT\+1000/, docs: [/127\.0\.0\.1:.*port \+ 1000/] },
  '--public-url': { help: /when it is not the page's own/, docs: [/the page's own/] },
  '--relay-name': { help: /\(relay-TAG\)/, docs: [/^`?relay-N`?$/] },
  '--model': { help: /the same as --set model=NAME/, docs: [new RegExp(`^\`?${params.get('model')?.default}\`?$`)] },
};

function where(doc, offset) {
  return `${doc.path}:${lineAt(doc.prose, offset)}`;
}

function isNotDefault(doc, offset, length) {
  const around = doc.prose.slice(Math.max(0, offset - 80), offset + length + 80).replace(/\s+/g, ' ');
  return NOT_DEFAULTS.some(([text]) => around.includes(text));
}

// Compare a stated default with the binary's; returns a problem or null.
function checkFlag(flag, stated, at) {
  const o = options.get(flag);
  if (!o) return `${at}: ${flag} is not an option of swarmcast --help`;
  const said = normalizeValue(stated);
  if (o.default === undefined) {
    const d = DESCRIBED[flag];
    if (d) {
      if (!d.help.test(o.text)) return `${at}: ${flag}: the help no longer says ${d.help}`;
      return d.docs.some((re) => re.test(String(stated))) ? null : `${at}: ${flag} default '${stated}', the help: ${o.text}`;
    }
    return said === 'none' ? null : `${at}: ${flag} default '${stated}' but --help states none (${o.text})`;
  }
  return said === o.default ? null : `${at}: ${flag} default '${stated}' but swarmcast --help says ${o.default}`;
}

function checkParam(name, field, stated, at) {
  const value = params.get(name)[field];
  const said = normalizeValue(stated);
  return said === value ? null : `${at}: parameter ${name} ${field} '${stated}' but swarmcast --help says ${value}`;
}

test('swarmcast --help gives the options and parameters with their defaults', () => {
  const withDefaults = [...options.values()].filter((o) => typeof o.default === 'number');
  assert.ok(options.size >= 50, `options parsed: ${options.size}`);
  assert.ok(withDefaults.length >= 20, `numeric defaults parsed: ${withDefaults.length}`);
  assert.ok(params.size >= 70, `parameters parsed: ${params.size}`);
  // Spot checks of the parser on lines of each shape (the values are the
  // help's own: a default that moves moves here with the docs).
  assert.equal(typeof options.get('--port').default, 'number');
  assert.equal(typeof options.get('--connect-rate').default, 'number'); // "(10, 200)" over two lines
  assert.equal(typeof options.get('--connect-burst').default, 'number');
  assert.equal(typeof options.get('--room-agents').default, 'number'); // "(300): every room …"
  assert.equal(options.get('--deflate').default, 'off');
});

test('the binary\'s other listing of defaults (--env-file) agrees with what was read from --help', (t) => {
  const listed = readEnvFileDefaults(serverBin);
  if (!listed) {
    t.skip('this binary prints no --env-file');
    return;
  }
  assert.ok(listed.size >= 20, `defaults in --env-file: ${listed.size}`);
  const problems = [];
  for (const [flag, text] of listed) {
    const fromHelp = options.get(flag)?.default;
    const value = normalizeValue(text.split(/[:;]\s/)[0]);
    if (typeof value === 'number' || typeof fromHelp === 'number') {
      if (value !== fromHelp) problems.push(`${flag}: --env-file says ${text}, --help ${fromHelp}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('tables of defaults in the docs say what swarmcast --help says', () => {
  const problems = [];
  let checked = 0;
  for (const doc of docs) {
    for (const t of tables(doc)) {
      const header = t.header.map((h) => h.toLowerCase());
      const col = (name) => header.indexOf(name);
      const def = col('default');
      if (def < 0) continue;
      for (const row of t.rows) {
        const at = `${doc.path}:${row.line}`;
        const flags = [...row.cells[0].matchAll(/`(--[a-z0-9-]+)[^`]*`/g)].map((m) => m[1]);
        const cell = row.cells[def] ?? '';
        if (flags.length && cell) {
          // "`10`, `200`" for two flags in one row, in order.
          const values = flags.length > 1 && cell.includes(',') ? cell.split(/,\s*/) : flags.map(() => cell);
          if (values.length !== flags.length) { problems.push(`${at}: ${flags.length} flags, defaults '${cell}'`); continue; }
          flags.forEach((f, i) => { checked++; const p = checkFlag(f, values[i], at); if (p) problems.push(p); });
        }
        // The parameters' table: name, type, min, max, default.
        const name = /^`([a-z][a-z0-9_]*)`$/.exec(row.cells[0])?.[1];
        if (name && params.has(name)) {
          for (const f of ['min', 'max', 'default']) {
            const c = col(f);
            if (c < 0 || (row.cells[c] ?? '') === '') continue;
            checked++;
            const p = checkParam(name, f, row.cells[c], at);
            if (p) problems.push(p);
          }
        }
      }
    }
  }
  assert.ok(checked >= 100, `table cells checked: ${checked}`);
  assert.deepEqual(problems, []);
});

test('prose that gives an option\'s or a parameter\'s default says what swarmcast --help says', () => {
  const problems = [];
  const seen = new Set();
  let checked = 0;
  const FLAG = String.raw`(--[a-z0-9-]+)`;
  const NAME = String.raw`(--[a-z0-9-]+|[a-z][a-z0-9_]*)`;
  const rules = [
    // `--flag` 512, `--flag` (60 s)
    { re: new RegExp(String.raw`\`${FLAG}\`\s*\(?${NUMBER}`, 'g'), name: 1, value: 2 },
    // `max_candidates` (256, at most 1024): a parameter's default is the
    // number in brackets after it ("`w_target` 4" is a set-up, not a default)
    { re: new RegExp(String.raw`\`${NAME}\`\s*\(${NUMBER}`, 'g'), name: 1, value: 2 },
    // r_r = 1 → `cz_r_r` 10 u: the paper's value, then the parameter's default
    { re: new RegExp(String.raw`→\s*\`${NAME}\`\s*${NUMBER}`, 'g'), name: 1, value: 2 },
    // 3 (`--auth-failures`), 256 sessions (`--max-per-address`)
    { re: new RegExp(String.raw`${NUMBER}(?:\s+[a-z]+)?\s+\(\`${FLAG}\`\)`, 'g'), name: 2, value: 1 },
    // `--detail-budget`, default 200000; `--max-views` distinct views (default 256)
    { re: new RegExp(String.raw`\`${NAME}(?: [A-Z]+)?\`[^\`.;]{0,40}?\bdefaults?:?\s+(?:to\s+|is\s+)?\`?${NUMBER}`, 'g'), name: 1, value: 2 },
  ];
  for (const doc of docs) {
    for (const rule of rules) {
      for (const m of doc.prose.matchAll(rule.re)) {
        const [name, stated] = [m[rule.name], m[rule.value]];
        const isFlag = name.startsWith('--');
        if (isFlag ? !options.has(name) : !params.has(name)) continue;
        if (/e\.g\.\s*$/.test(doc.prose.slice(Math.max(0, m.index - 8), m.index))) continue;
        if (isNotDefault(doc, m.index, m[0].length)) continue;
        const at = where(doc, m.index);
        if (seen.has(`${at} ${name} ${stated}`)) continue;
        seen.add(`${at} ${name} ${stated}`);
        checked++;
        const p = isFlag ? checkFlag(name, stated, at) : checkParam(name, 'default', stated, at);
        if (p) problems.push(`${p}  («${m[0].replace(/\s+/g, ' ')}»)`);
        // "(256, at most 1024)": the range's top too.
        const most = /^[^)]*?,\s*at most\s+(\d[\d,]*)/.exec(doc.prose.slice(m.index + m[0].length, m.index + m[0].length + 40));
        if (!isFlag && most) {
          checked++;
          const q = checkParam(name, 'max', most[1], at);
          if (q) problems.push(q);
        }
      }
    }
  }
  assert.ok(checked >= 20, `prose statements checked: ${checked}`);
  assert.deepEqual(problems, []);
});

test('every NOT_DEFAULTS exception still stands in the docs', () => {
  const all = docs.map((d) => d.prose.replace(/\s+/g, ' ')).join('\n');
  assert.deepEqual(NOT_DEFAULTS.filter(([text]) => !all.includes(text)).map(([text]) => text), []);
});

test('the stated limits, costs, rates and close codes are the code\'s', () => {
  const problems = [];
  for (const limit of [...statedLimits, ...paramLimits(params)]) {
    const expected = limit.value(options);
    assert.ok([expected].flat().every(Number.isFinite), `${limit.what}: no value from the code`);
    let found = 0;
    for (const doc of docs) {
      for (const re of limit.find) {
        for (const m of doc.prose.matchAll(re)) {
          found++;
          m.slice(1).forEach((said, i) => {
            const value = said in WORDS ? WORDS[said] : normalizeValue(said);
            const want = Array.isArray(expected) ? expected[i] : expected;
            if (value !== want) problems.push(`${where(doc, m.index)}: ${limit.what}: the docs say ${said}, the code ${want}  («${m[0].replace(/\s+/g, ' ')}»)`);
          });
        }
      }
    }
    if (!found) problems.push(`${limit.what}: stated nowhere (its pattern matches no document: reworded? update stated_limits.mjs)`);
  }
  assert.deepEqual(problems, []);
});
