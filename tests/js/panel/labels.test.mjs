// Tests of the panel's readable labels and sections (client-web/panel/labels.js,
// client-web/panel/params.js's grouping and help text).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { labelOf, sectionOf, sectionOfModel, SECTIONS } from '../../../client-web/panel/labels.js';
import { groupParams, helpText, modelGroupKey } from '../../../client-web/panel/params.js';

// Every parameter of the server's registry (server/src/sim/params.c).
const registry = readFileSync(fileURLToPath(new URL('../../../server/src/sim/params.c', import.meta.url)), 'utf8');
const names = [...registry.matchAll(/^\s+\{"([a-z0-9_]+)", PARAM_/gm)].map((m) => m[1]);

test('every parameter of the server has a readable label of its own, not its name', () => {
  assert.ok(names.length >= 60, `${names.length} parameters found`);
  const labels = new Set();
  for (const n of names) {
    const l = labelOf(n);
    assert.notEqual(l.toLowerCase(), n.toLowerCase(), `${n} has a label`);
    assert.match(l, /^[A-Z]/, `${n}: "${l}" starts with a capital`);
    labels.add(l);
  }
  assert.equal(labels.size, names.length, 'no two parameters share a label');
});

test('a parameter the table does not know is labelled from its help text, or its name', () => {
  assert.equal(labelOf({ name: 'zz_new', help: 'speed of the new thing; more text' }), 'Speed of the new thing');
  assert.equal(labelOf({ name: 'zz_new_thing' }), 'Zz new thing');
  assert.equal(sectionOf('os_new'), 'os');
  assert.equal(sectionOf('zz_new'), 'world');
});

test('parameters are grouped in the sections\' order, without the model, and the model opens its section', () => {
  const params = names.map((name) => ({ name, type: 'float' }));
  const groups = groupParams(params);
  const order = SECTIONS.map((s) => s.key);
  assert.deepEqual(groups.map((g) => g.key), order.filter((k) => groups.some((g) => g.key === k)));
  assert.equal(groups.flatMap((g) => g.params).length, names.length - 1, 'all but `model`');
  assert.equal(groups.find((g) => g.key === 'rules').params[0].name, 'w_sep');
  assert.equal(modelGroupKey('reynolds'), 'rules');
  assert.equal(modelGroupKey('olfati2'), 'os');
  assert.equal(sectionOfModel('unicycle'), 'uni');
  assert.equal(sectionOfModel('couzin'), 'cz');
});

test('help text says what a parameter does, its range with the unit and its default', () => {
  const p = { name: 'sep_radius', type: 'float', min: 1, max: 200, default: 25, unit: 'u', help: 'separation zone radius' };
  assert.equal(helpText(p), 'Separation zone radius. Range 1 … 200 u. Default 25 u.');
  const e = { name: 'border', type: 'enum', values: ['wrap', 'bounce'], default: 'wrap', help: 'what the edge does' };
  assert.equal(helpText(e), 'What the edge does. One of wrap, bounce. Default wrap.');
});
