// The control panel: a side panel (a bottom sheet on a phone) built from
// the `params` list of `hello` (PROTOCOL.md), plus pause / single step /
// reset, the agent count, slots for the metric plots (plots.js) and the
// capture buttons (capture.js), and a legend of the agent colours.
//
//   room       at the top, outside the controls: this page's room, the
//              join box, "New room" and a room operator's controls
//              (rooms/rooms.js fills roomSlot)
//   role       then this page's role (role.js); for a visitor on a
//              server with a control token, the "Operator token" form that
//              sends `auth`; for an operator by token, "Lock"
//   locking    pause / reset / seed, the model and every parameter control
//              sit in two fieldsets that are disabled (not hidden) for a
//              visitor, each control described as needing the token
//   model      a select at the top → {"type":"set_model"}
//   groups     the other parameters in collapsible sections (labels.js:
//              "Flocking rules", "Perception", …); the current model's
//              section is open
//   controls   each labelled for people ("Separation weight") with the
//              parameter's name second (`w_sep`); float/int: a slider and a
//              numeric field with the unit; enum: a select; bool: a
//              checkbox. A "?" button per control shows its help text
//              (range, default) under it; "? help" in the header shows all
//   world      pause, step (one tick, only while paused), reset with a seed
//              and an agent count, and add agents
//   species    with more than one species (the `species` parameter), a
//              selector says whose values the controls show and set: all
//              species (a plain set_param) or one (set_param with
//              `species`); a control whose species differ is marked
//
// Changes go out as set_param (a dragged slider at most every
// SLIDER_INTERVAL_MS, its final value on release). `param` broadcasts from
// anyone move the controls without sending anything back; a refused change
// puts the control back to the server's value (the error itself is shown by
// the status line).
//
// What it shows of each parameter (its section, its slider's scale, its
// number as text, its help) is params.js's, pure and tested in Node; this
// file is the DOM part, createPanel(). It still holds the panel's several
// sections (role, world, parameters, legend, the slots others fill) because
// they share one state: the fieldsets a visitor finds locked, the connection,
// the species being edited; split, each would need all of it passed in.
// Everything is built with createElement and classes: the page's CSP allows
// no inline style.

import * as cmd from '../net/commands.js';
import { labelOf } from './labels.js';
import {
  MAX_SPECIES, SLIDER_STEPS, formatNumber, fromSlider, groupParams, helpText, isNumeric, modelGroupKey,
  sliderKind, speciesValuesOf, toSlider, tooltip,
} from './params.js';
import { describeRole, authMessage, NEEDS_TOKEN } from '../net/role.js';

// A dragged slider sends at most this often (~10/s).
export const SLIDER_INTERVAL_MS = 100;
// localStorage key of the panel's open / collapsed state.
export const STORAGE_KEY = 'swarmcast.panel.open';

// Agents added by the "add" button unless the field says otherwise.
export const DEFAULT_ADD_AGENTS = 100;
// Parameters of the whole world, never set per species: the ones hello
// marks `world_only` (the server refuses them with a species); `species`
// too for a server that predates the mark.
const WORLD_WIDE = new Set(['species']);

// ---------------------------------------------------------------------------
// DOM

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function readStorage(storage) {
  try {
    const v = storage?.getItem(STORAGE_KEY);
    return v === null || v === undefined ? null : v === '1';
  } catch {
    return null; // storage disabled (privacy mode, file://): just don't remember
  }
}

function writeStorage(storage, open) {
  try {
    storage?.setItem(STORAGE_KEY, open ? '1' : '0');
  } catch {
    // Quota or disabled storage: the state is simply not remembered.
  }
}

// A button clicked with the mouse gives its focus back, so the space key
// stays the pause shortcut instead of clicking the button again.
function blurAfterMouse(button) {
  button.addEventListener('click', (ev) => {
    if (ev.detail > 0) button.blur();
  });
}

// The same for a select: once a choice made with the mouse is in, the focus
// goes back to the page. Chosen with the keyboard, it stays.
function blurSelectAfterMouse(select) {
  let byMouse = false;
  select.addEventListener('pointerdown', () => {
    byMouse = true;
  });
  select.addEventListener('keydown', () => {
    byMouse = false;
  });
  select.addEventListener('change', () => {
    if (byMouse) select.blur();
    byMouse = false;
  });
}

