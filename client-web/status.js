// The status overlay: one line of connection and world facts (with this
// page's role), why the server last closed the connection, and a short note
// for a few seconds: the server's last error, or something the page itself
// declined to send.
//
// statusLine / closeText / errorText / errorTone are pure (testable in
// Node); createStatus writes them into the page, touching the DOM only when
// the text actually changes.

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
};

// cause: { code, reason } of the server's last close, or null.
// e.g. "closed: too many commands (1008)".
export function closeText(cause) {
  if (!cause) return '';
  const reason = typeof cause.reason === 'string' && cause.reason.trim() !== ''
    ? cause.reason.trim()
    : CLOSE_REASONS[cause.code];
  return reason ? `closed: ${reason} (${cause.code})` : `closed (${cause.code})`;
}

// m: { state, reconnectInMs, closeCause, clientId, role, agentCount, tick, paused }
// The close cause stays until the server says hello again: through the
// wait, the next try and any failed ones.
export function statusLine(m) {
  const why = closeText(m.closeCause);
  const prefix = why ? `${why} · ` : '';
  if (m.state === 'reconnecting') {
    const secs = (Math.max(0, m.reconnectInMs) / 1000).toFixed(1);
    return `${prefix}reconnecting in ${secs}s`;
  }
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
// NOTE_SHOW_MS after `at`.
export function createStatus(root) {
  const line = root.querySelector('.status-line');
  const noteEl = root.querySelector('.status-error');
  let shownLine = null;
  let shownNote = null;
  let shownTone = null;
  let shownState = null;

  return function update(model, note, now) {
    const l = statusLine(model);
    if (l !== shownLine) line.textContent = shownLine = l;
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
    root.classList.toggle('is-closed', model.state !== 'connected' && !!model.closeCause);
  };
}
