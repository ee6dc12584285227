// Just enough of the NATS client protocol (text commands over TCP: CONNECT,
// SUB, PUB, MSG, PING/PONG) for a test to play the simulation's side of the
// scaled set-up against a real nats-server, and the bridge's binary
// messages (protocol/PROTOCOL.md, "NATS subjects (scaled set-up)") to go
// with it. Loopback only; every wait is bounded by the caller.
import net from 'node:net';
import { spawn } from 'node:child_process';

import { withTimeout, sleep } from './server.mjs';

/** A nats-server on 127.0.0.1:port; resolves once the port accepts. stop() ends it. */
export async function startNatsServer(port, { timeoutMs = 10000 } = {}) {
  const proc = spawn(process.env.SWARMCAST_NATS_SERVER || 'nats-server', ['-a', '127.0.0.1', '-p', String(port)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c) => { err = (err + c).slice(-4000); });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`nats-server did not listen on ${port}: ${err}`);
    }
    await sleep(50);
  }
  return {
    proc, port, url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await withTimeout(exited, 5000, 'nats-server to exit').catch(() => proc.kill('SIGKILL'));
    },
  };
}

export class NatsWire {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.subs = new Map(); // sid → callback(subject, reply, payload)
    this.nextSid = 1;
    this.pongs = [];
    socket.on('data', (chunk) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      this.parse();
    });
  }

  static async connect(port, { timeoutMs = 5000 } = {}) {
    const socket = net.connect(port, '127.0.0.1');
    await withTimeout(new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }), timeoutMs, `a NATS connection to ${port}`);
    const c = new NatsWire(socket);
    socket.write('CONNECT {"verbose":false,"pedantic":false,"headers":false,"protocol":1,"name":"test-sim"}\r\n');
    await c.flush(timeoutMs);
    return c;
  }

  parse() {
    for (;;) {
      const eol = this.buf.indexOf('\r\n');
      if (eol < 0) return;
      const line = this.buf.subarray(0, eol).toString('utf8');
      if (line.startsWith('MSG ')) {
        const parts = line.split(' ');
        const size = Number(parts[parts.length - 1]);
        if (this.buf.length < eol + 2 + size + 2) return; // the payload is not all here yet
        const payload = Buffer.from(this.buf.subarray(eol + 2, eol + 2 + size));
        this.buf = this.buf.subarray(eol + 2 + size + 2);
        const [, subject, sid] = parts;
        const reply = parts.length === 5 ? parts[3] : null;
        this.subs.get(Number(sid))?.(subject, reply, payload);
        continue;
      }
      this.buf = this.buf.subarray(eol + 2);
      if (line === 'PING') this.socket.write('PONG\r\n');
      else if (line === 'PONG') this.pongs.shift()?.();
      else if (line.startsWith('-ERR')) throw new Error(`nats-server: ${line}`);
    }
  }

  sub(subject, cb) {
    const sid = this.nextSid++;
    this.subs.set(sid, cb);
    this.socket.write(`SUB ${subject} ${sid}\r\n`);
    return sid;
  }

  pub(subject, payload, reply = null) {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
    this.socket.write(`PUB ${subject}${reply ? ` ${reply}` : ''} ${body.length}\r\n`);
    this.socket.write(body);
    this.socket.write('\r\n');
  }

  /** Resolves once the server has processed everything sent so far. */
  flush(timeoutMs = 5000) {
    return withTimeout(new Promise((resolve) => {
      this.pongs.push(resolve);
      this.socket.write('PING\r\n');
    }), timeoutMs, 'a PONG from nats-server');
  }

  close() {
    this.socket.destroy();
  }
}

// ---- bridge messages ('S','B', version 1, type; little-endian) ----------

const MAGIC = [0x53, 0x42, 1];
export const ENVELOPE = { OPEN: 1, CLOSE: 2, TEXT: 3, REPLY: 4, KICK: 5 };

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

export function envelopeMsg({ kind, operator = false, clientId, code = 0, text = '' }) {
  return Buffer.concat([header(4), u8(kind), u8(operator ? 1 : 0), u32(clientId), u16(code),
    blob(Buffer.from(text, 'utf8'))]);
}

/** { kind, operator, clientId, code, text } of an envelope, or null. */
export function decodeEnvelope(b) {
  if (b.length < 16 || b[0] !== 0x53 || b[1] !== 0x42 || b[2] !== 1 || b[3] !== 4) return null;
  const len = b.readUInt32LE(12);
  if (b.length !== 16 + len) return null;
  return { kind: b[4], operator: (b[5] & 1) === 1, clientId: b.readUInt32LE(6), code: b.readUInt16LE(10),
    text: b.subarray(16).toString('utf8') };
}
