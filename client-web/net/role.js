// Which role this page has on the server, and what that lets it do.
//
// With a control token configured (hello's `control_token`), a new session
// is a `visitor`: it may watch, steer its own target and keep a few
// obstacles of its own. The `auth` command with the token makes it the
// `operator`, who may do everything (PROTOCOL.md, "Roles"). Without a
// token, and with a server older than roles, everyone is the operator.
//
// The token is remembered for this tab only (sessionStorage, never a URL),
// and only once the server has accepted it, so that a reconnect can present
// it again right after hello.
//
// In a room (PROTOCOL.md, "Rooms"), the room's token (r_…, given to its
// creator) makes its holder the room's operator the same way: it is kept
// in localStorage per room (rooms/token.js, passed in as `roomTokens`), so
// it survives a reload and the next visit; it is presented after hello
// when no control token is, and a token typed into the form that looks
// like a room's is kept as the room's.
//
// The pure helpers are exported for Node tests; createRoleSession() keeps
// the state of one page and talks to the server through `send`.

// sessionStorage key of the accepted token.
export const TOKEN_STORAGE_KEY = 'swarmcast.control_token';
// Why a control is disabled for a visitor (tooltips, aria descriptions).
export const NEEDS_TOKEN = 'needs the operator token';
// The visitor's obstacle quota when hello does not state it.
export const DEFAULT_VISITOR_OBSTACLES = 3;

// The role a hello gives: 'visitor' only when it says so.
export function roleOf(hello) {
  return hello && hello.role === 'visitor' ? 'visitor' : 'operator';
}

export function visitorObstaclesOf(hello) {
  const n = hello?.limits?.visitor_obstacles;
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_VISITOR_OBSTACLES;
}

// One line saying what the role may do.
export function describeRole(role, visitorObstacles = DEFAULT_VISITOR_OBSTACLES) {
  if (role !== 'visitor') return 'operator';
  const n = visitorObstacles;
  return `visitor — watch and steer your target; obstacles: up to ${n} of your own`;
}

export function mayOperate(role) {
  return role !== 'visitor';
}

// What the token form shows about the last `auth` (state → text; '' none).
export function authMessage(auth) {
  switch (auth.state) {
    case 'sending':
      return 'checking the token…';
    case 'refused':
      if (auth.remembered && auth.kind === 'room') return 'The remembered token of this room was refused. Enter a current one.';
      return auth.remembered
        ? 'The remembered operator token was refused (the server\'s token may have changed). Enter the current one.'
        : 'That operator token was refused. Check it and try again.';
    case 'limited':
      return 'Too many tries: wait a few seconds, then try again.';
    case 'failed':
      return auth.message ? `The server could not check the token: ${auth.message}` : 'The server could not check the token.';
    default:
      return '';
  }
}

function readToken(storage) {
  try {
    const t = storage?.getItem(TOKEN_STORAGE_KEY);
    return typeof t === 'string' && t !== '' ? t : null;
  } catch {
    return null; // storage blocked: a reconnect asks for the token again
  }
}

function writeToken(storage, token) {
  try {
    if (token === null) storage?.removeItem(TOKEN_STORAGE_KEY);
    else storage?.setItem(TOKEN_STORAGE_KEY, token);
  } catch {
    // Quota or blocked storage: the token is simply not remembered.
  }
}

