// The page, step by step: each module is made here, in this order, and
// connected to the others; none of them knows main.js.
//
//   0. the room (rooms/code.js) from the page's path; an operator link's
//      token leaves the address for localStorage before anything else
//   1. the picture (draw/viewer.js) on the page's canvases
//   2. the status line and the banner (status/), what they measure (meters)
//   3. the page's state (page_state.js; window.swarmcast for the tests)
//   4. this page's role (net/role.js) and the control panel (panel/), with
//      the plots and the capture buttons (record/) in its sections
//   5. many hands: names, who is here, cursors, tools (people/hands.js)
//   6. the connection (net/connection.js): hello, snapshots and messages go
//      from its handlers to the modules above; they send through it
//   7. the mouse and keys on the world (input/input.js)
//   7b. the presenter's screen and the embed (present/presenter.js), and
//      where a phone's camera starts (input/phone_start.js)
//   7c. rooms (rooms/rooms.js): the room's box in the panel, joining, a new
//      room, a room operator's controls, and the gate after a final close
//   8. one frame per animation frame: the ping, the status line, the
//      panel's buttons and legend, and the picture when something changed
//
// It holds the few values they share (the newest frame, the world's size,
// the status line's note, `dirty`) and does no drawing or decoding of its
// own; the ping of step 8 is the one command it writes itself.

import { Connection, relayUrls, rotateList, socketUrl, withRoom, SUBPROTOCOL, SUBPROTOCOL_V2 } from './net/connection.js';
import { createFrameDecoder } from './net/decoder.js';
import { createPageState, forgetSession, seeFrame } from './page_state.js';
import { createViewer } from './draw/viewer.js';
import { frameFromV1, frameFromV2 } from './net/frames.js';
import { attachInput } from './input/input.js';
import { attachViewerInput } from './input/camera_input.js';
import { createBanner, createStatus, errorText, errorTone, finalCloseMessage } from './status/status.js';
import { createPanel } from './panel/panel.js';
import { initialInput, showHint, watchInput } from './input/hints.js';
import { StreamMeters } from './status/meters.js';
import { createPlots } from './record/plots.js';
import { createCapture } from './record/capture.js';
import { createRoleSession } from './net/role.js';
import { createHands } from './people/hands.js';
import { createPresenter } from './present/presenter.js';
import { actionCentre, fillHeightView, fitsAsStrip } from './input/phone_start.js';
import { formatCode, roomFromPath } from './rooms/code.js';
import { readRoomToken, takeFragmentToken, writeRoomToken } from './rooms/token.js';
import { createRooms } from './rooms/rooms.js';
import { createTimeline } from './timeline/timeline.js';

function safeStorage(name) {
  try {
    return window[name];
  } catch {
    return null; // storage blocked: the page just does not remember
  }
}

// The room (PROTOCOL.md, "Rooms"): /r/CODE, else the default room (code
// ''); code null for a path that is not a room code (the page then
// connects nowhere). An operator link's #token= goes to localStorage and
// out of the address bar first, before anything reads or rewrites the
// address (the presenter keeps ?present in it).
const room = roomFromPath(window.location.pathname);
const localStore = safeStorage('localStorage');
takeFragmentToken({ code: room.code, location: window.location, history: window.history, storage: localStore });

const canvas = document.getElementById('world');

// The picture (viewer.js): camera, interpolation, WebGL2 or Canvas 2D,
// overlay, minimap. ?budget=N asks the server for up to N agents in detail;
// ?renderer=2d forces the Canvas 2D fallback.
const pageParams = new URLSearchParams(window.location.search);
const viewer = createViewer({
  canvas,
  overlayCanvas: document.getElementById('overlay'),
  minimapCanvas: document.getElementById('minimap'),
  splatCanvas: document.getElementById('splat'),
  send: (command) => connection.send(command),
  budget: pageParams.has('budget') ? Number(pageParams.get('budget')) : null,
  preferCanvas2d: pageParams.get('renderer') === '2d',
});
// Wheel, pinch, middle drag and keys move its camera; T toggles trails.
attachViewerInput({ viewer, canvas, keyTarget: window });
const updateStatus = createStatus(document.getElementById('status'), document.getElementById('announcer'));
// "world restarting" while a relay waits for its simulation (status.js).
const updateBanner = createBanner(document.getElementById('world-banner'));
// What the status line measures (meters.js): fed by the connection, the
// snapshots and the render loop.
const meters = new StreamMeters();
let figures = null; // meters.figures(), refreshed twice a second
let figuresAt = -Infinity;
// Mouse or touch: which hint the page shows (hints.js).
let inputKind = initialInput(window);
const hint = document.getElementById('hint');

