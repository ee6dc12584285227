// A raw WebSocket client over node:net, for the tests that must do what a
// well-behaved client library never does: upgrade requests with missing or
// malformed headers, a reset before or right after the 101, a frame that
// announces more than it sends, silence (no pong), never reading.
//
// The incoming stream is parsed as it arrives (HTTP response, then frames)
// without keeping binary payloads, so a raw client can watch a server that
// streams large snapshots at little cost.
import net from 'node:net';
import crypto from 'node:crypto';
import { withTimeout } from './server.mjs';

export const OP = { CONTINUATION: 0x0, TEXT: 0x1, BINARY: 0x2, CLOSE: 0x8, PING: 0x9, PONG: 0xa };

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
// Text, close and ping payloads are kept (they are small); longer ones are cut.
const KEEP_PAYLOAD_BYTES = 8192;
// An HTTP response body (a refusal page) is kept up to this size.
const KEEP_BODY_BYTES = 16384;

/** A fresh Sec-WebSocket-Key: 16 random bytes in base64. */
export function newKey() {
  return crypto.randomBytes(16).toString('base64');
}

/** The Sec-WebSocket-Accept a server must answer for `key` (RFC 6455 4.2.2). */
export function acceptFor(key) {
  return crypto.createHash('sha1').update(key + WS_GUID).digest('base64');
}

/**
 * The text of an upgrade request. Every header of a valid request is there
 * unless named in `omit` (case-insensitive); `headers` adds or replaces some
 * (a value of null removes one); `requestLine` replaces "GET /ws HTTP/1.1".
 */
export function upgradeRequest({
  path = '/ws', host = '127.0.0.1', key = newKey(), version = '13', protocol = 'swarmcast.v1',
  origin = null, omit = [], headers = {}, requestLine = null,
} = {}) {
  const h = new Map([
    ['Host', host],
    ['Upgrade', 'websocket'],
    ['Connection', 'Upgrade'],
    ['Sec-WebSocket-Key', key],
    ['Sec-WebSocket-Version', version],
  ]);
  if (protocol) h.set('Sec-WebSocket-Protocol', protocol);
  if (origin) h.set('Origin', origin);
  for (const [name, value] of Object.entries(headers)) {
    for (const k of [...h.keys()]) if (k.toLowerCase() === name.toLowerCase()) h.delete(k);
    if (value !== null) h.set(name, value);
  }
  const dropped = new Set(omit.map((n) => n.toLowerCase()));
  const lines = [requestLine ?? `GET ${path} HTTP/1.1`];
  for (const [name, value] of h) if (!dropped.has(name.toLowerCase())) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** XORs `payload` with the 4-byte `key`, starting at `offset` within the frame's payload. */
export function maskBytes(payload, key, offset = 0) {
  const out = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i] ^ key[(offset + i) & 3];
  return out;
}

/**
 * A frame header (client to server: masked, so it ends with the mask key)
 * announcing `length` payload bytes. Send fewer to leave the frame unfinished.
 */
