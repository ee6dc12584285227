// Colours of the canvas. The page's own chrome (status line, hint) is styled
// in style.css; these are here because canvas drawing needs them as strings.

export const COLORS = {
  background: '#0b0e14',
  world: '#161b26',
  worldEdge: '#3a4458',
  agent: '#56b4e9', // species 0 (SPECIES_COLORS[0])
  leader: '#ffb43c',
  predator: '#ff3b30',
  predatorEdge: '#ffe9e6',
  obstacle: '#55607a',
  obstacleHover: '#ff6b6b',
};

// Agent colours by species (agent flags bits 1–2): the Okabe–Ito palette,
// which stays distinct for the common kinds of colour blindness, minus its
// orange (the leaders' colour) and vermillion (too close to the predators').
// The bluish green is lightened a little to read on the dark world.
export const SPECIES_COLORS = ['#56b4e9', '#f0e442', '#1fb287', '#cc79a7'];

// Each client's target gets its own hue. Stepping the hue by the golden angle
// (≈137.5°) keeps consecutive client ids far apart on the colour wheel however
// many clients there are.
const GOLDEN_ANGLE_DEG = 137.50776405003785;

export function clientHue(clientId) {
  return (clientId * GOLDEN_ANGLE_DEG) % 360;
}

export function clientColor(clientId, alpha = 1) {
  return `hsla(${clientHue(clientId).toFixed(1)}, 85%, 62%, ${alpha})`;
}

// Sizes of an agent on screen, shared by both renderers: a triangle
// AGENT_LENGTH world units long, never smaller than MIN_AGENT_PX CSS pixels
// (or a big world on a small screen would show dust) nor larger than
// MAX_AGENT_PX; leaders a little larger (they stand out from a yellowish
// species too), predators much larger.
export const AGENT_LENGTH = 10;
export const MIN_AGENT_PX = 5;
export const MAX_AGENT_PX = 60;
export const LEADER_SCALE = 1.3;
export const PREDATOR_SCALE = 2.2;
