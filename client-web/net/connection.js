// The WebSocket to the server: connecting, reconnecting, and sorting what
// arrives into hello / snapshots / other JSON messages.
//
// It knows nothing about drawing or the DOM; everything it needs from the
// environment (WebSocket, timers, clock, decoder) can be passed in, so Node
// tests can drive it with a fake socket.

import { utf8Length } from '../status/meters.js';

export const SUBPROTOCOL = 'swarmcast.v1';
// What the browser page asks for: protocol v2 (viewports, deltas).
export const SUBPROTOCOL_V2 = 'swarmcast.v2';
// Reconnect delays: 0.5 s, 1 s, 2 s, 4 s, then 5 s for every further try.
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 5000;
// Snapshots flow even while the simulation is paused, so this long a silence
// means the server or the network is gone without having closed the socket
// (or a handshake is hanging): give up on that socket and start again.
export const STALE_MS = 10000;

export function backoffDelay(attempt) {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt);
}

// Closes after which the page does not try again (PROTOCOL.md, "Rooms"):
// the room does not exist (4404), it was closed (4410), or this address
// typed too many wrong codes (4429: another try would only lengthen the
// wait). The page says so and offers the join box instead.
export const FINAL_CLOSE_CODES = new Set([4404, 4410, 4429]);

// ws://host/ws from an http page, wss://host/ws from an https one; in room
// CODE, ws://host/ws?room=CODE (the default room, "", has no argument:
// exactly the address of a server before rooms).
export function socketUrl(loc, room = '') {
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  return withRoom(`${scheme}//${loc.host}/ws`, room);
}

// A server's or a relay's WebSocket URL with the room's argument set (any
// other argument kept); the URL as it is for the default room.
export function withRoom(url, room) {
  if (!room) return url;
  let u;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  u.searchParams.set('room', room);
  return u.href;
}

// ?relays=ws://h1:p1/ws,ws://h2:p2/ws: the relays a page may use (docs/DEPLOYING.md,
// "Scaled set-up: NATS and relays"). The valid ws:// or wss:// URLs of the
// list, in order, or null when there is none (the page's own server then).
export function relayUrls(param) {
  if (typeof param !== 'string') return null;
  const urls = [];
  for (const part of param.split(',')) {
    const text = part.trim();
    let url;
    try {
      url = new URL(text);
    } catch {
      continue;
    }
    if ((url.protocol === 'ws:' || url.protocol === 'wss:') && !urls.includes(text)) urls.push(text);
  }
  return urls.length ? urls : null;
}