const hooks = createPageState({ send: (command) => connection.send(command), inputKind, viewer });
window.swarmcast = hooks;

let snapshot = null; // the newest frame (frames.js): obstacles, targets, paused for input.js
let world = null; // { width, height } from hello
// The status line's note for a few seconds: { text, tone, at } or null.
let note = null;
let hoverObstacleId = null;
let dirty = true; // something visible changed since the last frame
let legendAt = 0; // when the panel's legend was last updated (performance.now())
let fadeAt = 0; // when fading cursors last asked for a redraw

function setNote(text, tone) {
  note = { text, tone, at: Date.now() };
}

// The role (role.js): it sends `auth` itself, and every change of it shows
// in the panel, the hint line, the test hooks and what the mouse may touch.
const role = createRoleSession({
  send: (command) => connection.send(command),
  storage: safeStorage('sessionStorage'),
  // In a room, its token (localStorage, per room) is presented after hello.
  roomTokens: room.code
    ? {
        read: () => readRoomToken(localStore, room.code),
        keep: (token) => writeRoomToken(localStore, room.code, token),
        forget: () => writeRoomToken(localStore, room.code, null),
      }
    : null,
  onChange() {
    hooks.role = role.role;
    hooks.controlToken = role.controlToken;
    rooms.setRole(role);
    // "… needs the operator token" is old news once the page has it.
    if (role.mayOperate() && note?.tone === 'notice') note = null;
    panel.setRole(role);
    showHint(hint, role.role, inputKind);
    input.refreshHover();
  },
});

let plots = null; // plots.js, made once the panel has its slot for them
let tickHz = 60; // the server's (hello.tick_hz)

const panel = createPanel({
  root: document.getElementById('panel'),
  toggle: document.getElementById('panel-toggle'),
  body: document.body,
  send: (command) => connection.send(command),
  storage: safeStorage('localStorage'),
  onLayout() {
    dirty = true;
    plots?.refresh();
  },
  onUnlock: (token) => role.unlock(token),
  onLock() {
    // The server has no way back to visitor: a new session starts as one.
    role.lock();
    window.location.reload();
  },
});

// The metric plots and the capture buttons live in the panel's sections.
// A capture is composed from the viewer's layers right after a draw (a
// WebGL canvas keeps its pixels only until then).
plots = createPlots({ root: panel.metricsSlot });
const capture = createCapture({
  root: panel.captureSlot,
  compose: (target) => viewer.composite(target),
  requestRedraw() {
    dirty = true;
  },
  onNote: (text, tone) => setNote(text, tone),
  // A clip of ticks A to B of the past ("Record span").
  timeline: {
    get state() {
      return timeline.state;
    },
    send: (command) => connection.send(command),
    tickHz: () => tickHz,
    shownTick: () => snapshot?.tick ?? timeline.state.to,
  },
});
viewer.onRender(() => capture.frameDrawn(snapshot?.tick, viewer.settled()));
hooks.capture = capture;
hooks.plots = plots;

