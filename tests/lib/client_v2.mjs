// A protocol v2 test client: like Client (lib/client.mjs) for text, but
// every binary frame is decoded with client-web/net/wire2.js, and what tests
// need of each frame is kept (its size, seq, whether it carried a key, the
// view's rect and mode, and a digest of the decoded state).
import WebSocket from 'ws';
import { Wire2Decoder } from '../../client-web/net/wire2.js';
import { Client } from './client.mjs';
import { withTimeout } from './server.mjs';

export const SUBPROTOCOL_V2 = 'swarmcast.v2';

/** A digest of a detail state: every item's (qx, qy, h, f) in canonical order. */
export function digestOf(state) {
  let h = 2166136261 >>> 0;
  const mix = (v) => { h = Math.imul(h ^ (v >>> 0), 16777619) >>> 0; };
  mix(state.count);
  for (let i = 0; i < state.count; i++) {
    mix(state.qx[i]); mix(state.qy[i]); mix(state.h[i]); mix(state.f[i]);
  }
  return h;
}

export class V2Client extends Client {
  constructor(ws) {
    super(ws);
    // Client's handler decodes v1 frames: replaced by one for v2.
    ws.removeAllListeners('message');
    this.decoder = new Wire2Decoder();
    this.state = null;
    this.frames = [];        // { at, bytes, seq, tick, keyed, mode, rect, count, digest, paused }
    this.binaryBytes = 0;
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.binaryBytes += data.length;
        try {
          const s = this.decoder.decode(data);
          this.state = s;
          this.frames.push({
            at: Date.now(), bytes: data.length, seq: s.seq, tick: s.tick, keyed: s.keyed, paused: s.paused, mode: s.mode,
            rect: s.rect ? { level: s.rect.level, x0: s.rect.x0, y0: s.rect.y0, x1: s.rect.x1, y1: s.rect.y1 } : null,
            count: s.count, digest: s.mode === 'detail' ? digestOf(s) : null,
          });
        } catch (e) {
          this.decodeErrors.push(e);
        }
      } else {
        const text = data.toString('utf8');
        try { this.texts.push(JSON.parse(text)); } catch { this.badTexts.push(text); }
      }
      this.notify();
    });
  }

  /** Resolves with the first frame, from index `from` on, that matches pred. */
  waitFrame(pred, what, { from = 0, timeoutMs = 10000 } = {}) {
    return this.waitFor(() => {
      for (let i = from; i < this.frames.length; i++) if (pred(this.frames[i], i)) return { frame: this.frames[i], index: i };
      return undefined;
    }, what, { timeoutMs });
  }

  /** Sends a view request (world units) with a fresh id. */
  view(x, y, w, h, budget) {
    return this.send(budget === undefined ? { type: 'view', x, y, w, h } : { type: 'view', x, y, w, h, budget });
  }
}

/** Opens a v2 client and waits for its hello; localAddress: connect from another loopback address. */
export async function connectV2(url, { timeoutMs = 5000, localAddress } = {}) {
  const ws = new WebSocket(url, [SUBPROTOCOL_V2], { handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024, localAddress });
  const client = new V2Client(ws);
  await withTimeout(new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('close', (code) => reject(new Error(`closed with ${code} before opening`)));
  }), timeoutMs, `a v2 WebSocket connection to ${url}`);
  await client.waitText((m) => m.type === 'hello', 'hello', { timeoutMs });
  return client;
}
