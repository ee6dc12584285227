// The presenter's screen (?present, the panel's "presenter's screen" button,
// or key P): the world fills the screen, the panel is hidden, and a corner
// shows the QR code and the short address to join, how many people are
// here, and which key brings the controls back. People's cursors and
// targets are drawn PRESENT_MARK_SCALE times larger (main.js passes
// markScale() to the viewer). ?embed uses the same switch for an <iframe>:
// the world and the status line only, no corner, no key.

import { joinUrl, pageMode, peopleHere, PRESENT_MARK_SCALE, shortUrl } from './page_mode.js';
import { drawQr, loadQrLibrary, qrModules } from './qr.js';
import { formatCode } from '../rooms/code.js';

// The QR code's side on screen, CSS px (scanned from the back of a room).
const QR_CSS_PX = 220;

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

// deps: { root (the corner's element), body, panel (panel.js), keyTarget,
//         location, history, room (the path's room code, '' or absent),
//         onLayout() (the world's size changes),
//         hooks (window.swarmcast: gains `presenter`) }
export function createPresenter(deps) {
  const { root, body, panel, keyTarget, location, history } = deps;
  const onLayout = deps.onLayout ?? (() => {});
  const params = new URLSearchParams(location.search);
  const mode = pageMode(params);
  // room: the room's code ('' for the default room): the page's own
  // (deps.room, from its path) until hello says.
  const state = { mode, presenting: false, joinUrl: null, count: 0, qrDrawn: false, room: deps.room ?? '' };
  if (deps.hooks) deps.hooks.presenter = state;

  const qr = el('canvas', 'presenter-qr');
  qr.setAttribute('role', 'img');
  const url = el('div', 'presenter-url');
  // In a room: its code, as people read it aloud, and its name.
  const roomLine = el('div', 'presenter-room');
  roomLine.hidden = true;
  const count = el('div', 'presenter-count', peopleHere(0));
  const keys = el('div', 'presenter-keys', 'P: the controls');
  const back = el('button', 'presenter-back', 'controls');
  back.type = 'button';
  back.title = 'leave the presenter\u2019s screen (key P)';
  root.replaceChildren(qr, url, roomLine, count, keys, back);
  root.hidden = true;

  let publicUrl = null; // hello's public_url
  let library = null; // qrcode-generator's qrcode(), once loaded
  let loading = null;

  function refreshJoin() {
    state.joinUrl = joinUrl(location, publicUrl, state.room);
    url.textContent = shortUrl(state.joinUrl);
    qr.setAttribute('aria-label', `QR code of ${state.joinUrl}`);
    qr.dataset.url = state.joinUrl;
    if (!state.presenting) return;
    if (library) {
      drawQr(qr, qrModules(library, state.joinUrl), QR_CSS_PX, globalThis.devicePixelRatio || 1);
      state.qrDrawn = true;
      qr.hidden = false;
    } else if (!loading) {
      loading = loadQrLibrary().then((q) => {
        library = q;
        // Without the library the corner still gives the address in words.
        if (q) refreshJoin();
        else qr.hidden = true;
      });
    }
  }

  // Keeps the address bar saying what the page shows, so that a reload
  // (or the address copied) comes back to the same screen.
  function rememberInAddress(presenting) {
    const p = new URLSearchParams(location.search);
    p.delete('present');
    let q = p.toString();
    if (presenting) q = q ? `present&${q}` : 'present';
    try {
      history?.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${location.hash ?? ''}`);
    } catch {
      // a sandboxed frame may forbid it: the screen changes all the same
    }
  }

  function set(presenting) {
    if (mode === 'embed' || presenting === state.presenting) return;
    state.presenting = presenting;
    body.classList.toggle('presenting', presenting);
    root.hidden = !presenting;
    panel.setAway(presenting);
    rememberInAddress(presenting);
    refreshJoin();
    onLayout();
  }

  back.addEventListener('click', () => set(false));
  panel.onPresent(() => set(true));
  keyTarget.addEventListener('keydown', (ev) => {
    if (mode === 'embed' || ev.repeat || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key !== 'p' && ev.key !== 'P') return;
    const t = ev.target;
    // Typing a name or a token is not a shortcut.
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    set(!state.presenting);
  });

  if (mode === 'embed') {
    body.classList.add('embedded');
    panel.setAway(true);
  }
  refreshJoin();
  if (mode === 'present') set(true);

  return {
    state,
    hello(hello) {
      publicUrl = typeof hello?.public_url === 'string' ? hello.public_url : null;
      state.room = typeof hello?.room === 'string' ? hello.room : '';
      const name = typeof hello?.room_name === 'string' ? hello.room_name : '';
      roomLine.textContent = state.room ? `room ${formatCode(state.room)}${name ? ` · ${name}` : ''}` : '';
      roomLine.hidden = !state.room;
      refreshJoin();
    },
    // A renamed room (room_rename's news): the corner's line follows.
    setRoomName(name) {
      if (state.room) roomLine.textContent = `room ${formatCode(state.room)}${name ? ` · ${name}` : ''}`;
    },
    // How many are here (presence's count), shown in the corner.
    setCount(n) {
      if (n === state.count) return;
      state.count = n;
      count.textContent = peopleHere(n);
    },
    // People's marks: larger on the presenter's screen.
    markScale: () => (state.presenting ? PRESENT_MARK_SCALE : 1),
    set,
  };
}
