// The page's state as the server last told it: who this page is, the
// newest frame's facts, the last replies and the parameters' values. main.js
// keeps it and shows it (status line, panel, hint); it is also
// window.swarmcast, the browser tests' view of the page, so its field names
// are a contract, listed in the object literal below.

import { AGENT_FLAG_PREDATOR } from './net/protocol.js';

// Agents in a snapshot, not counting the predators listed after them.
function flockSize(s) {
  let n = s.agents.count;
  while (n > 0 && s.agents.flags[n - 1] & AGENT_FLAG_PREDATOR) n -= 1;
  return n;
}

// send(command): connection.send; inputKind: the hint shown at first;
// viewer: draw/viewer.js.
export function createPageState({ send, inputKind, viewer }) {
  return {
    connected: false, // socket open and hello received
    clientId: null, // from hello
    hello: null, // the last hello, as received
    tick: null, // of the newest snapshot (null until one arrives)
    agentCount: 0, // of the newest snapshot
    snapshots: 0, // snapshots decoded since the page loaded (never reset)
    targets: [], // the newest snapshot's targets: [{ client_id, x, y }]
    obstacles: [], // the newest snapshot's obstacles: [{ id, x, y, radius }]
    lastAck: null, // the last `ack` message
    lastError: null, // the last `error` message
    metrics: null, // the last `metrics` message (null until one arrives)
    framesDrawn: 0, // canvas frames drawn with at least one agent (never reset)
    // Extras, for tests and for poking at it from the console:
    state: 'connecting', // 'connecting' | 'connected' | 'reconnecting'
    paused: null, // the newest snapshot's paused flag
    params: {}, // parameter name → current value (hello, then `param` messages)
    decodeErrors: 0, // binary frames the decoder rejected
    role: null, // 'operator' | 'visitor': from hello, then from an accepted `auth`
    controlToken: false, // hello's control_token: the server has one
    send, // (command) → the id used, or null: connection.send
    timeline: null, // the timeline bar's state: { mode, tick, from, to, speed, error, available } (timeline/timeline.js)
    rates: null, // the status line's figures: { tickRate, snapshotRate, kbitIn, rttMs, fps } (meters.js)
    inputKind, // 'mouse' | 'touch': which hint is shown
    viewer, // viewer.js: camera, overlays (overlays.add(fn)), options, stats, kind
    worldStatus: null, // a relay's last `status` message ({ state: 'restarting' | 'running' }), null after hello
    socketUrl: null, // the server (or relay) the page connects to now
    // Rooms (rooms/rooms.js):
    room: '', // this page's room code ('' the default room; null: the path is not a code)
    roomName: '', // hello's room_name (or the name it was renamed to)
    rooms: null, // hello's rooms: 'open' | 'operators' | 'off' (null: a server without rooms)
    roomGate: null, // { title, text } while the gate is shown (a final close, a bad path)
    roomCreated: null, // { code, name, path } of the room this page just created
    // Records (record/):
    plots: null, // plots.js: moment() — the tick the plots' cursor is at and its values
    capture: null, // capture.js: startSpan(), lastSpan() — a clip of ticks A to B
  };
}

// A new hello is a new session (maybe a restarted server, maybe another
// world size): forget everything the previous one told us.
export function forgetSession(hooks, hello) {
  hooks.hello = hello;
  hooks.clientId = hello.client_id;
  hooks.tick = null;
  hooks.agentCount = 0;
  hooks.targets = [];
  hooks.obstacles = [];
  hooks.paused = null;
  hooks.lastAck = null;
  hooks.lastError = null;
  hooks.metrics = null;
  hooks.worldStatus = null; // a relay that is waiting says so again (latest news)
  hooks.params = Object.fromEntries((hello.params || []).map((p) => [p.name, p.value]));
}

// The newest snapshot s, as the frame fr (net/frames.js) the viewer draws.
export function seeFrame(hooks, s, fr) {
  hooks.snapshots += 1;
  hooks.tick = fr.tick;
  // v2 tells the population (agents + predators) only.
  hooks.agentCount = s.agents ? flockSize(s) : fr.population;
  hooks.targets = fr.targets;
  hooks.obstacles = fr.obstacles;
  hooks.paused = fr.paused;
}
