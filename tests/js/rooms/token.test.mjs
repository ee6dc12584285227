// Tests of room tokens on the page (client-web/rooms/token.js): kept per
// room in a (fake) localStorage, taken from an operator link's fragment
// and removed from the address, and the operator link itself.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  isRoomToken, operatorLink, readRoomToken, roomTokenKey, takeFragmentToken, writeRoomToken,
} from '../../../client-web/rooms/token.js';

const TOKEN = 'r_0123456789abcdef0123456789abcdef';

function fakeStorage(initial = {}) {
  const m = new Map(Object.entries(initial));
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
    map: m,
  };
}

// A location and a history whose replaceState moves the location, as a browser's does.
function fakeAddress(href) {
  const u = new URL(href);
  const location = { pathname: u.pathname, search: u.search, hash: u.hash, origin: u.origin };
  const calls = [];
  const history = {
    state: null,
    replaceState(state, _title, url) {
      calls.push(url);
      const v = new URL(url, u.origin);
      location.pathname = v.pathname;
      location.search = v.search;
      location.hash = v.hash;
    },
  };
  return { location, history, calls };
}

test('a room\'s token is kept under swarmcast.room.CODE.token, one per room', () => {
  assert.equal(roomTokenKey('K7PXM3QD'), 'swarmcast.room.K7PXM3QD.token');
  const storage = fakeStorage();
  assert.equal(writeRoomToken(storage, 'K7PXM3QD', TOKEN), true);
  assert.equal(storage.map.get('swarmcast.room.K7PXM3QD.token'), TOKEN);
  assert.equal(readRoomToken(storage, 'K7PXM3QD'), TOKEN);
  assert.equal(readRoomToken(storage, 'ABCDEFGH'), null);
  assert.equal(readRoomToken(storage, ''), null, 'the default room has no room token');
  writeRoomToken(storage, 'K7PXM3QD', null);
  assert.equal(readRoomToken(storage, 'K7PXM3QD'), null);
  // Something else under the key (edited by hand) is not presented.
  assert.equal(readRoomToken(fakeStorage({ 'swarmcast.room.K7PXM3QD.token': 'hello there' }), 'K7PXM3QD'), null);
});

test('blocked or missing storage: nothing remembered, nothing thrown', () => {
  const blocked = { getItem() { throw new Error('blocked'); }, setItem() { throw new Error('quota'); }, removeItem() { throw new Error('x'); } };
  assert.equal(readRoomToken(blocked, 'K7PXM3QD'), null);
  assert.equal(writeRoomToken(blocked, 'K7PXM3QD', TOKEN), false);
  assert.equal(readRoomToken(null, 'K7PXM3QD'), null);
  assert.equal(writeRoomToken(null, 'K7PXM3QD', TOKEN), false);
});

test('room tokens look like r_ and letters or digits', () => {
  assert.equal(isRoomToken(TOKEN), true);
  assert.equal(isRoomToken('r_'), false);
  assert.equal(isRoomToken('secret'), false);
  assert.equal(isRoomToken('r_<script>'), false);
  assert.equal(isRoomToken(null), false);
});

test('an operator link\'s #token= goes to storage and leaves the address bar, the rest kept', () => {
  const storage = fakeStorage();
  const a = fakeAddress(`http://h:8080/r/K7PXM3QD?present#token=${TOKEN}`);
  assert.equal(takeFragmentToken({ code: 'K7PXM3QD', ...a, storage }), TOKEN);
  assert.equal(readRoomToken(storage, 'K7PXM3QD'), TOKEN);
  assert.deepEqual(a.calls, ['/r/K7PXM3QD?present']);
  assert.equal(a.location.hash, '');

  const b = fakeAddress(`http://h/r/K7PXM3QD#token=${TOKEN}&x=1`);
  takeFragmentToken({ code: 'K7PXM3QD', ...b, storage: fakeStorage() });
  assert.deepEqual(b.calls, ['/r/K7PXM3QD#x=1']);
});

test('a fragment without a token, or outside a room, is left alone; a malformed token is removed, not kept', () => {
  const none = fakeAddress('http://h/r/K7PXM3QD#about');
  assert.equal(takeFragmentToken({ code: 'K7PXM3QD', ...none, storage: fakeStorage() }), null);
  assert.deepEqual(none.calls, []);
  const defaultRoom = fakeAddress(`http://h/#token=${TOKEN}`);
  assert.equal(takeFragmentToken({ code: '', ...defaultRoom, storage: fakeStorage() }), null);
  assert.deepEqual(defaultRoom.calls, []);
  const storage = fakeStorage();
  const junk = fakeAddress('http://h/r/K7PXM3QD#token=not-a-token');
  assert.equal(takeFragmentToken({ code: 'K7PXM3QD', ...junk, storage }), null);
  assert.deepEqual(junk.calls, ['/r/K7PXM3QD'], 'still out of the address bar');
  assert.equal(storage.map.size, 0);
  // A history that refuses (a sandboxed frame): the token is still taken.
  const strict = fakeAddress(`http://h/r/K7PXM3QD#token=${TOKEN}`);
  strict.history.replaceState = () => { throw new Error('SecurityError'); };
  const s2 = fakeStorage();
  assert.equal(takeFragmentToken({ code: 'K7PXM3QD', ...strict, storage: s2 }), TOKEN);
  assert.equal(readRoomToken(s2, 'K7PXM3QD'), TOKEN);
});

test('the operator link is the join address with the token in the fragment', () => {
  assert.equal(operatorLink('https://x.org/r/K7PXM3QD', TOKEN), `https://x.org/r/K7PXM3QD#token=${TOKEN}`);
  assert.equal(operatorLink('http://h/r/K7PXM3QD?relays=ws%3A%2F%2Fa%2Fws#old', TOKEN),
    `http://h/r/K7PXM3QD?relays=ws%3A%2F%2Fa%2Fws#token=${TOKEN}`);
  // Round trip: the link, opened, gives the token back.
  const a = fakeAddress(operatorLink('http://h/r/K7PXM3QD', TOKEN));
  const storage = fakeStorage();
  takeFragmentToken({ code: 'K7PXM3QD', ...a, storage });
  assert.equal(readRoomToken(storage, 'K7PXM3QD'), TOKEN);
});
