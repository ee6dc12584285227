// The status overlay: one line of connection and world facts, plus the
// server's last error for a few seconds.
//
// statusLine / errorLine are pure (testable in Node); createStatus writes them
// into the page, touching the DOM only when the text actually changes.

// How long a server error stays on screen.
export const ERROR_SHOW_MS = 5000;

// Close codes worth telling the user about (PROTOCOL.md, "Limits and closing").
const CLOSE_REASONS = {
  1001: 'server went away',
  1009: 'message too big',
  1013: 'server full',
};

// m: { state, reconnectInMs, lastCloseCode, clientId, agentCount, tick, paused }
export function statusLine(m) {
  if (m.state === 'reconnecting') {
    const why = CLOSE_REASONS[m.lastCloseCode];
    const secs = (Math.max(0, m.reconnectInMs) / 1000).toFixed(1);
    return `${why ? `${why}; ` : ''}reconnecting in ${secs}s`;
  }
  if (m.state !== 'connected') return 'connecting…';
  const parts = ['connected', `client ${m.clientId ?? '?'}`];
  if (m.tick != null) {
    parts.push(`${m.agentCount.toLocaleString('en-US')} agents`);
    parts.push(`tick ${m.tick}`);
    parts.push(m.paused ? 'paused' : 'running');
  }
  return parts.join(' · ');
}

// err: the server's error object; returns '' once it is older than ERROR_SHOW_MS.
export function errorLine(err, receivedAt, now) {
  if (!err || now - receivedAt > ERROR_SHOW_MS) return '';
  // e.g. "set_param refused (out_of_range): sep_radius: 500 is above the maximum 200"
  const what = err.cmd ? `${err.cmd} refused` : 'refused';
  const code = err.code ? ` (${err.code})` : '';
  return err.message ? `${what}${code}: ${err.message}` : `${what}${code}`;
}

export function createStatus(root) {
  const line = root.querySelector('.status-line');
  const error = root.querySelector('.status-error');
  let shownLine = null;
  let shownError = null;
  let shownState = null;

  return function update(model, err, errAt, now) {
    const l = statusLine(model);
    if (l !== shownLine) line.textContent = shownLine = l;
    const e = errorLine(err, errAt, now);
    if (e !== shownError) {
      error.textContent = shownError = e;
      error.hidden = e === '';
    }
    // The dot's colour is CSS, keyed on this class.
    if (model.state !== shownState) {
      root.classList.remove(`is-${shownState}`);
      root.classList.add(`is-${(shownState = model.state)}`);
    }
    root.classList.toggle('is-paused', model.state === 'connected' && model.paused === true);
  };
}
