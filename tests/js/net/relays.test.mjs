// Tests of the page's relay list (client-web/net/connection.js: ?relays=, the
// turn to the next relay when a connection fails, with a fake socket and
// fake timers) and of the "world restarting" banner text (status.js).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Connection, relayUrls, rotateList, backoffDelay } from '../../../client-web/net/connection.js';
import { bannerText } from '../../../client-web/status/status.js';
import { FakeSocket, fakeTimers } from '../../lib/fake_connection.mjs';

const hello = (id) => ({ data: JSON.stringify({ type: 'hello', client_id: id }) });

test('?relays= keeps the ws:// and wss:// URLs of the list, in order, once each', () => {
  assert.deepEqual(relayUrls('ws://h1:9001/ws,wss://h2/ws'), ['ws://h1:9001/ws', 'wss://h2/ws']);
  assert.deepEqual(relayUrls(' ws://a/ws , http://b/ws,nonsense,,ws://a/ws'), ['ws://a/ws']);
  assert.equal(relayUrls(''), null);
  assert.equal(relayUrls('http://only/ws'), null);
  assert.equal(relayUrls(null), null);
});

test('a rotated list starts at the given index and keeps every relay', () => {
  assert.deepEqual(rotateList(['a', 'b', 'c'], 0), ['a', 'b', 'c']);
  assert.deepEqual(rotateList(['a', 'b', 'c'], 1), ['b', 'c', 'a']);
  assert.deepEqual(rotateList(['a', 'b', 'c'], 5), ['c', 'a', 'b']);
});

test('a lost connection moves on to the next relay, round the list, with the usual backoff', () => {
  FakeSocket.all = [];
  const timers = fakeTimers();
  const urls = ['ws://r1/ws', 'ws://r2/ws', 'ws://r3/ws'];
  const c = new Connection({ urls, decode: () => ({}), WebSocketImpl: FakeSocket, timers });
  c.start();
  assert.equal(FakeSocket.all[0].url, 'ws://r1/ws');
  FakeSocket.all[0].onmessage(hello(1));
  // Relay 1 dies: the page tries relay 2 after the first backoff step.
  FakeSocket.all[0].onclose({ code: 1006, reason: '' });
  assert.equal(c.state, 'reconnecting');
  assert.equal(timers.pending.at(-1).ms, backoffDelay(0));
  timers.runNext();
  assert.equal(FakeSocket.all[1].url, 'ws://r2/ws');
  assert.equal(c.url, 'ws://r2/ws');
  // Relay 2 refuses (full): relay 3, waiting a little longer.
  FakeSocket.all[1].onclose({ code: 1013, reason: 'server full, try again later' });
  assert.equal(timers.pending.at(-1).ms, backoffDelay(1));
  timers.runNext();
  assert.equal(FakeSocket.all[2].url, 'ws://r3/ws');
  // Relay 3 fails too: back to relay 1.
  FakeSocket.all[2].onclose({ code: 1006, reason: '' });
  timers.runNext();
  assert.equal(FakeSocket.all[3].url, 'ws://r1/ws');
  // A relay that says hello keeps the page; the backoff starts again.
  FakeSocket.all[3].onmessage(hello(2));
  assert.equal(c.state, 'connected');
  assert.equal(c.attempt, 0);
  c.stop();
});

test('a single server is retried as before', () => {
  FakeSocket.all = [];
  const timers = fakeTimers();
  const c = new Connection({ url: 'ws://only/ws', decode: () => ({}), WebSocketImpl: FakeSocket, timers });
  c.start();
  FakeSocket.all[0].onclose({ code: 1006, reason: '' });
  timers.runNext();
  FakeSocket.all[1].onclose({ code: 1006, reason: '' });
  timers.runNext();
  assert.deepEqual(FakeSocket.all.map((s) => s.url), ['ws://only/ws', 'ws://only/ws', 'ws://only/ws']);
  c.stop();
});

test('the banner shows while the world restarts and goes when it runs', () => {
  assert.equal(bannerText({ type: 'status', state: 'restarting', message: 'world restarting' }),
    'world restarting — the picture resumes by itself');
  assert.equal(bannerText({ type: 'status', state: 'restarting' }), 'world restarting — the picture resumes by itself');
  assert.equal(bannerText({ type: 'status', state: 'running' }), '');
  assert.equal(bannerText({ type: 'status', state: 'something new' }), '');
  assert.equal(bannerText(null), '');
});