// Names, who is here, cursors, the feed, the tool switch, inspection and
// keys 1–5 (hands.js); its marks go on the viewer's overlay, and its named
// targets replace the viewer's plain ones. Who is here lives in the panel.
const hands = createHands({
  root: document.getElementById('hands'),
  presenceRoot: panel.peopleSlot,
  canvas,
  keyTarget: window,
  storage: safeStorage('localStorage'),
  send: (command) => connection.send(command),
  getWorld: () => world,
  getSnapshot: () => snapshot,
  getParams: () => hooks.params,
  toWorld(ev) {
    const r = canvas.getBoundingClientRect();
    return world ? viewer.camera.screenToWorld(ev.clientX - r.left, ev.clientY - r.top) : null;
  },
  mayOperate: () => role.mayOperate(),
  onNotAllowed: (text) => setNote(text, 'notice'),
  onToggleRadii(on) {
    viewer.options.radii = on; // key 4: the viewer draws them (perception.js)
  },
  onChange() {
    dirty = true;
  },
  hooks,
});
viewer.removeDefaultTargets();
viewer.overlays.add(hands.drawOverlay);

// Binary frames to the v1 or the v2 decoder (net/decoder.js).
const decoder = createFrameDecoder();

// ?relays=ws://h1:p1/ws,ws://h2:p2/ws: start at a random one of them (so
// that pages spread over the relays) and move on to the next when it fails.
// In a room, every URL names it (?room=CODE).
const relays = relayUrls(pageParams.get('relays'))?.map((u) => withRoom(u, room.code));
const connection = new Connection({
  url: socketUrl(window.location, room.code),
  urls: relays ? rotateList(relays, Math.floor(Math.random() * relays.length)) : null,
  // v2 first; a server without it picks v1 (servers take the first they
  // know). ?wire=1 asks for v1 only (comparisons, old servers' behaviour).
  protocols: pageParams.get('wire') === '1' ? SUBPROTOCOL : [SUBPROTOCOL_V2, SUBPROTOCOL],
  decode: decoder.decode,
  handlers: {
    onBytes(n) {
      meters.received(performance.now(), n);
    },
    onSent(id) {
      meters.rtt.sent(id, performance.now());
    },
    onState(state) {
      hooks.state = state;
      hooks.socketUrl = connection.url;
      // Off the air, the relay's word on the world no longer holds.
      if (state !== 'connected') updateBanner((hooks.worldStatus = null));
      hooks.connected = state === 'connected';
      document.body.dataset.state = hooks.connected ? 'connected' : 'disconnected';
      // 4404, 4410, 4429: the server will not take us back; no retry.
      if (connection.final) rooms.closed(finalCloseMessage(connection.closeCause, formatCode(room.code ?? '')));
      dirty = true;
    },
    onHello(hello) {
      // A new hello is a new session (maybe a restarted server, maybe another
      // world size): forget everything the previous one told us.
      forgetSession(hooks, hello);
      updateBanner(null);
      note = null;
      meters.reconnected();
      panel.setHello(hello);
      plots.refresh();
      role.hello(hello);
      hands.onHello(hello);
      world = hello.world ? { width: hello.world.width, height: hello.world.height } : null;
      snapshot = null;
      decoder.reset(); // a new socket: v2 deltas start from a key
      viewer.hello(hello);
      presenter.hello(hello);
      rooms.hello(hello);
      timeline.hello(hello, hello.protocol);
      if (Number.isFinite(hello.tick_hz)) tickHz = hello.tick_hz;
      plots.showTick(null);
      hoverObstacleId = null;
      dirty = true;
    },
    onSnapshot(s) {
      // v1 snapshots carry `agents`; v2 states (wire2.js) a view's items.
      const fr = s.agents ? frameFromV1(s, snapshot) : frameFromV2(s);
      if (!fr.width) return; // v2 before any scene: nothing to place yet
      viewer.push(fr, performance.now());
      snapshot = fr;
      startPhoneCamera(fr);
      world = { width: fr.width, height: fr.height };
      seeFrame(hooks, s, fr);
      meters.snapshot(performance.now(), fr.tick);
      timeline.frame(fr.tick);
      // The plots' cursor follows the moment shown while it is the past.
      plots.showTick(timeline.state.mode === 'live' ? null : fr.tick);
      role.seeObstacles(fr.tick, fr.obstacles);
      input.refreshHover();
      // No `dirty` here: the viewer knows whether this frame changed anything
      // visible (a paused world keeps sending the same one).
    },
    onMessage(msg) {
      // Round-trip time from the pings (answered at once by the server; an
      // ack would also hold up to a tick of waiting).
      if (msg.type === 'pong') {
        if (Number.isInteger(msg.id)) meters.rtt.replied(msg.id, performance.now());
        return;
      }
      if (msg.type === 'status') {
        hooks.worldStatus = msg;
        updateBanner(msg);
        return;
      }
      if (hands.onMessage(msg)) return;
      if (rooms.onMessage(msg)) return;
      if (timeline.onMessage(msg)) {
        if (timeline.state.mode === 'live') plots.showTick(null);
        return;
      }
      if (msg.type === 'ack') {
        hooks.lastAck = msg;
        role.reply(msg);
        role.noteAck(msg);
        // set_model's ack names the model in use (whether or not a `param`
        // broadcast follows).
        if (msg.cmd === 'set_model' && typeof msg.model === 'string') hooks.params.model = msg.model;
        panel.onReply(msg);
      } else if (msg.type === 'error' && msg.cmd === 'ping') {
        // The page's own round-trip probe, refused while a reset had spent
        // the budget: nothing the person did, so no note; the next one
        // measures again.
      } else if (msg.type === 'error') {
        hooks.lastError = msg;
        // The token form says what became of an `auth`; everything else
        // is a note in the status line.
        if (!role.reply(msg)) setNote(errorText(msg), errorTone(msg));
        // A drag of someone else's obstacle: stop offering it.
        if (msg.code === 'forbidden' && msg.cmd === 'move_obstacle') input.cancelDrag();
        panel.onReply(msg);
      } else if (msg.type === 'param') {
        // hooks.params holds the world's values: a plain set_param, or one
        // for species 0 (whose parameters are the world's own).
        if (Array.isArray(msg.species_values)) hooks.params[msg.name] = msg.species_values[0];
        else if (msg.species == null || msg.species === 0) hooks.params[msg.name] = msg.value;
        panel.onParam(msg);
      } else if (msg.type === 'metrics' && msg.past === true) {
        plots.onPastMetrics(msg); // the metrics of the tick of the past shown here
      } else if (msg.type === 'metrics') {
        hooks.metrics = msg;
        plots.onMetrics(msg);
      }
    },
    onDecodeError(err) {
      // Warn once, not 30 times a second.
      if (hooks.decodeErrors++ === 0) console.warn('swarmcast: dropped a malformed frame:', err.message);
    },
  },
});

