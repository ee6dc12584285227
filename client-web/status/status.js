// The status overlay: one line of connection and world facts (with this
// page's role) and why the server last closed the connection, kept until
// the next change; a second line of the stream's measured rates (ticks,
// snapshots, kbit/s, round trip, frames drawn); a short note for a few
// seconds: the server's last error, or something the page itself declined
// to send. A separate live region tells screen readers what changed
// (connected, disconnected and why, role, paused), never the ticks.
//
// statusLine / ratesLine / announcement / closeText / errorText / errorTone
// are pure (testable in Node); createStatus writes them into the page,
// touching the DOM only when the text actually changes.

// How long a note (an error, a refusal) stays on screen.
export const NOTE_SHOW_MS = 5000;

// What close codes mean when the server gives no reason of its own
// (PROTOCOL.md, "Limits and closing").
const CLOSE_REASONS = {
  1001: 'server went away',
  1007: 'invalid data',
  1008: 'refused by the server',
  1009: 'message too big',
  1011: 'server error',
  1013: 'server full, try again later',
  4404: 'no such room',
  4410: 'room closed',
  4429: 'too many wrong room codes',
};

// What a final close (net/connection.js FINAL_CLOSE_CODES: the server will
// not take this page back into the room) says on the page: { title, text }
// for 4404, 4410 and 4429, or null for any other close. cause: { code,
// reason }; room: its code as shown ("K7PX-M3QD").
export function finalCloseMessage(cause, room) {
  if (!cause) return null;
  const reason = typeof cause.reason === 'string' ? cause.reason.trim() : '';
  switch (cause.code) {
    case 4404:
      return { title: 'No such room', text: `There is no room ${room} on this server. Check the code and try again, or open another room.` };
    case 4410:
      return { title: 'Room closed', text: `Room ${room} was closed. Join another room, or go to the main one.` };
    case 4429:
      return { title: 'Too many wrong codes', text: reason ? `${capitalise(reason)}.` : 'Too many wrong room codes from this address: wait a little, then try again.' };
    default:
      return null;
  }
}

function capitalise(s) {
  return s.replace(/\.$/, '').replace(/^./, (c) => c.toUpperCase());
}

// cause: { code, reason } of the server's last close, or null.
// e.g. "closed: too many commands (1008)".
export function closeText(cause) {
  if (!cause) return '';
  const reason = typeof cause.reason === 'string' && cause.reason.trim() !== ''
    ? cause.reason.trim()
    : CLOSE_REASONS[cause.code];
  return reason ? `closed: ${reason} (${cause.code})` : `closed (${cause.code})`;
}

// m: { state, reconnectInMs, closeCause, lostCode, clientId, role,
//      agentCount, tick, paused }
// The close cause stays until the server says hello again: through the
// wait, the next try and any failed ones. A connection that died without a
// close frame (lostCode 1006) says so instead of nothing.
export function statusLine(m) {
  let why = closeText(m.closeCause);
  if (!why && m.lostCode != null && m.state !== 'connected') why = `connection lost (${m.lostCode})`;
  const prefix = why ? `${why} · ` : '';
  if (m.state === 'reconnecting') {
    const secs = (Math.max(0, m.reconnectInMs) / 1000).toFixed(1);
    return `${prefix}reconnecting in ${secs}s`;
  }
  // A final close (a room that does not exist, or was closed): no retry.
  if (m.state === 'closed') return why || 'not connected';
  if (m.state !== 'connected') return `${prefix}connecting…`;
  const parts = ['connected', `client ${m.clientId ?? '?'}`];
  if (m.role) parts.push(m.role);
  if (m.tick != null) {
    parts.push(`${m.agentCount.toLocaleString('en-US')} agents`);
    parts.push(`tick ${m.tick}`);
    parts.push(m.paused ? 'paused' : 'running');
  }
  return parts.join(' · ');
}

// The stream's figures (meters.js StreamMeters.figures) as the second line:
// "60 ticks/s · 30 snapshots/s · 412 kbit/s · rtt 23 ms · 60 fps"; a figure
// not known yet is a dash, never a guess.
export function ratesLine(f) {
  if (!f) return '';
  const n = (v, digits = 0) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '–');
  const kbit = typeof f.kbitIn === 'number' && f.kbitIn >= 100 ? n(f.kbitIn) : n(f.kbitIn, 1);
  return [
    `${n(f.tickRate)} ticks/s`,
    `${n(f.snapshotRate)} snapshots/s`,
    `${kbit} kbit/s in`,
    `rtt ${n(f.rttMs)} ms`,
    `${n(f.fps)} fps`,
  ].join(' · ');
}