// deps: {
//   root     the panel element (an <aside>, empty),
//   toggle   the small button that reopens a collapsed panel,
//   body     the element that gets the `panel-open` class (document.body),
//   send(command) → id | null (connection.send),
//   storage  (localStorage, or null),
//   onLayout()  called when the panel opens or closes,
//   onUnlock(token)  the token form was submitted,
//   onLock()    the Lock button was pressed,
//   now() → ms }
export function createPanel(deps) {
  const { root, toggle, body, send, storage, onLayout, onUnlock, onLock } = deps;
  const now = deps.now ?? (() => performance.now());

  // ---- static shell ----
  const header = el('div', 'panel-header');
  const title = el('span', 'panel-title', 'controls');
  // » beside the world on a desktop, ▾ on a phone's bottom sheet (CSS
  // shows one of the two).
  const collapse = el('button', 'panel-collapse');
  collapse.append(el('span', 'icon-side', '»'), el('span', 'icon-sheet', '▾'));
  for (const icon of collapse.children) icon.setAttribute('aria-hidden', 'true');
  collapse.type = 'button';
  collapse.title = 'hide the controls';
  collapse.setAttribute('aria-label', 'hide the controls');
  collapse.setAttribute('aria-controls', root.id || 'panel');
  // Shows (or hides) every control's help text at once.
  const helpAll = el('button', 'panel-help-all', '? help');
  helpAll.type = 'button';
  helpAll.title = 'show the help text of every control';
  helpAll.setAttribute('aria-pressed', 'false');
  const headerButtons = el('span', 'panel-header-buttons');
  headerButtons.append(helpAll, collapse);
  header.append(title, headerButtons);

  // Everything that sends a command sits in this fieldset: disabling it
  // while disconnected disables every control at once.
  const fieldset = el('fieldset', 'panel-body');
  const legendEl = el('legend', 'visually-hidden', 'simulation controls');
  fieldset.append(legendEl);

  // The role, and the way from visitor to operator.
  const roleBox = el('section', 'role-box');
  roleBox.setAttribute('aria-label', 'your role');
  const roleLine = el('div', 'role-line');
  const roleLabel = el('span', 'role-label', 'role');
  const roleName = el('span', 'role-name', '…'); // until the first hello
  roleLine.append(roleLabel, roleName);
  const roleNote = el('p', 'role-note',
    'Parameters, the model, pause, reset and adding agents need the operator token.');
  roleNote.id = 'role-note';
  roleNote.hidden = true;
  // A form (Enter submits, password managers understand it) that never
  // navigates: submit is always prevented, and the field has no name, so
  // even a submission could not put the token into a URL.
  const tokenForm = el('form', 'token-form');
  tokenForm.hidden = true;
  const tokenLabel = el('label', 'token-label', 'Operator token');
  tokenLabel.htmlFor = 'control-token';
  const tokenRow = el('div', 'token-row');
  const tokenInput = el('input', 'token-input');
  tokenInput.type = 'password';
  tokenInput.id = 'control-token';
  tokenInput.autocomplete = 'current-password';
  tokenInput.required = true;
  tokenInput.spellcheck = false;
  tokenInput.setAttribute('aria-describedby', 'token-message');
  const unlockBtn = el('button', 'btn btn-unlock', 'Unlock');
  unlockBtn.type = 'submit';
  unlockBtn.title = 'present the operator token to the server (kept for this tab only)';
  tokenRow.append(tokenInput, unlockBtn);
  const tokenMessage = el('div', 'token-message');
  tokenMessage.id = 'token-message';
  tokenMessage.setAttribute('role', 'alert');
  tokenMessage.hidden = true;
  tokenForm.append(tokenLabel, tokenRow, tokenMessage);
  const lockBtn = el('button', 'btn btn-lock', 'Lock');
  lockBtn.type = 'button';
  lockBtn.title = 'forget the operator token in this tab and continue as a visitor (reloads the page)';
  lockBtn.hidden = true;
  roleLine.append(lockBtn);
  // The presenter's screen (?present): the world alone with the QR code to
  // join; P or its own button comes back here. Operators only: it is the
  // operator who presents.
  const presentBtn = el('button', 'btn btn-present', "presenter's screen");
  presentBtn.type = 'button';
  presentBtn.title = "the world on the whole screen, with a QR code for the room to join (P comes back)";
  presentBtn.hidden = true;
  let presentFn = null;
  presentBtn.addEventListener('click', () => presentFn?.());
  roleBox.append(roleLine, roleNote, tokenForm, presentBtn);

  tokenForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const token = tokenInput.value;
    if (token !== '') onUnlock?.(token);
  });
  lockBtn.addEventListener('click', () => onLock?.());
  let formByMouse = false; // how the token form was last used
  tokenForm.addEventListener('pointerdown', () => {
    formByMouse = true;
  });
  tokenForm.addEventListener('keydown', () => {
    formByMouse = false;
  });

  // ---- the world: pause, step, reset, agents ----
  const worldBox = el('section', 'world-box');
  worldBox.setAttribute('aria-label', 'simulation');
  const actions = el('div', 'panel-actions');
  const pauseBtn = el('button', 'btn btn-pause', 'pause');
  pauseBtn.type = 'button';
  pauseBtn.title = 'pause / resume the simulation (space)';
  pauseBtn.dataset.action = 'pause';
  const stepBtn = el('button', 'btn btn-step', 'step');
  stepBtn.type = 'button';
  stepBtn.dataset.action = 'step';
  const STEP_TITLE = 'advance the paused simulation by one tick';
  const STEP_NEEDS_PAUSE = 'step works while the simulation is paused: pause it first';
  stepBtn.title = STEP_NEEDS_PAUSE;
  stepBtn.disabled = true;
  // Why step is disabled, for screen readers as well as the tooltip.
  const stepNote = el('span', 'visually-hidden', STEP_NEEDS_PAUSE);
  stepNote.id = 'step-note';
  stepBtn.setAttribute('aria-describedby', stepNote.id);
  actions.append(pauseBtn, stepBtn, stepNote);
  blurAfterMouse(pauseBtn);
  blurAfterMouse(stepBtn);

  // Reset: a new world from a seed, with as many agents as the field says.
  const resetRow = el('div', 'panel-row reset-row');
  const agentsLabel = el('label', 'row-label', 'agents');
  agentsLabel.htmlFor = 'reset-agents';
  const agentsInput = el('input', 'count-input');
  agentsInput.type = 'number';
  agentsInput.id = 'reset-agents';
  agentsInput.name = 'reset-agents';
  agentsInput.min = '0';
  agentsInput.step = '1';
  agentsInput.title = 'how many agents the reset makes (the current number until you change it)';
  const seedInput = el('input', 'seed-input');
  seedInput.type = 'number';
  seedInput.min = '0';
  seedInput.max = '4294967295';
  seedInput.step = '1';
  seedInput.placeholder = 'seed';
  seedInput.title = 'seed for the reset (0 … 4294967295); empty keeps the current one';
  seedInput.setAttribute('aria-label', 'seed for the reset');
  seedInput.name = 'seed';
  const resetBtn = el('button', 'btn btn-reset', 'reset');
  resetBtn.type = 'button';
  resetBtn.title = 'restart the world at tick 0 with this many agents (redrawn from the seed; obstacles removed)';
  resetBtn.dataset.action = 'reset';
  resetRow.append(agentsLabel, agentsInput, seedInput, resetBtn);
  blurAfterMouse(resetBtn);

  // Add agents: scattered over the world (the 'a' key adds them at the mouse).
  const addRow = el('div', 'panel-row add-row');
  const addLabel = el('label', 'row-label', 'add');
  addLabel.htmlFor = 'add-agents';
  const addInput = el('input', 'count-input');
  addInput.type = 'number';
  addInput.id = 'add-agents';
  addInput.name = 'add-agents';
  addInput.min = '1';
  addInput.step = '1';
  addInput.value = String(DEFAULT_ADD_AGENTS);
  addInput.title = 'how many agents to add';
  const addBtn = el('button', 'btn btn-add', 'add agents');
  addBtn.type = 'button';
  addBtn.title = 'add this many agents, scattered over the world';
  addBtn.dataset.action = 'add-agents';
  addRow.append(addLabel, addInput, addBtn);
  blurAfterMouse(addBtn);
  worldBox.append(actions, resetRow, addRow);

  const modelRow = el('label', 'model-row');
  const modelLabel = el('span', 'model-label', 'Flocking model');
  const modelSelect = el('select', 'model-select');
  modelSelect.name = 'model';
  blurSelectAfterMouse(modelSelect);
  modelRow.append(modelLabel, modelSelect);
  modelRow.hidden = true;

  // Slots filled by others: the metric plots (plots.js) and the capture
  // buttons (capture.js), each a collapsible section.
  function slot(key, titleText, openByDefault) {
    const details = el('details', `panel-section section-${key}`);
    details.open = openByDefault;
    const summary = el('summary', 'param-group-title', titleText);
    const content = el('div', 'panel-section-body');
    details.append(summary, content);
    // Opened: what it shows (the plots) is drawn only while visible.
    details.addEventListener('toggle', () => onLayout?.());
    return { details, content };
  }
  const metricsSlot = slot('metrics', 'Metrics', true);
  const captureSlot = slot('capture', 'Screenshot and clip', false);
  // Who is here, my name, the activity feed (presence.js): in the panel, so
  // that it never covers the world (and is in the sheet on a phone).
  const peopleSlot = slot('people', 'People', true);

  const legend = el('div', 'legend');
  legend.hidden = true;

  const speciesRow = el('label', 'species-row');
  const speciesLabel = el('span', 'species-label', 'values of');
  const speciesSelect = el('select', 'species-select');
  speciesSelect.name = 'edit-species';
  speciesSelect.title = 'whose parameters the controls below show and set: every species at once, or one';
  speciesRow.append(speciesLabel, speciesSelect);
  speciesRow.hidden = true;
  blurSelectAfterMouse(speciesSelect);

  const groupsBox = el('div', 'param-groups');

  // What a visitor may not use: disabled as a whole (a disabled fieldset
  // disables every control in it, including rows built later). The
  // species selector only chooses what the controls show: it stays usable.
  const operatorTop = el('fieldset', 'operator-only');
  operatorTop.append(worldBox, modelRow);
  const operatorParams = el('fieldset', 'operator-only');
  operatorParams.append(groupsBox);

  fieldset.append(roleBox, operatorTop, legend, peopleSlot.details, metricsSlot.details, captureSlot.details, speciesRow, operatorParams);
  // The room, joining another and starting one (rooms/rooms.js fills it):
  // outside the fieldset, so that the join box works while disconnected.
  const roomSlot = el('section', 'room-box');
  root.replaceChildren(header, roomSlot, fieldset);

  // ---- state ----
  const rows = new Map(); // name → row (see buildRow)
  const groups = new Map(); // group key → <details>
  const pending = new Map(); // command id → { kind: 'param', row } | { kind: 'model' }
  let modelParam = null; // the `model` entry of hello, or null
  let model = null; // the model in use, as the server last said
  let modelPending = 0;
  let speciesCount = 1; // the `species` parameter
  let editSpecies = null; // null: all species; else the species the controls edit
  let agentCount = null; // the world's agents, as the newest snapshot says
  let agentsEdited = false; // the reset's agent field was typed in: keep it
  let maxAgents = null; // hello's limits
  let maxAdd = null;
  let helpShown = false; // "? help": every row's help is open
  let shownPaused = undefined;
  let shownEnabled = undefined;
  let shownLegend = '';
  let locked = false; // a visitor: the operator-only controls are disabled
  let modelTitle = ''; // the model selector's tooltip, without the lock
  let shownRole = null; // what setRole last showed (a key)
  let open = readStorage(storage);
  // First visit: open on screens wide enough to keep most of the world
  // visible beside it.
  if (open === null) open = (globalThis.innerWidth ?? 1280) >= 900;

  let away = false; // the presenter's screen or an embed: no panel, no toggle (setAway)
  function setOpen(v, remember) {
    open = v;
    root.hidden = away || !open;
    toggle.hidden = away || open;
    toggle.setAttribute('aria-expanded', String(open));
    body.classList.toggle('panel-open', open && !away);
    if (remember) writeStorage(storage, open);
    onLayout?.();
  }
  // Keyboard users keep their place: the focus moves to the button that
  // undoes it. A mouse click leaves no focus behind, so space stays pause.
  collapse.addEventListener('click', (ev) => {
    setOpen(false, true);
    if (ev.detail === 0) toggle.focus({ preventScroll: true });
  });
  toggle.addEventListener('click', (ev) => {
    setOpen(true, true);
    if (ev.detail > 0) toggle.blur();
    else collapse.focus({ preventScroll: true });
  });
  setOpen(open, false);

  // ---- commands ----
  let paused = null;
  pauseBtn.addEventListener('click', () => {
    if (paused !== null) send(cmd.togglePause(paused));
  });

  // A whole number in [min, max] from a field, or undefined (marked
  // invalid and focused) when it is not one; null for an empty field.
  function wholeNumber(input, min, max) {
    const raw = input.value.trim();
    if (raw === '' && !input.validity.badInput) return null;
    const n = Number(raw);
    if (!input.validity.valid || !Number.isInteger(n) || n < min || n > max) {
      input.classList.add('is-invalid');
      input.focus();
      return undefined;
    }
    input.classList.remove('is-invalid');
    return n;
  }

  function doReset() {
    const seed = wholeNumber(seedInput, 0, 4294967295);
    const agents = wholeNumber(agentsInput, 0, maxAgents ?? Number.MAX_SAFE_INTEGER);
    if (seed === undefined || agents === undefined) return;
    send(cmd.reset(seed, agents));
    agentsEdited = false; // the field follows the new world again
  }
  function doAdd() {
    const n = wholeNumber(addInput, 1, maxAdd ?? Number.MAX_SAFE_INTEGER);
    if (n === undefined) return;
    send(cmd.addAgents(null, n ?? DEFAULT_ADD_AGENTS, null));
  }
  addBtn.addEventListener('click', doAdd);
  for (const input of [agentsInput, addInput]) {
    input.addEventListener('input', () => input.classList.remove('is-invalid'));
  }
  agentsInput.addEventListener('input', () => {
    agentsEdited = true;
  });
  agentsInput.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      doReset();
    }
  });
  addInput.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      doAdd();
    }
  });
  stepBtn.addEventListener('click', () => {
    if (paused === true) send(cmd.step());
  });
  helpAll.addEventListener('click', () => setAllHelp(!helpShown));

  resetBtn.addEventListener('click', doReset);
  seedInput.addEventListener('input', () => seedInput.classList.remove('is-invalid'));
  seedInput.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      doReset();
    }
  });

  modelSelect.addEventListener('change', () => {
    const value = modelSelect.value;
    const id = send(cmd.setModel(value));
    if (id === null) {
      modelSelect.value = model ?? '';
      return;
    }
    pending.set(id, { kind: 'model' });
    modelPending++;
  });

  // ---- per-species values ----

  // The value a row shows: the edited species', or species 0's (the world's
  // own) for all.
  function valueOf(row) {
    return row.values[row.worldWide ? 0 : editSpecies ?? 0];
  }

  function setValue(row, species, value) {
    if (species === null || species === undefined) row.values.fill(value);
    else if (species >= 0 && species < MAX_SPECIES) row.values[species] = value;
  }

  // Marks a row whose species in use disagree while "all species" is shown.
  function markMixed(row) {
    let mixed = false;
    if (editSpecies === null && speciesCount > 1 && !row.worldWide) {
      for (let s = 1; s < speciesCount; s++) if (row.values[s] !== row.values[0]) mixed = true;
    }
    if (mixed === row.mixed) return;
    row.mixed = mixed;
    row.el.classList.toggle('is-mixed', mixed);
    row.el.title = rowTitle(row);
  }

  // A row's tooltip: the parameter's help, whether species differ, and why
  // it is disabled.
  function rowTitle(row) {
    let t = tooltip(row.p);
    if (row.mixed) {
      t += `\nspecies differ: ${row.values.slice(0, speciesCount).map((v) => formatNumber(v) || String(v)).join(' / ')}`;
    }
    if (locked) t += `\n(${NEEDS_TOKEN})`;
    return t;
  }

  // Says why a control is disabled: in its tooltip and, for assistive
  // technology, by pointing its description at the role note.
  function describeLock(control, baseTitle) {
    if (!control) return;
    if (baseTitle !== undefined) control.title = locked ? `${baseTitle} — ${NEEDS_TOKEN}` : baseTitle;
    if (locked) control.setAttribute('aria-describedby', roleNote.id);
    else control.removeAttribute('aria-describedby');
  }

  function lockRow(row) {
    row.el.title = rowTitle(row);
    for (const c of [row.slider, row.number, row.select, row.checkbox]) {
      if (!c) continue;
      // The help text describes the control; for a visitor, so does why it
      // is disabled.
      c.setAttribute('aria-describedby', locked ? `${row.help.id} ${roleNote.id}` : row.help.id);
    }
  }

  function refreshRow(row, force = false) {
    if (!busy(row)) show(row, valueOf(row), force);
    row.mixed = undefined;
    markMixed(row);
  }

  function setSpeciesCount(n) {
    speciesCount = Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_SPECIES) : 1;
    if (editSpecies !== null && editSpecies >= speciesCount) editSpecies = null;
    const options = [new Option('all species', 'all')];
    for (let s = 0; s < speciesCount; s++) options.push(new Option(`species ${s}`, String(s)));
    speciesSelect.replaceChildren(...options);
    speciesSelect.value = editSpecies === null ? 'all' : String(editSpecies);
    speciesRow.hidden = speciesCount <= 1;
    speciesSelect.className = `species-select is-species-${editSpecies ?? 'all'}`;
    for (const row of rows.values()) refreshRow(row);
  }

  speciesSelect.addEventListener('change', () => {
    const v = speciesSelect.value;
    editSpecies = v === 'all' ? null : Number(v);
    speciesSelect.className = `species-select is-species-${editSpecies ?? 'all'}`;
    for (const row of rows.values()) refreshRow(row, true);
  });

  // ---- parameter rows ----

  // Shows a value in a row's controls (no event fires: nothing is sent).
  // A numeric field being typed in keeps what the user typed, unless `force`
  // (the reply to what was typed there).
  function show(row, value, force = false) {
    const p = row.p;
    if (row.slider) {
      if (typeof value === 'number') row.slider.value = String(toSlider(p, value));
      if (force || document.activeElement !== row.number) row.number.value = formatNumber(value);
      row.number.classList.remove('is-invalid');
    } else if (row.select) {
      row.select.value = String(value);
    } else if (row.checkbox) {
      row.checkbox.checked = value === true;
    } else if (row.text) {
      row.text.textContent = String(value);
    }
  }

  function busy(row) {
    return row.dragging || row.pendingCount > 0;
  }

  function sendParam(row, value) {
    if (value === row.lastSent) return;
    const id = send(cmd.setParam(row.p.name, value, row.worldWide ? null : editSpecies));
    row.lastSentAt = now();
    if (id === null) {
      show(row, valueOf(row)); // not connected: nothing changed
      return;
    }
    row.lastSent = value;
    row.pendingCount++;
    pending.set(id, { kind: 'param', row });
  }

  // The slider's throttle: the newest wanted value goes out at most every
  // SLIDER_INTERVAL_MS; flush() sends it now (release, or the timer).
  function flush(row) {
    clearTimeout(row.timer);
    row.timer = null;
    if (row.wanted !== undefined) {
      const v = row.wanted;
      row.wanted = undefined;
      sendParam(row, v);
    }
  }

  function sliderInput(row) {
    const v = fromSlider(row.p, row.slider.value);
    row.number.value = formatNumber(v);
    row.number.classList.remove('is-invalid');
    row.wanted = v;
    const wait = row.lastSentAt + SLIDER_INTERVAL_MS - now();
    if (wait <= 0) flush(row);
    else if (!row.timer) row.timer = setTimeout(() => flush(row), wait);
  }

  function numberCommit(row) {
    const raw = row.number.value.trim();
    const v = Number(raw);
    if (raw === '' || !Number.isFinite(v)) {
      row.number.value = formatNumber(valueOf(row));
      return;
    }
    // Out-of-range or fractional values for an int go to the server as
    // typed: its refusal, in the status line, says what is allowed.
    if (typeof valueOf(row) === 'number' && v === valueOf(row) && row.pendingCount === 0) return;
    row.lastSent = undefined; // typed on purpose: send even if it repeats
    row.slider.value = String(toSlider(row.p, v));
    sendParam(row, v);
  }

  function showHelp(row, v) {
    row.help.hidden = !v;
    row.helpBtn.setAttribute('aria-expanded', String(v));
    row.helpBtn.classList.toggle('is-on', v);
  }

  function setAllHelp(v) {
    helpShown = v;
    helpAll.setAttribute('aria-pressed', String(v));
    helpAll.title = v ? 'hide the help texts' : 'show the help text of every control';
    helpAll.classList.toggle('is-on', v);
    for (const row of rows.values()) showHelp(row, v);
  }

  function buildRow(p) {
    const row = {
      p,
      values: speciesValuesOf(p), // per species (see valueOf)
      worldWide: p.world_only === true || WORLD_WIDE.has(p.name),
      mixed: false,
      pendingCount: 0,
      dragging: false,
      lastSent: undefined,
      lastSentAt: -Infinity,
      wanted: undefined,
      timer: null,
      el: el('div', 'param'),
    };
    row.el.dataset.param = p.name;
    row.el.dataset.type = p.type;
    row.el.title = tooltip(p);
    const id = `param-${p.name}`;
    const readable = labelOf(p);
    // The label a person reads first, the parameter's name second (what
    // the server, the docs and set_param call it).
    const label = el('label', 'param-name');
    label.htmlFor = id;
    // (The space keeps the two words apart in the accessible name.)
    label.append(el('span', 'param-label', readable), ' ', el('code', 'param-code', p.name));
    // "?": the help text under the row, for mouse, touch and keyboard alike.
    row.help = el('p', 'param-help', helpText(p));
    row.help.id = `help-${p.name}`;
    row.help.hidden = !helpShown;
    // Not a <button>: the disabled fieldsets (a visitor, no connection)
    // would disable it, and help is for everyone. A span with the button
    // role, focusable, answering Enter and Space like a button.
    row.helpBtn = el('span', 'param-help-toggle', '?');
    row.helpBtn.setAttribute('role', 'button');
    row.helpBtn.tabIndex = 0;
    row.helpBtn.setAttribute('aria-label', `help for ${readable}`);
    row.helpBtn.setAttribute('aria-expanded', String(helpShown));
    row.helpBtn.setAttribute('aria-controls', row.help.id);
    row.helpBtn.addEventListener('click', () => showHelp(row, row.help.hidden));
    row.helpBtn.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' && ev.key !== ' ') return;
      // Space is the pause shortcut elsewhere: here it only presses this.
      ev.preventDefault();
      ev.stopPropagation();
      showHelp(row, row.help.hidden);
    });
    const head = el('div', 'param-head');
    head.append(label);

    if (isNumeric(p)) {
      const value = el('span', 'param-value');
      row.number = el('input', 'param-number');
      row.number.type = 'number';
      row.number.step = 'any';
      row.number.min = String(p.min);
      row.number.max = String(p.max);
      row.number.name = `${p.name}-value`;
      row.number.setAttribute('aria-label', `${readable} (${p.name}) value${p.unit ? ` in ${p.unit}` : ''}`);
      value.append(row.number);
      // Always there (maybe empty), so every numeric field lines up.
      value.append(el('span', 'param-unit', p.unit || ''));

      row.slider = el('input', 'param-slider');
      row.slider.type = 'range';
      row.slider.id = id;
      row.slider.name = p.name;
      const kind = sliderKind(p);
      if (kind === 'int') {
        row.slider.min = String(p.min);
        row.slider.max = String(p.max);
        row.slider.step = '1';
      } else {
        row.slider.min = '0';
        row.slider.max = String(SLIDER_STEPS);
        row.slider.step = '1';
        if (kind === 'log') row.el.classList.add('is-log');
      }
      row.slider.addEventListener('pointerdown', () => {
        row.dragging = true;
      });
      row.slider.addEventListener('input', () => sliderInput(row));
      // `change` is the release: the final value goes now. (It also comes
      // with every arrow key press; a held key stays throttled, the timer
      // sends its last value.)
      row.slider.addEventListener('change', () => {
        if (!row.dragging) return;
        flush(row);
        row.dragging = false;
        if (!busy(row)) show(row, valueOf(row));
      });
      // Released without a change: no `change` event; let go anyway.
      const release = () => {
        if (!row.dragging) return;
        flush(row);
        row.dragging = false;
        if (!busy(row)) show(row, valueOf(row));
      };
      row.slider.addEventListener('pointerup', (ev) => {
        release();
        if (ev.pointerType === 'mouse') row.slider.blur(); // give space back to pause
      });
      row.slider.addEventListener('pointercancel', release);
      row.slider.addEventListener('lostpointercapture', release);

      row.number.addEventListener('change', () => numberCommit(row));
      row.number.addEventListener('keydown', (ev) => {
        if (ev.key === 'Escape') {
          row.number.value = formatNumber(valueOf(row));
          row.number.blur();
        }
      });
      row.number.addEventListener('blur', () => {
        if (!busy(row)) row.number.value = formatNumber(valueOf(row));
      });
      // The label has the first line to itself (with "?"); the slider and
      // the number share the second.
      head.append(row.helpBtn);
      const control = el('div', 'param-control');
      control.append(row.slider, value);
      row.el.append(head, control, row.help);
    } else if (p.type === 'enum' && Array.isArray(p.values)) {
      row.select = el('select', 'param-select');
      row.select.id = id;
      row.select.name = p.name;
      for (const v of p.values) row.select.append(new Option(v, v));
      blurSelectAfterMouse(row.select);
      row.select.addEventListener('change', () => {
        row.lastSent = undefined;
        sendParam(row, row.select.value);
      });
      head.append(row.select, row.helpBtn);
      row.el.append(head, row.help);
    } else if (p.type === 'bool') {
      row.checkbox = el('input', 'param-check');
      row.checkbox.type = 'checkbox';
      row.checkbox.id = id;
      row.checkbox.name = p.name;
      row.checkbox.addEventListener('change', () => {
        row.lastSent = undefined;
        sendParam(row, row.checkbox.checked);
      });
      row.checkbox.addEventListener('click', (ev) => {
        if (ev.detail > 0) row.checkbox.blur();
      });
      head.prepend(row.checkbox);
      head.append(row.helpBtn);
      row.el.classList.add('is-bool');
      row.el.append(head, row.help);
    } else {
      // A type this client does not know: show it, read-only.
      row.text = el('span', 'param-text');
      head.append(row.text, row.helpBtn);
      row.el.append(head, row.help);
    }
    show(row, valueOf(row));
    lockRow(row);
    return row;
  }

  function openModelGroup() {
    const want = modelGroupKey(model);
    for (const [key, details] of groups) details.open = key === want;
    for (const [key, details] of groups) details.classList.toggle('is-model-group', key === want);
  }

  function setModelShown(m) {
    const changed = m !== model;
    model = m;
    if (modelPending === 0) modelSelect.value = m;
    if (changed) openModelGroup();
  }

  // ---- messages ----

  function setHello(hello) {
    for (const row of rows.values()) clearTimeout(row.timer);
    rows.clear();
    groups.clear();
    pending.clear();
    modelPending = 0;
    maxAgents = Number.isInteger(hello.limits?.max_agents) ? hello.limits.max_agents : null;
    maxAdd = Number.isInteger(hello.limits?.max_add_agents) ? hello.limits.max_add_agents : null;
    agentsInput.max = maxAgents === null ? '' : String(maxAgents);
    addInput.max = maxAdd === null ? '' : String(maxAdd);
    agentsEdited = false;
    const params = Array.isArray(hello.params) ? hello.params : [];

    modelParam = params.find((p) => p && p.name === 'model' && p.type === 'enum' && Array.isArray(p.values)) ?? null;
    modelSelect.replaceChildren();
    if (modelParam) {
      for (const v of modelParam.values) modelSelect.append(new Option(v, v));
      modelSelect.value = modelParam.value;
      modelTitle = tooltip(modelParam);
      model = modelParam.value;
    } else {
      model = null;
    }
    modelRow.hidden = !modelParam;
    describeLock(modelSelect, modelTitle);
    const speciesParam = params.find((p) => p && p.name === 'species');

    const sections = [];
    for (const g of groupParams(params)) {
      const details = el('details', 'param-group');
      details.dataset.group = g.key;
      const summary = el('summary', 'param-group-title', g.title);
      summary.append(el('span', 'param-group-count', String(g.params.length)));
      details.append(summary);
      for (const p of g.params) {
        const row = buildRow(p);
        rows.set(p.name, row);
        details.append(row.el);
      }
      groups.set(g.key, details);
      sections.push(details);
    }
    groupsBox.replaceChildren(...sections);
    openModelGroup();
    setSpeciesCount(speciesParam ? speciesParam.value : 1);
  }

  function onParam(msg) {
    const species = Number.isInteger(msg.species) ? msg.species : null;
    if (msg.name === 'model') {
      // Species 0's model is the world's (the selector shows that one).
      if (modelParam && (species === null || species === 0)) setModelShown(msg.value);
      return;
    }
    const row = rows.get(msg.name);
    if (!row) return;
    setValue(row, species, msg.value);
    // The server sends only the newest change of a parameter to a busy
    // client; species_values (with several species) is its whole state.
    if (Array.isArray(msg.species_values)) msg.species_values.forEach((v, k) => setValue(row, k, v));
    refreshRow(row);
    if (msg.name === 'species' && species === null) setSpeciesCount(msg.value);
  }

  // ack and error: the replies to what this panel sent.
  function onReply(msg) {
    if (msg.type === 'ack' && msg.cmd === 'set_model' && typeof msg.model === 'string') {
      // set_model's ack names the model (a `param` broadcast may not follow).
      if (pending.get(msg.id)?.kind === 'model') modelPending = Math.max(0, modelPending - 1);
      pending.delete(msg.id);
      setModelShown(msg.model);
      modelSelect.value = msg.model;
      return;
    }
    const what = pending.get(msg.id);
    if (!what) return;
    pending.delete(msg.id);
    if (what.kind === 'model') {
      modelPending = Math.max(0, modelPending - 1);
      if (modelPending === 0) modelSelect.value = model ?? ''; // refused: back
      return;
    }
    const row = what.row;
    row.pendingCount = Math.max(0, row.pendingCount - 1);
    if (msg.type === 'ack' && 'value' in msg) setValue(row, Number.isInteger(msg.species) ? msg.species : null, msg.value);
    if (row.pendingCount === 0) {
      row.lastSent = undefined;
      if (!row.dragging) refreshRow(row, true);
    }
  }

  // counts: agents per drawing class (render.js: 0–3 species, 4 leaders,
  // 5 predators). The legend lists the classes present.
  // counts: the agents drawn, per class; partial: the picture shows only
  // part of the world (zoomed in), so these are the ones in view.
  function setCounts(counts, partial = false) {
    const names = ['species 0', 'species 1', 'species 2', 'species 3', 'leaders', 'predators'];
    const entries = [];
    for (let c = 0; c < names.length; c++) if (counts[c] > 0) entries.push([c, counts[c]]);
    const key = `${partial}|` + entries.map((e) => e.join(':')).join(',');
    if (key === shownLegend) return;
    shownLegend = key;
    legend.hidden = entries.length === 0;
    const scope = partial ? [el('span', 'legend-scope', 'in view:')] : [];
    legend.replaceChildren(...scope, ...entries.map(([c, n]) => {
      const item = el('span', 'legend-item');
      // The swatch colours are classes in style.css (the CSP allows no
      // style attributes); they copy palette.js.
      const swatch = el('span', `swatch swatch-${c}`);
      item.append(swatch, el('span', null, `${names[c]} ${n.toLocaleString('en-US')}`));
      return item;
    }));
  }

  // ---- role ----

  // The titles of the action controls, without the lock.
  const actionTitles = new Map([pauseBtn, resetBtn, seedInput, agentsInput, addInput, addBtn].map((c) => [c, c.title]));

  // r: { role, controlToken, unlocked, visitorObstacles, auth } (role.js's
  // session). Shows the role; for a visitor, disables what needs the token.
  function setRole(r) {
    const message = authMessage(r.auth);
    const acceptsTokens = r.acceptsTokens ?? r.controlToken;
    const key = JSON.stringify([r.role, acceptsTokens, r.controlToken, r.unlocked, r.visitorObstacles, r.auth.state, message]);
    if (key === shownRole) return;
    shownRole = key;
    const formHadFocus = tokenForm.contains(document.activeElement);
    roleBox.dataset.role = r.role;
    roleName.textContent = describeRole(r.role, r.visitorObstacles);
    roleName.title = r.controlToken || r.role !== 'operator' || r.via
      ? ''
      : 'this server has no control token: every viewer may change everything';
    const wasLocked = locked;
    locked = r.role === 'visitor';
    roleNote.hidden = !locked;
    // A room's visitor may hold the room's token even on a server without
    // a control token.
    tokenForm.hidden = !(locked && acceptsTokens);
    lockBtn.hidden = !r.unlocked;
    presentBtn.hidden = r.role !== 'operator';
    tokenMessage.textContent = message;
    tokenMessage.hidden = message === '';
    tokenMessage.classList.toggle('is-error', ['refused', 'limited', 'failed'].includes(r.auth.state));
    if (!locked) tokenInput.value = ''; // accepted: the page keeps no copy in the DOM
    if (locked !== wasLocked) {
      operatorTop.disabled = locked;
      operatorParams.disabled = locked;
      for (const [c, t] of actionTitles) describeLock(c, t);
      // Step has two reasons to be disabled: the role, and a running world.
      stepBtn.setAttribute('aria-describedby', locked ? `${stepNote.id} ${roleNote.id}` : stepNote.id);
      describeLock(modelSelect, modelTitle);
      for (const row of rows.values()) lockRow(row);
    }
    // Where the focus goes when the form it was in goes away: after an
    // unlock with the keyboard, to the first control it opened (pause);
    // with the mouse, back to the page, so space is the pause shortcut (not
    // Lock). After a refusal it stays in the field, ready to be typed over.
    if (formHadFocus && !locked) {
      if (formByMouse) document.activeElement?.blur?.();
      else pauseBtn.focus({ preventScroll: true });
    } else if (formHadFocus && r.auth.state === 'refused') {
      tokenInput.focus({ preventScroll: true });
      tokenInput.select();
    }
  }

  // Per frame: the pause button's label, step (only while paused), the
  // reset's agent count (the world's, unless typed over), and the
  // controls' enabled state.
  function update({ connected, paused: p, agents }) {
    paused = p ?? null;
    const label = paused ? 'resume' : 'pause';
    if (label !== shownPaused) {
      shownPaused = label;
      pauseBtn.textContent = label;
      pauseBtn.classList.toggle('is-paused', paused === true);
      stepBtn.disabled = paused !== true;
      const why = paused === true ? STEP_TITLE : STEP_NEEDS_PAUSE;
      stepBtn.title = why;
      stepNote.textContent = paused === true ? '' : why;
    }
    if (Number.isInteger(agents) && agents !== agentCount) {
      agentCount = agents;
      if (!agentsEdited && document.activeElement !== agentsInput) agentsInput.value = String(agents);
    }
    if (connected !== shownEnabled) {
      shownEnabled = connected;
      fieldset.disabled = !connected;
      root.classList.toggle('is-offline', !connected);
    }
  }

  return {
    setHello,
    setRole,
    onParam,
    onReply,
    setCounts,
    update,
    isOpen: () => open,
    // Where plots.js and capture.js put their contents.
    metricsSlot: metricsSlot.content,
    captureSlot: captureSlot.content,
    peopleSlot: peopleSlot.content,
    roomSlot,
    setOpen: (v) => setOpen(v, true),
    // The presenter's screen and an embed hide the panel and its toggle
    // without forgetting whether it was open (nothing is remembered).
    setAway(v) {
      away = v;
      setOpen(open, false);
    },
    // An operator's way to the presenter's screen (presenter.js).
    onPresent(fn) {
      presentFn = fn;
    },
  };
}
