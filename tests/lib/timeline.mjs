// The timeline's messages for tests (protocol/PROTOCOL.md, "Timeline").
import assert from 'node:assert/strict';

/** Sends a timeline message and resolves with its answer (timeline or error, by id). */
export async function timelineRequest(client, body, { timeoutMs = 10000 } = {}) {
  const mark = client.mark();
  const msg = client.send({ type: 'timeline', ...body });
  return client.waitText((m) => (m.type === 'timeline' || m.type === 'error') && m.id === msg.id,
    `the answer to ${JSON.stringify(msg)}`, { after: mark, timeoutMs });
}

/** The live frames' digests by tick (the first whole-world detail frame of each tick). */
export function liveByTick(client) {
  const out = new Map();
  for (const f of client.frames) if (f.mode === 'detail' && !out.has(f.tick)) out.set(f.tick, f);
  return out;
}

/**
 * Seeks `client` to `tick` and waits for that tick's frame: it must be a
 * key of the very world live viewers decoded at that tick (`seen`:
 * liveByTick's map), digest for digest. Resolves with the frame.
 */
export async function seekMatchesLive(client, tick, seen, what = 'the scrubbed world is the one broadcast live') {
  const from = client.frames.length;
  const answer = await timelineRequest(client, { op: 'seek', tick });
  assert.equal(answer.type, 'timeline', JSON.stringify(answer));
  assert.equal(answer.mode, 'paused');
  assert.equal(answer.tick, tick);
  assert.ok(answer.from <= tick && tick <= answer.to, JSON.stringify(answer));
  const { frame } = await client.waitFrame((f) => f.tick === tick, `the frame of tick ${tick}`, { from });
  assert.ok(frame.keyed, 'a frame of the past is a key');
  assert.equal(frame.count, seen.get(tick).count);
  assert.equal(frame.digest, seen.get(tick).digest, `tick ${tick}: ${what}`);
  return frame;
}
