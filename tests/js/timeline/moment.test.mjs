// The timeline bar's pure parts: the messages it sends, the tick of a
// `?t=` link and the link to a moment, the words it shows.
//   node --test tests/js/timeline/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SPEEDS, describe, lastMinuteStart, linkToMoment, refusalText, tickFromSearch, timelineCommand } from '../../../client-web/timeline/moment.js';

test('the commands are the protocol\'s timeline messages', () => {
  assert.deepEqual(timelineCommand('seek', { tick: 120.7 }), { type: 'timeline', op: 'seek', tick: 120 });
  assert.deepEqual(timelineCommand('seek', { tick: -3 }), { type: 'timeline', op: 'seek', tick: 0 });
  assert.deepEqual(timelineCommand('play', { speed: -2 }), { type: 'timeline', op: 'play', speed: -2 });
  assert.deepEqual(timelineCommand('step', { by: -1 }), { type: 'timeline', op: 'step', by: -1 });
  assert.deepEqual(timelineCommand('live'), { type: 'timeline', op: 'live' });
  // Every speed offered is one the server takes (0.25 … 8 either way).
  for (const s of SPEEDS) assert.ok(Math.abs(s) >= 0.25 && Math.abs(s) <= 8, String(s));
});

test('a ?t= link names a tick, and a moment\'s link keeps the rest of the address', () => {
  assert.equal(tickFromSearch('?t=12000'), 12000);
  assert.equal(tickFromSearch('?present&t=5'), 5);
  for (const bad of ['', '?t=', '?t=-4', '?t=1e5', '?t=12abc', '?t=99999999999999999']) assert.equal(tickFromSearch(bad), null, bad);
  assert.equal(linkToMoment('http://h:8080/r/K7PXM3QD?embed', 42), 'http://h:8080/r/K7PXM3QD?embed=&t=42');
  assert.equal(tickFromSearch(new URL(linkToMoment('http://h/?t=1', 77)).search), 77);
});

test('what the bar says', () => {
  assert.equal(describe({ mode: 'live' }), 'live');
  assert.equal(describe({ mode: 'paused', tick: 1200, to: 1500, speed: 1 }), 'paused at 1,200 (−5.0 s)');
  assert.equal(describe({ mode: 'playing', tick: 1500, to: 1500, speed: 2 }), 'playing 2× at 1,500');
  assert.match(describe({ mode: 'following', tick: 1200, to: 1500 }), /everyone is shown tick 1,200/);
  // "What just happened": a minute of ticks back, not before the window.
  assert.equal(lastMinuteStart({ from: 100, to: 10000 }, 60), 6400);
  assert.equal(lastMinuteStart({ from: 9000, to: 10000 }, 60), 9000);
  assert.match(refusalText({ code: 'timeline_busy', retry_after_ms: 2000 }), /try again in 2 s/);
  assert.match(refusalText({ code: 'out_of_window', from: 10, to: 90 }), /ticks 10 to 90/);
  assert.equal(refusalText({ code: 'bad_request', message: 'field \'tick\' must be …' }), 'field \'tick\' must be …');
});
