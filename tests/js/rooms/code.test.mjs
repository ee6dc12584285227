// Tests of room codes (client-web/rooms/code.js): the alphabet, what people
// type (case, dashes, spaces, dots, a pasted address), the page's path and
// where the page goes to open a room.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  CODE_ALPHABET, CODE_LENGTH, formatCode, isCode, normaliseCode, parseCode, roomFromPath, roomHref, roomPath,
} from '../../../client-web/rooms/code.js';

test('the alphabet has no look-alikes: no 0/O, no 1/I/L; 31 characters, each once', () => {
  assert.equal(CODE_ALPHABET, '23456789ABCDEFGHJKMNPQRSTUVWXYZ');
  assert.equal(new Set(CODE_ALPHABET).size, 31);
  for (const ch of '01OIL') assert.equal(CODE_ALPHABET.includes(ch), false, ch);
  assert.equal(CODE_LENGTH, 8);
});

test('typed codes are normalised: upper case, dashes, spaces and dots ignored', () => {
  assert.equal(normaliseCode('k7px-m3qd'), 'K7PXM3QD');
  assert.equal(normaliseCode(' K7PX M3QD '), 'K7PXM3QD');
  assert.equal(normaliseCode('k7.px.m3.qd'), 'K7PXM3QD');
  // A phone's keyboard turns "-" into a dash; a paste may hold a no-break space.
  assert.equal(normaliseCode('K7PX\u2013M3QD'), 'K7PXM3QD');
  assert.equal(normaliseCode('K7PX\u00a0M3QD'), 'K7PXM3QD');
  assert.equal(normaliseCode(null), '');
});

test('a valid code is 8 characters of the alphabet, in canonical form', () => {
  assert.equal(isCode('K7PXM3QD'), true);
  assert.equal(isCode('k7pxm3qd'), false, 'canonical is upper case');
  assert.equal(isCode('K7PX-M3QD'), false, 'canonical has no dash');
  assert.equal(isCode('K7PXM3Q'), false);
  assert.equal(isCode('K7PXM3QDD'), false);
  assert.equal(isCode('K7PXM3Q0'), false);
  assert.equal(isCode(12345678), false);
});

test('parseCode gives the canonical code, or says what is wrong in words', () => {
  assert.deepEqual(parseCode('k7px-m3qd'), { code: 'K7PXM3QD' });
  assert.deepEqual(parseCode('  k7pX m3Qd\n'), { code: 'K7PXM3QD' });
  assert.match(parseCode('').error, /Type a room code/);
  assert.equal(parseCode('').code, '');
  const lookAlike = parseCode('K7PX-M3Q0');
  assert.equal(lookAlike.code, null);
  assert.match(lookAlike.error, /“0”/);
  assert.match(lookAlike.error, /never use 0, O, 1, I or L/);
  assert.match(parseCode('K7PX-M3Q!').error, /“!”/);
  assert.doesNotMatch(parseCode('K7PX-M3Q!').error, /look alike/);
  assert.match(parseCode('K7PX').error, /8 characters; that has 4/);
  assert.match(parseCode('K7PXM3QDK').error, /that has 9/);
});

test('a pasted room address is read for its code', () => {
  assert.deepEqual(parseCode('https://flock.example.org/r/K7PX-M3QD'), { code: 'K7PXM3QD' });
  assert.deepEqual(parseCode('http://10.0.0.5:8080/r/k7pxm3qd?relays=ws://a/ws#token=r_00'), { code: 'K7PXM3QD' });
  assert.deepEqual(parseCode('/r/K7PX%20M3QD/'), { code: 'K7PXM3QD' });
});

test('the page\'s path says its room: /r/CODE (any case, dashes), else the default room', () => {
  assert.deepEqual(roomFromPath('/'), { code: '' });
  assert.deepEqual(roomFromPath('/index.html'), { code: '' });
  assert.deepEqual(roomFromPath('/flock/'), { code: '' });
  assert.deepEqual(roomFromPath('/r/K7PXM3QD'), { code: 'K7PXM3QD' });
  assert.deepEqual(roomFromPath('/r/k7px-m3qd'), { code: 'K7PXM3QD' });
  assert.deepEqual(roomFromPath('/r/K7PXM3QD/'), { code: 'K7PXM3QD' });
  assert.deepEqual(roomFromPath('/r/k7px%20m3qd'), { code: 'K7PXM3QD' });
  // Not a code: the page says so and never sends it (it would count as a
  // wrong guess against the address).
  const bad = roomFromPath('/r/HELLO');
  assert.equal(bad.code, null);
  assert.equal(bad.raw, 'HELLO');
  assert.match(bad.error, /no “L”, “O”/);
  assert.equal(roomFromPath('/r/').code, null);
  assert.equal(roomFromPath('/r/%E0%A4%A').code, null, 'a broken escape is not a code either');
  assert.deepEqual(roomFromPath('/r/K7PXM3QD/extra'), { code: '' }, 'a deeper path is not a room page');
});

test('a room is shown as XXXX-XXXX and opened at /r/CODE, keeping ?relays= and ?wire=', () => {
  assert.equal(formatCode('K7PXM3QD'), 'K7PX-M3QD');
  assert.equal(formatCode(''), '');
  assert.equal(roomPath('K7PXM3QD'), '/r/K7PXM3QD');
  assert.equal(roomPath(''), '/');
  assert.equal(roomHref('K7PXM3QD', '?present&budget=5'), '/r/K7PXM3QD');
  const href = roomHref('K7PXM3QD', '?relays=ws://a/ws,ws://b/ws&embed&wire=1');
  const u = new URL(href, 'http://h');
  assert.equal(u.pathname, '/r/K7PXM3QD');
  assert.equal(u.searchParams.get('relays'), 'ws://a/ws,ws://b/ws');
  assert.equal(u.searchParams.get('wire'), '1');
  assert.equal(u.searchParams.has('embed'), false);
  assert.equal(roomHref('', '?relays=ws://a/ws'), '/?relays=ws%3A%2F%2Fa%2Fws');
});