const input = attachInput({
  canvas,
  keyTarget: window,
  // Computed from the live canvas size rather than taken from the last frame,
  // so a click right after a resize or the first hello maps correctly; it is
  // the same fitWorld() the renderer draws with.
  getView: () => viewer.camera.view(),
  getWorld: () => world,
  getSnapshot: () => snapshot,
  send: (command) => connection.send(command),
  onHover(id) {
    hoverObstacleId = id;
    dirty = true;
  },
  mayOperate: () => role.mayOperate(),
  mayTouchObstacle: (id) => role.mayTouchObstacle(id),
  onNotAllowed: (text) => setNote(text, 'notice'),
});

// ?present, the panel's button or key P: the presenter's screen; ?embed:
// the world and the status line only (presenter.js).
const presenter = createPresenter({
  root: document.getElementById('presenter'),
  body: document.body,
  panel,
  keyTarget: window,
  location: window.location,
  history: window.history,
  room: room.code ?? '',
  onLayout() {
    dirty = true;
  },
  hooks,
});

// Rooms: the panel's room box, joining, a new room, a room operator's
// controls, and the gate when the server will not take us in.
const rooms = createRooms({
  panelSlot: panel.roomSlot,
  gate: document.getElementById('room-gate'),
  badge: document.querySelector('#status .status-room'),
  room,
  location: window.location,
  storage: localStore,
  send: (command) => connection.send(command),
  joinAddress: () => presenter.state.joinUrl,
  navigate: (href) => window.location.assign(href),
  onRoomName: (name) => presenter.setRoomName(name),
  hooks,
});
rooms.setRole(role);

// The timeline bar: the kept past of this room, for this page alone.
const timeline = createTimeline({
  root: document.getElementById('timeline'),
  send: (command) => connection.send(command),
  keyTarget: window,
});
hooks.timeline = timeline.state;

