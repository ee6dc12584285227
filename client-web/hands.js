// Many hands and the model made visible, wired together: presence (names,
// who is here, cursors, the feed), the tool switch with the inspect
// overlay, and keys 1–5. main.js creates it once and calls it from four
// places (hello, messages, pointer moves, the frame's overlay), so that
// this feature lives in its own files.
//
// The overlay draws on a 2D context in CSS pixels with a world → screen
// mapping: drawOverlay(ctx, toScreen, scale). With an overlay canvas
// (render layer's overlays.add(fn), fn(ctx, camera, state)) it plugs in as
//   overlays.add((ctx, camera) => hands.drawOverlay(ctx, camera.worldToScreen, camera.scale))
// where worldToScreen(x, y) returns [sx, sy] (or {x, y}: both are taken).

import { createPresence } from './presence.js';
import { createTools } from './tools.js';
import { attachModelKeys } from './model_keys.js';
import { drawPerceptionField } from './perception.js';

// deps: { root, canvas, keyTarget, storage, send(command), getWorld(),
//         getSnapshot(), getParams(), toWorld(ev) → {x, y} | null,
//         mayOperate(), onNotAllowed(text), onChange(), hooks (the test hooks
//         object: gains presence, tools, showRadii) }
export function createHands(deps) {
  const { root, canvas, keyTarget, send, getWorld, getSnapshot, getParams, toWorld, hooks } = deps;
  const onChange = deps.onChange ?? (() => {});
  const presence = createPresence({ root, send, storage: deps.storage, onChange });
  const tools = createTools({
    root,
    canvas,
    keyTarget,
    toWorld,
    getWorld,
    getSnapshot,
    send,
    mayOperate: deps.mayOperate,
    onNotAllowed: deps.onNotAllowed,
    onChange,
  });
  const keys = attachModelKeys({
    keyTarget,
    getParams,
    send,
    mayOperate: deps.mayOperate,
    onNotAllowed: deps.onNotAllowed,
    onToggleRadii(on) {
      if (hooks) hooks.showRadii = on;
      onChange();
    },
  });
  if (hooks) {
    hooks.presence = presence.state; // { myId, name, color, members, count, cursors (Map), activity }
    hooks.tools = tools.state; // { tool, inspection, selecting }
    hooks.showRadii = false;
    hooks.lastSnapshot = getSnapshot; // the newest decoded snapshot (tests pick agents from it)
  }

  canvas.addEventListener('pointermove', (ev) => {
    const p = toWorld(ev);
    if (p) presence.cursorMoved(p.x, p.y, getWorld());
  });

  function onHello(hello) {
    presence.onHello(hello);
    tools.onHello(hello);
  }

  // True when the message was ours.
  function onMessage(msg) {
    return presence.onMessage(msg) || tools.onMessage(msg);
  }

  function drawOverlay(ctx, worldToScreen, scale) {
    const toScreen = (x, y) => {
      const p = worldToScreen(x, y);
      return Array.isArray(p) ? p : [p.x, p.y];
    };
    if (keys.radii) drawPerceptionField(ctx, toScreen, scale, getSnapshot(), getParams());
    tools.draw(ctx, toScreen, scale);
    presence.draw(ctx, toScreen, scale);
  }

  return { presence, tools, keys, onHello, onMessage, drawOverlay };
}
