// The timeline's pure parts (PROTOCOL.md, "Timeline"): the messages the
// page sends, the tick a `?t=` link names, a link to a moment, the words
// for the server's answers. No DOM.

export const SPEEDS = [-8, -4, -2, -1, -0.5, -0.25, 0.25, 0.5, 1, 2, 4, 8];

/** The timeline message for op (seek: tick; play: speed; step: by). */
export function timelineCommand(op, { tick, speed, by } = {}) {
  const msg = { type: 'timeline', op };
  if (op === 'seek') msg.tick = Math.max(0, Math.floor(tick));
  if (op === 'play' && speed !== undefined) msg.speed = speed;
  if (op === 'step' && by !== undefined) msg.by = by;
  return msg;
}

/** The tick a page address asks for (`?t=TICK`), or null. */
export function tickFromSearch(search) {
  const t = new URLSearchParams(search).get('t');
  if (t === null || !/^\d{1,15}$/.test(t)) return null;
  return Number(t);
}

/** The page's address with `t` set to tick (the rest kept). */
export function linkToMoment(href, tick) {
  const url = new URL(href);
  url.searchParams.set('t', String(tick));
  return url.toString();
}

/** The tick "replay the last minute" starts from: a minute of ticks back, within the window. */
export function lastMinuteStart(state, tickHz = 60) {
  return Math.max(state.from, state.to - Math.round(60 * tickHz));
}

/** What the bar says of the viewer's place: "live", or "paused at 1,234 (−5.2 s)". */
export function describe(state, tickHz = 60) {
  if (!state || state.mode === 'live') return 'live';
  if (state.mode === 'following') return `everyone is shown tick ${state.tick.toLocaleString('en')} (l: live)`;
  const behind = state.to > state.tick ? ` (−${((state.to - state.tick) / tickHz).toFixed(1)} s)` : '';
  const how = state.mode === 'playing' ? `playing ${state.speed}×` : 'paused';
  return `${how} at ${state.tick.toLocaleString('en')}${behind}`;
}

/** The words for a refusal of the timeline's. */
export function refusalText(err) {
  if (err.code === 'timeline_busy') {
    return `everyone's looking at the past: try again in ${Math.ceil((err.retry_after_ms ?? 2000) / 1000)} s`;
  }
  if (err.code === 'out_of_window') return `that moment is not kept (ticks ${err.from} to ${err.to} are)`;
  return err.message || err.code;
}
