// Tests of the rules of a clip of a span of the past
// (client-web/record/span_clip.js): which drawn frames go into the video
// and which timeline messages it sends.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SpanRecording, spanBounds, spanFileName } from '../../../client-web/record/span_clip.js';

const state = { available: true, from: 100, to: 5000 };

test('the span typed is checked against the kept past', () => {
  assert.deepEqual(spanBounds('200', '500', state), { from: 200, to: 500 });
  assert.match(spanBounds('200', '500', { ...state, available: false }).error, /keeps no past/);
  assert.match(spanBounds('50', '500', state).error, /older than the kept past .*100/);
  assert.match(spanBounds('200', '6000', state).error, /not happened yet .*5000/);
  assert.match(spanBounds('500', '500', state).error, /after A/);
  assert.match(spanBounds('2.5', '500', state).error, /whole numbers/);
  assert.match(spanBounds('', '500', state).error, /whole numbers/);
  assert.match(spanBounds('200', '4000', state, 3600).error, /at most 3600 ticks/);
  assert.equal(spanFileName(200, 500, 'X'), 'swarmcast-ticks-200-500-X.webm');
});

test('a span records from the frame of A, plays at 1×, never records past B, ends paused on B', () => {
  const sent = [];
  const span = new SpanRecording(200, 260, (c) => sent.push(c));
  span.start();
  assert.deepEqual(sent, [{ type: 'timeline', op: 'seek', tick: 200 }]);
  // Live frames still drawn before the seek took effect: not recorded.
  assert.deepEqual(span.drawn(5100, 'live', true), { record: false, finished: false });
  // The frame of A arrived but the picture is still sliding towards it.
  assert.equal(span.drawn(200, 'paused', false).record, false);
  assert.equal(span.drawn(200, 'paused', true).record, true);
  assert.deepEqual(sent.at(-1), { type: 'timeline', op: 'play', speed: 1 });
  for (const t of [202, 204, 250, 258]) assert.equal(span.drawn(t, 'playing', false).record, true, `tick ${t}`);
  // Past B: nothing recorded, a seek to exactly B.
  assert.equal(span.drawn(262, 'playing', false).record, false);
  assert.deepEqual(sent.at(-1), { type: 'timeline', op: 'seek', tick: 260 });
  assert.equal(span.drawn(264, 'playing', true).record, false, 'still playing on: not B');
  assert.equal(span.done, false);
  assert.deepEqual(span.drawn(260, 'paused', true), { record: true, finished: true });
  assert.equal(span.done, true);
  assert.deepEqual(span.ticks, [200, 202, 204, 250, 258, 260]);
  assert.equal(sent.length, 3);
  // Done: further frames change nothing.
  assert.equal(span.drawn(260, 'paused', true).record, false);
});

test('back to live in the middle of a span: the span ends on B; a cancelled span records nothing more', () => {
  const sent = [];
  const span = new SpanRecording(10, 40, (c) => sent.push(c));
  span.start();
  span.drawn(10, 'paused', true);
  span.drawn(20, 'playing', true);
  assert.equal(span.drawn(900, 'live', true).record, false);
  assert.deepEqual(sent.at(-1), { type: 'timeline', op: 'seek', tick: 40 });
  assert.equal(span.drawn(40, 'paused', true).finished, true);
  assert.deepEqual(span.ticks, [10, 20, 40]);
  const other = new SpanRecording(10, 40, () => {});
  other.start();
  other.cancel();
  assert.equal(other.drawn(10, 'paused', true).record, false);
});
