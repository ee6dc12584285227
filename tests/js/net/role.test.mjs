// Tests of the page's role session (client-web/net/role.js): what hello gives,
// `auth` and its answers, the token kept in (fake) sessionStorage, and the
// obstacles a visitor may touch.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  createRoleSession, roleOf, describeRole, authMessage, visitorObstaclesOf, TOKEN_STORAGE_KEY,
} from '../../../client-web/net/role.js';

// A Storage with the methods role.js uses.
function fakeStorage(initial = {}) {
  const m = new Map(Object.entries(initial));
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
    map: m,
  };
}

// A role session whose sent commands are recorded (with the ids a
// connection would give them).
function session({ storage = fakeStorage(), connected = true, roomTokens = null } = {}) {
  const sent = [];
  let changes = 0;
  let nextId = 1;
  const s = createRoleSession({
    send: (c) => {
      if (!connected) return null;
      const id = nextId++;
      sent.push({ ...c, id });
      return id;
    },
    storage,
    roomTokens,
    onChange: () => changes++,
  });
  return { s, sent, storage, changes: () => changes };
}

const visitorHello = { type: 'hello', role: 'visitor', control_token: true, limits: { visitor_obstacles: 3 } };
const openHello = { type: 'hello', role: 'operator', control_token: false, limits: {} };

test('hello decides the role: visitor only when it says so; an older hello without roles is an operator', () => {
  assert.equal(roleOf(visitorHello), 'visitor');
  assert.equal(roleOf(openHello), 'operator');
  assert.equal(roleOf({ type: 'hello' }), 'operator');
  assert.equal(visitorObstaclesOf(visitorHello), 3);
  assert.equal(visitorObstaclesOf({ limits: { visitor_obstacles: 5 } }), 5);
  assert.equal(visitorObstaclesOf({}), 3, 'the spec\'s quota when hello does not say');
});

test('the role is described in words, with the visitor\'s obstacle quota', () => {
  assert.equal(describeRole('operator'), 'operator');
  assert.equal(describeRole('visitor', 3), 'visitor — watch and steer your target; obstacles: up to 3 of your own');
  assert.match(describeRole('visitor', 5), /up to 5 of your own/);
});

test('without a control token everyone is an operator and nothing is sent', () => {
  const { s, sent } = session();
  s.hello(openHello);
  assert.equal(s.role, 'operator');
  assert.equal(s.controlToken, false);
  assert.equal(s.unlocked, false, 'nothing to lock');
  assert.equal(s.mayOperate(), true);
  assert.equal(s.mayTouchObstacle(42), true);
  assert.deepEqual(sent, []);
});

