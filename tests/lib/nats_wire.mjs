// What a test needs to play the simulation's side of the scaled set-up
// against a real nats-server (lib/nats.mjs starts it): a NATS connection
// (the `nats` package), and the bridge's binary messages (protocol/PROTOCOL.md,
// "NATS subjects (scaled set-up)"). Loopback only; every wait is bounded.
import { connect } from 'nats';

import { withTimeout } from './server.mjs';

/** The test's NATS connection (the `nats` package), with the little the
 * tests need: sub(subject, cb(subject, reply, payload Buffer)), pub, flush. */
export class NatsWire {
  constructor(nc) {
    this.nc = nc;
  }

  static async connect(port, { timeoutMs = 5000 } = {}) {
    const nc = await connect({ servers: `127.0.0.1:${port}`, name: 'test-sim', timeout: timeoutMs,
      maxReconnectAttempts: 0 });
    return new NatsWire(nc);
  }

  sub(subject, cb) {
    return this.nc.subscribe(subject, {
      callback: (err, msg) => { if (!err) cb(msg.subject, msg.reply || null, Buffer.from(msg.data)); },
    });
  }

  pub(subject, payload, reply = null) {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
    this.nc.publish(subject, body, reply ? { reply } : undefined);
  }

  /** Resolves once the server has processed everything sent so far. */
  flush(timeoutMs = 5000) {
    return withTimeout(this.nc.flush(), timeoutMs, 'a PONG from nats-server');
  }

  close() {
    this.nc.close().catch(() => {});
  }
}

// ---- bridge messages ('S','B', version 2, type; little-endian) ----------

const MAGIC = [0x53, 0x42, 2];
export const ENVELOPE = { OPEN: 1, CLOSE: 2, TEXT: 3, REPLY: 4, KICK: 5, ROLE: 6, PAST: 7, LIVE: 8, SCRUB_VIEW: 9 };

function header(type) {
  return Buffer.from([...MAGIC, type]);
}
function u8(v) { return Buffer.from([v]); }
function u16(v) { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; }
function u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; }
function blob(bytes) { return Buffer.concat([u32(bytes.length), bytes]); }
function optional(bytes) { return bytes ? blob(bytes) : u32(0xffffffff); }

/** A snapshot message: seq, scene version, both frame headers, an empty census of wq × hq. */
export function snapshotMsg({ seq, sceneVersion = 1, header: h, headerScene, wq = 12800, hq = 9600 }) {
  const cells = Buffer.alloc(32 * 32, 0); // 1024 varints of 0
  return Buffer.concat([header(1), u32(seq), u32(sceneVersion), blob(h), blob(headerScene), u32(wq), u32(hq), cells]);
}

/** A view message: one view's chunks (Buffers, or null when absent) for one seq. */
export function viewMsg({ seq, simViewId, mode, rect, key, delta = null, keyDelta = null }) {
  return Buffer.concat([header(2), u32(seq), u32(simViewId), u8(mode === 'l' ? 1 : 0), u8(rect.l), u16(rect.x0),
    u16(rect.y0), u16(rect.x1), u16(rect.y1), optional(key), optional(delta), optional(keyDelta)]);
}

export function newsMsg(key, text) {
  return Buffer.concat([header(3), u16(key), blob(Buffer.from(text, 'utf8'))]);
}

/** room: '' (the default room) or a canonical room code; text: a string (UTF-8) or a Buffer. */
export function envelopeMsg({ kind, operator = false, clientId, code = 0, room = '', text = '' }) {
  return Buffer.concat([header(4), u8(kind), u8(operator ? 1 : 0), u32(clientId), u16(code), u8(room.length),
    Buffer.from(room, 'ascii'), blob(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'))]);
}

/** A SCRUB_VIEW envelope's text: mode ('d' or 'l') and rect { l, x0, y0, x1, y1 }. */
export function scrubViewText(mode, rect) {
  return Buffer.concat([u8(mode === 'l' ? 1 : 0), u8(rect.l), u16(rect.x0), u16(rect.y0), u16(rect.x1), u16(rect.y1)]);
}

/** { kind, operator, clientId, code, room, text } of an envelope, or null. */
export function decodeEnvelope(b) {
  if (b.length < 17 || b[0] !== 0x53 || b[1] !== 0x42 || b[2] !== 2 || b[3] !== 4) return null;
  const roomLen = b[12];
  if (b.length < 17 + roomLen) return null;
  const len = b.readUInt32LE(13 + roomLen);
  if (b.length !== 17 + roomLen + len) return null;
  return { kind: b[4], operator: (b[5] & 1) === 1, clientId: b.readUInt32LE(6), code: b.readUInt16LE(10),
    room: b.subarray(13, 13 + roomLen).toString('ascii'), text: b.subarray(17 + roomLen).toString('utf8') };
}
