// Tests of the status line's measurements (client-web/status/meters.js), driven
// with a made-up clock.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  RateMeter, TickRateMeter, RttMeter, StreamMeters, utf8Length, RATE_WINDOW_MS, RTT_SAMPLES, RTT_FORGET_MS,
} from '../../../client-web/status/meters.js';

test('a rate is unknown until a whole window was watched, then events per second over the window', () => {
  const r = new RateMeter(2000);
  assert.equal(r.rate(0), null);
  for (let t = 0; t < 1900; t += 40) r.add(t); // 25/s
  assert.equal(r.rate(1950), null, 'less than a window: not known yet');
  for (let t = 1920; t < 4000; t += 40) r.add(t);
  assert.ok(Math.abs(r.rate(4000) - 25) <= 0.5, `${r.rate(4000)}`);
});

test('a burst of queued messages at the start is not read as a fast stream', () => {
  const ticks = new TickRateMeter(2000);
  // Ten snapshots (a third of a second of ticks) delivered at once while the page loaded.
  for (let i = 0; i < 10; i++) ticks.add(1000 + i, 100 + 2 * i);
  assert.equal(ticks.rate(1050), null);
  for (let t = 1033, k = 120; t < 3100; t += 33, k += 2) ticks.add(t, k);
  assert.ok(ticks.rate(3100) <= 62, `${ticks.rate(3100)} ticks/s`);
});

test('events older than the window no longer count', () => {
  const r = new RateMeter(1000);
  for (let t = 0; t < 1000; t += 100) r.add(t); // 10/s
  for (let t = 1000; t < 2000; t += 50) r.add(t); // then 20/s
  assert.ok(Math.abs(r.rate(2000) - 20) < 1.5, `${r.rate(2000)}`);
  assert.equal(r.rate(5000), 0, 'a silent window: nothing arrives');
});

test('a burst after a stall does not read as a faster stream', () => {
  const r = new RateMeter(2000);
  const ticks = new TickRateMeter(2000);
  let tick = 0;
  for (let t = 0; t <= 4000; t += 100) { r.add(t); ticks.add(t, (tick += 10)); } // 10 events/s, 100 ticks/s
  // A stall of 1.9 s, then the held-back events arrive within 90 ms.
  for (let i = 0; i < 19; i++) { r.add(5900 + i * 5); ticks.add(5900 + i * 5, (tick += 10)); }
  assert.ok(r.rate(6000) <= 10, `events/s ${r.rate(6000)} after the burst`);
  assert.ok(ticks.rate(6000) <= 100, `ticks/s ${ticks.rate(6000)} after the burst`);
});

test('bytes per second sum the amounts of the window', () => {
  const r = new RateMeter(2000);
  r.add(100, 1000);
  r.add(900, 3000);
  assert.equal(r.rate(1000, { perEvent: false }), 2000);
});

test('the tick rate follows the snapshots\' ticks, counts a reset from 0 and is 0 when paused', () => {
  const m = new TickRateMeter(RATE_WINDOW_MS);
  let t = 0;
  for (let tick = 0; tick <= 120; tick += 2, t += 33.333) m.add(t, tick); // 60 ticks/s
  assert.ok(Math.abs(m.rate(t) - 60) < 1, `${m.rate(t)}`);
  m.add(t, 4); // a reset: the tick went back to 4
  t += 33.333;
  m.add(t, 6);
  assert.ok(m.rate(t) > 55, 'a reset is no negative advance');
  const paused = new TickRateMeter(1000);
  for (let i = 0; i < 30; i++) paused.add(i * 33, 500);
  assert.equal(paused.rate(1000), 0);
});

test('the round trip is the median time from a command to its reply; unknown ids and old ones do not count', () => {
  const r = new RttMeter();
  assert.equal(r.median(), null);
  const times = [30, 10, 20, 1000, 25];
  times.forEach((ms, i) => r.sent(i + 1, i * 100));
  times.forEach((ms, i) => r.replied(i + 1, i * 100 + ms));
  assert.equal(r.median(), 25, 'one slow reply does not make the figure');
  assert.equal(r.replied(99, 5), null, 'a reply to nothing sent here');
  r.sent(7, 0);
  assert.equal(r.replied(7, RTT_FORGET_MS + 1), null, 'too old to be a round trip');
  for (let i = 0; i < RTT_SAMPLES + 5; i++) {
    r.sent(100 + i, 0);
    r.replied(100 + i, 40);
  }
  assert.equal(r.samples.length, RTT_SAMPLES);
  assert.equal(r.median(), 40);
  r.reset();
  assert.equal(r.median(), null);
});

test('text is counted in UTF-8 bytes', () => {
  assert.equal(utf8Length('abc'), 3);
  assert.equal(utf8Length('é'), 2);
  assert.equal(utf8Length('…'), 3);
  assert.equal(utf8Length('😀'), 4);
  assert.equal(utf8Length('a😀é'), Buffer.byteLength('a😀é'));
});

test('the stream figures: kbit/s from bytes, fps from drawn frames, all forgotten on a reconnect except fps', () => {
  const s = new StreamMeters();
  for (let i = 0; i < 40; i++) {
    const t = i * 50;
    s.received(t, 500); // 10 000 B/s
    s.snapshot(t, i * 3);
    s.frameDrawn(t);
  }
  const f = s.figures(2000);
  assert.ok(Math.abs(f.kbitIn - 80) < 5, `kbit ${f.kbitIn}`);
  assert.ok(Math.abs(f.snapshotRate - 20) <= 1, `snapshots ${f.snapshotRate}`);
  assert.ok(Math.abs(f.tickRate - 60) < 2, `ticks ${f.tickRate}`);
  assert.ok(Math.abs(f.fps - 20) <= 1, `fps ${f.fps}`);
  s.reconnected();
  const g = s.figures(2000);
  assert.equal(g.kbitIn, null);
  assert.equal(g.tickRate, null);
  assert.equal(g.snapshotRate, null);
});
