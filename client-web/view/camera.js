// The camera: which part of the world the canvas shows, and how large.
//
// State is a centre (world units) and a scale (CSS pixels per world unit).
// `view()` gives the same { scale, offsetX, offsetY, width, height } shape as
// viewport.js's fitWorld(), so input.js maps clicks through the camera
// without knowing it exists. Pure: no DOM, so Node tests check the maths.
//
// `version` increases on every change: the render loop and the view sender
// compare it to know whether anything moved, at the cost of one comparison.

import { MARGIN_PX } from './viewport.js';

// How far in one may zoom: this many CSS pixels per world unit at most
// (an agent is 10 u long, so 40 px/u shows one agent 400 px long).
export const MAX_SCALE = 40;
// How far out: the world may shrink to this fraction of the fitted size.
export const MIN_FIT_FRACTION = 0.5;
// Zoom step of one key press or one notch of the wheel.
export const ZOOM_STEP = 1.25;
// Arrow keys pan by this fraction of the viewport.
export const PAN_STEP = 0.15;

export class Camera {
  constructor() {
    this.cx = 0.5; // world point at the canvas centre
    this.cy = 0.5;
    this.scale = 1; // CSS px per world unit
    this.cssW = 1; // canvas size, CSS px
    this.cssH = 1;
    this.worldW = 1;
    this.worldH = 1;
    this.fitted = true; // follows the canvas size and the world (until the user moves it)
    this.version = 0;
  }

  // The canvas size or the world size changed. A fitted camera refits; a
  // moved one keeps its centre and scale (within the new limits).
  setSize(cssW, cssH, worldW, worldH) {
    cssW = Math.max(1, cssW);
    cssH = Math.max(1, cssH);
    worldW = worldW > 0 ? worldW : 1;
    worldH = worldH > 0 ? worldH : 1;
    if (cssW === this.cssW && cssH === this.cssH && worldW === this.worldW && worldH === this.worldH) return;
    this.cssW = cssW;
    this.cssH = cssH;
    this.worldW = worldW;
    this.worldH = worldH;
    if (this.fitted) this.fit();
    else this.set(this.cx, this.cy, this.scale);
    this.version += 1;
  }

  // The scale that shows the whole world with MARGIN_PX around it.
  fitScale() {
    const availW = Math.max(1, this.cssW - 2 * MARGIN_PX);
    const availH = Math.max(1, this.cssH - 2 * MARGIN_PX);
    return Math.min(availW / this.worldW, availH / this.worldH);
  }

  minScale() {
    return this.fitScale() * MIN_FIT_FRACTION;
  }

  fit() {
    this.fitted = true;
    this.apply(this.worldW / 2, this.worldH / 2, this.fitScale());
  }

  // Moves the camera (clamped: the scale within its limits, the centre
  // within the world, so the world can never be lost off screen).
  set(cx, cy, scale) {
    this.fitted = false;
    this.apply(cx, cy, scale);
  }

  apply(cx, cy, scale) {
    const s = Math.min(MAX_SCALE, Math.max(this.minScale(), scale));
    const x = Math.min(this.worldW, Math.max(0, cx));
    const y = Math.min(this.worldH, Math.max(0, cy));
    if (x === this.cx && y === this.cy && s === this.scale) return;
    this.cx = x;
    this.cy = y;
    this.scale = s;
    this.version += 1;
  }

  // Zooms by `factor` keeping the world point under (sx, sy) where it is.
  zoomAt(sx, sy, factor) {
    const w = this.screenToWorld(sx, sy);
    const s = Math.min(MAX_SCALE, Math.max(this.minScale(), this.scale * factor));
    // The point under the cursor stays put: w = c + (s_px − half) / s.
    this.set(w.x - (sx - this.cssW / 2) / s, w.y - (sy - this.cssH / 2) / s, s);
  }

  // Moves the picture by (dx, dy) CSS pixels (a drag: the world follows the hand).
  panBy(dx, dy) {
    this.set(this.cx - dx / this.scale, this.cy - dy / this.scale, this.scale);
  }

  centreOn(x, y) {
    this.set(x, y, this.scale);
  }

  get offsetX() {
    return this.cssW / 2 - this.cx * this.scale;
  }

  get offsetY() {
    return this.cssH / 2 - this.cy * this.scale;
  }

  worldToScreen(x, y) {
    return { x: this.offsetX + x * this.scale, y: this.offsetY + y * this.scale };
  }

  screenToWorld(sx, sy) {
    return { x: (sx - this.offsetX) / this.scale, y: (sy - this.offsetY) / this.scale };
  }

  // viewport.js's shape, for input.js and anything else written against fitWorld().
  view() {
    return { scale: this.scale, offsetX: this.offsetX, offsetY: this.offsetY, width: this.worldW, height: this.worldH };
  }

  // The part of the world on screen, clipped to the world: what the server
  // is asked to send (protocol v2's `view`).
  visibleRect() {
    const a = this.screenToWorld(0, 0);
    const b = this.screenToWorld(this.cssW, this.cssH);
    const x0 = Math.max(0, a.x);
    const y0 = Math.max(0, a.y);
    const x1 = Math.min(this.worldW, b.x);
    const y1 = Math.min(this.worldH, b.y);
    return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
  }
}
