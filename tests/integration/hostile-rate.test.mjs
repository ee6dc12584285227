// Rate limits weighted by cost and bad input, as a flooding visitor meets
// them (issue 8, "fair sharing" and "strict input"): refused commands are
// answered with rate_limited and change nothing; persistent abuse is closed
// with 1008 "too many commands"; a bystander keeps its snapshots. Invalid
// UTF-8 and oversized messages close with 1007 and 1009 as the client sees
// them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep, withTimeout } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { RawSocket, encodeFrame, OP } from '../lib/raw.mjs';
import { openViewer, describe } from '../lib/viewer.mjs';

let server;
let bystander;

before(async () => {
  server = await startServer({ agents: 300 });
  bystander = await openViewer(server.wsUrl, { name: 'bystander' });
});

after(async () => {
  bystander?.close();
  if (server) {
    const r = await server.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
  }
});

const count = (list, pred) => list.filter(pred).length;

test('a set_target flood is answered with rate_limited, refused targets are not applied, then a reset flood is closed with 1008 "too many commands"; the bystander is unaffected', { timeout: 60000 }, async () => {
  const flooder = await connect(server.wsUrl);
  const me = flooder.hello.client_id;
  const from = performance.now();
  try {
    // Phase 1: set_target in batches of 10, each batch's replies awaited
    // (so at most 10 refusals can pile up: well under the close threshold),
    // until a batch is refused or 2,000 were sent.
    const sent = [];
    let replies = [];
    for (let i = 0; i < 200 && !replies.some((r) => r.type === 'error'); i++) {
      const batch = Array.from({ length: 10 }, (_, k) => {
        const j = i * 10 + k;
        return { type: 'set_target', x: 100 + (j % 1000) + 0.5, y: 100 + Math.floor(j / 1000) + 0.25 };
      });
      sent.push(...batch);
      replies = await Promise.all(batch.map((c) => flooder.request(c)));
      batch.forEach((c, k) => { c.reply = replies[k]; });
    }
    const acked = sent.filter((c) => c.reply.type === 'ack');
    const refused = sent.filter((c) => c.reply.type === 'error');
    const lastAcked = acked[acked.length - 1];
    console.log(`# set_target flood: ${sent.length} sent in batches of 10 in ${Math.round(performance.now() - from)} ms, ${acked.length} acked, ` +
      `${refused.length} refused (${[...new Set(refused.map((c) => c.reply.code))].join(', ')})`);
    assert.ok(refused.length > 0, `a flood of set_target is rate limited (${sent.length} sent, all acked)`);
    for (const c of refused) assert.equal(c.reply.code, 'rate_limited', JSON.stringify(c.reply));
    // Refused commands change nothing: the target stays where the last
    // acknowledged one put it, whatever was refused after it.
    assert.ok(lastAcked, 'the first commands were applied');
    const snap = await flooder.nextSnapshot((q) => q.tick > lastAcked.reply.tick && q.targets.some((t) => t.client_id === me),
      'the flooder\'s target in a snapshot after its last ack');
    const shown = snap.targets.find((t) => t.client_id === me);
    assert.deepEqual({ x: shown.x, y: shown.y }, { x: lastAcked.x, y: lastAcked.y }, 'the target is the last acknowledged one');

    // Phase 2: resets (the most expensive command), 10 every 20 ms, until
    // the server closes the connection (at most 15 s).
    const mark = flooder.mark();
    const tickDropsBefore = countTickRestarts(bystander.arrivals);
    let resets = 0;
    const deadline = performance.now() + 15000;
    while (!flooder.closeInfo && performance.now() < deadline) {
      for (let k = 0; k < 10 && flooder.ws.readyState === 1; k++) {
        flooder.send({ type: 'reset', seed: resets });
        resets++;
      }
      await sleep(20);
    }
    const close = await withTimeout(flooder.closed, 5000, 'the reset flooder to be closed').catch(() => ({ code: null, reason: 'still open' }));
    const answers = flooder.textsSince(mark);
    const resetAcks = count(answers, (m) => m.type === 'ack' && m.cmd === 'reset');
    const limited = count(answers, (m) => m.type === 'error' && m.code === 'rate_limited');
    // At least two whole seconds of the bystander are measured, however
    // quickly the floods ended.
    await sleep(Math.max(500, 2100 - (performance.now() - from)));
    const restarts = countTickRestarts(bystander.arrivals) - tickDropsBefore;
    const m = bystander.measure(from, performance.now());
    console.log(`# reset flood: ${resets} sent, ${resetAcks} acked, ${limited} rate_limited, closed with ${close.code} "${close.reason}"; ` +
      `world restarts seen by the bystander ${restarts}`);
    console.log(`# bystander during both floods: ${describe(m)}`);

    assert.ok(limited > 0, 'resets were rate limited');
    assert.equal(close.code, 1008, `closed with 1008: ${JSON.stringify(close)}`);
    assert.match(close.reason, /too many commands/);
    assert.ok(restarts <= resetAcks, `the bystander saw ${restarts} restarts of the world for ${resetAcks} acked resets: refused resets were not applied`);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
    assert.deepEqual(bystander.texts.filter((x) => x.type === 'error'), [], 'the bystander saw no error');
    assert.ok(m.minSnapshots > 0, `the bystander got snapshots every second: ${describe(m)}`);
  } finally {
    flooder.close();
  }
});

