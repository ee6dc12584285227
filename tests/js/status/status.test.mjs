// Tests of the status line (client-web/status/status.js) and of the close cause the
// connection keeps for it (client-web/net/connection.js, with a fake socket and
// fake timers).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { statusLine, closeText, errorText, errorTone, ratesLine, announcement } from '../../../client-web/status/status.js';
import { Connection } from '../../../client-web/net/connection.js';
import { FakeSocket, fakeTimers } from '../../lib/fake_connection.mjs';

const connected = {
  state: 'connected', reconnectInMs: 0, closeCause: null, clientId: 4, role: 'visitor',
  agentCount: 300, tick: 12, paused: false,
};

test('the status line names the role', () => {
  assert.equal(statusLine(connected), 'connected · client 4 · visitor · 300 agents · tick 12 · running');
  assert.equal(statusLine({ ...connected, role: 'operator' }), 'connected · client 4 · operator · 300 agents · tick 12 · running');
  assert.equal(statusLine({ ...connected, role: null }), 'connected · client 4 · 300 agents · tick 12 · running');
});

test('the server\'s close reason is shown, and stays through the next try', () => {
  const cause = { code: 1008, reason: 'too many commands' };
  assert.equal(closeText(cause), 'closed: too many commands (1008)');
  assert.equal(statusLine({ ...connected, state: 'reconnecting', reconnectInMs: 2000, closeCause: cause }),
    'closed: too many commands (1008) · reconnecting in 2.0s');
  assert.equal(statusLine({ ...connected, state: 'connecting', closeCause: cause }),
    'closed: too many commands (1008) · connecting…');
  assert.equal(statusLine({ ...connected, state: 'connecting', closeCause: null }), 'connecting…');
});

test('a close without a reason is explained by its code', () => {
  assert.equal(closeText({ code: 1013, reason: '' }), 'closed: server full, try again later (1013)');
  assert.equal(closeText({ code: 1001, reason: '  ' }), 'closed: server went away (1001)');
  assert.equal(closeText({ code: 4000, reason: '' }), 'closed (4000)');
  assert.equal(closeText(null), '');
});

test('forbidden and rate_limited are polite notices; other refusals are errors with their code', () => {
  const forbidden = { type: 'error', id: 3, cmd: 'set_param', code: 'forbidden',
    message: 'set_param needs the operator role: send auth with the control token' };
  assert.equal(errorText(forbidden), 'not allowed: set_param needs the operator role: send auth with the control token');
  assert.equal(errorTone(forbidden), 'notice');
  assert.equal(errorText({ ...forbidden, message: '' }), 'set_param is not allowed for a visitor');
  const limited = { type: 'error', id: 4, cmd: 'set_target', code: 'rate_limited', message: '' };
  assert.match(errorText(limited), /too many commands.*set_target.*slow down/);
  assert.equal(errorTone(limited), 'notice');
  const range = { type: 'error', id: 5, cmd: 'set_param', code: 'out_of_range', message: 'sep_radius: 500 is above the maximum 200' };
  assert.equal(errorText(range), 'set_param refused (out_of_range): sep_radius: 500 is above the maximum 200');
  assert.equal(errorTone(range), 'error');
  assert.equal(errorText({ type: 'error', id: null, cmd: null, code: 'bad_json' }), 'refused (bad_json)');
});

test('a connection lost without a close frame says so until the next hello', () => {
  assert.equal(statusLine({ ...connected, state: 'reconnecting', reconnectInMs: 1000, lostCode: 1006 }),
    'connection lost (1006) · reconnecting in 1.0s');
  // The server's own reason wins over the bare code.
  assert.equal(statusLine({ ...connected, state: 'connecting', lostCode: 1006, closeCause: { code: 1013, reason: '' } }),
    'closed: server full, try again later (1013) · connecting…');
  assert.equal(statusLine({ ...connected, lostCode: 1006 }), 'connected · client 4 · visitor · 300 agents · tick 12 · running');
});

test('the rates line shows every measured figure, and a dash for one not known yet', () => {
  assert.equal(ratesLine({ tickRate: 59.6, snapshotRate: 30.2, kbitIn: 731.6, rttMs: 23.4, fps: 60 }),
    '60 ticks/s · 30 snapshots/s · 732 kbit/s in · rtt 23 ms · 60 fps');
  assert.equal(ratesLine({ tickRate: 0, snapshotRate: 30, kbitIn: 12.34, rttMs: null, fps: null }),
    '0 ticks/s · 30 snapshots/s · 12.3 kbit/s in · rtt – ms · – fps');
  assert.equal(ratesLine(null), '');
});

test('the live region is told of changes only: connection, role, pause; nothing when only ticks move', () => {
  const s = { state: 'connected', closeCause: null, lostCode: null, role: 'visitor', paused: false };
  assert.equal(announcement(null, s), 'connected as visitor, simulation running');
  assert.equal(announcement(s, { ...s }), null, 'the same state says nothing');
  assert.equal(announcement(s, { ...s, paused: true }), 'simulation paused');
  assert.equal(announcement(s, { ...s, role: 'operator' }), 'you are now an operator');
  const lost = { ...s, state: 'reconnecting', closeCause: { code: 1008, reason: 'too many commands' }, paused: null };
  assert.equal(announcement(s, lost), 'disconnected, closed: too many commands (1008); reconnecting');
  assert.equal(announcement(lost, { ...lost, state: 'connecting' }), 'connecting');
  assert.equal(announcement({ ...lost, state: 'connecting' }, s), 'connected as visitor, simulation running');
});

test('the connection keeps the server\'s close cause until the next hello, across failed tries', () => {
  FakeSocket.all = [];
  const timers = fakeTimers();
  const c = new Connection({ url: 'ws://x/ws', decode: () => ({}), WebSocketImpl: FakeSocket, timers });
  c.start();
  const first = FakeSocket.all[0];
  first.onmessage({ data: JSON.stringify({ type: 'hello', client_id: 1 }) });
  assert.equal(c.state, 'connected');
  first.onclose({ code: 1008, reason: 'too many commands' });
  assert.equal(c.state, 'reconnecting');
  assert.deepEqual(c.closeCause, { code: 1008, reason: 'too many commands' });
  timers.runNext(); // the next try
  assert.equal(c.state, 'connecting');
  assert.deepEqual(c.closeCause, { code: 1008, reason: 'too many commands' }, 'still shown while connecting');
  FakeSocket.all[1].onclose({ code: 1006, reason: '' }); // failed without a word from the server
  assert.deepEqual(c.closeCause, { code: 1008, reason: 'too many commands' }, 'a silent failure does not erase it');
  timers.runNext();
  FakeSocket.all[2].onmessage({ data: JSON.stringify({ type: 'hello', client_id: 2 }) });
  assert.equal(c.state, 'connected');
  assert.equal(c.closeCause, null, 'hello ends it');
  c.stop();
});
