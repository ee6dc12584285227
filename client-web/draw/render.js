// Canvas 2D drawing (the fallback when WebGL2 is missing; render_gl.js is
// the usual renderer): world rectangle, obstacles, agents or the LOD density
// image, through the camera. Agents are coloured by species; leaders and
// predators stand out. Targets and other marks are the overlay's (overlay.js).
//
// Built for 10,000+ agents at display rate: agents are grouped by colour into
// large batched paths (one fill() per 512 triangles, never one per agent),
// headings come from a 256-entry table (the wire quantizes headings to 256
// steps are plenty at this size), and nothing is allocated per agent.

import { AGENT_LENGTH, COLORS, LEADER_SCALE, MAX_AGENT_PX, MIN_AGENT_PX, PREDATOR_SCALE, SPECIES_COLORS } from './palette.js';
import { AGENT_FLAG_LEADER, AGENT_FLAG_PREDATOR, agentSpecies } from '../net/protocol.js';
import { fitWorld } from '../view/viewport.js';

// A triangle is this share of its length wide.
const AGENT_WIDTH_RATIO = 0.55;

// Triangles per fill() call (see drawClass).
const BATCH = 512;
const HEADING_STEPS_PER_RAD = 256 / (2 * Math.PI);

// Drawing classes of agents: 0–3 the species (agent flags bits 1–2), then
// leaders (bit 0; drawn in the leader colour whatever their species) and
// predators (bit 3; larger, in a warning colour, whatever else they are).
export const CLASS_LEADER = 4;
export const CLASS_PREDATOR = 5;
export const CLASS_COUNT = 6;

export function agentClass(flags) {
  if (flags & AGENT_FLAG_PREDATOR) return CLASS_PREDATOR;
  if (flags & AGENT_FLAG_LEADER) return CLASS_LEADER;
  return agentSpecies(flags);
}

