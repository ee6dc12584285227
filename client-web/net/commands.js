// Builders for the JSON commands of PROTOCOL.md ("Client → server commands").
//
// Positions are clamped into the world here, so a click in the letterbox or a
// rounding error at the edge never earns an `out_of_range` error. The `id` is
// not set here: the connection numbers every command it actually sends.

import { clamp } from '../view/viewport.js';

// The radius a right click gives a new obstacle, in world units.
export const OBSTACLE_RADIUS = 30;
// How many agents the 'a' key adds.
export const ADD_AGENTS_COUNT = 100;
// The speed a shift+right click gives a new moving obstacle, in u/s.
export const MOVING_OBSTACLE_SPEED = 60;

function clampPoint(world, x, y) {
  return { x: clamp(x, 0, world.width), y: clamp(y, 0, world.height) };
}

export function setTarget(world, x, y) {
  return { type: 'set_target', ...clampPoint(world, x, y) };
}

export function clearTarget() {
  return { type: 'clear_target' };
}

// velocity: optional { vx, vy } in u/s, for an obstacle that moves (and
// bounces off the world's edges).
export function addObstacle(world, x, y, radius = OBSTACLE_RADIUS, velocity = null) {
  const cmd = { type: 'add_obstacle', ...clampPoint(world, x, y), radius };
  return velocity ? { ...cmd, vx: velocity.vx, vy: velocity.vy } : cmd;
}

// A velocity of the given speed in a random direction (rounded to 0.01 u/s,
// so the JSON stays short).
export function randomVelocity(speed = MOVING_OBSTACLE_SPEED, random = Math.random) {
  const a = random() * 2 * Math.PI;
  const r = (v) => Math.round(v * 100) / 100;
  return { vx: r(speed * Math.cos(a)), vy: r(speed * Math.sin(a)) };
}

// Dragging: puts an obstacle's centre at (x, y), clamped into the world.
export function moveObstacle(world, obstacleId, x, y) {
  return { type: 'move_obstacle', obstacle_id: obstacleId, ...clampPoint(world, x, y) };
}

export function removeObstacle(obstacleId) {
  return { type: 'remove_obstacle', obstacle_id: obstacleId };
}

// Without a position (the mouse never was over the world) the server scatters
// the new agents over the whole world.
export function addAgents(world, count, at) {
  const cmd = { type: 'add_agents', count };
  return at ? { ...cmd, ...clampPoint(world, at.x, at.y) } : cmd;
}

// Space toggles: the snapshot's paused flag says which way.
export function togglePause(paused) {
  return { type: paused ? 'resume' : 'pause' };
}

// With a species (0–3), only that species' value changes; without, all.
export function setParam(name, value, species = null) {
  const cmd = { type: 'set_param', name, value };
  return species == null ? cmd : { ...cmd, species };
}

export function setModel(model) {
  return { type: 'set_model', model };
}

// Without a seed the server keeps the current one; without a count, the
// current number of agents.
export function reset(seed = null, agents = null) {
  const cmd = { type: 'reset' };
  if (seed != null) cmd.seed = seed;
  if (agents != null) cmd.agents = agents;
  return cmd;
}

// One tick of a paused world (operators only).
export function step() {
  return { type: 'step' };
}

// The obstacle under a world point, or null. `slack` (world units) widens the
// hit area so tiny obstacles stay clickable; when circles overlap, the one
// whose centre is nearest wins, then the newest (drawn last, on top).
export function obstacleAt(obstacles, x, y, slack = 0) {
  let best = null;
  let bestD = Infinity;
  for (const o of obstacles) {
    const d = Math.hypot(o.x - x, o.y - y);
    if (d <= o.radius + slack && d <= bestD) {
      best = o;
      bestD = d;
    }
  }
  return best;
}
