// Where a phone's camera starts. A 16:9 world fitted whole into a portrait
// phone (9:19) is a strip across the middle, half the screen empty: a
// phone instead starts zoomed to the screen's height, centred across on
// where the flock is, free to pan (the minimap shows the whole world).
// Pure: no DOM, so Node tests check the maths.

import { MARGIN_PX } from '../view/viewport.js';

// A screen is a "strip" case when the fitted world would leave more than
// this share of its height empty.
const STRIP_EMPTY_SHARE = 0.3;

// True when the whole world, fitted, would be a strip on this screen.
export function fitsAsStrip(cssW, cssH, worldW, worldH) {
  if (!(cssW > 0 && cssH > 0 && worldW > 0 && worldH > 0) || cssH <= cssW) return false;
  const fitted = Math.min(cssW / worldW, cssH / worldH) * worldH;
  return fitted < cssH * (1 - STRIP_EMPTY_SHARE);
}

// Where the action is: the flock's centre (the mean of the agents'
// positions), or the world's centre when the frame names no agent (none
// yet, or a density view). frame: frames.js's { count, x, y }.
export function actionCentre(frame, worldW, worldH) {
  const n = frame?.count ?? 0;
  let sx = 0;
  let sy = 0;
  let k = 0;
  for (let i = 0; i < n && frame.x && frame.y; i++) {
    const x = frame.x[i];
    const y = frame.y[i];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    sx += x;
    sy += y;
    k += 1;
  }
  return k ? { x: sx / k, y: sy / k } : { x: worldW / 2, y: worldH / 2 };
}

// The camera { cx, cy, scale } that shows the world's whole height on the
// screen (less the usual margin), centred across on `centre` but never
// past the world's left or right edge.
export function fillHeightView(cssW, cssH, worldW, worldH, centre) {
  const scale = Math.max(1e-6, cssH - 2 * MARGIN_PX) / worldH;
  const half = cssW / 2 / scale;
  const cx = half * 2 >= worldW ? worldW / 2 : Math.min(worldW - half, Math.max(half, centre.x));
  return { cx, cy: worldH / 2, scale };
}
