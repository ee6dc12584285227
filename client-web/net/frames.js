// One shape for what the renderer draws, whichever wire brought it.
//
// A "frame" is { tick, seq, paused, population, width, height,
//   obstacles: [{ id, x, y, radius }], targets: [{ client_id, x, y }],
//   mode: 'detail' | 'lod' | null, rect (v2's, or null), keyed,
//   count, x, y, heading (radians), f (flags), ident, lod (v2's, or null) }.
// Obstacles and targets keep protocol v1's field names because input.js,
// role.js and the browser tests' hooks read them in that shape.
//
// v1 frames carry every agent in id order, so an agent's index is its
// identity as long as the population does not change (adding agents shifts
// the predators listed after them): a changed count is treated as a key.

let identity = new Uint32Array(0);

function identities(n) {
  if (identity.length < n) {
    identity = new Uint32Array(Math.max(n, identity.length * 2));
    for (let i = 0; i < identity.length; i++) identity[i] = i;
  }
  return identity;
}

// prev: the previous frame made by this function (or null).
export function frameFromV1(snap, prev = null) {
  const a = snap.agents;
  return {
    tick: snap.tick,
    seq: prev ? prev.seq + 1 : 0,
    paused: snap.paused,
    population: a.count,
    width: snap.world_width,
    height: snap.world_height,
    obstacles: snap.obstacles,
    targets: snap.targets,
    mode: 'detail',
    rect: null,
    keyed: !prev || prev.count !== a.count || prev.width !== snap.world_width,
    count: a.count,
    x: a.x,
    y: a.y,
    heading: a.heading,
    f: a.flags,
    ident: identities(a.count),
    lod: null,
  };
}

// From Wire2Decoder's state (spec §3). Obstacles and targets are mapped to
// the v1 names once per scene (the decoder keeps the scene object while it
// does not change).
let lastScene = null;
let lastMapped = null;

export function frameFromV2(s) {
  if (s.scene !== lastScene) {
    lastScene = s.scene;
    lastMapped = s.scene
      ? {
          obstacles: s.scene.obstacles.map((o) => ({ id: o.id, x: o.x, y: o.y, radius: o.r ?? o.radius })),
          targets: s.scene.targets.map((t) => ({ client_id: t.clientId ?? t.client_id, x: t.x, y: t.y })),
        }
      : { obstacles: [], targets: [] };
  }
  return {
    tick: s.tick,
    seq: s.seq,
    paused: s.paused,
    population: s.population,
    width: s.scene ? s.scene.width : 0,
    height: s.scene ? s.scene.height : 0,
    obstacles: lastMapped.obstacles,
    targets: lastMapped.targets,
    mode: s.mode,
    rect: s.rect,
    keyed: !!s.keyed,
    count: s.mode === 'detail' ? s.count : 0,
    x: s.x,
    y: s.y,
    heading: s.heading,
    f: s.f,
    ident: s.ident,
    lod: s.mode === 'lod' ? s.lod : null,
  };
}
