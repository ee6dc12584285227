// Mouse and keyboard → commands.
//
//   left click / drag     set my target            right click   add an obstacle
//   drag an obstacle      move it                  right click on one   remove it
//   shift + right click   add a moving obstacle    space         pause / resume
//   c                     clear my target          a             100 agents at the mouse
//
// Keys do nothing while a form control (the control panel's inputs) has the
// focus: typing a number must not pause the world or add agents.
//
// A visitor (role.js) may not pause or add agents, and may move or remove
// only its own obstacles: for those the page sends nothing and says why
// (onNotAllowed); others' obstacles are neither outlined nor draggable.
//
// This module only decides *what* to send; commands.js shapes the JSON and
// the connection numbers and sends it.

import * as cmd from '../net/commands.js';
import { screenToWorld } from '../view/viewport.js';
import { NEEDS_TOKEN } from '../net/role.js';

// An obstacle counts as under the mouse this many CSS pixels past its edge,
// so small ones are easy to hit.
const HIT_SLACK_PX = 4;
// While dragging, the target follows the mouse at most this often: one per
// snapshot is all anyone can see, and it keeps us far from `rate_limited`.
const DRAG_INTERVAL_MS = 33;
// A dragged obstacle follows the mouse at most this often (~20/s).
const OBSTACLE_DRAG_INTERVAL_MS = 50;
// A press on an obstacle becomes a drag once the mouse has moved this far
// (CSS px); released before that, it is an ordinary click (sets the target).
const DRAG_THRESHOLD_PX = 3;
// Holding 'a' adds agents at most this often: an add_agents of 100 costs 17
// of the server's rate tokens, which refill at 80 per second (PROTOCOL.md,
// "Rate limits"); key repeat (~30/s) would soon be refused, and persistent
// refusals close the connection.
export const ADD_AGENTS_INTERVAL_MS = 250;

// True when a key pressed in `target` is typing, not a shortcut.
export function isFormControl(target) {
  if (!target || typeof target !== 'object') return false;
  if (target.isContentEditable) return true;
  const tag = typeof target.tagName === 'string' ? target.tagName.toUpperCase() : '';
  return tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'BUTTON';
}

