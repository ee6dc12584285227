// Tests of the "New room" choices (client-web/rooms/choices.js): the
// create_room command each sends, the room's name, and who is offered it.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  NEW_ROOM_CHOICES, ROOM_NAME_MAX, choiceByKey, cleanRoomName, createRoomCommand, mayCreateRooms,
} from '../../../client-web/rooms/choices.js';

test('the choices: the defaults, a copy of this room, and the shipped scenarios; keys unique', () => {
  const keys = NEW_ROOM_CHOICES.map((c) => c.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.deepEqual(keys.slice(0, 2), ['defaults', 'copy']);
  const scenarios = NEW_ROOM_CHOICES.filter((c) => c.from === 'scenario').map((c) => c.scenario);
  assert.ok(scenarios.includes('couzin-torus') && scenarios.includes('olfati-lattice'), scenarios.join());
  for (const c of NEW_ROOM_CHOICES) assert.ok(c.label && c.title, c.key);
});

test('each choice sends the create_room of the contract', () => {
  assert.deepEqual(createRoomCommand('defaults'), { type: 'create_room', from: 'defaults' });
  assert.deepEqual(createRoomCommand('copy', 'Group 3'), { type: 'create_room', from: 'copy', name: 'Group 3' });
  assert.deepEqual(createRoomCommand('scenario:couzin-torus', '  '),
    { type: 'create_room', from: 'scenario', scenario: 'couzin-torus' });
  assert.deepEqual(createRoomCommand(choiceByKey('scenario:olfati-lattice')),
    { type: 'create_room', from: 'scenario', scenario: 'olfati-lattice' });
  assert.equal(choiceByKey('nonsense').key, 'defaults');
});

test('a room\'s name is trimmed, its spaces made single, and cut at the server\'s 24 characters (never half of one)', () => {
  assert.equal(cleanRoomName('  Group\t 3  '), 'Group 3');
  assert.equal(cleanRoomName('x'.repeat(50)).length, ROOM_NAME_MAX);
  const emoji = cleanRoomName('🐟'.repeat(45));
  assert.equal([...emoji].length, ROOM_NAME_MAX);
  assert.equal(emoji, '🐟'.repeat(24));
  assert.equal(cleanRoomName(null), '');
});

test('"New room" is offered by hello\'s rooms: open to all, operators only, off or absent to none', () => {
  assert.equal(mayCreateRooms('open', 'visitor'), true);
  assert.equal(mayCreateRooms('operators', 'operator'), true);
  assert.equal(mayCreateRooms('operators', 'visitor'), false);
  assert.equal(mayCreateRooms('off', 'operator'), false);
  assert.equal(mayCreateRooms(undefined, 'operator'), false, 'a server without rooms');
});

test('the scenarios offered are exactly the ones the page ships (client-web/scenarios/index.json)', async () => {
  const { readFileSync } = await import('node:fs');
  const index = JSON.parse(readFileSync(new URL('../../../client-web/scenarios/index.json', import.meta.url), 'utf8'));
  const offered = NEW_ROOM_CHOICES.filter((c) => c.from === 'scenario').map((c) => c.scenario).sort();
  assert.deepEqual(offered, index.map((s) => s.name).sort());
  for (const s of index) {
    const file = JSON.parse(readFileSync(new URL(`../../../client-web/scenarios/${s.name}.json`, import.meta.url), 'utf8'));
    assert.equal(typeof file.description, 'string', `${s.name} says what it is`);
  }
});
