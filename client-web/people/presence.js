// Many hands on one flock: my name and colour (chosen in a small field,
// remembered in localStorage, a generated default), who is here with their
// role, everyone's target and live cursor drawn with their names, and the
// activity feed. The server is the truth: the list, the cursors and the
// feed are drawn from its `presence`, `cursors` and `activity` messages
// (PROTOCOL.md, "Presence, inspection and stepping"); this module only
// keeps the newest of each.

// The server accepts names of 1–24 visible characters (PROTOCOL.md, "Names")
// and colours #rrggbb.
export const NAME_MAX_CHARS = 24;
// Pointer moves go out at most this often (the server coalesces to 10 Hz).
export const CURSOR_INTERVAL_MS = 100;
// A cursor not moved for this long fades away (its owner's mouse left).
export const CURSOR_FADE_MS = 10000;
// Entries of the feed shown on the page (the server keeps 20).
const FEED_SHOWN = 8;

const STORAGE_NAME = 'swarmcast.name';
const STORAGE_COLOR = 'swarmcast.color';

const ADJECTIVES = ['Swift', 'Quiet', 'Bright', 'Bold', 'Calm', 'Keen', 'Nimble', 'Sunny', 'Brave', 'Lucky'];
const BIRDS = ['Starling', 'Swallow', 'Heron', 'Finch', 'Wren', 'Plover', 'Swift', 'Lark', 'Robin', 'Tern'];

// A friendly default name, e.g. "Keen Starling 42".
export function generateName(random = Math.random) {
  const pick = (list) => list[Math.floor(random() * list.length) % list.length];
  return `${pick(ADJECTIVES)} ${pick(BIRDS)} ${Math.floor(random() * 90) + 10}`;
}

// A saturated colour that reads on the dark world, as #rrggbb.
export function generateColor(random = Math.random) {
  const h = random() * 360;
  const s = 0.7;
  const l = 0.6;
  const f = (n) => {
    const k = (n + h / 30) % 12;
    const c = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255).toString(16).padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

// A first check of a name, or null when the server would surely refuse it:
// trimmed, 1–24 characters (code points), no control characters. The server
// has the last word (it also removes invisible characters and refuses the
// page's own labels, such as "you"); its refusal is shown under the field.
export function cleanName(text) {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  // C0, DEL, C1, line/paragraph separators and bidirectional overrides.
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.test(t)) return null;
  const n = [...t].length;
  return n >= 1 && n <= NAME_MAX_CHARS ? t : null;
}

