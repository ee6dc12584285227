// A clip of a span of the past (capture.js, "Record span"): the rules that
// decide which drawn frames go into the video, so that it holds ticks A to
// B of the timeline — not the wall-clock minutes the page happened to draw.
// Pure (no DOM): the page feeds it each drawn frame's tick.
//
// The steps: seek A; once the frame of tick A is on screen (the viewer has
// settled on it: it interpolates, so a frame is drawn a little after it
// arrives), record it and play the past at 1×, so the clip lasts as long
// as the span did; record every drawn frame while the newest tick is below
// B; when a frame of B or later arrives, seek exactly B (nothing past B is
// recorded), record the frame of B once on screen, and finish, paused at B.

import { timelineCommand } from '../timeline/moment.js';

/** The file a span clip is saved as. */
export function spanFileName(from, to, stamp) {
  return `swarmcast-ticks-${from}-${to}-${stamp}.webm`;
}

/**
 * The span A…B typed (text of whole ticks) checked against the timeline's
 * state ({ available, from, to }): { from, to }, or { error } in words.
 * maxTicks: the longest span a clip may hold.
 */
export function spanBounds(fromText, toText, state, maxTicks = Infinity) {
  if (!state?.available) return { error: 'this server keeps no past' };
  const parse = (text) => (/^\s*\d{1,15}\s*$/.test(String(text)) ? Number(text) : null);
  const from = parse(fromText);
  const to = parse(toText);
  if (from === null || to === null) return { error: 'A and B must be ticks (whole numbers)' };
  if (to <= from) return { error: 'B must come after A' };
  if (from < state.from) return { error: `A is older than the kept past (it starts at tick ${state.from})` };
  if (to > state.to) return { error: `B has not happened yet (the newest tick is ${state.to})` };
  if (to - from > maxTicks) return { error: `a clip holds at most ${maxTicks} ticks` };
  return { from, to };
}

export class SpanRecording {
  /** send(command): the connection's (timeline messages). */
  constructor(from, to, send) {
    this.from = from;
    this.to = to;
    this.send = send;
    this.phase = 'idle'; // seeking → playing → ending → done (or cancelled)
    this.ticks = []; // the ticks recorded, each once, in order
  }

  get done() {
    return this.phase === 'done';
  }

  start() {
    this.phase = 'seeking';
    this.send(timelineCommand('seek', { tick: this.from }));
  }

  cancel() {
    if (this.phase !== 'done') this.phase = 'cancelled';
  }

  note(tick) {
    if (this.ticks.length === 0 || tick > this.ticks[this.ticks.length - 1]) this.ticks.push(tick);
  }

  /**
   * A frame was drawn. tick: the newest frame's; mode: the timeline's
   * ('live', 'paused', 'playing', 'following'); settled: whether what is
   * drawn is that frame (no interpolation towards it left). Returns
   * { record: put this picture in the clip, finished: the span is done }.
   */
  drawn(tick, mode, settled) {
    const no = { record: false, finished: false };
    if (!Number.isFinite(tick) || mode === 'live' || mode === 'following') {
      // Back to live (someone pressed it, or playback reached the present)
      // while playing: the rest of the span is fetched as the last frame.
      if (this.phase === 'playing' && mode === 'live') this.end();
      return no;
    }
    switch (this.phase) {
      case 'seeking':
        if (tick !== this.from || !settled) return no;
        this.note(tick);
        this.phase = 'playing';
        this.send(timelineCommand('play', { speed: 1 }));
        return { record: true, finished: false };
      case 'playing':
        if (tick < this.from) return no;
        if (tick >= this.to) {
          this.end();
          return this.drawn(tick, mode, settled);
        }
        this.note(tick);
        return { record: true, finished: false };
      case 'ending':
        if (tick !== this.to || !settled) return no;
        this.note(tick);
        this.phase = 'done';
        return { record: true, finished: true };
      default:
        return no;
    }
  }

  // B reached or passed: show exactly B, paused.
  end() {
    this.phase = 'ending';
    this.send(timelineCommand('seek', { tick: this.to }));
  }
}
