// Agents stamped into a pixel buffer on the CPU, for crowds of small agents.
//
// Software WebGL (SwiftShader: headless browsers, machines without a usable
// GPU) spends ~1.5 µs setting up each triangle, so 100,000 agents took well
// over 100 ms a frame as triangles, and uploading a screen-sized texture
// costs ~50 ms more. When agents are only a few pixels long, stamping a
// precomputed pixel mask per heading (64 directions) into a screen-sized
// buffer and showing it with a 2-D canvas's putImageData costs a few ms, and
// looks the same at that size. render_gl.js picks it for large crowds of
// small agents.

const HEADINGS = 64;
const TWO_PI = 2 * Math.PI;
// The agent's triangle, as in render_gl.js: nose, back left, back right.
const CORNERS = [[0.6, 0], [-0.4, 0.275], [-0.4, -0.275]];
// Size factors of the classes (species 0–3, leader, predator), as render_gl.js.
const CLASS_SIZE = [1, 1, 1, 1, 1.3, 2.2];

// Offsets (dx, dy) of the pixels whose centre lies in the triangle of length
// `len` px pointing at angle a; at least the centre pixel.
function mask(len, a) {
  const c = Math.cos(a);
  const s = Math.sin(a);
  const p = CORNERS.map(([x, y]) => [(x * c - y * s) * len, (x * s + y * c) * len]);
  const r = Math.ceil(len * 0.7) + 1;
  const out = [];
  const side = (ax, ay, bx, by, px, py) => (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  for (let dy = -r; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      const s0 = side(p[0][0], p[0][1], p[1][0], p[1][1], dx, dy);
      const s1 = side(p[1][0], p[1][1], p[2][0], p[2][1], dx, dy);
      const s2 = side(p[2][0], p[2][1], p[0][0], p[0][1], dx, dy);
      if ((s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0)) out.push(dx, dy);
    }
  }
  if (out.length === 0) out.push(0, 0);
  return out;
}

export class Splatter {
  constructor() {
    this.w = 0;
    this.h = 0;
    this.pixels = new Uint32Array(0);
    this.bytes = new Uint8Array(0);
    this.len = -1;
    // All masks in one array: mask (class c, heading k) is offsets
    // [start[c·64+k], start[c·64+k+1]) of `flat` (dy·w + dx, for the current w).
    this.flat = new Int32Array(0);
    this.start = new Int32Array(CLASS_SIZE.length * HEADINGS + 1);
    this.builtFor = -1; // the w `flat` was built for
    this.radius = 0; // the largest |dx| or |dy| of any mask: agents nearer the edge are clipped per pixel
    this.raw = []; // [class][heading] → [dx, dy, …]
    this.late = new Uint32Array(0); // leaders and predators, stamped last (on top)
  }

  build(len, w) {
    if (len === this.len && w === this.builtFor) return;
    if (len !== this.len) {
      this.len = len;
      this.raw = CLASS_SIZE.map((k) => Array.from({ length: HEADINGS }, (_, i) => mask(len * k, (i * TWO_PI) / HEADINGS)));
      this.radius = Math.ceil(len * 2.2 * 0.7) + 1;
    }
    const all = this.raw.flat();
    this.flat = new Int32Array(all.reduce((t, m) => t + m.length / 2, 0));
    let o = 0;
    all.forEach((m, i) => {
      this.start[i] = o;
      for (let j = 0; j < m.length; j += 2) this.flat[o++] = m[j + 1] * w + m[j];
    });
    this.start[all.length] = o;
    this.builtFor = w;
  }

  // Paints the whole picture into a w × h device-pixel buffer: background,
  // the world's rectangle (world: { width, height, color, background,
  // obstacles: [{x, y, radius}], obstacleColor }), then n agents (x, y, heading, f arrays) on top. A world point (x, y) is
  // at ((offX + x·scale)·dpr, (offY + y·scale)·dpr). colors: packed RGBA
  // (little-endian Uint32) per class. Returns the bytes, rows top down.
  render(agents, n, w, h, cam, dpr, lenPx, colors, world) {
    if (w !== this.w || h !== this.h) {
      this.w = w;
      this.h = h;
      this.pixels = new Uint32Array(w * h);
      this.bytes = new Uint8Array(this.pixels.buffer);
    }
    this.build(Math.max(1, Math.round(lenPx * dpr * 2) / 2), w);
    const px = this.pixels;
    const { x, y, heading, f } = agents;
    const sx = cam.scale * dpr;
    const ox = cam.offsetX * dpr;
    const oy = cam.offsetY * dpr;
    px.fill(world.background);
    const wx0 = Math.max(0, Math.min(w, Math.round(ox)));
    const wx1 = Math.max(0, Math.min(w, Math.round(ox + world.width * sx)));
    const wy0 = Math.max(0, Math.min(h, Math.round(oy)));
    const wy1 = Math.max(0, Math.min(h, Math.round(oy + world.height * sx)));
    if (wx1 > wx0) for (let r = wy0; r < wy1; r++) px.fill(world.color, r * w + wx0, r * w + wx1);
    for (const o of world.obstacles) {
      // A filled circle, one row span at a time.
      const ccx = ox + o.x * sx;
      const ccy = oy + o.y * sx;
      const rr = o.radius * sx;
      for (let r = Math.max(0, Math.ceil(ccy - rr)); r <= Math.min(h - 1, Math.floor(ccy + rr)); r++) {
        const half = Math.sqrt(Math.max(0, rr * rr - (r - ccy) * (r - ccy)));
        const a = Math.max(0, Math.round(ccx - half));
        const b = Math.min(w, Math.round(ccx + half));
        if (b > a) px.fill(world.obstacleColor, r * w + a, r * w + b);
      }
    }
    const hk = HEADINGS / TWO_PI;
    const R = this.radius;
    const { flat, start } = this;
    if (this.late.length < n) this.late = new Uint32Array(Math.max(n, 1024));
    const late = this.late;
    let nLate = 0;
    for (let pass = 0; pass < 2; pass++) {
      const count = pass === 0 ? n : nLate;
      for (let k = 0; k < count; k++) {
        const i = pass === 0 ? k : late[k];
        const fl = f[i];
        const cls = fl & 8 ? 5 : fl & 1 ? 4 : (fl >> 1) & 3;
        if (pass === 0 && cls >= 4) {
          late[nLate++] = i;
          continue;
        }
        const cx = Math.floor(ox + x[i] * sx + 0.5);
        const cy = Math.floor(oy + y[i] * sx + 0.5);
        if (cx < -R || cy < -R || cx >= w + R || cy >= h + R) continue;
        // Headings are in [−π, π] or [0, 2π): +0.5 and the mask wrap both.
        const m = cls * HEADINGS + ((heading[i] * hk + 0.5 + HEADINGS) & (HEADINGS - 1));
        const color = colors[cls];
        if (cx >= R && cy >= R && cx < w - R && cy < h - R) {
          const base = cy * w + cx;
          for (let j = start[m], end = start[m + 1]; j < end; j++) px[base + flat[j]] = color;
        } else {
          // Near the edge: check each pixel (no wrap onto the next row).
          const raw = this.raw[cls][m - cls * HEADINGS];
          for (let j = 0; j < raw.length; j += 2) {
            const qx = cx + raw[j];
            const qy = cy + raw[j + 1];
            if (qx >= 0 && qy >= 0 && qx < w && qy < h) px[qy * w + qx] = color;
          }
        }
      }
    }
    return this.bytes;
  }
}
