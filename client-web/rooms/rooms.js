// Rooms on the page (PROTOCOL.md, "Rooms"): which room this is, the way
// to another one, a new one, and a room operator's controls.
//
//   the room   its code (K7PX-M3QD) and name, in the panel's room box and
//              under the status line; "main room" for the default room
//   join       a box for a code (phone-friendly: upper case as typed,
//              dashes and spaces ignored, a pasted address read for its
//              code); Enter opens /r/CODE
//   new room   from the defaults, a copy of this room or a shipped
//              scenario (choices.js), with an optional name: sends
//              create_room; room_created's token goes to localStorage
//              (token.js) and the page opens the room. Offered as hello's
//              `rooms` allows ("open", or "operators" to operators)
//   operators  of a room: rename, close (asked twice), and "Copy operator
//              link" (/r/CODE#token=…) while this page holds the token
//   the gate   a card over the world when the server will not take the
//              page into the room (4404, 4410, 4429: the connection does
//              not retry) or the path is not a room code: what happened,
//              the join box and the way to the main room
//
// The pure parts are code.js, token.js and choices.js; this is the DOM.
// Built with createElement and classes: the page's CSP allows no inline
// style.

import { formatCode, parseCode, roomHref } from './code.js';
import { NEW_ROOM_CHOICES, ROOM_NAME_MAX, choiceByKey, cleanRoomName, createRoomCommand, mayCreateRooms } from './choices.js';
import { operatorLink, readRoomToken, writeRoomToken } from './token.js';
import { el, button } from '../dom.js';

// How long "close room" waits for the second press.
export const CLOSE_CONFIRM_MS = 4000;

// "room K7PX-M3QD · Group 3", or "main room".
export function roomLabel(code, name) {
  if (!code) return 'main room';
  return `room ${formatCode(code)}${name ? ` · ${name}` : ''}`;
}