// deps: { send(command) → id | null, storage (sessionStorage or null),
//         roomTokens: in a room, { read() → token | null, keep(token),
//           forget() } (rooms/token.js on localStorage); null elsewhere,
//         onChange() — called whenever role, token state or ownership changes }
export function createRoleSession({ send, storage, roomTokens = null, onChange }) {
  let role = 'operator';
  let controlToken = false;
  // Which token made this session an operator: 'control', 'room' or null.
  let via = null;
  let visitorObstacles = DEFAULT_VISITOR_OBSTACLES;
  // The `auth` in flight: { id, token, kind ('control' | 'room'),
  // remembered } (a typed token is kept in memory only until the answer:
  // it is stored once accepted).
  let pending = null;
  // { state: 'none' | 'sending' | 'refused' | 'limited' | 'failed', kind, remembered, message }
  let auth = { state: 'none', kind: null, remembered: false, message: '' };
  // A visitor's own obstacles, learnt from the acks of its add_obstacle:
  // id → the tick of that ack. Snapshots do not say who owns an obstacle.
  const own = new Map();
  let lastTick = null;

  function changed() {
    onChange?.();
  }

  function sendAuth(token, kind, remembered) {
    const id = send({ type: 'auth', token });
    if (id === null) return false;
    pending = { id, token, kind, remembered };
    auth = { state: 'sending', kind, remembered, message: '' };
    return true;
  }

  function keep(kind, token) {
    if (kind === 'room') {
      if (token === null) roomTokens?.forget();
      else roomTokens?.keep(token);
    } else {
      writeToken(storage, token);
    }
  }

  return {
    get role() {
      return role;
    },
    get controlToken() {
      return controlToken;
    },
    get visitorObstacles() {
      return visitorObstacles;
    },
    get auth() {
      return auth;
    },
    // True when the server has a token and this tab remembers one (the
    // operator got here with it, so Lock has something to forget). Not for
    // a room's operator by the room's token: that one is kept per room.
    get unlocked() {
      return controlToken && role === 'operator' && via !== 'room';
    },
    // 'control' | 'room' | null: which token made this page an operator.
    get via() {
      return via;
    },
    // Whether the token form is of use: the server has a control token, or
    // this is a room (whose token a visitor may have).
    get acceptsTokens() {
      return controlToken || roomTokens !== null;
    },
    mayOperate: () => mayOperate(role),

    // A new session: the role hello gives; a remembered token is presented
    // again at once.
    hello(h) {
      role = roleOf(h);
      controlToken = h?.control_token === true;
      visitorObstacles = visitorObstaclesOf(h);
      via = null;
      pending = null;
      auth = { state: 'none', kind: null, remembered: false, message: '' };
      own.clear();
      lastTick = null;
      const token = readToken(storage);
      const roomToken = roomTokens?.read() ?? null;
      if (role === 'visitor' && controlToken && token !== null) sendAuth(token, 'control', true);
      else if (role === 'visitor' && roomToken !== null) sendAuth(roomToken, 'room', true);
      changed();
    },

    // Presents a typed token; false when nothing was sent (no token, one
    // already on its way, or no connection).
    unlock(token) {
      if (typeof token !== 'string' || token === '' || pending) return false;
      const kind = roomTokens !== null && /^r_/.test(token) ? 'room' : 'control';
      const ok = sendAuth(token, kind, false);
      changed();
      return ok;
    },

    // Forgets the token (the caller reloads the page: a new session starts
    // as a visitor).
    lock() {
      writeToken(storage, null);
      pending = null;
      changed();
    },

    // An ack or error: true when it answers our `auth`.
    reply(msg) {
      if (!pending || msg?.id !== pending.id) return false;
      const p = pending;
      pending = null;
      const base = { kind: p.kind, remembered: p.remembered };
      if (msg.type === 'ack') {
        role = msg.role === 'visitor' ? 'visitor' : 'operator';
        if (role === 'operator') via = p.kind;
        keep(p.kind, p.token);
        auth = { state: 'none', ...base, message: '' };
      } else if (msg.code === 'bad_token') {
        // A remembered token that no longer works is forgotten: the next
        // reconnect must not present it again.
        if (p.remembered) keep(p.kind, null);
        auth = { state: 'refused', ...base, message: msg.message ?? '' };
      } else if (msg.code === 'rate_limited') {
        auth = { state: 'limited', ...base, message: msg.message ?? '' };
      } else {
        auth = { state: 'failed', ...base, message: msg.message ?? msg.code ?? '' };
      }
      changed();
      return true;
    },

    // An ack of add_obstacle names an obstacle of our own.
    noteAck(msg) {
      if (msg?.cmd === 'add_obstacle' && Number.isInteger(msg.obstacle_id)) {
        own.set(msg.obstacle_id, Number.isInteger(msg.tick) ? msg.tick : 0);
      }
    },

    // A snapshot's obstacles: ours that are gone (removed, or a reset, which
    // also restarts the ids) are forgotten. A snapshot whose tick is not past
    // the ack's may not show the new obstacle yet.
    seeObstacles(tick, obstacles) {
      if (lastTick !== null && tick < lastTick) own.clear(); // a reset
      lastTick = tick;
      if (own.size === 0) return;
      const present = new Set(obstacles.map((o) => o.id));
      for (const [id, ackTick] of own) if (!present.has(id) && tick > ackTick) own.delete(id);
    },

    // Whether this page may move or remove the obstacle: an operator any, a
    // visitor its own.
    mayTouchObstacle(id) {
      return role !== 'visitor' || own.has(id);
    },

    ownObstacleCount: () => own.size,
  };
}
