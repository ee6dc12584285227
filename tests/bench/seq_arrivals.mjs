// When each frame arrives on a v2 viewer, by its seq (bytes 4..7 of the v2
// frame header, PROTOCOL.md): two viewers of the same view, one direct and
// one through a hop (a relay, a proxy), give what the hop adds to each
// frame's latency. Shared by relay-hop.mjs and proxy.mjs.
import WebSocket from 'ws';

/** A v2 viewer that notes the arrival time (ms, monotonic) of every seq while recording. */
export function seqViewer(url, wsOptions = {}) {
  const ws = new WebSocket(url, 'swarmcast.v2', { maxPayload: 64 * 1024 * 1024, ...wsOptions });
  const v = { ws, at: new Map(), bytes: 0, recording: false };
  ws.on('message', (data, isBinary) => {
    if (!isBinary || !v.recording || data.length < 20) return;
    const t = performance.now();
    v.at.set(data.readUInt32LE(4), t);
    v.bytes += data.length;
  });
  v.open = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return v;
}

export const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

/** The hop's arrival minus the direct one, for every seq both saw, sorted (ms). */
export function addedByHop(direct, hop) {
  const added = [];
  for (const [seq, t] of hop.at) {
    const d = direct.at.get(seq);
    if (d !== undefined) added.push(t - d);
  }
  return added.sort((a, b) => a - b);
}

/** "p50 …, p90 …, p99 …, max …, min …, mean …" of a sorted list of ms. */
export function describeAdded(added) {
  const fmt = (ms) => `${ms.toFixed(2)} ms`;
  const mean = added.reduce((s, x) => s + x, 0) / added.length;
  return `p50 ${fmt(quantile(added, 0.5))}, p90 ${fmt(quantile(added, 0.9))}, p99 ${fmt(quantile(added, 0.99))}, ` +
    `max ${fmt(added.at(-1))}, min ${fmt(added[0])}, mean ${fmt(mean)}`;
}
