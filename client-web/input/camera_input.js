// Pan and zoom: the camera's controls.
//
//   wheel                  zoom about the cursor
//   middle-button drag     pan (and left drag while the pan mode is on)
//   two fingers            pinch to zoom, move to pan
//   + / −, arrow keys      zoom about the centre, pan
//   f                      fit the world
//
// Left clicks stay the tools' (input.js). These listeners run in the capture
// phase and swallow the events of a pan or a pinch, so input.js never sees
// a pan as a click or a target drag.

import { ZOOM_STEP, PAN_STEP } from '../view/camera.js';
import { isFormControl } from './input.js';

// Pixels of wheel delta per zoom step (a mouse notch is ~100 px of deltaY).
const WHEEL_PX_PER_STEP = 100;

// deps: { canvas, keyTarget (window), camera, onChange(), panMode() → bool,
//         onKey(ev) → true when it handled a key of its own (optional) }
export function attachCameraInput(deps) {
  const { canvas, keyTarget, camera } = deps;
  const onChange = deps.onChange ?? (() => {});
  const panMode = deps.panMode ?? (() => false);
  // Pointers down on the canvas: id → { sx, sy } (CSS px, canvas-relative).
  const pointers = new Map();
  let panPointer = null; // the id of the pointer dragging the picture
  let pinch = null; // { dist, mid } while two touches are down

  function pos(ev) {
    const r = canvas.getBoundingClientRect();
    return { sx: ev.clientX - r.left, sy: ev.clientY - r.top };
  }

  function swallow(ev) {
    ev.stopImmediatePropagation();
    ev.preventDefault();
  }

  function twoTouches() {
    const [a, b] = [...pointers.values()];
    return { dist: Math.hypot(a.sx - b.sx, a.sy - b.sy), mid: { sx: (a.sx + b.sx) / 2, sy: (a.sy + b.sy) / 2 } };
  }

  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault(); // no page scroll or browser zoom
    const lines = ev.deltaMode === 1 ? 40 : ev.deltaMode === 2 ? 800 : 1;
    const steps = (-ev.deltaY * lines) / WHEEL_PX_PER_STEP;
    const p = pos(ev);
    camera.zoomAt(p.sx, p.sy, ZOOM_STEP ** Math.max(-4, Math.min(4, steps)));
    onChange();
  }, { passive: false });

  canvas.addEventListener('pointerdown', (ev) => {
    const p = pos(ev);
    if (ev.pointerType === 'touch') {
      pointers.set(ev.pointerId, p);
      if (pointers.size === 2) {
        pinch = twoTouches();
        swallow(ev);
      }
      return;
    }
    if (ev.button === 1 || (ev.button === 0 && panMode())) {
      panPointer = ev.pointerId;
      pointers.set(ev.pointerId, p);
      try {
        canvas.setPointerCapture(ev.pointerId);
      } catch {
        // Synthetic pointers cannot be captured; panning still works on the canvas.
      }
      canvas.classList.add('is-panning');
      swallow(ev);
    }
  }, { capture: true });

  canvas.addEventListener('pointermove', (ev) => {
    if (!pointers.has(ev.pointerId)) return;
    const p = pos(ev);
    const last = pointers.get(ev.pointerId);
    pointers.set(ev.pointerId, p);
    if (pinch && pointers.size >= 2) {
      const now = twoTouches();
      // Pan first (the world point between the fingers follows them), then
      // zoom about where they are now (it stays there).
      camera.panBy(now.mid.sx - pinch.mid.sx, now.mid.sy - pinch.mid.sy);
      if (pinch.dist > 0 && now.dist > 0) camera.zoomAt(now.mid.sx, now.mid.sy, now.dist / pinch.dist);
      pinch = now;
      onChange();
      swallow(ev);
    } else if (ev.pointerId === panPointer) {
      camera.panBy(p.sx - last.sx, p.sy - last.sy);
      onChange();
      swallow(ev);
    }
  }, { capture: true });

  function release(ev) {
    if (!pointers.has(ev.pointerId)) return;
    pointers.delete(ev.pointerId);
    const wasGesture = ev.pointerId === panPointer || pinch !== null;
    if (ev.pointerId === panPointer) {
      panPointer = null;
      canvas.classList.remove('is-panning');
    }
    if (pointers.size < 2) pinch = null;
    if (wasGesture) swallow(ev);
  }
  canvas.addEventListener('pointerup', release, { capture: true });
  canvas.addEventListener('pointercancel', release, { capture: true });
  // The click that ends a pan in pan mode is not a target.
  canvas.addEventListener('click', (ev) => {
    if (panMode()) swallow(ev);
  }, { capture: true });
  // A middle click would start the browser's autoscroll.
  canvas.addEventListener('mousedown', (ev) => {
    if (ev.button === 1) ev.preventDefault();
  });

  keyTarget.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || isFormControl(ev.target)) return;
    const cx = camera.cssW / 2;
    const cy = camera.cssH / 2;
    const step = PAN_STEP * Math.min(camera.cssW, camera.cssH);
    switch (ev.key) {
      case '+':
      case '=':
        camera.zoomAt(cx, cy, ZOOM_STEP);
        break;
      case '-':
      case '_':
        camera.zoomAt(cx, cy, 1 / ZOOM_STEP);
        break;
      case 'ArrowLeft':
        camera.panBy(step, 0);
        break;
      case 'ArrowRight':
        camera.panBy(-step, 0);
        break;
      case 'ArrowUp':
        camera.panBy(0, step);
        break;
      case 'ArrowDown':
        camera.panBy(0, -step);
        break;
      case 'f':
      case 'F':
        camera.fit();
        break;
      default:
        if (deps.onKey?.(ev)) break;
        return;
    }
    ev.preventDefault();
    onChange();
  });
}

// The viewer's own controls (draw/viewer.js): its camera, the pan mode a
// tool may set, and key T for the trails. Attached right after the viewer
// is made, before the tools' listeners, so a pan or a pinch is swallowed
// before they see it.
export function attachViewerInput({ viewer, canvas, keyTarget }) {
  return attachCameraInput({
    canvas,
    keyTarget,
    camera: viewer.camera,
    panMode: () => viewer.options.panMode,
    onKey(ev) {
      if (ev.repeat) return false;
      // (Key 4, the perception radii, belongs to the model keys: they set
      // viewer.options.radii.)
      if (ev.key !== 't' && ev.key !== 'T') return false;
      viewer.toggleTrails();
      return true;
    },
  });
}
