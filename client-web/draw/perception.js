// Perception drawn on the world: an agent's three zones (separation,
// alignment, cohesion) as circles of their radii, with the blind angle of
// each zone's field of view behind the agent shaded as a wedge. Used by the
// inspect overlay (tools.js) and by key 4, which shows them for many agents
// (model_keys.js switches viewer.options.radii; viewer.js draws them). Draws on any 2D context in CSS pixels.

// Zone colours, kept apart from the species colours (palette.js).
export const ZONE_COLORS = { sep: '#ff6b6b', ali: '#ffd166', coh: '#06d6a0' };

// agent: { x, y, heading (radians, world axes) }; radii and fov (degrees)
// per zone: { sep, ali, coh }. toScreen(x, y) → [sx, sy]; scale: CSS px per
// world unit. alpha dims it (many agents at once).
export function drawPerception(ctx, toScreen, scale, agent, radii, fov, alpha = 1) {
  const [cx, cy] = toScreen(agent.x, agent.y);
  ctx.save();
  ctx.globalAlpha = alpha;
  // Largest first, so that the smaller zones' lines stay on top.
  const zones = ['coh', 'ali', 'sep'].sort((a, b) => radii[b] - radii[a]);
  for (const z of zones) {
    const r = radii[z] * scale;
    if (!(r > 0)) continue;
    ctx.strokeStyle = ZONE_COLORS[z];
    ctx.lineWidth = 1.25;
    ctx.setLineDash(z === 'sep' ? [] : z === 'ali' ? [6, 4] : [2, 4]);
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.stroke();
    const blind = 360 - (fov?.[z] ?? 360);
    if (blind > 0.5) {
      // The blind wedge, centred on the heading's opposite.
      const back = agent.heading + Math.PI;
      const half = (blind * Math.PI) / 360;
      ctx.setLineDash([]);
      ctx.fillStyle = 'rgba(11, 14, 20, 0.45)';
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.arc(cx, cy, r, back - half, back + half);
      ctx.closePath();
      ctx.fill();
    }
  }
  ctx.restore();
}

// Key 4 (viewer.options.radii): the zones of many agents at once, drawn on
// the viewer's overlay (overlays.add: fn(ctx, camera, state)) for the
// agents it shows this frame (state.agents, interpolated). Per-agent density
// radii are not on the wire: the parameters' radii are drawn. At most `most`
// agents, spread evenly over the list (sorted by row: over the picture) and
// on screen, so that a crowd stays readable and the frame cheap.
export const FIELD_AGENTS = 40;

export function drawPerceptionField(ctx, camera, agents, params, most = FIELD_AGENTS) {
  if (!agents || agents.mode !== 'detail' || !agents.count || !params) return;
  const radii = { sep: params.sep_radius, ali: params.ali_radius, coh: params.coh_radius };
  const fov = { sep: params.fov_sep, ali: params.fov_ali, coh: params.fov_coh };
  if (!(radii.sep > 0)) return;
  const toScreen = (x, y) => {
    const p = camera.worldToScreen(x, y);
    return [p.x, p.y];
  };
  const step = Math.max(1, Math.floor(agents.count / most));
  let drawn = 0;
  for (let i = 0; i < agents.count && drawn < most; i += step) {
    const [sx, sy] = toScreen(agents.x[i], agents.y[i]);
    if (sx < 0 || sy < 0 || sx > camera.cssW || sy > camera.cssH) continue;
    drawPerception(ctx, toScreen, camera.scale, { x: agents.x[i], y: agents.y[i], heading: agents.heading[i] }, radii, fov, 0.6);
    drawn++;
  }
}
