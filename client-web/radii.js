// Perception zones (key 4): for an agent, its separation, alignment and
// cohesion radii as rings, each zone's field of view shaded and its blind
// angle behind the agent left as an empty wedge.
//
// drawRadii(ctx, camera, state, params) draws them on the overlay for the
// selected agent when there is one (state.selected: { x, y, heading } in
// world units / radians, set by whoever does selection), else for a sample of
// the agents on screen. params: the world's parameter values by name
// (sep_radius, ali_radius, coh_radius in u; fov_sep, fov_ali, fov_coh in deg).

const ZONES = [
  { radius: 'sep_radius', fov: 'fov_sep', color: '255, 107, 107' },
  { radius: 'ali_radius', fov: 'fov_ali', color: '86, 180, 233' },
  { radius: 'coh_radius', fov: 'fov_coh', color: '31, 178, 135' },
];
// At most this many agents get their zones drawn when none is selected.
export const SAMPLE_AGENTS = 24;
// Zones smaller than this on screen (CSS px) are not worth drawing.
const MIN_RADIUS_PX = 4;

export function drawZones(ctx, camera, x, y, heading, params, emphasis = 1) {
  const p = camera.worldToScreen(x, y);
  // Largest first, so the small separation zone stays visible on top.
  const zones = ZONES.map((z) => ({ ...z, r: Number(params[z.radius]) || 0, fov: Number(params[z.fov] ?? 360) }))
    .sort((a, b) => b.r - a.r);
  for (const z of zones) {
    const rpx = z.r * camera.scale;
    if (rpx < MIN_RADIUS_PX) continue;
    const half = (Math.min(360, Math.max(0, z.fov)) * Math.PI) / 360;
    ctx.beginPath();
    if (half >= Math.PI - 1e-6) {
      ctx.arc(p.x, p.y, rpx, 0, 2 * Math.PI);
    } else {
      // The field of view: a sector centred on the heading; what is left
      // of the circle (behind) is the blind angle.
      ctx.moveTo(p.x, p.y);
      ctx.arc(p.x, p.y, rpx, heading - half, heading + half);
      ctx.closePath();
    }
    ctx.fillStyle = `rgba(${z.color}, ${0.08 * emphasis})`;
    ctx.fill();
    ctx.strokeStyle = `rgba(${z.color}, ${0.7 * emphasis})`;
    ctx.lineWidth = emphasis > 1 ? 1.5 : 1;
    ctx.stroke();
  }
}

export function drawRadii(ctx, camera, state, params) {
  if (!params) return;
  if (state.selected) {
    const s = state.selected;
    drawZones(ctx, camera, s.x, s.y, s.heading, params, 1.5);
    return;
  }
  const a = state.agents;
  if (!a || a.mode !== 'detail' || a.count === 0) return;
  // Evenly spaced through the list (sorted by row: spread over the picture),
  // keeping those on screen.
  const stride = Math.max(1, Math.floor(a.count / SAMPLE_AGENTS));
  let drawn = 0;
  for (let i = 0; i < a.count && drawn < SAMPLE_AGENTS; i += stride) {
    const p = camera.worldToScreen(a.x[i], a.y[i]);
    if (p.x < 0 || p.y < 0 || p.x > camera.cssW || p.y > camera.cssH) continue;
    drawZones(ctx, camera, a.x[i], a.y[i], a.heading[i], params, 1);
    drawn++;
  }
}
