// Canvas drawing of one snapshot: world rectangle, obstacles, agents, targets.
// Agents are coloured by species; leaders and predators stand out.
//
// Built for 10,000+ agents at display rate: agents are grouped by colour into
// large batched paths (one fill() per 512 triangles, never one per agent),
// headings come from a 256-entry table (the wire quantizes headings to 256
// steps anyway), and nothing is allocated per agent.

import { COLORS, SPECIES_COLORS, clientColor } from './palette.js';
import { AGENT_FLAG_LEADER, AGENT_FLAG_PREDATOR, agentSpecies } from './protocol.js';
import { fitWorld } from './viewport.js';

// Agent triangle size in world units; never drawn smaller than MIN_AGENT_PX
// CSS pixels, or a big world on a small screen would show dust.
const AGENT_LENGTH = 10;
const AGENT_WIDTH_RATIO = 0.55;
const MIN_AGENT_PX = 5;
// Predators and leaders are drawn this many times the size of the others
// (leaders a little larger, so they stand out from a yellowish species too).
const PREDATOR_SCALE = 2.2;
const LEADER_SCALE = 1.3;
// Triangles per fill() call (see drawClass).
const BATCH = 512;

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

// Target marker sizes in CSS pixels (markers do not scale with the world).
const TARGET_RING_PX = 9;
const MY_TARGET_RING_PX = 13;

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
    const { count, flags } = agents;
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
    const { count, x, y, heading_q: hq } = agents;
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
      const o = hq[i] * 6;
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

  function drawTarget(t, mine) {
    const cx = view.offsetX + t.x * view.scale;
    const cy = view.offsetY + t.y * view.scale;
    const r = mine ? MY_TARGET_RING_PX : TARGET_RING_PX;
    const color = clientColor(t.client_id);
    ctx.strokeStyle = color;
    ctx.lineWidth = mine ? 3 : 1.5;
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    // Crosshair arms reaching out past the ring.
    ctx.moveTo(cx - r * 1.7, cy);
    ctx.lineTo(cx - r * 0.5, cy);
    ctx.moveTo(cx + r * 0.5, cy);
    ctx.lineTo(cx + r * 1.7, cy);
    ctx.moveTo(cx, cy - r * 1.7);
    ctx.lineTo(cx, cy - r * 0.5);
    ctx.moveTo(cx, cy + r * 0.5);
    ctx.lineTo(cx, cy + r * 1.7);
    ctx.stroke();
    if (mine) {
      // A halo and a filled centre set my own target apart from the others.
      ctx.strokeStyle = clientColor(t.client_id, 0.35);
      ctx.lineWidth = 6;
      ctx.beginPath();
      ctx.arc(cx, cy, r + 5, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(cx, cy, 3, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.fillStyle = color;
    ctx.font = mine ? 'bold 12px system-ui, sans-serif' : '11px system-ui, sans-serif';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    // Up and to the right, clear of the crosshair arms and my halo.
    ctx.fillText(mine ? 'you' : `#${t.client_id}`, cx + r + 6, cy - r - 2);
  }

  // A line of text centred at the top of the world, on a dark backing so it
  // reads over a crowd of agents.
  function drawCaption(text) {
    const cx = view.offsetX + (view.width * view.scale) / 2;
    const top = view.offsetY + 10;
    ctx.font = '14px system-ui, sans-serif';
    const w = ctx.measureText(text).width;
    ctx.fillStyle = 'rgba(11, 14, 20, 0.8)';
    ctx.fillRect(cx - w / 2 - 8, top - 4, w + 16, 24);
    ctx.fillStyle = 'rgba(230, 236, 245, 0.9)';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText(text, cx, top);
  }

  // scene: { world: {width, height} | null, snapshot | null, myClientId,
  //          hoverObstacleId, live (bool: connected and current) }.
  // Returns the number of agents drawn.
  function draw(scene) {
    const { cssW, cssH } = fitCanvas();
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, cssW, cssH);

    const snap = scene.snapshot;
    const world = snap ? { width: snap.world_width, height: snap.world_height } : scene.world;
    if (!world) return 0;
    view = fitWorld(cssW, cssH, world.width, world.height);
    const ww = world.width * view.scale;
    const wh = world.height * view.scale;

    ctx.fillStyle = COLORS.world;
    ctx.fillRect(view.offsetX, view.offsetY, ww, wh);
    ctx.strokeStyle = COLORS.worldEdge;
    ctx.lineWidth = 1;
    ctx.strokeRect(view.offsetX - 0.5, view.offsetY - 0.5, ww + 1, wh + 1);

    if (!snap) {
      drawCaption('waiting for the first snapshot…');
      return 0;
    }

    // Agents and obstacles are clipped to the world so a wrapping agent does
    // not poke into the letterbox; targets are not, so one on the edge shows.
    ctx.save();
    ctx.beginPath();
    ctx.rect(view.offsetX, view.offsetY, ww, wh);
    ctx.clip();
    drawObstacles(snap.obstacles, scene.hoverObstacleId);
    buildShape(Math.max(MIN_AGENT_PX, AGENT_LENGTH * view.scale));
    const drawn = drawAgents(snap.agents);
    ctx.restore();

    for (const t of snap.targets) {
      if (t.client_id !== scene.myClientId) drawTarget(t, false);
    }
    for (const t of snap.targets) {
      if (t.client_id === scene.myClientId) drawTarget(t, true);
    }

    if (!scene.live) {
      // The picture is the last one before the connection dropped: veil it.
      ctx.fillStyle = 'rgba(11, 14, 20, 0.55)';
      ctx.fillRect(view.offsetX, view.offsetY, ww, wh);
      drawCaption('connection lost: showing the last snapshot');
    }
    // "Paused" is said by the status line, not on the canvas: a live picture
    // carries nothing but the world.
    return drawn;
  }

  // counts: agents per CLASS_* in the last frame drawn (live array: copy it
  // to keep it).
  return { draw, counts };
}
