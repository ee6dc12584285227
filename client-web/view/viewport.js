// The mapping between world units and canvas (CSS) pixels.
//
// The whole world is always shown: it is scaled uniformly to fit the canvas,
// keeping its aspect ratio, and centred, so the spare space on one axis becomes
// a letterbox. Pure functions, so Node tests can check the maths without a DOM.

// Empty border, in CSS pixels, kept around the world so its edge stays visible.
export const MARGIN_PX = 8;

// Returns { scale, offsetX, offsetY, width, height }: a world point (x, y) is
// drawn at (offsetX + x * scale, offsetY + y * scale) CSS pixels.
export function fitWorld(canvasWidth, canvasHeight, worldWidth, worldHeight, margin = MARGIN_PX) {
  const availW = Math.max(1, canvasWidth - 2 * margin);
  const availH = Math.max(1, canvasHeight - 2 * margin);
  // A world of size 0 (no hello yet) must not produce Infinity or NaN.
  const ww = worldWidth > 0 ? worldWidth : 1;
  const wh = worldHeight > 0 ? worldHeight : 1;
  const scale = Math.min(availW / ww, availH / wh);
  return {
    scale,
    offsetX: (canvasWidth - ww * scale) / 2,
    offsetY: (canvasHeight - wh * scale) / 2,
    width: ww,
    height: wh,
  };
}

// CSS pixel position → world position (not clamped: it may lie outside).
export function screenToWorld(view, sx, sy) {
  return { x: (sx - view.offsetX) / view.scale, y: (sy - view.offsetY) / view.scale };
}

export function clamp(v, lo, hi) {
  return v < lo ? lo : v > hi ? hi : v;
}
