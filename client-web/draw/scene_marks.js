// The overlay's standard marks: every client's target (mine set apart), the
// veil over a picture that is no longer live, and the caption before the
// first snapshot. Drawn on the overlay (overlay.js), above the agents.

import { clientColor } from './palette.js';

// Target marker sizes in CSS pixels (markers do not scale with the world).
const TARGET_RING_PX = 9;
const MY_TARGET_RING_PX = 13;

// look: { color, label } for this client (hands.js knows names and chosen
// colours), or null for the client id's palette colour and "#id". k: the
// marks' size factor (the presenter's screen draws them larger).
function drawTarget(ctx, camera, t, mine, look, k = 1) {
  const at = camera.worldToScreen(t.x, t.y);
  ctx.save();
  ctx.translate(at.x, at.y);
  ctx.scale(k, k);
  const cx = 0;
  const cy = 0;
  const r = mine ? MY_TARGET_RING_PX : TARGET_RING_PX;
  const color = look?.color ?? clientColor(t.client_id);
  ctx.strokeStyle = color;
  ctx.lineWidth = mine ? 3 : 1.5;
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  // Crosshair arms reaching out past the ring.
  for (const [dx, dy] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
    ctx.moveTo(cx + dx * r * 0.5, cy + dy * r * 0.5);
    ctx.lineTo(cx + dx * r * 1.7, cy + dy * r * 1.7);
  }
  ctx.stroke();
  if (mine) {
    // A halo and a filled centre set my own target apart from the others.
    ctx.strokeStyle = color;
    ctx.globalAlpha = 0.35;
    ctx.lineWidth = 6;
    ctx.beginPath();
    ctx.arc(cx, cy, r + 5, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.globalAlpha = 1;
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.arc(cx, cy, 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  const label = mine ? 'you' : look?.label ?? `#${t.client_id}`;
  ctx.font = mine ? 'bold 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  // Up and to the right, clear of the crosshair arms and my halo, on a dark
  // backing so that it reads over a crowd.
  const lx = cx + r + 6;
  const ly = cy - r - 2;
  ctx.fillStyle = 'rgba(11, 14, 20, 0.75)';
  ctx.fillRect(lx - 3, ly - 15, ctx.measureText(label).width + 6, 17);
  ctx.fillStyle = color;
  ctx.fillText(label, lx, ly);
  ctx.restore();
}

// A line of text centred near the top of the canvas, on a dark backing so it
// reads over a crowd of agents.
function drawCaption(ctx, camera, text) {
  const cx = camera.cssW / 2;
  const top = 40;
  ctx.font = '14px system-ui, sans-serif';
  const w = ctx.measureText(text).width;
  ctx.fillStyle = 'rgba(11, 14, 20, 0.8)';
  ctx.fillRect(cx - w / 2 - 8, top - 4, w + 16, 24);
  ctx.fillStyle = 'rgba(230, 236, 245, 0.9)';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(text, cx, top);
}

// Every client's target, mine last (on top). look(clientId) → { color,
// label } | null names them (optional); state.markScale sizes them (1).
export function drawTargets(ctx, camera, state, look = null) {
  const frame = state.frame;
  if (!frame) return;
  const k = state.markScale ?? 1;
  for (const t of frame.targets) if (t.client_id !== state.myClientId) drawTarget(ctx, camera, t, false, look?.(t.client_id), k);
  for (const t of frame.targets) if (t.client_id === state.myClientId) drawTarget(ctx, camera, t, true, look?.(t.client_id), k);
}

export function drawStateMarks(ctx, camera, state) {
  if (!state.world) return;
  if (!state.frame) {
    drawCaption(ctx, camera, 'waiting for the first snapshot…');
    return;
  }
  if (!state.live) {
    // The picture is the last one before the connection dropped: veil it.
    const a = camera.worldToScreen(0, 0);
    ctx.fillStyle = 'rgba(11, 14, 20, 0.55)';
    ctx.fillRect(a.x, a.y, state.frame.width * camera.scale, state.frame.height * camera.scale);
    drawCaption(ctx, camera, 'connection lost: showing the last snapshot');
  }
}
