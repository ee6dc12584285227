// The hint line at the bottom of the page: what the pointer and the keys
// do, for this page's role and for the way it is used (a mouse and keys, or
// a touch screen). Which one is decided by the device (a coarse primary
// pointer) and then by what the user actually touches with: a laptop with a
// touch screen shows the touch hint after a tap, the mouse hint after a
// click.

// input: 'mouse' | 'touch'
export function hintText(role, input = 'mouse') {
  const visitor = role === 'visitor';
  if (input === 'touch') {
    return visitor
      ? 'tap: set your target · long press: add / remove your obstacle · pinch: zoom'
      : 'tap: set your target · long press: add / remove an obstacle · pinch: zoom';
  }
  if (visitor) {
    // Without pause and agents: a visitor's keys for those only explain
    // that they need the operator token.
    return 'click: target · drag your obstacle: move · right click: add / remove your obstacle · ' +
      'shift+right click: moving one · c: clear target';
  }
  return 'click: target · drag obstacle: move · right click: add / remove obstacle · shift+right click: moving one · ' +
    'space: pause · c: clear target · a: +100 agents';
}

// The input kind at start: touch when the primary pointer is coarse.
export function initialInput(win = globalThis) {
  try {
    return win.matchMedia?.('(pointer: coarse)').matches ? 'touch' : 'mouse';
  } catch {
    return 'mouse';
  }
}

// Calls onChange(kind) when the user switches between touch and mouse (pen
// counts as touch: no right button, no hover).
export function watchInput(target, onChange) {
  let kind = null;
  target.addEventListener('pointerdown', (ev) => {
    const k = ev.pointerType === 'mouse' ? 'mouse' : 'touch';
    if (k !== kind) {
      kind = k;
      onChange(k);
    }
  }, { capture: true, passive: true });
}

// Shows the hint for this role and input in `el` (the #hint line), left
// alone when it already says so.
export function showHint(el, role, input) {
  const h = hintText(role, input);
  if (el.textContent !== h) el.textContent = h;
  el.dataset.input = input;
}
