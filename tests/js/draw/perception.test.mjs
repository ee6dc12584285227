// Tests of key 4's drawing (client-web/draw/perception.js drawPerceptionField):
// which agents get their zones drawn on the viewer's overlay.
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { drawPerceptionField } from '../../../client-web/draw/perception.js';

const PARAMS = { sep_radius: 5, ali_radius: 10, coh_radius: 15, fov_sep: 360, fov_ali: 270, fov_coh: 270 };

// A 2D context that records the centre of every circle drawn.
function recordingContext() {
  const centres = [];
  const noop = () => {};
  return {
    centres,
    save: noop, restore: noop, beginPath: noop, stroke: noop, fill: noop, moveTo: noop, closePath: noop, setLineDash: noop,
    arc(x, y) { centres.push(`${x},${y}`); },
  };
}

// A camera 100 × 100 CSS px at 1 px per world unit, the world's origin at the top left.
const camera = { scale: 1, cssW: 100, cssH: 100, worldToScreen: (x, y) => ({ x, y }) };

function agents(points, mode = 'detail') {
  const n = points.length;
  return {
    mode,
    count: n,
    x: Float32Array.from(points.map((p) => p[0])),
    y: Float32Array.from(points.map((p) => p[1])),
    heading: new Float32Array(n),
  };
}

function agentsDrawn(ctx) {
  return new Set(ctx.centres).size;
}

test('key 4 draws the zones of the agents on screen and skips those off it', () => {
  const ctx = recordingContext();
  drawPerceptionField(ctx, camera, agents([[10, 10], [50, 60], [150, 20], [-5, 40]]), PARAMS);
  assert.deepEqual([...new Set(ctx.centres)].sort(), ['10,10', '50,60']);
});

test('key 4 draws at most the given number of agents, spread over the list', () => {
  const points = Array.from({ length: 400 }, (_, i) => [i % 100, Math.floor(i / 100) * 20]);
  const ctx = recordingContext();
  drawPerceptionField(ctx, camera, agents(points), PARAMS, 10);
  assert.equal(agentsDrawn(ctx), 10);
  // From every row of the picture, not only the first ones in the list.
  const rows = new Set(ctx.centres.map((c) => c.split(',')[1]));
  assert.equal(rows.size, 4);
});

test('key 4 draws nothing for the aggregated view or without the radii', () => {
  const lod = recordingContext();
  drawPerceptionField(lod, camera, agents([[10, 10]], 'lod'), PARAMS);
  assert.equal(lod.centres.length, 0);
  const none = recordingContext();
  drawPerceptionField(none, camera, agents([[10, 10]]), { ...PARAMS, sep_radius: 0 });
  assert.equal(none.centres.length, 0);
});
