// Many hands and the model made visible, wired together: presence (names,
// who is here, cursors, the feed), the tool switch with the inspect
// overlay, and keys 1–5. main.js creates it once and calls it from three
// places (hello, messages, the viewer's overlay), so that this feature
// lives in its own files.
//
// Its marks (everyone's named target, cursors, the inspected agent) are
// drawn on the viewer's overlay: viewer.overlays.add(hands.drawOverlay),
// i.e. drawOverlay(ctx, camera, state) in CSS pixels; the viewer's own
// plain targets are removed (viewer.removeDefaultTargets()) by main.js.

import { createPresence } from './presence.js';
import { createTools } from '../input/tools.js';
import { attachModelKeys } from '../input/model_keys.js';
import { drawTargets } from '../draw/scene_marks.js';

// deps: { root (the tool switch's place), presenceRoot (who is here: the
//         panel's People section; root when absent), canvas, keyTarget, storage, send(command), getWorld(),
//         getSnapshot(), getParams(), toWorld(ev) → {x, y} | null,
//         mayOperate(), onNotAllowed(text), onChange(), hooks (the test hooks
//         object: gains presence, tools, showRadii) }
export function createHands(deps) {
  const { root, canvas, keyTarget, send, getWorld, getSnapshot, getParams, toWorld, hooks } = deps;
  const onChange = deps.onChange ?? (() => {});
  const presence = createPresence({ root: deps.presenceRoot ?? root, send, storage: deps.storage, onChange });
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
      deps.onToggleRadii?.(on); // the viewer draws them (viewer.options.radii)
      onChange();
    },
  });
  if (hooks) {
    hooks.presence = presence.state; // { myId, name, color, members, count, cursors (Map), activity }
    hooks.tools = tools.state; // { tool, inspection, selecting }
    hooks.showRadii = false;
    hooks.lastSnapshot = getSnapshot; // the newest frame (frames.js: count, x, y, heading, …; tests pick agents from it)
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

  // The viewer's overlay (overlay.js): fn(ctx, camera, state).
  function drawOverlay(ctx, camera, state) {
    if (!state.world) return;
    const toScreen = (x, y) => {
      const p = camera.worldToScreen(x, y);
      return [p.x, p.y];
    };
    drawTargets(ctx, camera, state, presence.look);
    tools.draw(ctx, toScreen, camera.scale);
    presence.draw(ctx, toScreen, camera.scale, state.markScale ?? 1);
  }

  return { presence, tools, keys, onHello, onMessage, drawOverlay };
}