// A portrait phone starts with the world's height on its screen, centred
// on the flock (phone_start.js), once: after that the camera is the
// person's. The presenter's screen and an embed show the whole world.
let phoneCameraSet = false;
function startPhoneCamera(fr) {
  if (phoneCameraSet || presenter.state.mode !== 'normal') return;
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  phoneCameraSet = true;
  if (!fitsAsStrip(w, h, fr.width, fr.height)) return;
  const v = fillHeightView(w, h, fr.width, fr.height, actionCentre(fr, fr.width, fr.height));
  viewer.camera.setSize(w, h, fr.width, fr.height);
  viewer.camera.set(v.cx, v.cy, v.scale);
  hooks.phoneStart = { cx: v.cx, cy: v.cy, scale: v.scale };
  dirty = true;
}

// The canvas follows the window (and the panel opening or closing beside
// it); a devicePixelRatio change (zoom, moving to another screen) does not
// always fire `resize`, so that is polled per frame.
window.addEventListener('resize', () => {
  dirty = true;
});
if (typeof ResizeObserver === 'function') {
  new ResizeObserver(() => {
    dirty = true;
  }).observe(canvas);
}
let lastDpr = window.devicePixelRatio;
// A ping every two seconds: the status line's round-trip time.
const PING_EVERY_MS = 2000;
let pingAt = -Infinity;

watchInput(window, (kind) => {
  inputKind = hooks.inputKind = kind;
  showHint(hint, role.role, inputKind);
});

function frame() {
  requestAnimationFrame(frame);
  const now = Date.now();
  const t = performance.now();
  if (connection.state === 'connected' && t - pingAt >= PING_EVERY_MS) {
    pingAt = t;
    connection.send({ type: 'ping' });
  }
  if (t - figuresAt >= 500) {
    figuresAt = t;
    figures = hooks.rates = meters.figures(t);
  }
  updateStatus(
    {
      state: connection.state,
      reconnectInMs: connection.reconnectAt - now,
      closeCause: connection.closeCause,
      lostCode: connection.lastCloseCode,
      clientId: hooks.clientId,
      role: hooks.role,
      agentCount: hooks.agentCount,
      tick: hooks.tick,
      paused: hooks.paused,
    },
    note,
    now,
    figures,
  );
  panel.update({ connected: connection.state === 'connected', paused: hooks.paused, agents: hooks.agentCount });
  presenter.setCount(hands.presence.state.count);
  // Others' cursors fade out: the overlay needs a frame now and then while
  // one does (four a second is enough for a fade), even in a paused world.
  if (t - fadeAt >= 250 && hands.presence.animating()) {
    fadeAt = t;
    viewer.overlays.invalidate();
  }
  if (window.devicePixelRatio !== lastDpr) {
    lastDpr = window.devicePixelRatio;
    dirty = true;
  }
  // The viewer draws only when something visible changed (viewer.js).
  // The legend's counts change every frame; twice a second is enough to read.
  const legendDue = t - legendAt >= 500;
  const drawn = viewer.render(t, {
    world,
    myClientId: hooks.clientId,
    hoverObstacleId,
    live: connection.state === 'connected',
    params: hooks.params,
    force: dirty,
    countClasses: legendDue,
    markScale: presenter.markScale(),
  });
  dirty = false;
  if (drawn > 0) hooks.framesDrawn += 1;
  if (drawn >= 0) meters.frameDrawn(t);
  if (drawn >= 0 && legendDue) {
    legendAt = t;
    // Zoomed in, a v2 frame carries only the agents in view.
    const partial = !!snapshot && snapshot.mode === 'detail' && snapshot.count < snapshot.population;
    panel.setCounts(snapshot ? viewer.counts : [0, 0, 0, 0, 0, 0], partial);
  }
}

hooks.socketUrl = connection.url;
if (room.code !== null) connection.start();
else {
  // Not a room code: said on the page, never sent (it would count as a
  // wrong guess against this address).
  connection.setState('closed');
  rooms.badPath();
}
requestAnimationFrame(frame);
