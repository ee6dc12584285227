// Mouse and keyboard → commands.
//
//   left click / drag     set my target            right click   add an obstacle
//   right click on one    remove that obstacle     space         pause / resume
//   c                     clear my target          a             100 agents at the mouse
//
// This module only decides *what* to send; commands.js shapes the JSON and
// the connection numbers and sends it.

import * as cmd from './commands.js';
import { screenToWorld } from './viewport.js';

// An obstacle counts as under the mouse this many CSS pixels past its edge,
// so small ones are easy to hit.
const HIT_SLACK_PX = 4;
// While dragging, the target follows the mouse at most this often: one per
// snapshot is all anyone can see, and it keeps us far from `rate_limited`.
const DRAG_INTERVAL_MS = 33;

// deps: {
//   canvas, keyTarget (window),
//   getView()      → the renderer's current mapping (viewport.js),
//   getWorld()     → { width, height } or null before the first hello,
//   getSnapshot()  → the newest snapshot or null,
//   send(command), onHover(obstacleId | null), now() → ms }
export function attachInput(deps) {
  const { canvas, keyTarget, getView, getWorld, getSnapshot, send, onHover } = deps;
  const now = deps.now ?? (() => performance.now());
  let pointer = null; // last pointer position over the canvas, CSS px; null when outside
  let lastDragSend = -Infinity;
  let hoverId = null;

  function worldAt(p) {
    return screenToWorld(getView(), p.sx, p.sy);
  }

  function pointerPos(ev) {
    const r = canvas.getBoundingClientRect();
    return { sx: ev.clientX - r.left, sy: ev.clientY - r.top };
  }

  function obstacleUnder(p) {
    const snap = getSnapshot();
    if (!snap || !p) return null;
    const w = worldAt(p);
    return cmd.obstacleAt(snap.obstacles, w.x, w.y, HIT_SLACK_PX / getView().scale);
  }

  function updateHover() {
    const o = obstacleUnder(pointer);
    const id = o ? o.id : null;
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

  canvas.addEventListener('pointermove', (ev) => {
    pointer = pointerPos(ev);
    updateHover();
    if ((ev.buttons & 1) && now() - lastDragSend >= DRAG_INTERVAL_MS) {
      lastDragSend = now();
      sendTarget(pointer);
    }
  });

  canvas.addEventListener('pointerleave', () => {
    pointer = null;
    updateHover();
  });

  canvas.addEventListener('click', (ev) => {
    if (ev.button !== 0) return;
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
    const hit = obstacleUnder(pointer);
    if (hit) {
      send(cmd.removeObstacle(hit.id));
    } else {
      const w = worldAt(pointer);
      send(cmd.addObstacle(world, w.x, w.y));
    }
  });

  keyTarget.addEventListener('keydown', (ev) => {
    // Leave browser shortcuts (ctrl+c, cmd+a, …) alone.
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const world = getWorld();
    if (!world) return;
    if (ev.code === 'Space' || ev.key === ' ') {
      ev.preventDefault(); // no page scroll
      const snap = getSnapshot();
      // Holding space must not flicker between pause and resume.
      if (!ev.repeat && snap) send(cmd.togglePause(snap.paused));
    } else if (ev.key === 'c' || ev.key === 'C') {
      if (!ev.repeat) send(cmd.clearTarget());
    } else if (ev.key === 'a' || ev.key === 'A') {
      // Holding 'a' keeps adding: handy for load tests, and each command is
      // one message, far below the rate limit at key-repeat speed.
      // Over the letterbox the point is clamped onto the world's edge (by
      // commands.js); with the mouse off the canvas the server scatters them.
      send(cmd.addAgents(world, cmd.ADD_AGENTS_COUNT, pointer ? worldAt(pointer) : null));
    }
  });

  return {
    // Called after every new snapshot: obstacles come and go under a still mouse.
    refreshHover: updateHover,
  };
}
