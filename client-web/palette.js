// Colours of the canvas. The page's own chrome (status line, hint) is styled
// in style.css; these are here because canvas drawing needs them as strings.

export const COLORS = {
  background: '#0b0e14',
  world: '#161b26',
  worldEdge: '#3a4458',
  agent: '#9fb4d0',
  leader: '#ffb43c',
  obstacle: '#55607a',
  obstacleHover: '#ff6b6b',
};

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
