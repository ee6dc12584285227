// Numbers as the C sources define them, for the docs tests: `#define NAME expr`
// and designated initializers `.name = expr`, evaluated (integer suffixes,
// casts and arithmetic of constants only).
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { repoRoot } from './doc_files.mjs';

function evaluate(expr, where) {
  const plain = expr
    .replace(/\/\*.*$/, '') // a comment, closed on this line or not
    .replace(/\((?:size_t|double|int|unsigned|uint64_t)\)/g, '')
    .replace(/(\d(?:\.\d+)?)(?:ull|ul|u|f)\b/gi, '$1')
    .trim();
  if (!/^[\d\s.+\-*/()<>]+$/.test(plain)) throw new Error(`${where}: cannot evaluate '${expr}'`);
  return Function(`"use strict"; return (${plain});`)();
}

function source(file) {
  return readFileSync(path.join(repoRoot, file), 'utf8');
}

// The value of `#define NAME …` in file.
export function define(file, name) {
  const m = new RegExp(`^#define ${name}\\s+(.+)$`, 'm').exec(source(file));
  if (!m) throw new Error(`${file}: no #define ${name}`);
  return evaluate(m[1], `${file} ${name}`);
}

// The value given to a field in a designated initializer: `.name = expr,`.
export function field(file, name) {
  const m = new RegExp(`\\.${name}\\s*=\\s*([^,}\\n]+)`).exec(source(file));
  if (!m) throw new Error(`${file}: no .${name} = …`);
  return evaluate(m[1], `${file} .${name}`);
}

// The costs of commands as client_policy.c's switch returns them:
// Map 'set_target' → 1, … (a case that returns a named constant is looked up
// in client_policy.h; add_agents's count-dependent cost is its base).
export function commandCosts() {
  const file = 'server/src/people/client_policy.c';
  const text = source(file);
  const body = /base_cost\([^)]*\)\s*\{([\s\S]*?)\n\}/.exec(text)[1];
  const costs = new Map();
  let pending = [];
  for (const line of body.split('\n')) {
    const c = /case CMD_([A-Z_]+):/.exec(line);
    if (c) pending.push(c[1].toLowerCase());
    const r = /return ([^;]+);/.exec(line);
    if (r && pending.length) {
      const expr = r[1].trim();
      const value = /^POLICY_[A-Z_]+$/.test(expr)
        ? define('server/src/people/client_policy.h', expr)
        : evaluate(expr.replace(/\s*\+\s*cmd->count\s*\/\s*100(\.0)?/, ''), `${file} ${expr}`);
      for (const k of pending) costs.set(k, value);
      pending = [];
    }
  }
  return costs;
}