// What a screen reader is told, and only when it changes: the connection
// (with why it closed), the role, and whether the world runs. Never ticks,
// counts or rates. s: { state, closeCause, lostCode, role, paused }.
export function announcement(prev, s) {
  const said = [];
  if (!prev || prev.state !== s.state) {
    if (s.state === 'connected') said.push(`connected${s.role ? ` as ${s.role}` : ''}`);
    else if (s.state === 'reconnecting') {
      const why = closeText(s.closeCause) || (s.lostCode != null ? `connection lost (${s.lostCode})` : '');
      said.push(why ? `disconnected, ${why}; reconnecting` : 'disconnected; reconnecting');
    } else if (s.state === 'closed') {
      const why = closeText(s.closeCause);
      said.push(why ? `disconnected, ${why}` : 'not connected');
    } else if (prev) said.push('connecting');
  } else if (s.state === 'connected' && prev.role !== s.role && s.role) {
    said.push(`you are now ${s.role === 'operator' ? 'an operator' : 'a visitor'}`);
  }
  if (s.state === 'connected' && s.paused != null && (!prev || prev.paused !== s.paused || prev.state !== 'connected')) {
    said.push(s.paused ? 'simulation paused' : 'simulation running');
  }
  return said.length ? said.join(', ') : null;
}

// The server's error object as one line.
export function errorText(err) {
  if (!err) return '';
  const cmd = typeof err.cmd === 'string' ? err.cmd : null;
  const message = typeof err.message === 'string' && err.message !== '' ? err.message : '';
  if (err.code === 'rate_limited') {
    // Not a failure of the page: the server asks for a slower pace.
    return `too many commands at once: ${cmd ?? 'a command'} was skipped — please slow down a moment`;
  }
  if (err.code === 'forbidden') {
    // The server's message says what and why ("set_param needs the
    // operator role: …", "obstacle 3 is not yours: …").
    return message ? `not allowed: ${message}` : `${cmd ?? 'that'} is not allowed for a visitor`;
  }
  if (err.code === 'bad_token') return 'the operator token was refused';
  // e.g. "set_param refused (out_of_range): sep_radius: 500 is above the maximum 200"
  const what = cmd ? `${cmd} refused` : 'refused';
  const code = err.code ? ` (${err.code})` : '';
  return message ? `${what}${code}: ${message}` : `${what}${code}`;
}

// 'notice' for refusals that are part of normal use (a visitor's limits
// and obstacle quota, the rate limit), 'error' for the rest.
export function errorTone(err) {
  return err && ['rate_limited', 'forbidden', 'bad_token', 'limit_reached'].includes(err.code) ? 'notice' : 'error';
}

// note: { text, tone: 'error' | 'notice', at } or null; shown until
// NOTE_SHOW_MS after `at`, and said once by the live region.
// root: the status box (.status-line, .status-rates, .status-error inside);
// announcer: the visually hidden live region.
export function createStatus(root, announcer = null) {
  const line = root.querySelector('.status-line');
  const rates = root.querySelector('.status-rates');
  const noteEl = root.querySelector('.status-error');
  let shownLine = null;
  let shownRates = null;
  let shownNote = null;
  let shownTone = null;
  let shownState = null;
  let announced = null; // what announcement() last compared against
  let announcedNoteAt = null;

  function say(text) {
    if (!announcer || !text) return;
    // The same words twice in a row are still news (paused, running,
    // paused): clear, then set, so the region changes either way.
    announcer.textContent = '';
    announcer.textContent = text;
  }

  return function update(model, note, now, figures = null) {
    const l = statusLine(model);
    if (l !== shownLine) line.textContent = shownLine = l;
    const r = model.state === 'connected' ? ratesLine(figures) : '';
    if (rates && r !== shownRates) {
      rates.textContent = shownRates = r;
      rates.hidden = r === '';
    }
    const live = note && now - note.at <= NOTE_SHOW_MS;
    const text = live ? note.text : '';
    if (text !== shownNote) {
      noteEl.textContent = shownNote = text;
      noteEl.hidden = text === '';
    }
    const tone = live ? note.tone : null;
    if (tone !== shownTone) {
      shownTone = tone;
      noteEl.classList.toggle('is-notice', tone === 'notice');
    }
    // The dot's colour is CSS, keyed on this class.
    if (model.state !== shownState) {
      root.classList.remove(`is-${shownState}`);
      root.classList.add(`is-${(shownState = model.state)}`);
    }
    root.classList.toggle('is-paused', model.state === 'connected' && model.paused === true);
    root.classList.toggle('is-closed', model.state !== 'connected' && (!!model.closeCause || model.lostCode != null));

    const s = { state: model.state, closeCause: model.closeCause, lostCode: model.lostCode ?? null,
      role: model.role, paused: model.state === 'connected' ? model.paused ?? null : null };
    const words = [];
    const change = announcement(announced, s);
    if (change) words.push(change);
    announced = s;
    if (live && note.at !== announcedNoteAt) {
      announcedNoteAt = note.at;
      words.push(note.text);
    }
    if (words.length) say(words.join('. '));
  };
}

// A relay's {"type":"status","state":"restarting"|"running","message"?}:
// what the world banner says, or '' (hidden) while the world runs. Any
// other state is not one this page knows: no banner.
export function bannerText(status) {
  if (!status || status.state !== 'restarting') return '';
  const message = typeof status.message === 'string' && status.message.trim() !== '' ? status.message.trim() : 'world restarting';
  return `${message} — the picture resumes by itself`;
}

// el: the banner element; returns update(status), which touches the DOM
// only when the text changes.
export function createBanner(el) {
  let shown = null;
  return function update(status) {
    const text = bannerText(status);
    if (text === shown) return;
    shown = text;
    el.textContent = text;
    el.hidden = text === '';
  };
}
