// Tests of the page's side of many hands: names as the server takes them
// (client-web/people/presence.js), and keys 1–5 (client-web/input/model_keys.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { cleanName, cleanColor, generateName, generateColor, NAME_MAX_CHARS } from '../../../client-web/people/presence.js';
import { attachModelKeys } from '../../../client-web/input/model_keys.js';

test('a name is trimmed and kept when it has 1 to 24 printable characters, counted as characters', () => {
  assert.equal(cleanName('  Ada  '), 'Ada');
  assert.equal(cleanName('é'.repeat(NAME_MAX_CHARS)), 'é'.repeat(24));
  assert.equal(cleanName('x'.repeat(25)), null);
  assert.equal(cleanName('   '), null);
  assert.equal(cleanName(''), null);
  assert.equal(cleanName('A\u0007'), null);
  assert.equal(cleanName('Line\nbreak'), null);
  assert.equal(cleanName('A\u202eB'), null);
  assert.equal(cleanName(7), null);
});

test('a colour is #rrggbb, given back in lower case', () => {
  assert.equal(cleanColor('#E4572E'), '#e4572e');
  for (const bad of ['#fff', 'e4572e', '#e4572g', '#e4572e0', 'red', null]) assert.equal(cleanColor(bad), null, String(bad));
});

test('generated names and colours are ones the server accepts', () => {
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  for (let k = 0; k < 200; k++) {
    const name = generateName(random);
    assert.equal(cleanName(name), name);
    assert.match(name, /^[A-Z][a-z]+ [A-Z][a-z]+ \d\d$/);
    const color = generateColor(random);
    assert.equal(cleanColor(color), color);
  }
});

// A key target that records listeners, and a keydown for it.
function keys() {
  const listeners = [];
  return {
    addEventListener: (type, fn) => listeners.push(fn),
    press: (key, extra = {}) => listeners.forEach((fn) => fn({ key, target: null, repeat: false, ...extra })),
  };
}

test('keys 1-3 and 5 send the switched value of rule_sep, rule_ali, rule_coh and density_radii', () => {
  const target = keys();
  const sent = [];
  const params = { rule_sep: true, rule_ali: true, rule_coh: false, density_radii: false };
  attachModelKeys({ keyTarget: target, getParams: () => params, send: (c) => sent.push(c), mayOperate: () => true });
  target.press('1');
  target.press('2');
  target.press('3');
  target.press('5');
  assert.deepEqual(sent, [
    { type: 'set_param', name: 'rule_sep', value: false },
    { type: 'set_param', name: 'rule_ali', value: false },
    { type: 'set_param', name: 'rule_coh', value: true },
    { type: 'set_param', name: 'density_radii', value: true },
  ]);
  // The page waits for the server's echo: the params it holds are unchanged.
  assert.equal(params.rule_sep, true);
});

test('two presses of key 1 before the server\'s echo switch separation off and on again', () => {
  const target = keys();
  const sent = [];
  const params = { rule_sep: true };
  let t = 1000;
  attachModelKeys({ keyTarget: target, getParams: () => params, send: (c) => sent.push(c.value), mayOperate: () => true, now: () => t });
  target.press('1');
  t += 50;
  target.press('1'); // no echo yet: undoes the first
  assert.deepEqual(sent, [false, true]);
  // The echoes arrive (off, then on); the next press goes by the world's value.
  params.rule_sep = true;
  t += 50;
  target.press('1');
  assert.deepEqual(sent, [false, true, false]);
  // A switch the server never confirmed stops counting after a while.
  t += 5000;
  target.press('1');
  assert.deepEqual(sent, [false, true, false, false]);
});

test('a visitor\'s rule keys send nothing and say why; key 4 is the page\'s own and always works', () => {
  const target = keys();
  const sent = [];
  const notes = [];
  let radii = null;
  const state = attachModelKeys({
    keyTarget: target,
    getParams: () => ({ rule_sep: true }),
    send: (c) => sent.push(c),
    mayOperate: () => false,
    onNotAllowed: (t) => notes.push(t),
    onToggleRadii: (on) => { radii = on; },
  });
  target.press('1');
  assert.deepEqual(sent, []);
  assert.match(notes[0], /separation needs the operator token/);
  target.press('4');
  assert.equal(radii, true);
  assert.equal(state.radii, true);
  target.press('4', { ctrlKey: true }); // a browser shortcut: not ours
  assert.equal(state.radii, true);
});