/** How many times the tick went back (a reset) in a viewer's log. */
function countTickRestarts(arrivals) {
  let n = 0;
  for (let i = 1; i < arrivals.length; i++) if (arrivals[i].tick < arrivals[i - 1].tick) n++;
  return n;
}

test('reconnecting mints no budget: a fresh connection\'s reset is refused until it has earned one', { timeout: 30000 }, async () => {
  const replies = [];
  for (let i = 0; i < 5; i++) {
    const c = await connect(server.wsUrl);
    replies.push(await c.request({ type: 'reset', seed: 100 + i }));
    c.close();
  }
  const patient = await connect(server.wsUrl);
  await sleep(3200); // 60 tokens at the start, 80 a second: 240 after 2.25 s
  const earned = await patient.request({ type: 'reset', seed: 200 });
  patient.close();
  console.log(`# reconnecting: 5 fresh connections' resets: ${replies.map((r) => r.code ?? r.type).join(', ')}; ` +
    `after 3.2 s connected: ${earned.code ?? earned.type}`);
  for (const r of replies) assert.equal(r.code, 'rate_limited', JSON.stringify(r));
  assert.equal(earned.type, 'ack', JSON.stringify(earned));
});

test('a flood of malformed messages costs budget too and ends with 1008 "too many commands"', { timeout: 30000 }, async () => {
  const c = await connect(server.wsUrl);
  try {
    let sent = 0;
    const deadline = performance.now() + 8000;
    while (!c.closeInfo && performance.now() < deadline) {
      for (let k = 0; k < 50 && c.ws.readyState === 1; k++, sent++) c.sendRaw(`{"type": "set_target", "x": ${k}`);
      await sleep(10);
    }
    const close = await withTimeout(c.closed, 5000, 'the malformed-message flooder to be closed').catch(() => ({ code: null, reason: 'still open' }));
    const codes = {};
    for (const m of c.texts.filter((x) => x.type === 'error')) codes[m.code] = (codes[m.code] ?? 0) + 1;
    console.log(`# malformed flood: ${sent} sent, errors ${JSON.stringify(codes)}, closed with ${close.code} "${close.reason}"`);
    // Each malformed message costs 1 of the budget; past it they are
    // refusals, and persistent ones close the connection.
    assert.ok(codes.bad_json > 0, 'malformed messages are answered with bad_json');
    assert.equal(close.code, 1008, `closed with 1008: ${JSON.stringify(close)}`);
    assert.match(close.reason, /too many commands/);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
  } finally {
    c.close();
  }
});

// What the client sees: ws reports the close code the server's close frame carried.
const BAD_TEXT = [
  ['invalid UTF-8 in a text frame', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 1007],
  ['a UTF-8 sequence cut at the end of the message', Buffer.concat([Buffer.from('{"type":"clear_target","p":"'), Buffer.from([0xe2, 0x82])]), 1007],
  ['an overlong encoding after 3000 valid bytes', Buffer.concat([Buffer.from(`{"type":"clear_target","p":"${'a'.repeat(3000)}`), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), 1007],
  ['a UTF-16 surrogate encoded in UTF-8', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), 1007],
  ['a 5000-byte message', Buffer.from(`{"type":"clear_target","p":"${'x'.repeat(5000 - 30)}"}`), 1009],
];