export function createRenderer(canvas, win = globalThis) {
  const ctx = canvas.getContext('2d', { alpha: false });
  // Triangle vertex offsets (CSS px) for each of the 256 headings:
  // [noseX, noseY, leftX, leftY, rightX, rightY] * 256. Rebuilt only when the
  // on-screen agent size changes (resize, new world size).
  const shape = new Float32Array(256 * 6);
  const leaderShape = new Float32Array(256 * 6);
  const bigShape = new Float32Array(256 * 6); // predators
  let shapeLength = -1;
  let view = fitWorld(1, 1, 1, 1);
  let classOf = new Uint8Array(0); // per agent, its CLASS_* (see classify)
  const counts = new Uint32Array(CLASS_COUNT); // agents per class in the last frame drawn

  function buildShape(lengthPx) {
    if (lengthPx === shapeLength) return;
    shapeLength = lengthPx;
    fillShape(shape, lengthPx);
    fillShape(leaderShape, lengthPx * LEADER_SCALE);
    fillShape(bigShape, lengthPx * PREDATOR_SCALE);
  }

  function fillShape(table, lengthPx) {
    const nose = lengthPx * 0.6;
    const back = lengthPx * 0.4;
    const half = (lengthPx * AGENT_WIDTH_RATIO) / 2;
    for (let q = 0; q < 256; q++) {
      const a = (q * 2 * Math.PI) / 256;
      const c = Math.cos(a);
      const s = Math.sin(a);
      const o = q * 6;
      table[o] = c * nose;
      table[o + 1] = s * nose;
      // Back corners: behind the centre, either side of the heading line.
      table[o + 2] = -c * back - s * half;
      table[o + 3] = -s * back + c * half;
      table[o + 4] = -c * back + s * half;
      table[o + 5] = -s * back - c * half;
    }
  }

  // Matches the backing store to the element's CSS size × devicePixelRatio,
  // so lines stay sharp on high-DPI screens and after zooming.
  function fitCanvas() {
    const dpr = win.devicePixelRatio || 1;
    const cssW = canvas.clientWidth || 1;
    const cssH = canvas.clientHeight || 1;
    const w = Math.max(1, Math.round(cssW * dpr));
    const h = Math.max(1, Math.round(cssH * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    // From here on, draw in CSS pixels.
    ctx.setTransform(w / cssW, 0, 0, h / cssH, 0, 0);
    return { cssW, cssH };
  }

  // Sorts the agents into their drawing classes (CLASS_* above) in one pass:
  // classOf[i] for each agent, and how many each class has (also kept in
  // `counts`, for the legend). The buffer grows with the population and is
  // reused; nothing is allocated per frame.
  function classify(agents) {
    const { count, f: flags } = agents;
    if (classOf.length < count) classOf = new Uint8Array(Math.max(count, classOf.length * 2));
    counts.fill(0);
    for (let i = 0; i < count; i++) {
      const c = agentClass(flags[i]);
      classOf[i] = c;
      counts[c]++;
    }
  }

  // Fills every agent of class `cls` in one colour (and strokes it when
  // `edge` is given), with the triangles of `shapeTable`. The triangles are
  // batched into paths of BATCH triangles, one fill() each: far fewer calls
  // than one per agent, while keeping each path small enough for the
  // rasterizer (in Chromium's software canvas a single path of 50,000
  // triangles filled more than twice as slowly as the same triangles batched).
  function drawClass(agents, cls, shapeTable, fill, edge) {
    const { count, x, y, heading } = agents;
    const { scale, offsetX, offsetY } = view;
    ctx.fillStyle = fill;
    if (edge) {
      ctx.strokeStyle = edge;
      ctx.lineWidth = 1;
    }
    let n = 0;
    let inPath = 0;
    const flush = () => {
      ctx.fill();
      if (edge) ctx.stroke();
      ctx.beginPath();
      inPath = 0;
    };
    ctx.beginPath();
    for (let i = 0; i < count; i++) {
      if (classOf[i] !== cls) continue;
      const px = offsetX + x[i] * scale;
      const py = offsetY + y[i] * scale;
      const o = (Math.round(heading[i] * HEADING_STEPS_PER_RAD) & 255) * 6;
      ctx.moveTo(px + shapeTable[o], py + shapeTable[o + 1]);
      ctx.lineTo(px + shapeTable[o + 2], py + shapeTable[o + 3]);
      ctx.lineTo(px + shapeTable[o + 4], py + shapeTable[o + 5]);
      // No closePath() for plain fills: fill() closes every subpath anyway,
      // and in Chromium's software canvas an explicit closePath per triangle
      // made the fill ~15× slower (240 ms instead of 17 ms for 10,000
      // agents). Stroked triangles (the few predators) need it.
      if (edge) ctx.closePath();
      n++;
      if (++inPath === BATCH) flush();
    }
    if (inPath > 0) flush();
    return n;
  }

  function drawAgents(agents) {
    classify(agents);
    let drawn = 0;
    for (let s = 0; s < SPECIES_COLORS.length; s++) {
      if (counts[s] > 0) drawn += drawClass(agents, s, shape, SPECIES_COLORS[s], null);
    }
    // Leaders, then predators, last: on top of the crowd.
    if (counts[CLASS_LEADER] > 0) drawn += drawClass(agents, CLASS_LEADER, leaderShape, COLORS.leader, null);
    if (counts[CLASS_PREDATOR] > 0) {
      drawn += drawClass(agents, CLASS_PREDATOR, bigShape, COLORS.predator, COLORS.predatorEdge);
    }
    return drawn;
  }

  function drawObstacles(obstacles, hoverId) {
    if (obstacles.length === 0) return;
    const { scale, offsetX, offsetY } = view;
    ctx.beginPath();
    for (const o of obstacles) {
      const cx = offsetX + o.x * scale;
      const cy = offsetY + o.y * scale;
      // moveTo first, or the path would join consecutive circles with a line.
      ctx.moveTo(cx + o.radius * scale, cy);
      ctx.arc(cx, cy, o.radius * scale, 0, 2 * Math.PI);
    }
    ctx.fillStyle = COLORS.obstacle;
    ctx.fill();
    const hovered = hoverId == null ? null : obstacles.find((o) => o.id === hoverId);
    if (hovered) {
      // Shows which obstacle a right click would remove.
      ctx.beginPath();
      ctx.arc(offsetX + hovered.x * scale, offsetY + hovered.y * scale, hovered.radius * scale, 0, 2 * Math.PI);
      ctx.strokeStyle = COLORS.obstacleHover;
      ctx.lineWidth = 2;
      ctx.stroke();
    }
  }

  // Protocol v2's aggregated view: a cols × rows density image stretched
  // over its rectangle (smoothed by the browser's scaling).
  let lodCanvas = null;
  function drawLod(frame) {
    const { lod, rect } = frame;
    if (!lod || !rect || lod.cols <= 0 || lod.rows <= 0) return;
    if (!lodCanvas || lodCanvas.width !== lod.cols || lodCanvas.height !== lod.rows) {
      lodCanvas = canvas.ownerDocument.createElement('canvas');
      lodCanvas.width = lod.cols;
      lodCanvas.height = lod.rows;
    }
    const lctx = lodCanvas.getContext('2d');
    const img = lctx.createImageData(lod.cols, lod.rows);
    for (let i = 0; i < lod.cols * lod.rows; i++) {
      const d = lod.d[i];
      const t = Math.min(1, Math.max(0, (d - 1) / 40));
      img.data[i * 4] = 86 + (242 - 86) * t * t;
      img.data[i * 4 + 1] = 180 + (247 - 180) * t * t;
      img.data[i * 4 + 2] = 233 + (255 - 233) * t * t;
      img.data[i * 4 + 3] = d === 0 ? 0 : 64 + 191 * Math.min(1, (d - 1) / 16);
    }
    lctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(lodCanvas, view.offsetX + rect.x * view.scale, view.offsetY + rect.y * view.scale,
      rect.w * view.scale, rect.h * view.scale);
  }

  // scene: { camera (camera.js), agents (interp.js's sample: count, x, y,
  //   heading, f, mode), frame (frames.js) or null, hoverObstacleId }.
  // Targets, captions and other marks are drawn by the overlay (overlay.js).
  // Returns the number of agents drawn.
  function draw(scene) {
    const { cssW, cssH } = fitCanvas();
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, cssW, cssH);

    const frame = scene.frame;
    if (!frame) return 0;
    view = scene.camera.view();
    const ww = frame.width * view.scale;
    const wh = frame.height * view.scale;

    ctx.fillStyle = COLORS.world;
    ctx.fillRect(view.offsetX, view.offsetY, ww, wh);
    ctx.strokeStyle = COLORS.worldEdge;
    ctx.lineWidth = 1;
    ctx.strokeRect(view.offsetX - 0.5, view.offsetY - 0.5, ww + 1, wh + 1);

    // Agents and obstacles are clipped to the world so a wrapping agent does
    // not poke into the letterbox.
    ctx.save();
    ctx.beginPath();
    ctx.rect(view.offsetX, view.offsetY, ww, wh);
    ctx.clip();
    drawObstacles(frame.obstacles, scene.hoverObstacleId);
    let drawn = 0;
    if (frame.mode === 'lod') {
      drawLod(frame);
    } else if (scene.agents.count > 0) {
      buildShape(Math.min(MAX_AGENT_PX, Math.max(MIN_AGENT_PX, AGENT_LENGTH * view.scale)));
      drawn = drawAgents(scene.agents);
    }
    ctx.restore();
    return drawn;
  }

  // counts: agents per CLASS_* in the last frame drawn (live array: copy it
  // to keep it).
  return { kind: 'canvas2d', draw, counts };
}
