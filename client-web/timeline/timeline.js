// The timeline bar (PROTOCOL.md, "Timeline"): drag back through the kept
// past while everyone else stays live; play and pause, speeds from 0.25×
// to 8× either way, a tick forward or back, "live" to return, and a link
// to the moment shown. The frames of the past come through the page's
// usual decoder (they are v2 keys of this page's view); this module only
// sends timeline messages and shows what the server answers. `?t=TICK`
// opens the page at that tick. Keys: r replays the last minute at 2× (the
// presenter's "what just happened"), l goes back to live; "share" (an
// operator's) shows everyone watching live the moment shown here. Built
// with createElement: the page's CSP allows no inline style.

import { SPEEDS, describe, lastMinuteStart, linkToMoment, refusalText, tickFromSearch, timelineCommand } from './moment.js';
import { el, button } from '../dom.js';

// A drag sends at most this many seeks a second (the server works on the
// newest one anyway, and each costs a message of the budget).
const SEEKS_PER_S = 8;
// While the page shows the past, the kept window goes on changing (live
// ticks come, old ones go, a run's room is still stepping its run): the
// page asks for it this often, so that the bar's ends stay true.
const WINDOW_POLL_MS = 1000;

// The keyboard's owner is the page; a key in a form field is not ours.
function isFormControl(target) {
  return target && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(target.tagName);
}

// root: the bar's element; send(command): the connection's; location: the
// page's; keyTarget: where the keys are heard (the window).
export function createTimeline({ root, send, location = window.location, keyTarget = null }) {
  let tickHz = 60;
  const state = { mode: 'live', tick: 0, from: 0, to: 0, base: 0, speed: 1, error: null, available: false };
  let speed = 1;
  let pendingSeek = null;
  let lastSeekAt = 0;
  let seekTimer = null;
  let windowTimer = null;
  let wantTick = tickFromSearch(location.search);

  const back = button('tl-step', '◀ 1', 'one tick back');
  const play = button('tl-play', '▶', 'play the past');
  const fwd = button('tl-step', '1 ▶', 'one tick forward');
  const slider = el('input', 'tl-slider');
  slider.type = 'range';
  slider.min = '0';
  slider.max = '0';
  slider.step = '1';
  slider.setAttribute('aria-label', 'the moment shown');
  const speeds = el('select', 'tl-speed');
  speeds.setAttribute('aria-label', 'playback speed');
  for (const s of SPEEDS) {
    const o = el('option', null, `${s}×`);
    o.value = String(s);
    if (s === 1) o.selected = true;
    speeds.append(o);
  }
  const live = button('tl-live', 'live', 'back to the live world');
  const label = el('span', 'tl-label', 'live');
  const link = button('tl-link', 'link', 'copy a link to this moment');
  const share = button('tl-share', 'share', 'show everyone watching live this moment (operators)');
  root.append(back, play, fwd, slider, speeds, live, label, link, share);

  function show() {
    slider.min = String(state.from);
    slider.max = String(state.to);
    if (!slider.matches(':active')) slider.value = String(state.mode === 'live' ? state.to : state.tick);
    play.textContent = state.mode === 'playing' ? '⏸' : '▶';
    play.title = state.mode === 'playing' ? 'pause' : 'play the past';
    live.disabled = state.mode === 'live';
    share.disabled = state.mode === 'live' || state.mode === 'following';
    label.textContent = state.error ? state.error : describe(state);
    root.dataset.mode = state.mode;
    followWindow();
  }

  function followWindow() {
    const away = state.available && state.mode !== 'live';
    if (away && !windowTimer) {
      windowTimer = setInterval(() => send(timelineCommand('window')), WINDOW_POLL_MS);
    } else if (!away && windowTimer) {
      clearInterval(windowTimer);
      windowTimer = null;
    }
  }

  function seekNow() {
    seekTimer = null;
    if (pendingSeek === null) return;
    lastSeekAt = performance.now();
    send(timelineCommand('seek', { tick: pendingSeek }));
    pendingSeek = null;
  }

  // A drag: the newest position, no more than SEEKS_PER_S a second.
  function seek(tick) {
    pendingSeek = tick;
    const wait = 1000 / SEEKS_PER_S - (performance.now() - lastSeekAt);
    if (wait <= 0) seekNow();
    else if (!seekTimer) seekTimer = setTimeout(seekNow, wait);
  }

  slider.addEventListener('input', () => seek(Number(slider.value)));
  back.addEventListener('click', () => send(timelineCommand('step', { by: -1 })));
  fwd.addEventListener('click', () => send(timelineCommand('step', { by: 1 })));
  play.addEventListener('click', () => send(state.mode === 'playing' ? timelineCommand('pause') : timelineCommand('play', { speed })));
  speeds.addEventListener('change', () => {
    speed = Number(speeds.value);
    if (state.mode === 'playing') send(timelineCommand('play', { speed }));
  });
  live.addEventListener('click', () => send(timelineCommand('live')));
  share.addEventListener('click', () => send(timelineCommand('share')));
  keyTarget?.addEventListener('keydown', (ev) => {
    if (!state.available || ev.ctrlKey || ev.metaKey || ev.altKey || isFormControl(ev.target)) return;
    if (ev.key === 'l' || ev.key === 'L') {
      send(timelineCommand('live'));
    } else if (ev.key === 'r' || ev.key === 'R') {
      // What just happened: the last minute again at 2×, back to live at its end.
      send(timelineCommand('seek', { tick: lastMinuteStart(state, tickHz) }));
      send(timelineCommand('play', { speed: 2 }));
    } else {
      return;
    }
    ev.preventDefault();
  });
  link.addEventListener('click', () => {
    const tick = state.mode === 'live' ? state.to : state.tick;
    const href = linkToMoment(location.href, tick);
    navigator.clipboard?.writeText(href).then(() => { label.textContent = 'link copied'; }, () => { label.textContent = href; });
  });

  return {
    state,
    /** A new session: v2 pages have a timeline (v1 pages get none). */
    hello(hello, protocol) {
      state.available = protocol === 2;
      if (Number.isFinite(hello.tick_hz)) tickHz = hello.tick_hz;
      root.hidden = !state.available;
      Object.assign(state, { mode: 'live', error: null });
      if (!state.available) return;
      send(timelineCommand('window'));
      if (wantTick !== null) {
        send(timelineCommand('seek', { tick: wantTick }));
        wantTick = null; // once: a reconnect does not go back there
      }
      show();
    },
    /** Each frame decoded: while live, the window's end follows it. */
    frame(tick) {
      // A live frame's tick is the world's; on the timeline it is base + tick (base moves at a reset).
      const place = (state.base || 0) + tick;
      if (state.mode === 'live' && place > state.to) {
        state.to = place;
        show();
      }
    },
    /** The server's answers; true when the message was the timeline's. */
    onMessage(msg) {
      if (msg.type === 'timeline') {
        Object.assign(state, { mode: msg.mode, tick: msg.tick, from: msg.from, to: msg.to, speed: msg.speed, base: msg.base ?? 0, error: null });
        show();
        return true;
      }
      if (msg.type === 'error' && msg.cmd === 'timeline') {
        state.error = refusalText(msg);
        if (Number.isFinite(msg.from)) state.from = msg.from, state.to = Math.max(state.to, msg.to);
        show();
        return true;
      }
      return false;
    },
  };
}