export function frameHeader(opcode, length, { fin = true, maskKey = crypto.randomBytes(4) } = {}) {
  const first = (fin ? 0x80 : 0) | opcode;
  const maskBit = maskKey ? 0x80 : 0;
  let head;
  if (length < 126) {
    head = Buffer.from([first, maskBit | length]);
  } else if (length < 65536) {
    head = Buffer.alloc(4);
    head[0] = first; head[1] = maskBit | 126; head.writeUInt16BE(length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = first; head[1] = maskBit | 127; head.writeBigUInt64BE(BigInt(length), 2);
  }
  return maskKey ? Buffer.concat([head, maskKey]) : head;
}

/** A whole client frame: header, mask key and masked payload. */
export function encodeFrame(opcode, payload = Buffer.alloc(0), { fin = true } = {}) {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const maskKey = crypto.randomBytes(4);
  return Buffer.concat([frameHeader(opcode, body.length, { fin, maskKey }), maskBytes(body, maskKey)]);
}

/** The payload of a close frame: a 2-byte code and an optional reason. */
export function closePayload(code, reason = '') {
  const r = Buffer.from(reason, 'utf8');
  const b = Buffer.alloc(2 + r.length);
  b.writeUInt16BE(code, 0);
  r.copy(b, 2);
  return b;
}

/**
 * One TCP connection, spoken to byte by byte.
 *
 *   response   { status, headers, raw } once the HTTP response header came
 *   body       the HTTP body after a non-101 response (first KEEP_BODY_BYTES)
 *   counts     frames seen by opcode name; bytes: every byte received
 *   texts      text messages (strings), in order
 *   closeFrame { code, reason } of the server's first close frame
 *   closeFrameAt  performance.now() when it arrived
 *   closeFrames  every close frame, in order (RFC 6455 allows one)
 *   countsAtClose  `counts` as they were when that close frame arrived
 *   pingsSeen, pongsSent
 *   ended      the server's FIN arrived; closed: the socket is gone
 *   closedAt   performance.now() when the socket closed
 *
 * With autoPong (default false) every ping is answered with its pong; with
 * answerClose (default false) the server's close frame is answered with one
 * (the closing handshake a well-behaved client completes), then a FIN.
 */
export class RawSocket {
  constructor(socket, { autoPong = false, answerClose = false } = {}) {
    this.socket = socket;
    this.autoPong = autoPong;
    this.answerClose = answerClose;
    this.response = null;
    this.body = '';
    this.counts = { text: 0, binary: 0, close: 0, ping: 0, pong: 0, continuation: 0, other: 0 };
    this.bytes = 0;
    this.texts = [];
    this.closeFrame = null;
    this.closeFrames = [];
    this.closeFrameAt = null;
    this.countsAtClose = null;
    this.pingsSeen = 0;
    this.pongsSent = 0;
    this.ended = false;
    this.closed = false;
    this.closedAt = null;
    this.error = null;
    this.pending = Buffer.alloc(0); // unparsed bytes
    this.skip = 0;                  // payload bytes of the current frame still to drop
    this.waiters = new Set();
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('end', () => { this.ended = true; this.notify(); });
    socket.on('error', (e) => { this.error = e; this.notify(); });
    this.whenClosed = new Promise((resolve) => {
      socket.on('close', () => {
        this.closed = true;
        this.closedAt = performance.now();
        this.notify();
        resolve(this);
      });
    });
  }

  /** Opens a TCP connection to 127.0.0.1:port (from localAddress if given). */
  static connect(port, { host = '127.0.0.1', localAddress, autoPong = false, answerClose = false, timeoutMs = 3000 } = {}) {
    return withTimeout(new Promise((resolve, reject) => {
      const socket = net.connect({ host, port, localAddress });
      socket.once('connect', () => { socket.removeListener('error', reject); resolve(new RawSocket(socket, { autoPong, answerClose })); });
      socket.once('error', reject);
    }), timeoutMs, `a TCP connection to ${host}:${port}`);
  }

  /**
   * Connects, sends a valid upgrade request and waits for the 101; rejects
   * if the server answers anything else. Returns the RawSocket.
   */
  static async open(port, { requestOpts = {}, ...opts } = {}) {
    const raw = await RawSocket.connect(port, opts);
    const key = newKey();
    raw.write(upgradeRequest({ key, ...requestOpts }));
    const res = await raw.waitResponse(opts.timeoutMs ?? 3000);
    if (!res || res.status !== 101) {
      raw.destroy();
      throw new Error(`the upgrade was refused: ${res ? res.raw.split('\r\n')[0] : 'no response'}`);
    }
    if (res.headers['sec-websocket-accept'] !== acceptFor(key)) {
      raw.destroy();
      throw new Error(`wrong Sec-WebSocket-Accept: ${res.headers['sec-websocket-accept']}`);
    }
    return raw;
  }

  notify() {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with check()'s first truthy value (checked now and on every event), or rejects after timeoutMs. */
  waitFor(check, what, timeoutMs = 3000) {
    return new Promise((resolve, reject) => {
      let timer = null;
      const done = () => { clearTimeout(timer); this.waiters.delete(waiter); };
      const waiter = () => {
        const v = check();
        if (v) { done(); resolve(v); }
      };
      timer = setTimeout(() => { done(); reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)); }, timeoutMs);
      this.waiters.add(waiter);
      waiter();
    });
  }

  /** The HTTP response header, or null if the connection ended without one. */
  async waitResponse(timeoutMs = 3000) {
    await this.waitFor(() => this.response || this.closed || this.ended, 'an HTTP response', timeoutMs);
    return this.response;
  }

  onData(chunk) {
    this.bytes += chunk.length;
    if (!this.response) {
      this.pending = Buffer.concat([this.pending, chunk]);
      const end = this.pending.indexOf('\r\n\r\n');
      if (end < 0) {
        this.notify();
        return;
      }
      const raw = this.pending.subarray(0, end).toString('latin1');
      const [statusLine, ...lines] = raw.split('\r\n');
      const headers = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      this.response = { status: m ? Number(m[1]) : null, headers, raw };
      chunk = this.pending.subarray(end + 4);
      this.pending = Buffer.alloc(0);
    }
    if (this.response.status !== 101) {
      if (this.body.length < KEEP_BODY_BYTES) this.body += chunk.toString('latin1').slice(0, KEEP_BODY_BYTES - this.body.length);
      this.notify();
      return;
    }
    this.parseFrames(chunk);
    this.notify();
  }

  parseFrames(chunk) {
    if (this.skip) {
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      chunk = chunk.subarray(n);
    }
    if (!chunk.length) return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const b = this.pending;
      if (b.length < 2) return;
      const opcode = b[0] & 0x0f;
      const masked = (b[1] & 0x80) !== 0;
      let len = b[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = b.readUInt16BE(2); at = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        len = Number(b.readBigUInt64BE(2)); at = 10;
      }
      if (masked) at += 4;
      if (b.length < at) return;
      const name = { 0: 'continuation', 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' }[opcode] ?? 'other';
      this.counts[name]++;
      const keep = opcode !== OP.BINARY && opcode !== OP.CONTINUATION;
      if (!keep) {
        // drop the payload without buffering it
        const available = b.length - at;
        if (available >= len) {
          this.pending = b.subarray(at + len);
          continue;
        }
        this.skip = len - available;
        this.pending = Buffer.alloc(0);
        return;
      }
      if (b.length < at + len) return; // wait for the whole (small) payload
      let payload = b.subarray(at, at + len);
      if (masked) payload = maskBytes(payload, b.subarray(at - 4, at));
      this.pending = b.subarray(at + len);
      this.onFrame(opcode, payload.subarray(0, KEEP_PAYLOAD_BYTES));
    }
  }

  onFrame(opcode, payload) {
    if (opcode === OP.TEXT) {
      this.texts.push(payload.toString('utf8'));
    } else if (opcode === OP.CLOSE) {
      // frames already seen, the close included: what arrives later broke RFC 6455 5.5.1
      this.countsAtClose ??= { ...this.counts };
      const frame = payload.length >= 2
        ? { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString('utf8') }
        : { code: null, reason: '' };
      this.closeFrames.push(frame);
      this.closeFrame ??= frame;
      this.closeFrameAt ??= performance.now();
      if (this.answerClose && this.closeFrames.length === 1 && !this.socket.destroyed) {
        this.socket.write(encodeFrame(OP.CLOSE, frame.code ? closePayload(frame.code) : Buffer.alloc(0)));
        this.socket.end();
      }
    } else if (opcode === OP.PING) {
      this.pingsSeen++;
      if (this.autoPong && !this.socket.destroyed) {
        this.socket.write(encodeFrame(OP.PONG, Buffer.from(payload)));
        this.pongsSent++;
      }
    }
  }

  /** Data frames (text, binary, continuation) that arrived after the server's close frame. */
  get dataFramesAfterClose() {
    if (!this.countsAtClose) return 0;
    const data = (c) => c.text + c.binary + c.continuation;
    return data(this.counts) - data(this.countsAtClose);
  }

  /** JSON text messages. */
  get messages() {
    return this.texts.map((t) => { try { return JSON.parse(t); } catch { return null; } }).filter(Boolean);
  }

  write(data) {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  sendText(text) {
    this.write(encodeFrame(OP.TEXT, text));
  }

  sendJson(obj) {
    this.sendText(JSON.stringify(obj));
  }

  /** Stops reading: the kernel buffers fill and the server's writes stop progressing. */
  pause() {
    this.socket.pause();
  }

  resume() {
    this.socket.resume();
  }

  /** An RST: the connection vanishes without a FIN. */
  reset() {
    if (!this.socket.destroyed) this.socket.resetAndDestroy();
  }

  destroy() {
    this.socket.destroy();
  }

  /** Resolves once the socket has closed (FIN read to the end, RST or destroy), or rejects after timeoutMs. */
  closedWithin(timeoutMs, what = 'the connection to close') {
    return withTimeout(this.whenClosed, timeoutMs, what);
  }
}
