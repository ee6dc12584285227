// What a click on the world does — the tool switch — and the select tool's
// inspection of one agent.
//
//   G  target      a click sets my target (input.js does it: the default)
//   N  add agents  a click adds 100 agents there (operator)
//   O  obstacle    a click adds an obstacle, or removes the one under it
//   V  select      a click picks the nearest agent: its neighbours per zone
//                  in the zones' colours, its steering vectors, its radii
//   Esc            ends the selection
//
// Clicks are taken in the capture phase, before input.js sees them, and
// only when the tool is not "target": input.js keeps its own behaviour
// (drag obstacles, right click) untouched.

import * as cmd from '../net/commands.js';
import { isFormControl } from './input.js';
import { NEEDS_TOKEN } from '../net/role.js';
import { drawPerception, ZONE_COLORS } from '../draw/perception.js';

export const TOOLS = [
  { id: 'target', key: 'g', label: 'target', help: 'a click sets your target' },
  { id: 'agents', key: 'n', label: `+${cmd.ADD_AGENTS_COUNT} agents`, help: `a click adds ${cmd.ADD_AGENTS_COUNT} agents there` },
  { id: 'obstacle', key: 'o', label: 'obstacle', help: 'a click adds an obstacle, or removes the one under it' },
  { id: 'select', key: 'v', label: 'select', help: 'a click picks an agent and shows what it senses' },
];

// Steering arrows: CSS px per u/s² of acceleration, and the longest drawn.
const ARROW_PX_PER_ACCEL = 0.25;
const ARROW_MAX_PX = 70;
const ARROW_MIN_PX = 14; // a rule that pushes at all shows
export const STEER_COLORS = {
  separation: ZONE_COLORS.sep,
  alignment: ZONE_COLORS.ali,
  cohesion: ZONE_COLORS.coh,
  target: '#ffffff',
};

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

