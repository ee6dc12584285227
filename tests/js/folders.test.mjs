// The web client's folders use each other one way only: the imports between
// client-web/<folder>/ modules form no cycle, and view/ (the geometry: the
// world-to-screen mapping and the camera) uses nothing outside itself, so
// that draw/ and input/ both build on it (issue 24, "the house").
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const webRoot = fileURLToPath(new URL('../../client-web/', import.meta.url));
// experiment/ is a page of its own (classic scripts), node_modules is npm's.
const SKIP = new Set(['node_modules', 'experiment']);

// folder → Set of the other folders its modules import from.
function folderGraph() {
  const graph = new Map();
  for (const folder of readdirSync(webRoot)) {
    const dir = path.join(webRoot, folder);
    if (SKIP.has(folder) || !statSync(dir).isDirectory()) continue;
    const uses = new Set();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) {
        const target = path.relative(webRoot, path.resolve(dir, m[1])).split(path.sep);
        if (target.length > 1 && target[0] !== folder) uses.add(target[0]);
      }
    }
    graph.set(folder, uses);
  }
  return graph;
}

// A cycle as a list of folders, or null.
function findCycle(graph) {
  const state = new Map(); // folder → 'open' | 'done'
  const stack = [];
  function visit(f) {
    if (state.get(f) === 'done') return null;
    if (state.get(f) === 'open') return [...stack.slice(stack.indexOf(f)), f];
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      const c = visit(g);
      if (c) return c;
    }
    stack.pop();
    state.set(f, 'done');
    return null;
  }
  for (const f of graph.keys()) {
    const c = visit(f);
    if (c) return c;
  }
  return null;
}

test('the folders of client-web import each other one way (no cycle)', () => {
  const graph = folderGraph();
  assert.ok(graph.has('draw') && graph.has('input') && graph.has('view'), [...graph.keys()].join());
  assert.equal(findCycle(graph)?.join(' → ') ?? null, null);
});

test('view/ stands alone; draw/ does not use input/', () => {
  const graph = folderGraph();
  assert.deepEqual([...graph.get('view')], []);
  assert.equal(graph.get('draw').has('input'), false);
  assert.ok(graph.get('draw').has('view') && graph.get('input').has('view'));
});

test('the cycle finder finds one', () => {
  assert.deepEqual(findCycle(new Map([['a', new Set(['b'])], ['b', new Set(['a'])]])), ['a', 'b', 'a']);
  assert.equal(findCycle(new Map([['a', new Set(['b'])], ['b', new Set()]])), null);
});