// deps: {
//   canvas, keyTarget (window),
//   getView()      → the renderer's current mapping (viewport.js),
//   getWorld()     → { width, height } or null before the first hello,
//   getSnapshot()  → the newest snapshot or null,
//   send(command), onHover(obstacleId | null), now() → ms, random() → [0, 1),
//   mayOperate()            → false for a visitor (no pause, no agents),
//   mayTouchObstacle(id)    → false for an obstacle this page may not move or remove,
//   onNotAllowed(text)      → tell the user why nothing was sent }
export function attachInput(deps) {
  const { canvas, keyTarget, getView, getWorld, getSnapshot, send, onHover } = deps;
  const now = deps.now ?? (() => performance.now());
  const random = deps.random ?? Math.random;
  const mayOperate = deps.mayOperate ?? (() => true);
  const mayTouchObstacle = deps.mayTouchObstacle ?? (() => true);
  const onNotAllowed = deps.onNotAllowed ?? (() => {});
  let lastAddAgents = -Infinity;
  let pointer = null; // last pointer position over the canvas, CSS px; null when outside
  let lastDragSend = -Infinity;
  let hoverId = null;
  // A left press on an obstacle: { id, pointerId, start: {sx, sy}, dx, dy
  // (obstacle centre − pointer, world units), active (moved past the
  // threshold), lastSend, pendingAt (world point not yet sent) }.
  let drag = null;
  let suppressClick = false; // the click that ends an obstacle drag is not a target

  function worldAt(p) {
    return screenToWorld(getView(), p.sx, p.sy);
  }

  function pointerPos(ev) {
    const r = canvas.getBoundingClientRect();
    return { sx: ev.clientX - r.left, sy: ev.clientY - r.top };
  }

  // The obstacle under a pointer position; with `touchable`, only among
  // those this page may move or remove.
  function obstacleUnder(p, touchable = true) {
    const snap = getSnapshot();
    if (!snap || !p) return null;
    const w = worldAt(p);
    const obstacles = touchable ? snap.obstacles.filter((o) => mayTouchObstacle(o.id)) : snap.obstacles;
    return cmd.obstacleAt(obstacles, w.x, w.y, HIT_SLACK_PX / getView().scale);
  }

  function updateHover() {
    // While dragging, the dragged obstacle stays "hovered" (outlined) even
    // when the snapshot lags behind the mouse.
    const o = drag?.active ? { id: drag.id } : obstacleUnder(pointer);
    const id = o ? o.id : null;
    canvas.classList.toggle('is-over-obstacle', id !== null);
    if (id !== hoverId) {
      hoverId = id;
      onHover(id);
    }
  }

  function sendTarget(p) {
    const world = getWorld();
    if (!world) return;
    const w = worldAt(p);
    send(cmd.setTarget(world, w.x, w.y));
  }

  function obstacleExists(id) {
    const snap = getSnapshot();
    return !!snap && snap.obstacles.some((o) => o.id === id);
  }

  // Sends the dragged obstacle's new centre now, or remembers it for later
  // when the last one went out less than OBSTACLE_DRAG_INTERVAL_MS ago.
  function dragTo(p, force) {
    const world = getWorld();
    if (!world || !drag) return;
    const w = worldAt(p);
    drag.pendingAt = { x: w.x + drag.dx, y: w.y + drag.dy };
    if (force || now() - drag.lastSend >= OBSTACLE_DRAG_INTERVAL_MS) {
      drag.lastSend = now();
      send(cmd.moveObstacle(world, drag.id, drag.pendingAt.x, drag.pendingAt.y));
      drag.pendingAt = null;
    }
  }

  function endDrag(ev, cancelled) {
    if (!drag) return;
    const d = drag;
    if (d.active) {
      if (!cancelled && ev && obstacleExists(d.id)) dragTo(pointerPos(ev), true);
      suppressClick = true;
    }
    drag = null;
    canvas.classList.remove('is-dragging');
    try {
      if (canvas.hasPointerCapture?.(d.pointerId)) canvas.releasePointerCapture(d.pointerId);
    } catch {
      // The capture is already gone (the pointer left the page): nothing to do.
    }
    updateHover();
  }

  canvas.addEventListener('pointerdown', (ev) => {
    suppressClick = false;
    if (ev.button !== 0 || ev.shiftKey) return;
    const p = pointerPos(ev);
    const hit = obstacleUnder(p);
    if (!hit) return;
    const w = worldAt(p);
    drag = {
      id: hit.id,
      pointerId: ev.pointerId,
      start: p,
      dx: hit.x - w.x,
      dy: hit.y - w.y,
      active: false,
      lastSend: -Infinity,
      pendingAt: null,
    };
    try {
      // Keep receiving the moves when the mouse runs ahead of the obstacle
      // and off the canvas.
      canvas.setPointerCapture(ev.pointerId);
    } catch {
      // Synthetic or already-released pointers cannot be captured; the drag
      // still works while the mouse stays over the canvas.
    }
  });

  canvas.addEventListener('pointermove', (ev) => {
    pointer = pointerPos(ev);
    if (drag && ev.pointerId === drag.pointerId) {
      if (!(ev.buttons & 1)) {
        endDrag(ev, false); // the release happened where we could not see it
      } else {
        if (!drag.active &&
            Math.hypot(pointer.sx - drag.start.sx, pointer.sy - drag.start.sy) >= DRAG_THRESHOLD_PX) {
          drag.active = true;
          canvas.classList.add('is-dragging');
        }
        if (drag.active) {
          if (obstacleExists(drag.id)) dragTo(pointer, false);
          else endDrag(ev, true); // someone removed it
        }
        updateHover();
        return;
      }
    }
    updateHover();
    if ((ev.buttons & 1) && now() - lastDragSend >= DRAG_INTERVAL_MS) {
      lastDragSend = now();
      sendTarget(pointer);
    }
  });

  canvas.addEventListener('pointerup', (ev) => {
    if (drag && ev.pointerId === drag.pointerId) endDrag(ev, false);
  });
  canvas.addEventListener('pointercancel', (ev) => {
    if (drag && ev.pointerId === drag.pointerId) endDrag(ev, true);
  });

  canvas.addEventListener('pointerleave', () => {
    if (drag?.active) return; // captured: the moves keep coming
    pointer = null;
    updateHover();
  });

  canvas.addEventListener('click', (ev) => {
    if (ev.button !== 0) return;
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    pointer = pointerPos(ev);
    sendTarget(pointer);
  });

  // The context menu event is the right click (and a long press on touch
  // screens): it is where to act, and where to stop the browser's menu.
  canvas.addEventListener('contextmenu', (ev) => {
    ev.preventDefault();
    const world = getWorld();
    if (!world) return;
    pointer = pointerPos(ev);
    const w = worldAt(pointer);
    if (ev.shiftKey) {
      // Always adds, even over another obstacle: a moving one passes through.
      send(cmd.addObstacle(world, w.x, w.y, cmd.OBSTACLE_RADIUS, cmd.randomVelocity(cmd.MOVING_OBSTACLE_SPEED, random)));
      return;
    }
    const hit = obstacleUnder(pointer, false);
    if (hit && !mayTouchObstacle(hit.id)) {
      onNotAllowed('that obstacle is someone else\'s: a visitor moves and removes only its own');
    } else if (hit) {
      send(cmd.removeObstacle(hit.id));
    } else {
      send(cmd.addObstacle(world, w.x, w.y));
    }
  });

  keyTarget.addEventListener('keydown', (ev) => {
    // Leave browser shortcuts (ctrl+c, cmd+a, …) alone.
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    // Typing in the control panel (a number, a seed) or working its
    // controls with the keyboard (space on a checkbox) is not a shortcut.
    if (isFormControl(ev.target)) return;
    const world = getWorld();
    if (!world) return;
    if (ev.code === 'Space' || ev.key === ' ') {
      ev.preventDefault(); // no page scroll
      const snap = getSnapshot();
      // Holding space must not flicker between pause and resume.
      if (ev.repeat || !snap) return;
      if (!mayOperate()) onNotAllowed(`pause / resume ${NEEDS_TOKEN}`);
      else send(cmd.togglePause(snap.paused));
    } else if (ev.key === 'c' || ev.key === 'C') {
      if (!ev.repeat) send(cmd.clearTarget());
    } else if (ev.key === 'a' || ev.key === 'A') {
      if (!mayOperate()) {
        if (!ev.repeat) onNotAllowed(`adding agents ${NEEDS_TOKEN}`);
        return;
      }
      // Holding 'a' keeps adding (handy for load tests), paced to stay
      // within the server's rate limit.
      if (now() - lastAddAgents < ADD_AGENTS_INTERVAL_MS) return;
      lastAddAgents = now();
      // Over the letterbox the point is clamped onto the world's edge (by
      // commands.js); with the mouse off the canvas the server scatters them.
      send(cmd.addAgents(world, cmd.ADD_AGENTS_COUNT, pointer ? worldAt(pointer) : null));
    }
  });

  return {
    // Called after every new snapshot (obstacles come and go under a still
    // mouse) and when what this page may touch changes.
    refreshHover: updateHover,
    // The server refused a move of the dragged obstacle: stop dragging it.
    cancelDrag() {
      if (drag) endDrag(null, true);
    },
  };
}