// deps: { root, canvas, keyTarget, toWorld(ev) → {x, y} | null (a pointer
//         event's world point), getWorld(), getSnapshot(), send(command),
//         mayOperate(), onNotAllowed(text), onChange() }
export function createTools(deps) {
  const { root, canvas, keyTarget, toWorld, getWorld, getSnapshot, send } = deps;
  const mayOperate = deps.mayOperate ?? (() => true);
  const onNotAllowed = deps.onNotAllowed ?? (() => {});
  const onChange = deps.onChange ?? (() => {});
  const state = { tool: 'target', inspection: null, selecting: false };

  const bar = el('div', 'tools');
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', 'what a click does');
  const buttons = new Map();
  for (const t of TOOLS) {
    const b = el('button', 'tool');
    b.type = 'button';
    b.dataset.tool = t.id;
    b.append(el('span', 'tool-label', t.label), el('kbd', 'tool-key', t.key.toUpperCase()));
    b.title = `${t.help} (key ${t.key.toUpperCase()})`;
    b.addEventListener('click', () => {
      setTool(t.id);
      b.blur(); // keys go back to the world
    });
    buttons.set(t.id, b);
    bar.append(b);
  }
  root.append(bar);

  function setTool(id) {
    if (!TOOLS.some((t) => t.id === id)) return;
    state.tool = id;
    for (const [tid, b] of buttons) b.setAttribute('aria-pressed', String(tid === id));
    canvas.dataset.tool = id;
    if (id !== 'select') stopInspect();
    onChange();
  }
  setTool('target');

  function stopInspect() {
    if (!state.selecting && !state.inspection) return;
    state.selecting = false;
    state.inspection = null;
    send({ type: 'inspect', id: null });
    onChange();
  }

  function obstacleUnder(p) {
    const snap = getSnapshot();
    if (!snap) return null;
    return cmd.obstacleAt(snap.obstacles, p.x, p.y, 4);
  }

  canvas.addEventListener('click', (ev) => {
    if (ev.button !== 0 || state.tool === 'target') return;
    const world = getWorld();
    const p = toWorld(ev);
    if (!world || !p) return;
    // Ours: input.js must not also set the target.
    ev.stopImmediatePropagation();
    if (state.tool === 'select') {
      state.selecting = true;
      send({ type: 'inspect', x: Math.min(world.width, Math.max(0, p.x)), y: Math.min(world.height, Math.max(0, p.y)) });
    } else if (state.tool === 'agents') {
      if (!mayOperate()) onNotAllowed(`adding agents ${NEEDS_TOKEN}`);
      else send(cmd.addAgents(world, cmd.ADD_AGENTS_COUNT, p));
    } else if (state.tool === 'obstacle') {
      const hit = obstacleUnder(p);
      send(hit ? cmd.removeObstacle(hit.id) : cmd.addObstacle(world, p.x, p.y));
    }
  }, { capture: true });

  keyTarget.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || isFormControl(ev.target)) return;
    if (ev.key === 'Escape') {
      stopInspect();
      return;
    }
    const t = TOOLS.find((x) => x.key === ev.key.toLowerCase());
    if (t && !ev.repeat) setTool(t.id);
  });

  // Returns true when msg was the inspection's.
  function onMessage(msg) {
    if (msg.type !== 'inspect') return false;
    if (!state.selecting) return true; // a late one after the stop
    state.inspection = msg.agent ? msg : null;
    if (!msg.agent) state.selecting = false; // nobody there, or it is gone
    onChange();
    return true;
  }

  function onHello() {
    state.inspection = null;
    state.selecting = false;
  }

  // The inspect overlay: the agent ringed, its zones and blind angles, its
  // neighbours per zone in the zone's colour, its steering as arrows.
  function draw(ctx, toScreen, scale) {
    const ins = state.inspection;
    if (!ins) return;
    const a = ins.agent;
    const [ax, ay] = toScreen(a.x, a.y);
    ctx.save();
    drawPerception(ctx, toScreen, scale, { x: a.x, y: a.y, heading: Math.atan2(a.vy, a.vx) }, ins.radii, ins.fov, 1);
    // Each neighbour joined to the agent in its zone's colour (separation,
    // the nearest, on top), with a dot where it is.
    const zones = [['cohesion', 'coh'], ['alignment', 'ali'], ['separation', 'sep']];
    for (const [name, key] of zones) {
      ctx.strokeStyle = ZONE_COLORS[key];
      ctx.fillStyle = ZONE_COLORS[key];
      ctx.lineWidth = 1.25;
      ctx.globalAlpha = 0.85;
      for (const [nx, ny] of ins.neighbours[name] || []) {
        const [sx, sy] = toScreen(nx, ny);
        ctx.beginPath();
        ctx.moveTo(ax, ay);
        ctx.lineTo(sx, sy);
        ctx.stroke();
        ctx.beginPath();
        ctx.arc(sx, sy, 3, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(ax, ay, 7, 0, 2 * Math.PI);
    ctx.stroke();
    if (ins.steering) {
      for (const [rule, v] of Object.entries(ins.steering)) {
        const len = Math.hypot(v[0], v[1]);
        if (!(len > 0)) continue;
        const px = Math.max(ARROW_MIN_PX, Math.min(ARROW_MAX_PX, len * ARROW_PX_PER_ACCEL));
        arrow(ctx, ax, ay, ax + (v[0] / len) * px, ay + (v[1] / len) * px, STEER_COLORS[rule] || '#fff');
      }
    }
    // What is shown, next to it: the counts per zone in their colours.
    const c = ins.counts || {};
    const parts = [[`#${a.id}`, '#ffffff'], [`sep ${c.separation ?? 0}`, ZONE_COLORS.sep],
      [`ali ${c.alignment ?? 0}`, ZONE_COLORS.ali], [`coh ${c.cohesion ?? 0}`, ZONE_COLORS.coh]];
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    const widths = parts.map(([t]) => ctx.measureText(t).width);
    const total = widths.reduce((x, y) => x + y, 0) + 8 * (parts.length - 1);
    let lx = ax + 14;
    const ly = ay - 30;
    ctx.fillStyle = 'rgba(11, 14, 20, 0.8)';
    ctx.fillRect(lx - 4, ly - 2, total + 8, 17);
    parts.forEach(([t, color], k) => {
      ctx.fillStyle = color;
      ctx.fillText(t, lx, ly);
      lx += widths[k] + 8;
    });
    ctx.restore();
  }

  function arrow(ctx, x0, y0, x1, y1, color) {
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 7 * Math.cos(a - 0.5), y1 - 7 * Math.sin(a - 0.5));
    ctx.lineTo(x1 - 7 * Math.cos(a + 0.5), y1 - 7 * Math.sin(a + 0.5));
    ctx.closePath();
    ctx.fill();
  }

  return { state, setTool, onMessage, onHello, draw, stopInspect, element: bar };
}
