// The picture: camera, interpolation, renderer (WebGL2, or Canvas 2D when
// WebGL2 is missing), overlay, minimap and the `view` sent to the server,
// driven by one render() call per animation frame. The camera is
// view/camera.js's; the mouse, touch and keys that move it are input/'s
// (camera_input.js attachViewerInput): draw/ never imports input/.
//
// render() does the drawing work only when something visible changed: a
// new frame whose agents moved, an interpolation still in progress, the
// camera, the scene (obstacles, targets), an overlay asking for it, or
// fading trails. Otherwise it costs a few comparisons: a paused world with a
// still camera draws nothing.

import { Camera } from '../view/camera.js';
import { Interpolator } from './interp.js';
import { createGLRenderer } from './render_gl.js';
import { createRenderer } from './render.js';
import { createOverlay } from './overlay.js';
import { drawTargets, drawStateMarks } from './scene_marks.js';
import { drawPerceptionField } from './perception.js';
import { createMinimap } from './minimap.js';
import { ViewSender } from '../net/view_sender.js';

// After the last movement, trails keep fading (and being drawn) this long.
const TRAIL_FADE_MS = 1300;

function sameMarks(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const p = a[i];
    const q = b[i];
    if (p.x !== q.x || p.y !== q.y || p.id !== q.id || p.radius !== q.radius || p.client_id !== q.client_id) return false;
  }
  return true;
}

