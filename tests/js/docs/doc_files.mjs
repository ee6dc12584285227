// The documents the docs tests read: README.md, docs/*.md and
// protocol/PROTOCOL.md, each as lines with what is prose and what is code.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { repoRoot } from '../../lib/server.mjs';

export { repoRoot };

export function docPaths() {
  const docs = readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs, 'protocol/PROTOCOL.md'];
}

// { path, text, lines, prose }: prose is the text with every fenced code
// block blanked (line numbers kept), so that an example command is not read
// as a statement.
export function readDoc(rel) {
  const text = readFileSync(path.join(repoRoot, rel), 'utf8');
  const lines = text.split('\n');
  let fenced = false;
  const prose = lines.map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return { path: rel, text, lines, prose: prose.join('\n') };
}

export function readDocs() {
  return docPaths().map(readDoc);
}

// The 1-based line of an offset in a text.
export function lineAt(text, offset) {
  let n = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

// Markdown tables: { header: [cells], rows: [{ cells, line }] }.
export function tables(doc) {
  const out = [];
  const lines = doc.prose.split('\n');
  const cells = (l) => l.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim());
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\|/.test(lines[i]) || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) continue;
    const table = { header: cells(lines[i]), rows: [] };
    let j = i + 2;
    for (; j < lines.length && /^\s*\|/.test(lines[j]); j++) table.rows.push({ cells: cells(lines[j]), line: j + 1 });
    out.push(table);
    i = j - 1;
  }
  return out;
}