export function cleanColor(text) {
  return typeof text === 'string' && /^#[0-9a-fA-F]{6}$/.test(text) ? text.toLowerCase() : null;
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

// deps: { root (element to build the box in), send(command), storage
//         (localStorage or null), now() → ms, random(), onChange() (something
//         to redraw) }
export function createPresence(deps) {
  const { root, send } = deps;
  const storage = deps.storage ?? null;
  const now = deps.now ?? (() => Date.now());
  const random = deps.random ?? Math.random;
  const onChange = deps.onChange ?? (() => {});

  const state = {
    myId: null,
    name: null, // what I asked for, then what the server made of it (its ack)
    acceptedName: null, // the last name the server acknowledged
    color: null,
    members: [], // the newest `presence` list: [{ id, name, color, role, target }]
    count: 0, // how many are here (the list shows at most 100)
    cursors: new Map(), // id → { x, y, at (ms, when it last moved here) }
    activity: [], // the newest feed: [{ seq, t, id, name, text }]
  };

  function remembered(key) {
    try {
      return storage?.getItem(key) ?? null;
    } catch {
      return null;
    }
  }
  function remember(key, value) {
    try {
      storage?.setItem(key, value);
    } catch {
      // storage full or blocked: the name just is not remembered
    }
  }

  state.name = cleanName(remembered(STORAGE_NAME)) ?? generateName(random);
  state.color = cleanColor(remembered(STORAGE_COLOR)) ?? generateColor(random);
  remember(STORAGE_NAME, state.name);
  remember(STORAGE_COLOR, state.color);

  // ---- the box: my name and colour, who is here, the feed ----
  const box = el('section', 'presence');
  box.setAttribute('aria-label', 'who is here');
  const me = el('form', 'presence-me');
  const nameLabel = el('label', 'presence-label', 'your name');
  const nameInput = el('input', 'presence-name');
  nameInput.type = 'text';
  nameInput.maxLength = 64; // the server counts characters; this only stops pastes of novels
  nameInput.value = state.name;
  nameInput.id = 'presence-name';
  nameInput.autocomplete = 'nickname';
  nameLabel.htmlFor = nameInput.id;
  const colorInput = el('input', 'presence-color');
  colorInput.type = 'color';
  colorInput.value = state.color;
  colorInput.title = 'your colour';
  colorInput.setAttribute('aria-label', 'your colour');
  const nameError = el('div', 'presence-error');
  nameError.hidden = true;
  me.append(nameLabel, nameInput, colorInput, nameError);
  const listTitle = el('h2', 'presence-title', 'here');
  const list = el('ul', 'presence-list');
  const feedTitle = el('h2', 'presence-title presence-feed-title', 'activity');
  const feed = el('ol', 'presence-feed');
  feed.setAttribute('aria-live', 'off'); // the feed is read on demand, not announced per change
  box.append(me, listTitle, list, feedTitle, feed);
  root.append(box);

  function sayHello() {
    send({ type: 'hello', name: state.name, color: state.color });
  }

  function applyName() {
    const name = cleanName(nameInput.value);
    if (!name) {
      nameError.textContent = `1 to ${NAME_MAX_CHARS} characters, no control characters`;
      nameError.hidden = false;
      return;
    }
    nameError.hidden = true;
    nameInput.value = name;
    if (name === state.name) return;
    state.name = name;
    remember(STORAGE_NAME, name);
    sayHello();
  }
  me.addEventListener('submit', (ev) => {
    ev.preventDefault();
    applyName();
    nameInput.blur();
  });
  nameInput.addEventListener('change', applyName);
  colorInput.addEventListener('change', () => {
    const c = cleanColor(colorInput.value);
    if (!c || c === state.color) return;
    state.color = c;
    remember(STORAGE_COLOR, c);
    sayHello();
  });

  function renderList() {
    list.replaceChildren();
    for (const m of state.members) {
      const li = el('li', 'presence-member');
      const swatch = el('span', 'presence-swatch');
      swatch.style.setProperty('--swatch', m.color); // a custom property: allowed by the CSP
      li.append(swatch, el('span', 'presence-member-name', m.name));
      if (m.id === state.myId) li.append(el('span', 'presence-you', ' (you)'));
      li.append(el('span', `presence-role presence-role-${m.role}`, m.role));
      li.title = m.target ? `target at ${Math.round(m.target[0])}, ${Math.round(m.target[1])}` : 'no target';
      list.append(li);
    }
    listTitle.textContent = `here (${state.count})`;
  }

  function renderFeed() {
    feed.replaceChildren();
    for (const item of state.activity.slice(-FEED_SHOWN).reverse()) {
      const li = el('li', 'presence-feed-item', item.text);
      const when = new Date(item.t * 1000);
      li.title = when.toLocaleTimeString();
      feed.append(li);
    }
  }

  // ---- messages ----
  function onHello(hello) {
    state.myId = hello.client_id;
    state.members = [];
    state.cursors.clear();
    state.activity = [];
    sayHello();
  }

  // Returns true when msg was one of presence's.
  function onMessage(msg) {
    if (msg.type === 'presence' && Array.isArray(msg.clients)) {
      state.members = msg.clients;
      state.count = typeof msg.count === 'number' ? msg.count : msg.clients.length;
      // Cursors of those who left go with them.
      const here = new Set(msg.clients.map((c) => c.id));
      for (const id of state.cursors.keys()) if (!here.has(id)) state.cursors.delete(id);
      renderList();
      onChange();
      return true;
    }
    if (msg.type === 'cursors' && Array.isArray(msg.cursors)) {
      const t = now();
      for (const c of msg.cursors) {
        const old = state.cursors.get(c.id);
        if (!old || old.x !== c.x || old.y !== c.y) state.cursors.set(c.id, { x: c.x, y: c.y, at: t });
      }
      onChange();
      return true;
    }
    if (msg.type === 'activity' && Array.isArray(msg.items)) {
      state.activity = msg.items;
      renderFeed();
      return true;
    }
    // The server cleans names (invisible characters out, spaces collapsed,
    // NFC): the field and what is remembered take the name it kept, so a
    // reload does not send the uncleaned one again.
    if (msg.type === 'ack' && msg.cmd === 'hello') {
      if (typeof msg.name === 'string') {
        state.acceptedName = msg.name;
        if (msg.name !== state.name) {
          state.name = msg.name;
          remember(STORAGE_NAME, msg.name);
          if (document.activeElement !== nameInput) nameInput.value = msg.name;
        }
      }
      return true;
    }
    // A refused name changes nothing on the server: nor here, past the
    // message saying why (the field goes back to the name people see).
    if (msg.type === 'error' && msg.cmd === 'hello') {
      nameError.textContent = msg.message;
      nameError.hidden = false;
      if (state.acceptedName && state.acceptedName !== state.name) {
        state.name = state.acceptedName;
        remember(STORAGE_NAME, state.name);
        nameInput.value = state.name;
      }
      return true;
    }
    return false;
  }

  // My pointer over the world (world units), or null when it left.
  let lastCursorSend = -Infinity;
  let pendingCursor = null;
  let cursorTimer = null;
  function flushCursor() {
    cursorTimer = null;
    if (!pendingCursor) return;
    lastCursorSend = now();
    send({ type: 'cursor', x: pendingCursor.x, y: pendingCursor.y });
    pendingCursor = null;
  }
  function cursorMoved(x, y, world) {
    if (!world) return;
    const cx = Math.min(world.width, Math.max(0, x));
    const cy = Math.min(world.height, Math.max(0, y));
    pendingCursor = { x: Math.round(cx * 100) / 100, y: Math.round(cy * 100) / 100 };
    const wait = CURSOR_INTERVAL_MS - (now() - lastCursorSend);
    if (wait <= 0) flushCursor();
    else if (!cursorTimer) cursorTimer = setTimeout(flushCursor, wait);
  }

  function member(id) {
    return state.members.find((m) => m.id === id);
  }
  // How a client's target is drawn (scene_marks.js drawTargets): its name
  // and chosen colour, once the presence list has it.
  function look(id) {
    const m = member(id);
    return m ? { color: m.color, label: m.name } : null;
  }

  // ---- drawing (on any 2D context in CSS pixels) ----
  // toScreen(x, y) → [sx, sy] CSS px; k: the marks' size factor (the
  // presenter's screen draws them larger).
  function draw(ctx, toScreen, _scale, k = 1) {
    ctx.save();
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    // Everyone else's cursor: an arrow and the name.
    const t = now();
    for (const [id, c] of state.cursors) {
      if (id === state.myId) continue;
      const m = member(id);
      if (!m) continue;
      const age = t - c.at;
      if (age > CURSOR_FADE_MS) continue;
      const [px, py] = toScreen(c.x, c.y);
      ctx.save();
      ctx.translate(px, py);
      ctx.scale(k, k);
      const sx = 0;
      const sy = 0;
      ctx.globalAlpha = age > CURSOR_FADE_MS / 2 ? 0.5 : 1;
      ctx.fillStyle = m.color;
      ctx.strokeStyle = '#0b0e14';
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(sx, sy);
      ctx.lineTo(sx + 4, sy + 15);
      ctx.lineTo(sx + 7.5, sy + 9.5);
      ctx.lineTo(sx + 14, sy + 9);
      ctx.closePath();
      ctx.stroke();
      ctx.fill();
      tag(ctx, m.name, m.color, sx + 12, sy + 14);
      ctx.restore();
    }
    ctx.restore();
  }

  // A name on a dark backing in its owner's colour.
  function tag(ctx, text, color, x, y) {
    const w = ctx.measureText(text).width;
    ctx.fillStyle = 'rgba(11, 14, 20, 0.75)';
    ctx.fillRect(x - 3, y - 2, w + 6, 17);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }

  // Something still fading needs frames.
  function animating() {
    const t = now();
    for (const c of state.cursors.values()) if (t - c.at < CURSOR_FADE_MS) return true;
    return false;
  }

  return { state, onHello, onMessage, cursorMoved, draw, look, animating, element: box };
}