test('a visitor may not operate; an accepted token makes it the operator and is remembered for the tab', () => {
  const { s, sent, storage } = session();
  s.hello(visitorHello);
  assert.equal(s.role, 'visitor');
  assert.equal(s.mayOperate(), false);
  assert.deepEqual(sent, [], 'no token remembered: nothing sent');
  assert.equal(s.unlock('secret'), true);
  assert.deepEqual(sent, [{ type: 'auth', token: 'secret', id: 1 }]);
  assert.equal(s.auth.state, 'sending');
  assert.equal(storage.getItem(TOKEN_STORAGE_KEY), null, 'not stored before the server accepts it');
  assert.equal(s.unlock('again'), false, 'one auth at a time');
  assert.equal(s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator', tick: 5 }), true);
  assert.equal(s.role, 'operator');
  assert.equal(s.mayOperate(), true);
  assert.equal(s.unlocked, true);
  assert.equal(s.auth.state, 'none');
  assert.equal(storage.getItem(TOKEN_STORAGE_KEY), 'secret');
});

test('a wrong token is refused with a clear message and is not remembered', () => {
  const { s, storage } = session();
  s.hello(visitorHello);
  s.unlock('wrong');
  assert.equal(s.reply({ type: 'error', id: 1, cmd: 'auth', code: 'bad_token', message: 'wrong token' }), true);
  assert.equal(s.role, 'visitor');
  assert.equal(s.auth.state, 'refused');
  assert.match(authMessage(s.auth), /refused/);
  assert.equal(storage.getItem(TOKEN_STORAGE_KEY), null);
  assert.equal(s.unlock('secret'), true, 'another try may follow');
});

test('replies to other commands are not taken for the answer to auth', () => {
  const { s } = session();
  s.hello(visitorHello);
  s.unlock('secret');
  assert.equal(s.reply({ type: 'ack', id: 99, cmd: 'set_target' }), false);
  assert.equal(s.reply({ type: 'error', id: 98, cmd: 'set_param', code: 'forbidden' }), false);
  assert.equal(s.role, 'visitor');
  assert.equal(s.auth.state, 'sending');
});

test('a rate-limited auth says to wait and keeps the role', () => {
  const { s } = session();
  s.hello(visitorHello);
  s.unlock('secret');
  s.reply({ type: 'error', id: 1, cmd: 'auth', code: 'rate_limited' });
  assert.equal(s.role, 'visitor');
  assert.equal(s.auth.state, 'limited');
  assert.match(authMessage(s.auth), /wait/);
});

test('after a reconnect the remembered token is presented again right after hello', () => {
  const storage = fakeStorage({ [TOKEN_STORAGE_KEY]: 'secret' });
  const { s, sent } = session({ storage });
  s.hello(visitorHello);
  assert.deepEqual(sent, [{ type: 'auth', token: 'secret', id: 1 }]);
  s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator' });
  assert.equal(s.role, 'operator');
  // A second session (the server restarted): visitor again, auth again.
  s.hello(visitorHello);
  assert.equal(s.role, 'visitor');
  assert.deepEqual(sent.at(-1), { type: 'auth', token: 'secret', id: 2 });
});

test('a remembered token the server no longer accepts is forgotten', () => {
  const storage = fakeStorage({ [TOKEN_STORAGE_KEY]: 'old' });
  const { s, sent } = session({ storage });
  s.hello(visitorHello);
  s.reply({ type: 'error', id: 1, cmd: 'auth', code: 'bad_token' });
  assert.equal(storage.getItem(TOKEN_STORAGE_KEY), null);
  assert.match(authMessage(s.auth), /remembered/);
  s.hello(visitorHello);
  assert.equal(sent.length, 1, 'not presented again');
});

test('a remembered token is not sent to a server without a token', () => {
  const storage = fakeStorage({ [TOKEN_STORAGE_KEY]: 'secret' });
  const { s, sent } = session({ storage });
  s.hello(openHello);
  assert.deepEqual(sent, []);
});

test('lock forgets the token', () => {
  const storage = fakeStorage({ [TOKEN_STORAGE_KEY]: 'secret' });
  const { s } = session({ storage });
  s.hello(visitorHello);
  s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator' });
  s.lock();
  assert.equal(storage.getItem(TOKEN_STORAGE_KEY), null);
});

test('blocked storage does not break the session', () => {
  const throwing = {
    getItem() { throw new Error('blocked'); },
    setItem() { throw new Error('blocked'); },
    removeItem() { throw new Error('blocked'); },
  };
  const { s } = session({ storage: throwing });
  s.hello(visitorHello);
  s.unlock('secret');
  s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator' });
  assert.equal(s.role, 'operator');
  s.lock();
});

test('unlocking while disconnected sends nothing and changes nothing', () => {
  const { s } = session({ connected: false });
  s.hello(visitorHello);
  assert.equal(s.unlock('secret'), false);
  assert.equal(s.auth.state, 'none');
});

test('a visitor may touch only the obstacles its own add_obstacle acks named', () => {
  const { s } = session();
  s.hello(visitorHello);
  s.seeObstacles(100, [{ id: 1 }]);
  assert.equal(s.mayTouchObstacle(1), false, 'someone else\'s');
  s.noteAck({ type: 'ack', cmd: 'add_obstacle', obstacle_id: 2, tick: 101 });
  assert.equal(s.mayTouchObstacle(2), true);
  s.seeObstacles(101, [{ id: 1 }]); // not yet in a snapshot past the ack
  assert.equal(s.mayTouchObstacle(2), true, 'kept until a later snapshot lacks it');
  s.seeObstacles(102, [{ id: 1 }, { id: 2 }]);
  assert.equal(s.mayTouchObstacle(2), true);
  s.seeObstacles(110, [{ id: 1 }]); // removed (by an operator, say)
  assert.equal(s.mayTouchObstacle(2), false);
  s.noteAck({ type: 'ack', cmd: 'add_obstacle', obstacle_id: 3, tick: 120 });
  s.seeObstacles(5, [{ id: 3 }]); // a reset: ticks and obstacle ids start again
  assert.equal(s.mayTouchObstacle(3), false, 'a reset removed ours');
  // An operator may touch any.
  s.unlock('secret');
  s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator' });
  assert.equal(s.mayTouchObstacle(1), true);
});

test('a new session forgets the obstacles of the last one', () => {
  const { s } = session();
  s.hello(visitorHello);
  s.noteAck({ type: 'ack', cmd: 'add_obstacle', obstacle_id: 7, tick: 1 });
  assert.equal(s.ownObstacleCount(), 1);
  s.hello(visitorHello);
  assert.equal(s.ownObstacleCount(), 0);
  assert.equal(s.mayTouchObstacle(7), false);
});

test('every change of role or token state is announced', () => {
  const { s, changes } = session();
  s.hello(visitorHello);
  const a = changes();
  s.unlock('secret');
  const b = changes();
  s.reply({ type: 'ack', id: 1, cmd: 'auth', role: 'operator' });
  assert.ok(a >= 1 && b > a && changes() > b, `${a} ${b} ${changes()}`);
});

// A room's token store (rooms/token.js on localStorage), recorded.
function fakeRoomTokens(token = null) {
  const r = { token, read: () => r.token, keep: (t) => { r.token = t; }, forget: () => { r.token = null; } };
  return r;
}

const ROOM_TOKEN = 'r_0123456789abcdef0123456789abcdef';
const roomHello = { type: 'hello', role: 'visitor', control_token: true, room: 'K7PXM3QD', limits: {} };

test('in a room, a remembered room token is presented after hello and makes the page the room\'s operator', () => {
  const roomTokens = fakeRoomTokens(ROOM_TOKEN);
  const { s, sent } = session({ roomTokens });
  s.hello(roomHello);
  assert.deepEqual(sent, [{ type: 'auth', token: ROOM_TOKEN, id: 1 }]);
  assert.equal(s.auth.kind, 'room');
  assert.equal(s.reply({ type: 'ack', cmd: 'auth', id: 1, role: 'operator' }), true);
  assert.equal(s.role, 'operator');
  assert.equal(s.via, 'room');
  assert.equal(s.unlocked, false, 'Lock is for the control token: the room\'s is kept per room');
  assert.equal(roomTokens.token, ROOM_TOKEN);
  // A reload (a new session) presents it again.
  s.hello(roomHello);
  assert.equal(sent.at(-1).token, ROOM_TOKEN);
  assert.equal(s.via, null, 'a new session starts as a visitor');
});

test('the control token goes first when the tab has both; a server without a control token still gets the room\'s', () => {
  const storage = fakeStorage({ [TOKEN_STORAGE_KEY]: 'control-secret' });
  const { s, sent } = session({ storage, roomTokens: fakeRoomTokens(ROOM_TOKEN) });
  s.hello(roomHello);
  assert.deepEqual(sent.map((c) => c.token), ['control-secret']);
  const other = session({ roomTokens: fakeRoomTokens(ROOM_TOKEN) });
  other.s.hello({ ...roomHello, control_token: false });
  assert.deepEqual(other.sent.map((c) => c.token), [ROOM_TOKEN]);
  assert.equal(other.s.acceptsTokens, true, 'the token form is of use in a room');
  const plain = session();
  plain.s.hello({ ...visitorHello, control_token: false });
  assert.equal(plain.s.acceptsTokens, false);
});

test('a remembered room token that is refused is forgotten, with its own message', () => {
  const roomTokens = fakeRoomTokens(ROOM_TOKEN);
  const { s } = session({ roomTokens });
  s.hello(roomHello);
  s.reply({ type: 'error', cmd: 'auth', id: 1, code: 'bad_token', message: 'wrong token' });
  assert.equal(roomTokens.token, null);
  assert.equal(s.role, 'visitor');
  assert.match(authMessage(s.auth), /token of this room was refused/);
});

test('a typed r_ token in a room is kept as the room\'s, not as the control token', () => {
  const roomTokens = fakeRoomTokens();
  const { s, storage } = session({ roomTokens });
  s.hello(roomHello);
  assert.equal(s.unlock(ROOM_TOKEN), true);
  s.reply({ type: 'ack', cmd: 'auth', id: 1, role: 'operator' });
  assert.equal(roomTokens.token, ROOM_TOKEN);
  assert.equal(storage.map.has(TOKEN_STORAGE_KEY), false);
  // Outside a room, any typed token is the control token, as before.
  const plain = session();
  plain.s.hello(visitorHello);
  plain.s.unlock('r_looks_like_a_room');
  plain.s.reply({ type: 'ack', cmd: 'auth', id: 1, role: 'operator' });
  assert.equal(plain.storage.map.get(TOKEN_STORAGE_KEY), 'r_looks_like_a_room');
});
