// A WebSocket client for tests: every text message is parsed and kept,
// every binary one decoded with client-web/net/protocol.js, and tests wait for
// what they expect with a timeout, so nothing can hang.
import WebSocket from 'ws';
import { decodeSnapshot } from '../../client-web/net/protocol.js';
import { withTimeout } from './server.mjs';

export const DEFAULT_TIMEOUT_MS = 3000;
export const SUBPROTOCOL = 'swarmcast.v1';

let nextCommandId = 1000;

export class Client {
  constructor(ws) {
    this.ws = ws;
    this.texts = [];            // every JSON message, in arrival order
    this.badTexts = [];         // text frames that were not JSON
    this.kinds = [];            // 'text' / 'binary' for the first few messages
    this.snapshotCount = 0;
    this.lastSnapshot = null;
    this.decodeErrors = [];     // binary frames the decoder refused
    this.closeInfo = null;      // { code, reason } once closed
    this.socketErrors = [];
    this.waiters = new Set();
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        this.notify();
        resolve(this.closeInfo);
      });
    });
    ws.on('error', (e) => { this.socketErrors.push(e); this.notify(); });
    ws.on('message', (data, isBinary) => {
      if (this.kinds.length < 8) this.kinds.push(isBinary ? 'binary' : 'text');
      if (isBinary) {
        try {
          this.lastSnapshot = decodeSnapshot(data);
          this.snapshotCount++;
        } catch (e) {
          this.decodeErrors.push(e);
        }
      } else {
        const text = data.toString('utf8');
        try {
          this.texts.push(JSON.parse(text));
        } catch {
          this.badTexts.push(text);
        }
      }
      this.notify();
    });
  }

  get hello() {
    return this.texts.find((m) => m.type === 'hello');
  }

  notify() {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with the first truthy value of check(), evaluated now and after
   * every message; rejects after timeoutMs, or if the socket closes first
   * (unless allowClosed).
   */
  waitFor(check, what, { timeoutMs = DEFAULT_TIMEOUT_MS, allowClosed = false } = {}) {
    return new Promise((resolve, reject) => {
      let timer = null;
      const done = () => { clearTimeout(timer); this.waiters.delete(waiter); };
      const waiter = () => {
        let v;
        try { v = check(); } catch (e) { done(); reject(e); return; }
        if (v) { done(); resolve(v); return; }
        if (this.closeInfo && !allowClosed) {
          done();
          reject(new Error(`connection closed (code ${this.closeInfo.code}) while waiting for ${what}`));
        }
      };
      timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(waiter);
      waiter();
    });
  }

  /** A position in the message history; pass it as `after` to wait only for newer messages. */
  mark() {
    return { text: this.texts.length, snapshot: this.snapshotCount };
  }

  textsSince(mark) {
    return this.texts.slice(mark.text);
  }

  /** The first JSON message after `after` (default: any, from the start) matching pred. */
  waitText(pred, what, { after = { text: 0 }, ...opts } = {}) {
    return this.waitFor(() => this.texts.slice(after.text).find(pred), what, opts);
  }

  /** The next snapshot to arrive (after this call) that matches pred. */
  nextSnapshot(pred = () => true, what = 'a snapshot', opts = {}) {
    const start = this.snapshotCount;
    let seen = start;
    return this.waitFor(() => {
      if (this.snapshotCount === seen) return undefined;
      seen = this.snapshotCount;
      return pred(this.lastSnapshot) ? this.lastSnapshot : undefined;
    }, what, opts);
  }

  /** Collects the next n snapshots. */
  async snapshots(n, opts = {}) {
    const out = [];
    while (out.length < n) out.push(await this.nextSnapshot(() => true, `snapshot ${out.length + 1} of ${n}`, opts));
    return out;
  }

  sendRaw(data, opts) {
    this.ws.send(data, opts);
  }

  /** Sends cmd as JSON; gives it a fresh id unless it has one (pass id: null for none). */
  send(cmd) {
    const msg = 'id' in cmd ? cmd : { ...cmd, id: nextCommandId++ };
    if (msg.id === null) delete msg.id;
    this.ws.send(JSON.stringify(msg));
    return msg;
  }

  /** Sends cmd (with a fresh id) and resolves with the ack or error that echoes its id. */
  async request(cmd, opts = {}) {
    const mark = this.mark();
    const msg = this.send(cmd);
    return this.waitText((m) => (m.type === 'ack' || m.type === 'error') && m.id === msg.id,
      `the reply to ${JSON.stringify(msg).slice(0, 200)}`, { after: mark, ...opts });
  }

  /** Like request() but fails unless the reply is an ack. */
  async command(cmd, opts = {}) {
    const reply = await this.request(cmd, opts);
    if (reply.type !== 'ack') {
      throw new Error(`${JSON.stringify(cmd)} was refused: ${JSON.stringify(reply)}`);
    }
    return reply;
  }

  close() {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(1000);
    }
  }
}

/**
 * Opens a WebSocket (subprotocol swarmcast.v1 unless protocols is given) and
 * waits for the connection; with waitHello (default) also for the hello.
 */
export async function connect(url, { protocols = [SUBPROTOCOL], waitHello = true, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const ws = new WebSocket(url, protocols, { handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
  const client = new Client(ws);
  await withTimeout(new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('close', (code) => reject(new Error(`closed with ${code} before opening`)));
  }), timeoutMs, `a WebSocket connection to ${url}`);
  if (waitHello) {
    await client.waitText((m) => m.type === 'hello', 'hello', { timeoutMs });
  }
  return client;
}