// deps: { canvas, overlayCanvas, minimapCanvas, splatCanvas (under canvas: render_gl.js's
//         splat mode), send(command), budget (or null),
//         preferCanvas2d (bool: skip WebGL2) }
export function createViewer(deps, win = globalThis) {
  const { canvas } = deps;
  const camera = new Camera();
  const renderer = (!deps.preferCanvas2d && createGLRenderer(canvas, win, deps.splatCanvas ?? null)) ||
    createRenderer(canvas, win);
  const interp = new Interpolator();
  const overlays = createOverlay(deps.overlayCanvas, win);
  const minimap = deps.minimapCanvas
    ? createMinimap({ canvas: deps.minimapCanvas, under: canvas, camera, onChange() {} }, win)
    : null;
  const viewSender = new ViewSender({ send: deps.send, budget: deps.budget ?? null });
  // trails (key T); radii: perception zones on the overlay (key 4: perception.js);
  // panMode: a left drag pans instead of acting (a "pan" tool sets it).
  const options = { trails: false, radii: false, panMode: false };

  let frame = null; // the newest frame (frames.js)
  let lastCtx = null; // the last render()'s context, for capture()
  const afterRender = []; // fn(now) after every render, same task (see onRender)
  let sceneDirty = true;
  let drawnCamera = -1;
  let lastMoveAt = -Infinity;
  const stats = { renders: 0, framesIn: 0, framesBuffered: 0, why: null };

  // Every client's target; a richer drawing (names, colours) may replace it
  // with viewer.removeDefaultTargets().
  const removeDefaultTargets = overlays.add(drawTargets);
  overlays.add((ctx, cam, state) => {
    if (options.radii) drawPerceptionField(ctx, cam, state.agents, state.params);
  });
  overlays.add(drawStateMarks);

  // The picture as shown (CPU-drawn crowd, WebGL canvas, overlay) in one
  // 2-D canvas of the world canvas's device-pixel size. Must run in the
  // task that rendered: a WebGL canvas is blank to readers afterwards.
  function composite(target) {
    const c = target ?? canvas.ownerDocument.createElement('canvas');
    if (c.width !== canvas.width || c.height !== canvas.height) {
      c.width = canvas.width;
      c.height = canvas.height;
    }
    const g = c.getContext('2d');
    g.fillStyle = '#0b0e14';
    g.fillRect(0, 0, c.width, c.height);
    if (deps.splatCanvas && !deps.splatCanvas.hidden) g.drawImage(deps.splatCanvas, 0, 0, c.width, c.height);
    g.drawImage(canvas, 0, 0, c.width, c.height);
    g.drawImage(deps.overlayCanvas, 0, 0, c.width, c.height);
    return c;
  }

  const viewer = {
    camera,
    overlays,
    options,
    stats,
    viewSender,
    removeDefaultTargets,
    kind: renderer.kind,
    get counts() {
      return renderer.counts;
    },
    get frame() {
      return frame;
    },

    // A new session (hello): forget the old world's frames; v2 servers get views.
    hello(hello) {
      interp.clear();
      frame = null;
      sceneDirty = true;
      viewSender.reset(hello?.protocol === 2);
    },

    // A decoded frame (frames.js) arrived at time now (ms).
    push(fr, now) {
      stats.framesIn += 1;
      if (!frame || !sameMarks(frame.obstacles, fr.obstacles) || !sameMarks(frame.targets, fr.targets) ||
          frame.mode !== fr.mode || frame.paused !== fr.paused) sceneDirty = true;
      if (fr.mode === 'lod') sceneDirty = true; // the density image is not interpolated
      if (interp.push(fr, now)) stats.framesBuffered += 1;
      frame = fr;
    },

    invalidate() {
      sceneDirty = true;
    },

    // Trails on or off (key T: input/camera_input.js attachViewerInput).
    toggleTrails() {
      options.trails = !options.trails;
      sceneDirty = true;
    },

    // True once the interpolation has played out the newest frame: what is
    // drawn now is that frame, and nothing moves until another comes.
    settled(now = performance.now()) {
      return !interp.moving(now) && frame !== null;
    },

    // fn(now) runs right after every render, in the same task: the place to
    // copy the picture (composite()) for a screenshot or a recording.
    onRender(fn) {
      afterRender.push(fn);
    },
    composite,

    // Renders now and returns the composited picture (tests, screenshots).
    capture(target) {
      sceneDirty = true;
      if (lastCtx) viewer.render(performance.now(), lastCtx);
      return composite(target);
    },

    // ctx: { world {width,height} | null, myClientId, hoverObstacleId, live,
    //        params, selected, force (bool), countClasses (bool), markScale
    //        (people's marks' size factor, 1 by default) }.
    // Returns the number of agents drawn, or −1 when nothing needed drawing.
    render(now, ctx) {
      lastCtx = ctx;
      const ww = frame ? frame.width : ctx.world?.width;
      const wh = frame ? frame.height : ctx.world?.height;
      camera.setSize(canvas.clientWidth, canvas.clientHeight, ww ?? 1, wh ?? 1);
      viewSender.update(camera.visibleRect(), now);
      const moving = interp.moving(now);
      if (moving) lastMoveAt = now;
      const trailsFading = options.trails && now - lastMoveAt < TRAIL_FADE_MS;
      const why = ctx.force ? 'forced' : sceneDirty ? 'scene' : moving ? 'moving' : trailsFading ? 'trails'
        : overlays.dirty ? 'overlay' : camera.version !== drawnCamera ? 'camera' : null;
      if (!why) {
        if (minimap) minimap.draw(frame, interp.out, now);
        return -1;
      }
      sceneDirty = false;
      drawnCamera = camera.version;
      const agents = interp.sample(now);
      const drawn = frame
        ? renderer.draw({
            camera, agents, frame, hoverObstacleId: ctx.hoverObstacleId, trails: options.trails, now,
            countClasses: ctx.countClasses,
          })
        : renderer.draw({ camera, agents, frame: null });
      overlays.draw(canvas, camera, {
        frame, agents, world: ctx.world, myClientId: ctx.myClientId, live: ctx.live, params: ctx.params,
        selected: ctx.selected ?? null, markScale: ctx.markScale ?? 1,
      });
      if (minimap) minimap.draw(frame, agents, now);
      stats.renders += 1;
      stats.why = why; // what made the last render necessary (for tests and curious people)
      for (const fn of afterRender) fn(now);
      // The aggregated view shows the agents too, as a density.
      return frame && frame.mode === 'lod' ? Math.max(drawn, frame.population) : drawn;
    },
  };
  return viewer;
}
