// What the binary itself says its options' and parameters' defaults are: the
// text of `swarmcast --help` (and `swarmcast experiment --help`), parsed once.
// The documents' stated defaults are checked against this (defaults.test.mjs),
// so the one place a default lives is the binary.
import { execFileSync } from 'node:child_process';

// A number as the documents write it, captured whole: 1,000 and 200000 and
// 0.45, never a part of one (the "127" of 127.0.0.1, the "16" of "16–1024").
export const NUMBER = String.raw`(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?!\d|[.,]\d|\s*[×x–]|-\d)`;

// A default as the documents write it and as --help prints it: a number
// (1,000 and 1000 are one number) or a word.
export function normalizeValue(text) {
  const t = String(text).trim().replace(/^`|`$/g, '').trim();
  const n = t.replace(/(\d),(?=\d{3}\b)/g, '$1');
  if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(n)) return Number(n);
  const word = t.toLowerCase();
  // A boolean parameter is 1 or 0 in --help, true or false on the wire.
  return word === 'true' ? 1 : word === 'false' ? 0 : word;
}

// The value of a "(…)" group that ends an option's description, when it is a
// default rather than a remark: "(8080)", "(10, 200)", "(256: a room …)",
// "(none: all open)", "(1600x900)", "(127.0.0.1)", "(swarmcast)".
function defaultsIn(group) {
  const head = group.split(';')[0].trim();
  const values = head.replace(/:\s.*$/, '').split(/,\s*/);
  const valueLike = (v) =>
    /^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(v) || /^\d+x\d+$/.test(v) || /^\d+\.\d+\.\d+\.\d+$/.test(v) ||
    /^(none|any|random|open|off|on|swarmcast)$/.test(v);
  return values.every(valueLike) ? values : null;
}

// Options: the lines "  --name ARG   ENV_VAR   description (default)" with
// their continuation lines (indented past the columns). Returns
// Map flag → { flag, env, takesArg, text, default } where default is the
// normalized value, or undefined when the help states none.
export function parseOptions(help) {
  const options = [];
  let current = null;
  for (const line of help.split('\n')) {
    const m = /^  (--[a-z0-9-]+)(?: ([A-Z][A-Za-z:[\],=]*))?\s+(?:(SWARMCAST_[A-Z_]+)\s+)?(.*)$/.exec(line);
    if (m) {
      current = { flag: m[1], takesArg: Boolean(m[2]), env: m[3] ?? null, text: m[4].trim() };
      options.push(current);
    } else if (current && /^ {20,}\S/.test(line)) {
      current.text += ' ' + line.trim();
    } else {
      current = null;
    }
  }
  const byFlag = new Map();
  options.forEach((o, i) => {
    // The last "(…)" group of the description that holds values: "(300): every
    // room …" states the default mid-sentence, "(none: all open) (make a …)"
    // before a remark.
    const groups = [...o.text.matchAll(/\(([^()]*)\)/g)].map((g) => defaultsIn(g[1])).filter(Boolean);
    const values = groups.at(-1);
    if (!o.takesArg) {
      o.default = 'off'; // a switch is off unless given ("(1: on)" is its variable's value)
    } else if (values && values.length === 1) {
      o.default = normalizeValue(values[0]);
    } else if (values && values.length === 2 && i > 0 && options[i - 1].default === undefined &&
               !/\)$/.test(options[i - 1].text)) {
      // One description over two lines, "(10, 200)": the two options in order.
      options[i - 1].default = normalizeValue(values[0]);
      o.default = normalizeValue(values[1]);
    }
    byFlag.set(o.flag, o);
  });
  return byFlag;
}

// Parameters: "  name   range   default X   help".
export function parseParams(help) {
  const params = new Map();
  for (const m of help.matchAll(/^  ([a-z][a-z0-9_]*)\s+(\S+)(?: ([^\s]+))?\s+default (\S+)\s/gm)) {
    const [lo, hi] = m[2].includes('..') ? m[2].split('..') : [null, null];
    params.set(m[1], {
      name: m[1],
      default: normalizeValue(m[4]),
      min: lo === null ? null : normalizeValue(lo),
      max: hi === null ? null : normalizeValue(hi),
      values: lo === null ? m[2].split('|') : null,
    });
  }
  return params;
}

export function readHelp(bin, args = ['--help']) {
  return execFileSync(bin, args, { encoding: 'utf8', timeout: 10000 });
}

// The environment file the binary prints (`swarmcast --env-file`, where it
// has one): Map flag → default as written ("# --port N: …" then
// "# default: 8080"), or null when this binary has no such listing.
export function readEnvFileDefaults(bin) {
  let text;
  try {
    text = execFileSync(bin, ['--env-file'], { encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
  const out = new Map();
  for (const m of text.matchAll(/^# (--[a-z0-9-]+)[^\n]*\n# default: ([^\n]*)/gm)) out.set(m[1], m[2].trim());
  return out;
}
