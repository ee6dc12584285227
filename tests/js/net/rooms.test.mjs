// Tests of the connection in a room (client-web/net/connection.js): the
// room's argument on the server's and the relays' URLs, and the closes after
// which the page does not try again (4404 no such room, 4410 room closed,
// 4429 too many wrong codes), with a fake socket and fake timers; and what
// the status line and the page say about them (status/status.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Connection, FINAL_CLOSE_CODES, relayUrls, socketUrl, withRoom } from '../../../client-web/net/connection.js';
import { announcement, closeText, finalCloseMessage, statusLine } from '../../../client-web/status/status.js';
import { FakeSocket, fakeTimers } from '../../lib/fake_connection.mjs';

const hello = (id) => ({ data: JSON.stringify({ type: 'hello', client_id: id, room: 'K7PXM3QD' }) });

test('the socket URL names the room; the default room\'s is today\'s', () => {
  assert.equal(socketUrl({ protocol: 'http:', host: 'h:8080' }), 'ws://h:8080/ws');
  assert.equal(socketUrl({ protocol: 'https:', host: 'x.org' }, ''), 'wss://x.org/ws');
  assert.equal(socketUrl({ protocol: 'http:', host: 'h:8080' }, 'K7PXM3QD'), 'ws://h:8080/ws?room=K7PXM3QD');
  assert.equal(socketUrl({ protocol: 'https:', host: 'x.org' }, 'K7PXM3QD'), 'wss://x.org/ws?room=K7PXM3QD');
});

test('?relays= URLs get the room too, keeping their own arguments', () => {
  const relays = relayUrls('ws://h1:9001/ws,wss://h2/ws?x=1');
  assert.deepEqual(relays.map((u) => withRoom(u, 'K7PXM3QD')),
    ['ws://h1:9001/ws?room=K7PXM3QD', 'wss://h2/ws?x=1&room=K7PXM3QD']);
  assert.equal(withRoom('ws://h1/ws?room=OLD', 'K7PXM3QD'), 'ws://h1/ws?room=K7PXM3QD');
  assert.deepEqual(relays.map((u) => withRoom(u, '')), relays, 'the default room: unchanged');
  assert.equal(withRoom('not a url', 'K7PXM3QD'), 'not a url');
});

for (const [code, reason] of [[4404, 'no such room'], [4410, 'room closed'],
  [4429, 'too many wrong room codes from this address; try again in 30 s']]) {
  test(`a close with ${code} is final: no retry, the state is closed and says why`, () => {
    FakeSocket.all = [];
    const timers = fakeTimers();
    const states = [];
    const c = new Connection({
      url: 'ws://h/ws?room=K7PXM3QD', decode: () => ({}), WebSocketImpl: FakeSocket, timers,
      handlers: { onState: (s) => states.push(s) },
    });
    c.start();
    if (code === 4410) FakeSocket.all[0].onmessage(hello(1)); // closed while in the room
    FakeSocket.all[0].onclose({ code, reason });
    assert.equal(c.state, 'closed');
    assert.equal(c.final, true);
    assert.deepEqual(c.closeCause, { code, reason });
    assert.equal(timers.pending.length, 0, 'no retry scheduled');
    assert.equal(states.at(-1), 'closed');
    assert.equal(FakeSocket.all.length, 1);
    // A late watchdog tick or a stray start() opens nothing either.
    c.checkStale();
    assert.equal(FakeSocket.all.length, 1);
    assert.equal(c.send({ type: 'ping' }), null);
    assert.ok(FINAL_CLOSE_CODES.has(code));
  });
}

test('other closes still retry with the backoff (1008, 1013, 4000)', () => {
  for (const code of [1008, 1013, 4000, 1006]) {
    FakeSocket.all = [];
    const timers = fakeTimers();
    const c = new Connection({ url: 'ws://h/ws', decode: () => ({}), WebSocketImpl: FakeSocket, timers });
    c.start();
    FakeSocket.all[0].onclose({ code, reason: '' });
    assert.equal(c.state, 'reconnecting', String(code));
    assert.equal(c.final, false);
    timers.runNext();
    assert.equal(FakeSocket.all.length, 2, String(code));
    c.stop();
  }
});

test('through relays, a final close on one relay stops there too (rooms are on every relay)', () => {
  FakeSocket.all = [];
  const timers = fakeTimers();
  const c = new Connection({ urls: ['ws://r1/ws?room=K7PXM3QD', 'ws://r2/ws?room=K7PXM3QD'], decode: () => ({}),
    WebSocketImpl: FakeSocket, timers });
  c.start();
  FakeSocket.all[0].onclose({ code: 4404, reason: 'no such room' });
  assert.equal(c.state, 'closed');
  assert.equal(timers.pending.length, 0);
});

test('the status line of a final close names it, with no countdown', () => {
  const m = { state: 'closed', closeCause: { code: 4404, reason: 'no such room' }, lostCode: 4404 };
  assert.equal(statusLine(m), 'closed: no such room (4404)');
  assert.equal(statusLine({ state: 'closed', closeCause: { code: 4410, reason: '' } }), 'closed: room closed (4410)');
  assert.equal(statusLine({ state: 'closed', closeCause: null, lostCode: null }), 'not connected');
  assert.equal(closeText({ code: 4429, reason: '' }), 'closed: too many wrong room codes (4429)');
  assert.equal(announcement({ state: 'connected', role: 'visitor', paused: false },
    { state: 'closed', closeCause: { code: 4410, reason: 'room closed' }, lostCode: 4410, role: 'visitor', paused: null }),
  'disconnected, closed: room closed (4410)');
});

test('the page\'s words for each final close; none for other closes', () => {
  const gone = finalCloseMessage({ code: 4404, reason: 'no such room' }, 'K7PX-M3QD');
  assert.equal(gone.title, 'No such room');
  assert.match(gone.text, /no room K7PX-M3QD/);
  assert.match(finalCloseMessage({ code: 4410, reason: 'room closed' }, 'K7PX-M3QD').text, /Room K7PX-M3QD was closed/);
  const limited = finalCloseMessage({ code: 4429, reason: 'too many wrong room codes from this address; try again in 30 s' }, 'X');
  assert.equal(limited.text, 'Too many wrong room codes from this address; try again in 30 s.');
  assert.match(finalCloseMessage({ code: 4429, reason: '' }, 'X').text, /wait a little/);
  assert.equal(finalCloseMessage({ code: 1013, reason: 'full' }, 'X'), null);
  assert.equal(finalCloseMessage(null, 'X'), null);
});