// deps: {
//   panelSlot   the panel's room box (outside its disabled fieldset: the
//               join box works while disconnected),
//   gate        the card shown over the world (#room-gate),
//   badge       the line under the status (#status .status-room),
//   room        roomFromPath()'s answer for this page,
//   location, storage (localStorage or null),
//   send(command) → id | null,
//   joinAddress() → the room's join address (the presenter's),
//   navigate(href)  opens another page (location.assign),
//   onRoomName(name)  the room was renamed,
//   hooks       window.swarmcast (gains room, roomName, rooms) }
export function createRooms(deps) {
  const { panelSlot, gate, badge, location, storage, send } = deps;
  const code = deps.room.code ?? null; // null: the path is not a code
  const hooks = deps.hooks ?? {};
  hooks.room = code;
  hooks.roomName = '';
  hooks.rooms = null;

  let policy = null; // hello's rooms: 'open' | 'operators' | 'off' | null
  let roleName = null;
  let helloSeen = false; // before hello the role is not known
  let name = '';
  let createId = null; // the create_room in flight
  let renameId = null;
  let closeId = null;
  let closeArmedUntil = 0;
  let closeTimer = null;

  // ---- a join form (two of them: the panel's and the gate's) ----
  function joinForm(idSuffix, labelText) {
    const form = el('form', 'join-form');
    form.noValidate = true;
    const label = el('label', 'join-label', labelText);
    const input = el('input', 'join-input');
    input.id = `join-code-${idSuffix}`;
    label.htmlFor = input.id;
    input.type = 'text';
    // Letters and digits on a phone's keyboard, capitals as typed; no
    // autocorrection of a code into a word.
    input.inputMode = 'text';
    input.setAttribute('autocapitalize', 'characters');
    input.setAttribute('autocorrect', 'off');
    input.autocomplete = 'off';
    input.spellcheck = false;
    input.enterKeyHint = 'go';
    input.placeholder = 'K7PX-M3QD';
    input.maxLength = 200; // a pasted address
    input.setAttribute('aria-describedby', `join-message-${idSuffix}`);
    const go = el('button', 'btn btn-join', 'Join');
    go.type = 'submit';
    go.title = 'open the room with this code';
    const row = el('div', 'join-row');
    row.append(input, go);
    const message = el('div', 'join-message');
    message.id = `join-message-${idSuffix}`;
    message.setAttribute('role', 'alert');
    message.hidden = true;
    form.append(label, row, message);
    input.addEventListener('input', () => {
      message.hidden = true;
      input.classList.remove('is-invalid');
    });
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const parsed = parseCode(input.value);
      if (!parsed.code) {
        message.textContent = parsed.error;
        message.hidden = false;
        input.classList.add('is-invalid');
        input.focus();
        return;
      }
      input.value = formatCode(parsed.code);
      deps.navigate(roomHref(parsed.code, location.search));
    });
    return { form, input, message };
  }

  // ---- the panel's room box ----
  panelSlot.replaceChildren();
  panelSlot.setAttribute('aria-label', 'room');
  const line = el('div', 'room-line');
  const lineLabel = el('span', 'room-label', 'room');
  const lineCode = el('span', 'room-code');
  const lineName = el('span', 'room-name');
  line.append(lineLabel, lineCode, lineName);

  // A room operator's controls: rename, operator link, close.
  const manage = el('div', 'room-manage');
  manage.hidden = true;
  const renameForm = el('form', 'room-rename');
  const renameInput = el('input', 'room-name-input');
  renameInput.type = 'text';
  renameInput.maxLength = ROOM_NAME_MAX;
  renameInput.placeholder = 'room name';
  renameInput.setAttribute('aria-label', 'the room\u2019s name');
  renameInput.autocomplete = 'off';
  const renameBtn = el('button', 'btn btn-rename', 'Rename');
  renameBtn.type = 'submit';
  renameBtn.title = 'give this room a name everyone sees';
  renameForm.append(renameInput, renameBtn);
  const manageRow = el('div', 'room-manage-row');
  const linkBtn = button('btn-operator-link', 'Copy operator link',
    'a link that makes whoever opens it an operator of this room: share it only with co-operators');
  const closeBtn = button('btn-close-room', 'Close room', 'close this room for everyone in it');
  manageRow.append(linkBtn, closeBtn);
  // The link, shown when the clipboard cannot take it (plain http).
  const linkField = el('input', 'room-link-field');
  linkField.type = 'text';
  linkField.readOnly = true;
  linkField.setAttribute('aria-label', 'operator link');
  linkField.hidden = true;
  const manageMessage = el('div', 'room-message');
  manageMessage.setAttribute('role', 'status');
  manageMessage.hidden = true;
  manage.append(renameForm, manageRow, linkField, manageMessage);

  const join = joinForm('panel', 'Join a room');

  // New room: where it starts from, its name, the button.
  const create = el('div', 'room-create');
  create.hidden = true;
  const createLabel = el('label', 'join-label', 'New room from');
  const createSelect = el('select', 'room-from');
  createSelect.id = 'room-from';
  createLabel.htmlFor = createSelect.id;
  for (const c of NEW_ROOM_CHOICES) {
    const o = new Option(c.label, c.key);
    o.title = c.title;
    createSelect.append(o);
  }
  const createRow = el('div', 'join-row');
  const createName = el('input', 'room-name-input');
  createName.type = 'text';
  createName.maxLength = ROOM_NAME_MAX;
  createName.placeholder = 'name (optional)';
  createName.setAttribute('aria-label', 'the new room\u2019s name (optional)');
  createName.autocomplete = 'off';
  const createBtn = button('btn-new-room', 'New room', 'start a room of your own and open it (you become its operator)');
  createRow.append(createName, createBtn);
  const createMessage = el('div', 'room-message');
  createMessage.setAttribute('role', 'alert');
  createMessage.hidden = true;
  create.append(createLabel, createSelect, createRow, createMessage);

  panelSlot.append(line, manage, join.form, create);

  // ---- the gate ----
  gate.replaceChildren();
  gate.setAttribute('role', 'dialog');
  gate.setAttribute('aria-labelledby', 'room-gate-title');
  const gateTitle = el('h2', 'room-gate-title');
  gateTitle.id = 'room-gate-title';
  const gateText = el('p', 'room-gate-text');
  const gateJoin = joinForm('gate', 'Join a room');
  const gateHome = el('a', 'room-gate-home', 'Go to the main room');
  gateHome.href = roomHref('', location.search);
  gate.append(gateTitle, gateText, gateJoin.form, gateHome);
  gate.hidden = true;

  function showGate(title, text) {
    gateTitle.textContent = title;
    gateText.textContent = text;
    gate.hidden = false;
    hooks.roomGate = { title, text };
    gateJoin.input.focus({ preventScroll: true });
  }

  // ---- state shown ----
  function showRoom() {
    const c = code ?? '';
    lineCode.textContent = c ? formatCode(c) : 'main room';
    lineName.textContent = c && name ? name : '';
    lineName.hidden = !(c && name);
    panelSlot.dataset.room = c;
    if (badge) {
      badge.textContent = c ? roomLabel(c, name) : '';
      badge.hidden = !c;
    }
    hooks.roomName = name;
    if (document.activeElement !== renameInput) renameInput.value = name;
  }

  function refresh() {
    const operator = helloSeen && roleName === 'operator';
    manage.hidden = !(code && operator);
    linkBtn.hidden = !(code && operator && readRoomToken(storage, code));
    create.hidden = !mayCreateRooms(policy, roleName);
  }

  function note(target, text, isError) {
    target.textContent = text;
    target.hidden = text === '';
    target.classList.toggle('is-error', !!isError);
  }

  // ---- actions ----
  createBtn.addEventListener('click', () => {
    if (createId !== null) return;
    const id = send(createRoomCommand(choiceByKey(createSelect.value), createName.value));
    if (id === null) {
      note(createMessage, 'Not connected: try again in a moment.', true);
      return;
    }
    createId = id;
    createBtn.disabled = true;
    note(createMessage, 'creating the room…', false);
  });

  renameForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const n = cleanRoomName(renameInput.value);
    const id = send({ type: 'room_rename', name: n });
    if (id !== null) renameId = id;
  });

  function disarmClose() {
    clearTimeout(closeTimer);
    closeArmedUntil = 0;
    closeBtn.textContent = 'Close room';
    closeBtn.classList.remove('is-armed');
  }
  closeBtn.addEventListener('click', () => {
    if (Date.now() > closeArmedUntil) {
      // First press: ask again (closing sends everyone in it away).
      closeArmedUntil = Date.now() + CLOSE_CONFIRM_MS;
      closeBtn.textContent = 'Close for everyone?';
      closeBtn.classList.add('is-armed');
      clearTimeout(closeTimer);
      closeTimer = setTimeout(disarmClose, CLOSE_CONFIRM_MS);
      return;
    }
    disarmClose();
    const id = send({ type: 'room_close' });
    if (id !== null) closeId = id;
  });

  linkBtn.addEventListener('click', async () => {
    const token = readRoomToken(storage, code);
    if (!token) return;
    const link = operatorLink(deps.joinAddress(), token);
    let copied = false;
    try {
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch {
      // No clipboard (plain http, or refused): the field below.
    }
    linkField.value = link;
    linkField.hidden = copied;
    if (!copied) {
      linkField.focus();
      linkField.select();
    }
    note(manageMessage, copied ? 'Operator link copied: whoever opens it can run this room.'
      : 'Copy this link: whoever opens it can run this room.', false);
  });

  // The new room is ours: keep its token, then open it.
  function roomCreated(msg) {
    createId = null;
    createBtn.disabled = false;
    const newCode = parseCode(msg.code).code;
    if (!newCode) {
      note(createMessage, 'The server answered with a room code this page cannot read.', true);
      return;
    }
    const href = roomHref(newCode, location.search);
    hooks.roomCreated = { code: newCode, name: msg.name ?? '', path: msg.path ?? null };
    if (typeof msg.token === 'string' && !writeRoomToken(storage, newCode, msg.token)) {
      // This browser keeps nothing: the link is the only copy of the token.
      note(createMessage, 'Room created, but this browser does not keep its token: open the link below and keep it.', true);
      linkField.value = operatorLink(new URL(href, location.href).href, msg.token);
      linkField.hidden = false;
      manage.hidden = false;
      return;
    }
    deps.navigate(href);
  }

  return {
    // On a page whose path is not a room code: say so, connect nowhere.
    badPath() {
      showGate('Not a room code', `“${deps.room.raw}” is not a room code. ${deps.room.error}`);
      gateJoin.input.value = deps.room.raw ?? '';
    },

    hello(hello) {
      helloSeen = true;
      policy = typeof hello?.rooms === 'string' ? hello.rooms : null;
      hooks.rooms = policy;
      name = typeof hello?.room_name === 'string' ? hello.room_name : '';
      createId = renameId = closeId = null;
      createBtn.disabled = false;
      note(createMessage, '', false);
      note(manageMessage, '', false);
      disarmClose();
      gate.hidden = true;
      hooks.roomGate = null;
      showRoom();
      refresh();
    },

    // The role session (net/role.js) changed.
    setRole(role) {
      roleName = role.role;
      refresh();
    },

    // A final close (net/connection.js): the gate, with the server's words.
    closed(message) {
      if (message) showGate(message.title, message.text);
    },

    // Messages about rooms: true when taken.
    onMessage(msg) {
      if (msg.type === 'room') {
        // Someone renamed the room: everyone in it is told.
        if (typeof msg.name === 'string') {
          name = msg.name;
          showRoom();
          deps.onRoomName?.(name);
        }
        return true;
      }
      if (msg.type === 'room_created') {
        // Only the creator is told (once); a late one, after the page gave
        // up waiting, is not followed.
        if (createId !== null && (msg.id === createId || msg.id === undefined)) roomCreated(msg);
        return true;
      }
      if (msg.type !== 'ack' && msg.type !== 'error') return false;
      const id = msg.id;
      if (msg.cmd === 'create_room' || (id != null && id === createId)) {
        createId = null;
        createBtn.disabled = false;
        // The server's own words: forbidden, limit_reached, rate_limited,
        // an unknown scenario.
        if (msg.type === 'error') note(createMessage, msg.message || `refused (${msg.code})`, true);
        return true;
      }
      if (msg.cmd === 'room_rename' || (id != null && id === renameId)) {
        renameId = null;
        if (msg.type === 'ack') {
          name = typeof msg.name === 'string' ? msg.name : cleanRoomName(renameInput.value);
          showRoom();
          deps.onRoomName?.(name);
          note(manageMessage, 'Renamed.', false);
        } else {
          note(manageMessage, msg.message || `rename refused (${msg.code})`, true);
        }
        return true;
      }
      if (msg.cmd === 'room_close' || (id != null && id === closeId)) {
        closeId = null;
        if (msg.type === 'error') note(manageMessage, msg.message || `close refused (${msg.code})`, true);
        return true;
      }
      return false;
    },
  };
}