for (const [name, payload, code] of BAD_TEXT) {
  test(`${name} closes the connection with ${code}, as the client sees it`, { timeout: 15000 }, async () => {
    const c = await connect(server.wsUrl);
    await c.nextSnapshot(() => true, 'a snapshot first');
    c.ws.send(payload, { binary: false });
    const close = await withTimeout(c.closed, 5000, `the close after ${name}`);
    console.log(`# ${name} (${payload.length} bytes): closed with ${close.code} "${close.reason}"`);
    assert.equal(close.code, code);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
  });
}

// The same over raw frames, split the way a hostile client may split them,
// and sent the moment the handshake is done (before the server has written
// anything else): 20 at once, from 10 loopback addresses, each client
// completing the closing handshake as a library would. Every one of them
// must see the close code, and no data frame after the close frame.
const ATTEMPTS = 20;
const BAD_FRAMES = [
  ['invalid UTF-8 split across two fragments', () => [
    encodeFrame(OP.TEXT, Buffer.from([0x22, 0xe2]), { fin: false }), encodeFrame(OP.CONTINUATION, Buffer.from([0x28, 0xa1, 0x22]))], 1007],
  ['5000 bytes in two fragments of 2500', () => [
    encodeFrame(OP.TEXT, 'a'.repeat(2500), { fin: false }), encodeFrame(OP.CONTINUATION, 'b'.repeat(2500))], 1009],
  ['a frame announcing 5000 bytes', () => [encodeFrame(OP.TEXT, 'c'.repeat(5000))], 1009],
];

for (const [name, frames, code] of BAD_FRAMES) {
  test(`${name}, sent right after the handshake, closes the connection with ${code} every time`, { timeout: 30000 }, async () => {
    const outcomes = await Promise.all(Array.from({ length: ATTEMPTS }, async (_, i) => {
      const raw = await RawSocket.open(server.port, { localAddress: `127.0.0.${2 + (i % 10)}`, answerClose: true });
      try {
        for (const f of frames()) raw.write(f);
        await raw.closedWithin(8000).catch(() => {});
        return { code: raw.closeFrame?.code ?? null, after: raw.dataFramesAfterClose, closed: raw.closed, error: raw.error?.code };
      } finally {
        raw.destroy();
      }
    }));
    const tally = {};
    for (const o of outcomes) {
      const k = `close ${o.code}${o.after ? `, ${o.after} data frames after it` : ''}${o.error ? `, ${o.error}` : ''}${o.closed ? '' : ', still open after 8 s'}`;
      tally[k] = (tally[k] ?? 0) + 1;
    }
    console.log(`# ${name}, ${ATTEMPTS} clients right after the handshake: ${JSON.stringify(tally)}`);
    assert.deepEqual(outcomes.map((o) => o.code), outcomes.map(() => code), `every client saw ${code}: ${JSON.stringify(tally)}`);
    assert.deepEqual(outcomes.map((o) => o.after), outcomes.map(() => 0), `no data frame after the close frame: ${JSON.stringify(tally)}`);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
  });
}

test('a 5000-byte message sent by the ws library the moment it opens closes with 1009 every time', { timeout: 30000 }, async () => {
  const codes = await Promise.all(Array.from({ length: ATTEMPTS }, async (_, i) => {
    const v = await openViewer(server.wsUrl, { waitHello: false, localAddress: `127.0.0.${2 + (i % 10)}` });
    v.ws.send('x'.repeat(5000));
    return (await withTimeout(v.closed, 8000, 'the close')).code;
  }));
  const tally = {};
  for (const c of codes) tally[c] = (tally[c] ?? 0) + 1;
  console.log(`# 5000 bytes at open, ${ATTEMPTS} ws clients: close codes ${JSON.stringify(tally)}`);
  assert.deepEqual(codes, codes.map(() => 1009));
});
