// The minimap: the whole world in a corner, with the agents as a faint
// density, the obstacles, and the camera's viewport as a rectangle. A click
// or a drag on it moves the camera there.
//
// Redrawn when the camera moves, and at most REFRESH_MS apart for the agents
// (a thumbnail does not need the display's rate).

import { COLORS, SPECIES_COLORS } from './palette.js';

const SIZE_PX = 160; // the longer side, CSS px
const REFRESH_MS = 250;
const MAX_DOTS = 4000; // agents plotted: a sample is enough at this size

// deps: { canvas (the minimap's), under (the world's canvas), camera, onChange() }
export function createMinimap({ canvas, under, camera, onChange }, win = globalThis) {
  const ctx = canvas.getContext('2d');
  let drawnAt = -Infinity;
  let drawnVersion = -1;
  let w = 0;
  let h = 0;
  let dragging = false;

  function layout() {
    const ww = camera.worldW;
    const wh = camera.worldH;
    // style.css may make it smaller (--minimap-size: a phone).
    const size = parseFloat(win.getComputedStyle?.(canvas).getPropertyValue('--minimap-size')) || SIZE_PX;
    const s = size / Math.max(ww, wh);
    const nw = Math.max(20, Math.round(ww * s));
    const nh = Math.max(20, Math.round(wh * s));
    const dpr = win.devicePixelRatio || 1;
    if (nw !== w || nh !== h || canvas.width !== Math.round(nw * dpr)) {
      w = nw;
      h = nh;
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    // Bottom right of the world's canvas, above the hint line (style.css
    // says how far up: --minimap-bottom, more on a phone, where the hint
    // and the sheet's handle take the bottom edge).
    const gap = parseFloat(win.getComputedStyle?.(canvas).getPropertyValue('--minimap-bottom')) || 40;
    canvas.style.left = `${under.clientWidth - w - 12}px`;
    canvas.style.top = `${under.clientHeight - h - gap}px`;
    ctx.setTransform(canvas.width / w, 0, 0, canvas.height / h, 0, 0);
    return w / ww;
  }

  function jump(ev) {
    const r = canvas.getBoundingClientRect();
    const s = w / camera.worldW;
    camera.centreOn((ev.clientX - r.left) / s, (ev.clientY - r.top) / s);
    onChange();
  }
  canvas.addEventListener('pointerdown', (ev) => {
    dragging = true;
    try {
      canvas.setPointerCapture(ev.pointerId);
    } catch {
      // Synthetic pointer: the drag works while it stays on the minimap.
    }
    jump(ev);
    ev.preventDefault();
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (dragging) jump(ev);
  });
  const stop = () => {
    dragging = false;
  };
  canvas.addEventListener('pointerup', stop);
  canvas.addEventListener('pointercancel', stop);
  canvas.addEventListener('wheel', (ev) => ev.preventDefault(), { passive: false });

  // frame: frames.js's newest frame; agents: what the world canvas shows.
  function draw(frame, agents, now) {
    if (!frame) return;
    if (camera.version === drawnVersion && now - drawnAt < REFRESH_MS) return;
    drawnVersion = camera.version;
    drawnAt = now;
    const s = layout();
    ctx.fillStyle = COLORS.world;
    ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = COLORS.obstacle;
    for (const o of frame.obstacles) {
      ctx.beginPath();
      ctx.arc(o.x * s, o.y * s, Math.max(1, o.radius * s), 0, 2 * Math.PI);
      ctx.fill();
    }
    if (frame.mode === 'lod' && frame.lod && frame.rect) {
      const { lod, rect } = frame;
      const cw = (rect.w / lod.cols) * s;
      const ch = (rect.h / lod.rows) * s;
      ctx.fillStyle = SPECIES_COLORS[0];
      for (let i = 0; i < lod.cols * lod.rows; i++) {
        const d = lod.d[i];
        if (d === 0) continue;
        ctx.globalAlpha = Math.min(0.9, 0.15 + d / 40);
        ctx.fillRect(rect.x * s + (i % lod.cols) * cw, rect.y * s + Math.floor(i / lod.cols) * ch, cw, ch);
      }
      ctx.globalAlpha = 1;
    } else if (agents && agents.count > 0) {
      ctx.fillStyle = 'rgba(86, 180, 233, 0.55)';
      const stride = Math.max(1, Math.floor(agents.count / MAX_DOTS));
      for (let i = 0; i < agents.count; i += stride) ctx.fillRect(agents.x[i] * s, agents.y[i] * s, 1, 1);
    }
    const v = camera.visibleRect();
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(v.x * s + 0.75, v.y * s + 0.75, Math.max(2, v.w * s - 1.5), Math.max(2, v.h * s - 1.5));
    ctx.strokeStyle = COLORS.worldEdge;
    ctx.lineWidth = 1;
    ctx.strokeRect(0.5, 0.5, w - 1, h - 1);
  }

  return { draw };
}
