// A 2-D canvas above the world's canvas, for marks drawn in screen space:
// targets, cursors, names, the inspected agent, perception radii.
//
//   overlays.add(fn)        fn(ctx, camera, state) draws in CSS pixels, using
//                           camera.worldToScreen(x, y) and camera.scale; returns
//                           a function that removes it
//   overlays.invalidate()   something an overlay shows changed: redraw soon
//
// `state` is { frame (frames.js: the newest frame, or null), agents (what the
// world canvas shows this frame: interp.js's sample), myClientId, live, params }.
// The overlay is redrawn whenever the world's canvas is, and when invalidated.
// One overlay that throws is reported once and skipped; it does not stop the others.

export function createOverlay(canvas, win = globalThis) {
  const ctx = canvas.getContext('2d');
  const fns = [];
  const failed = new Set();
  let dirty = true;
  let cssW = 0;
  let cssH = 0;

  // Lies exactly over `under` (the world's canvas), whatever its CSS size.
  function fit(under) {
    const dpr = win.devicePixelRatio || 1;
    const w = under.clientWidth || 1;
    const h = under.clientHeight || 1;
    if (w !== cssW || h !== cssH) {
      cssW = w;
      cssH = h;
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
    }
    const bw = Math.max(1, Math.round(w * dpr));
    const bh = Math.max(1, Math.round(h * dpr));
    if (canvas.width !== bw || canvas.height !== bh) {
      canvas.width = bw;
      canvas.height = bh;
    }
    ctx.setTransform(bw / w, 0, 0, bh / h, 0, 0);
  }

  return {
    add(fn) {
      fns.push(fn);
      dirty = true;
      return () => {
        const i = fns.indexOf(fn);
        if (i >= 0) fns.splice(i, 1);
        dirty = true;
      };
    },
    invalidate() {
      dirty = true;
    },
    get dirty() {
      return dirty;
    },
    draw(under, camera, state) {
      dirty = false;
      fit(under);
      ctx.clearRect(0, 0, cssW, cssH);
      for (const fn of fns) {
        if (failed.has(fn)) continue;
        ctx.save();
        try {
          fn(ctx, camera, state);
        } catch (err) {
          failed.add(fn);
          console.warn('swarmcast: an overlay failed and is switched off:', err);
        }
        ctx.restore();
      }
    },
  };
}
