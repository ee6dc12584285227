// Tests of the page's modes and the join address (client-web/present/page_mode.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { joinUrl, pageMode, peopleHere, shortUrl } from '../../../client-web/present/page_mode.js';

test('?present and ?embed pick the page\'s mode; anything else is the ordinary page', () => {
  assert.equal(pageMode(new URLSearchParams('present')), 'present');
  assert.equal(pageMode(new URLSearchParams('?present=1&budget=5')), 'present');
  assert.equal(pageMode(new URLSearchParams('embed')), 'embed');
  assert.equal(pageMode(new URLSearchParams('')), 'normal');
  assert.equal(pageMode(new URLSearchParams('presenter')), 'normal');
});

test('the join address is the page\'s own origin and path, without ?present or the rest', () => {
  const at = { origin: 'http://10.0.0.5:8080', pathname: '/', search: '?present&budget=9&renderer=2d' };
  assert.equal(joinUrl(at, null), 'http://10.0.0.5:8080/');
  assert.equal(joinUrl({ origin: 'https://x.org', pathname: '/flock/index.html', search: '' }), 'https://x.org/flock/index.html');
  // Pages spread over relays keep the list: the phone must reach the same world.
  const relays = joinUrl({ origin: 'http://h:1', pathname: '/', search: '?present&relays=ws://a/ws,ws://b/ws' }, undefined);
  assert.equal(new URL(relays).searchParams.get('relays'), 'ws://a/ws,ws://b/ws');
  assert.equal(new URL(relays).searchParams.has('present'), false);
});

test('the server\'s public URL wins when it names an http(s) address; anything else is ignored', () => {
  const at = { origin: 'http://127.0.0.1:8080', pathname: '/', search: '?present' };
  assert.equal(joinUrl(at, 'https://flock.example.org/'), 'https://flock.example.org/');
  assert.equal(joinUrl(at, 'javascript:alert(1)'), 'http://127.0.0.1:8080/');
  assert.equal(joinUrl(at, ''), 'http://127.0.0.1:8080/');
  assert.equal(joinUrl(at, 42), 'http://127.0.0.1:8080/');
});

test('the short address drops the scheme and a lone trailing slash', () => {
  assert.equal(shortUrl('https://flock.example.org/'), 'flock.example.org');
  assert.equal(shortUrl('http://10.0.0.5:8080/'), '10.0.0.5:8080');
  assert.equal(shortUrl('https://x.org/room/'), 'x.org/room/');
  assert.equal(shortUrl('https://x.org/?relays=a'), 'x.org/?relays=a');
});

test('the count reads as words', () => {
  assert.equal(peopleHere(0), '0 people here');
  assert.equal(peopleHere(1), '1 person here');
  assert.equal(peopleHere(203), '203 people here');
  assert.equal(peopleHere(undefined), '0 people here');
});

test('in a room, the join address is the room\'s /r/CODE, on the public URL or the page\'s origin', () => {
  const at = { origin: 'http://10.0.0.5:8080', pathname: '/r/k7px-m3qd', search: '?present' };
  assert.equal(joinUrl(at, null, 'K7PXM3QD'), 'http://10.0.0.5:8080/r/K7PXM3QD', 'canonical, whatever was typed');
  assert.equal(joinUrl(at, 'https://flock.example.org/', 'K7PXM3QD'), 'https://flock.example.org/r/K7PXM3QD');
  assert.equal(joinUrl(at, 'https://x.org/swarm', 'K7PXM3QD'), 'https://x.org/swarm/r/K7PXM3QD');
  assert.equal(joinUrl(at, 'javascript:alert(1)', 'K7PXM3QD'), 'http://10.0.0.5:8080/r/K7PXM3QD');
  const relays = joinUrl({ ...at, search: '?present&relays=ws://a/ws' }, null, 'K7PXM3QD');
  assert.equal(new URL(relays).pathname, '/r/K7PXM3QD');
  assert.equal(new URL(relays).searchParams.get('relays'), 'ws://a/ws');
  // The default room: as before rooms.
  assert.equal(joinUrl({ origin: 'http://h', pathname: '/', search: '' }, null, ''), 'http://h/');
  assert.equal(joinUrl({ origin: 'http://h', pathname: '/', search: '' }, 'https://x.org/', ''), 'https://x.org/');
});
