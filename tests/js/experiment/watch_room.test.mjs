// "Open in a room" on the experiment page (client-web/experiment/watch_room.js):
// the experiment's name from the typed folder, and the exchange with the
// server (a fake WebSocket): hello, create_room from a run, room_created or
// the server's own words.
//   node --test tests/js/experiment/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadClassicScripts } from '../../lib/classic_scripts.mjs';

const X = loadClassicScripts(['experiment/watch_room.js'], 'SwarmcastExperiment');

test('the experiment is the typed folder\'s last part', () => {
  assert.equal(X.experimentName('results/couzin-2026'), 'couzin-2026');
  assert.equal(X.experimentName(' couzin/ '), 'couzin');
  assert.equal(X.experimentName('C:\\runs\\fov'), 'fov');
  assert.equal(X.experimentName('./'), '');
  assert.equal(X.experimentName(''), '');
});

test('only a page served over http(s) has a server to ask', () => {
  assert.equal(X.servedByServer({ protocol: 'http:' }), true);
  assert.equal(X.servedByServer({ protocol: 'https:' }), true);
  assert.equal(X.servedByServer({ protocol: 'file:' }), false);
});

/** A WebSocket that answers as a server would, by script. */
function fakeSocket(answer) {
  return class FakeWebSocket {
    constructor(url, protocol) {
      this.url = url;
      this.protocol = protocol;
      this.sent = [];
      this.listeners = {};
      FakeWebSocket.last = this;
      setTimeout(() => this.emit('message', { data: JSON.stringify({ type: 'hello', rooms: answer.rooms ?? 'open' }) }), 0);
    }
    addEventListener(kind, fn) { (this.listeners[kind] ??= []).push(fn); }
    emit(kind, event) { for (const fn of this.listeners[kind] ?? []) fn(event); }
    send(text) {
      this.sent.push(JSON.parse(text));
      setTimeout(() => this.emit('message', { data: JSON.stringify(answer.reply) }), 0);
    }
    close() { this.closed = true; }
  };
}

test('a run opens in a room: create_room from the run, on the page\'s own server', async () => {
  const room = { type: 'room_created', id: 1, code: 'K7PXM3QD', token: `r_${'a'.repeat(32)}`, path: '/r/K7PXM3QD' };
  const Socket = fakeSocket({ reply: room });
  const got = await X.openRunRoom('couzin-2026', '30442f789204ed62',
    { WebSocketImpl: Socket, loc: { protocol: 'https:', host: 'demo.example:8443' } });
  assert.deepEqual(got, room);
  assert.equal(Socket.last.url, 'wss://demo.example:8443/ws');
  assert.deepEqual(Socket.last.sent, [{ type: 'create_room', from: 'run', experiment: 'couzin-2026', run: '30442f789204ed62', id: 1 }]);
  assert.equal(Socket.last.closed, true);
});

test('a refusal is the server\'s own words; a server without rooms says so', async () => {
  const refused = fakeSocket({ reply: { type: 'error', id: 1, code: 'forbidden', message: 'this server opens no experiments\' runs (--experiments DIR)' } });
  await assert.rejects(X.openRunRoom('x', '0000000000000000', { WebSocketImpl: refused, loc: { protocol: 'http:', host: 'h' } }),
    /--experiments DIR/);
  const off = fakeSocket({ rooms: 'off', reply: null });
  await assert.rejects(X.openRunRoom('x', '0000000000000000', { WebSocketImpl: off, loc: { protocol: 'http:', host: 'h' } }),
    /makes no rooms/);
});

test('the token is kept where the viewer finds it', () => {
  const store = new Map();
  const storage = { setItem: (k, v) => store.set(k, v) };
  assert.equal(X.keepRoomToken('K7PXM3QD', 'r_x', storage), true);
  assert.equal(store.get('swarmcast.room.K7PXM3QD.token'), 'r_x');
  assert.equal(X.keepRoomToken('K7PXM3QD', 'r_x', { setItem() { throw new Error('full'); } }), false);
});

test('a run\'s room opens at its first tick (the whole run is on its timeline)', () => {
  const loc = { href: 'https://example.org:8080/experiment.html?x=1' };
  assert.equal(X.runRoomHref('/r/K7PXM3QD', loc), 'https://example.org:8080/r/K7PXM3QD?t=0');
});