// The list turned so that it starts at index start (spreading pages over
// the relays), e.g. rotateList([a, b, c], 1) → [b, c, a].
export function rotateList(list, start) {
  const k = ((start % list.length) + list.length) % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

// state: 'connecting' (a socket is being opened, or open without hello yet),
// 'connected' (hello received), 'reconnecting' (waiting for the next try;
// reconnectAt says when), 'closed' (a final close, FINAL_CLOSE_CODES, or
// stop(): no more tries).
// url: the server; or urls: several (relays), tried in turn: every failed
// or lost connection moves on to the next one, with the same backoff.
export class Connection {
  constructor({
    url,
    urls = null,
    decode,
    handlers = {},
    WebSocketImpl = globalThis.WebSocket,
    timers = globalThis,
    now = () => Date.now(),
    protocols = SUBPROTOCOL, // the WebSocket sub-protocol(s) asked for
  }) {
    this.protocols = protocols;
    this.urls = Array.isArray(urls) && urls.length ? [...urls] : [url];
    this.urlIndex = 0;
    this.decode = decode;
    this.handlers = handlers;
    this.WebSocketImpl = WebSocketImpl;
    this.timers = timers;
    this.now = now;

    this.ws = null;
    this.state = 'connecting';
    this.attempt = 0; // failed tries since the last hello: drives the backoff
    this.reconnectAt = 0;
    this.lastCloseCode = null;
    // { code, reason } of the last close the server explained (it sent a
    // close frame), kept until the next hello: failed tries in between
    // (1006, no close frame) say nothing new and do not erase it.
    this.closeCause = null;
    this.lastMessageAt = 0;
    this.nextId = 1; // command ids increase for the life of the page
    this.retryTimer = null;
    this.watchdog = null;
    this.stopped = true;
  }

  // The server this connection uses (or tries) now.
  get url() {
    return this.urls[this.urlIndex];
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.watchdog = this.timers.setInterval(() => this.checkStale(), 1000);
    this.open();
  }

  stop() {
    this.stopped = true;
    this.timers.clearInterval(this.watchdog);
    this.timers.clearTimeout(this.retryTimer);
    this.drop();
  }

  // True after a final close: the server will not take this page back.
  get final() {
    return this.state === 'closed' && this.closeCause !== null && FINAL_CLOSE_CODES.has(this.closeCause.code);
  }

  // Sends one command, numbered with a fresh id; returns that id, or null when
  // there is no open socket (a command for a world we cannot see is dropped).
  send(cmd) {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1 /* OPEN */) return null;
    const id = this.nextId++;
    ws.send(JSON.stringify({ ...cmd, id }));
    this.handlers.onSent?.(id);
    return id;
  }

  open() {
    this.setState('connecting');
    this.lastMessageAt = this.now();
    let ws;
    try {
      ws = new this.WebSocketImpl(this.url, this.protocols);
    } catch (err) {
      // A malformed URL throws synchronously; treat it like a failed try.
      this.handlers.onSocketError?.(err);
      this.scheduleReconnect();
      return;
    }
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    // Every handler first checks that its socket is still the current one, so
    // late events from a socket we gave up on cannot disturb the new one.
    ws.onmessage = (ev) => {
      if (ws === this.ws) this.receive(ev.data);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.lastCloseCode = ev.code;
      if (ev.code !== 1005 && ev.code !== 1006) {
        this.closeCause = { code: ev.code, reason: typeof ev.reason === 'string' ? ev.reason : '' };
      }
      this.ws = null;
      if (FINAL_CLOSE_CODES.has(ev.code)) {
        this.stop();
        this.setState('closed');
        return;
      }
      this.scheduleReconnect();
    };
    // An error is always followed by a close event, which does the work.
    ws.onerror = () => {};
  }

  receive(data) {
    this.lastMessageAt = this.now();
    // What arrived, in bytes (the status line's kbit/s): a binary frame's
    // length, a text message's UTF-8 length.
    this.handlers.onBytes?.(typeof data === 'string' ? utf8Length(data) : data.byteLength ?? 0);
    if (typeof data !== 'string') {
      let snap;
      try {
        snap = this.decode(data);
      } catch (err) {
        this.handlers.onDecodeError?.(err);
        return;
      }
      this.handlers.onSnapshot?.(snap);
      return;
    }
    let msg;
    try {
      msg = JSON.parse(data);
    } catch (err) {
      this.handlers.onDecodeError?.(err);
      return;
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    if (msg.type === 'hello') {
      this.attempt = 0; // a server that says hello is healthy: next drop retries fast
      this.lastCloseCode = null;
      this.closeCause = null;
      this.setState('connected');
      this.handlers.onHello?.(msg);
    } else {
      this.handlers.onMessage?.(msg);
    }
  }

  scheduleReconnect() {
    if (this.stopped) return;
    // That server failed us: the next try goes to the next one in the list.
    this.urlIndex = (this.urlIndex + 1) % this.urls.length;
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.reconnectAt = this.now() + delay;
    this.setState('reconnecting');
    this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = this.timers.setTimeout(() => this.open(), delay);
  }

  checkStale() {
    if (this.ws && this.now() - this.lastMessageAt > STALE_MS) {
      this.drop();
      this.scheduleReconnect();
    }
  }

  // Forgets the current socket without waiting for its close handshake (which
  // may never finish if the peer is gone).
  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      try {
        ws.close();
      } catch {
        // Closing a socket that is already closing can throw; nothing to do.
      }
    }
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.handlers.onState?.(state);
  }
}
