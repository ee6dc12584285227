// WebGL2 drawing of the world: one instanced draw call for all the agents
// (a triangle each, coloured by species; leaders and predators larger and
// on top), one for the obstacles, the LOD density texture with heading
// ticks, and fading trails in an off-screen framebuffer.
//
// Per frame the CPU writes each agent's x, y, heading and flags three times
// (once per corner of its triangle) into one buffer and draws it with one
// call; class, colour, size, rotation and the corner (gl_VertexID % 3) are
// worked out in the vertex shader. Not instanced drawing: SwiftShader (the
// software WebGL of headless and GPU-less browsers) runs its whole pipeline
// once per instance, which made 10,000 instances take ~650 ms a frame; the
// same triangles as one plain draw take a few ms.
//
// createGLRenderer() returns null when WebGL2 is missing (render.js, the
// Canvas 2D renderer, takes over).

import { AGENT_LENGTH, COLORS, LEADER_SCALE, MAX_AGENT_PX, MIN_AGENT_PX, PREDATOR_SCALE, SPECIES_COLORS } from './palette.js';
import { Splatter } from './splat.js';

// LOD: a heading tick is drawn in a cell with at least this density code
// (d = 1 + 4·log2(count): 9 ≈ 4 agents) and this many CSS px across.
const TICK_MIN_D = 9;
const TICK_MIN_CELL_PX = 8;
// Crowds of at least this many agents drawn at most this many device pixels
// long are stamped on the CPU (splat.js) instead of drawn as triangles.
const SPLAT_MIN_AGENTS = 4000;
const SPLAT_MAX_PX = 9;
// Trails lose this much opacity per second (linear fade, so they vanish
// completely instead of leaving 8-bit residue).
const TRAIL_FADE_PER_S = 0.8;

function rgba(hex, a = 1) {
  const n = parseInt(hex.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255, a];
}

const AGENT_VS = `#version 300 es
layout(location=0) in vec4 a_agent; // x, y (world units), heading (rad), flags
uniform vec2 u_css;      // canvas size, CSS px
uniform vec3 u_cam;      // scale, offsetX, offsetY
uniform float u_len;     // agent length, CSS px
uniform vec4 u_colors[6];
uniform vec4 u_tint;     // a > 0: every instance in this colour (LOD ticks)
out vec4 v_color;
// The agent's triangle: nose ahead of the centre, back corners behind.
const vec2 CORNERS[3] = vec2[3](vec2(0.6, 0.0), vec2(-0.4, 0.275), vec2(-0.4, -0.275));
void main() {
  float a_x = a_agent.x, a_y = a_agent.y, a_h = a_agent.z;
  vec2 a_corner = CORNERS[gl_VertexID % 3];
  int fl = int(a_agent.w + 0.5);
  int cls = (fl & 8) != 0 ? 5 : (fl & 1) != 0 ? 4 : (fl >> 1) & 3;
  float size = cls == 5 ? ${PREDATOR_SCALE.toFixed(2)} : cls == 4 ? ${LEADER_SCALE.toFixed(2)} : 1.0;
  float c = cos(a_h), s = sin(a_h);
  vec2 local = a_corner * u_len * size;
  vec2 p = vec2(a_x, a_y) * u_cam.x + u_cam.yz + vec2(local.x * c - local.y * s, local.x * s + local.y * c);
  vec2 clip = p / u_css * 2.0 - 1.0;
  // Predators over leaders over the crowd.
  float z = cls == 5 ? -0.5 : cls == 4 ? -0.25 : 0.0;
  gl_Position = vec4(clip.x, -clip.y, z, 1.0);
  v_color = u_tint.a > 0.0 ? u_tint : u_colors[cls];
}`;

const COLOR_FS = `#version 300 es
precision mediump float;
in vec4 v_color;
uniform float u_alpha;
out vec4 o;
void main() { o = vec4(v_color.rgb * v_color.a * u_alpha, v_color.a * u_alpha); }`;

const CIRCLE_VS = `#version 300 es
layout(location=0) in vec2 a_corner;
layout(location=1) in vec4 a_circle; // x, y, r (world), hovered
uniform vec2 u_css;
uniform vec3 u_cam;
out vec2 v_uv;
out float v_hover;
out float v_rpx;
void main() {
  vec2 p = (a_circle.xy + a_corner * a_circle.z) * u_cam.x + u_cam.yz;
  vec2 clip = p / u_css * 2.0 - 1.0;
  gl_Position = vec4(clip.x, -clip.y, 0.5, 1.0);
  v_uv = a_corner;
  v_hover = a_circle.w;
  v_rpx = a_circle.z * u_cam.x;
}`;

const CIRCLE_FS = `#version 300 es
precision mediump float;
in vec2 v_uv;
in float v_hover;
in float v_rpx;
uniform vec4 u_fill;
uniform vec4 u_edge;
out vec4 o;
void main() {
  float d = length(v_uv);
  if (d > 1.0) discard;
  float edge = v_hover > 0.5 && d * v_rpx > v_rpx - 2.0 ? 1.0 : 0.0;
  o = mix(u_fill, u_edge, edge);
}`;

// A world-space rectangle with a texture coordinate (LOD, world background)
// or a screen-filling one (trails).
const QUAD_VS = `#version 300 es
layout(location=0) in vec2 a_corner; // 0..1
uniform vec2 u_css;
uniform vec3 u_cam;
uniform vec4 u_rect;  // x, y, w, h in world units; u_cam.x = 0: clip space
out vec2 v_uv;
void main() {
  v_uv = a_corner;
  if (u_cam.x == 0.0) { gl_Position = vec4(a_corner * 2.0 - 1.0, 0.9, 1.0); return; }
  vec2 p = (u_rect.xy + a_corner * u_rect.zw) * u_cam.x + u_cam.yz;
  vec2 clip = p / u_css * 2.0 - 1.0;
  gl_Position = vec4(clip.x, -clip.y, 0.9, 1.0);
}`;

const QUAD_FS = `#version 300 es
precision mediump float;
in vec2 v_uv;
uniform int u_mode;        // 0 flat colour, 1 LOD density, 2 texture (trails)
uniform vec4 u_color;
uniform vec4 u_hot;
uniform sampler2D u_tex;
out vec4 o;
void main() {
  if (u_mode == 0) { o = u_color; return; }
  if (u_mode == 2) { o = texture(u_tex, v_uv); return; }
  float d = texture(u_tex, v_uv).r * 255.0;
  if (d < 0.5) discard;
  // d = 1 + 4·log2(count): a ramp from the species blue to near white.
  float t = clamp((d - 1.0) / 40.0, 0.0, 1.0);
  vec3 c = mix(u_color.rgb, u_hot.rgb, t * t);
  float a = 0.25 + 0.75 * clamp((d - 1.0) / 16.0, 0.0, 1.0);
  o = vec4(c * a, a);
}`;

// A colour as RGBA bytes in one little-endian Uint32 (splat.js's pixels).
function packHex(c) {
  const [r, g, b] = rgba(c).map((v) => Math.round(v * 255));
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

function compile(gl, vs, fs) {
  const p = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
    gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(p));
  const u = {};
  const n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < n; i++) {
    const name = gl.getActiveUniform(p, i).name.replace(/\[0\]$/, '');
    u[name] = gl.getUniformLocation(p, name);
  }
  return { p, u };
}

// A growable GPU buffer fed from a typed array's first n elements.
class StreamBuffer {
  constructor(gl) {
    this.gl = gl;
    this.buf = gl.createBuffer();
    this.cap = 0;
  }

  upload(arr, n) {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    const bytes = n * arr.BYTES_PER_ELEMENT;
    if (bytes > this.cap) {
      this.cap = Math.max(bytes, this.cap * 2, 1024);
      gl.bufferData(gl.ARRAY_BUFFER, this.cap, gl.DYNAMIC_DRAW);
    }
    if (n > 0) gl.bufferSubData(gl.ARRAY_BUFFER, 0, arr, 0, n);
  }
}

// splatCanvas: a 2-D canvas right under `canvas`, for the splat mode (or null:
// never splat).
export function createGLRenderer(canvas, win = globalThis, splatCanvas = null) {
  let gl;
  try {
    // alpha: the splat canvas underneath shows through while this one is clear.
    gl = canvas.getContext('webgl2', { alpha: true, antialias: false, preserveDrawingBuffer: false, premultipliedAlpha: true });
  } catch {
    gl = null;
  }
  if (!gl) return null;

  const agentProg = compile(gl, AGENT_VS, COLOR_FS);
  const circleProg = compile(gl, CIRCLE_VS, CIRCLE_FS);
  const quadProg = compile(gl, QUAD_VS, QUAD_FS);

  const bAgents = new StreamBuffer(gl);
  const bTicks = new StreamBuffer(gl);
  const bCircles = new StreamBuffer(gl);
  // x, y, heading, flags per vertex, three vertices per agent (or LOD tick).
  let agentVerts = new Float32Array(0);
  let tickVerts = new Float32Array(0);

  function staticBuffer(data) {
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STATIC_DRAW);
    return b;
  }
  const square = staticBuffer([-1, -1, 1, -1, -1, 1, 1, 1]);
  const unitQuad = staticBuffer([0, 0, 1, 0, 0, 1, 1, 1]);

  function floatAttr(loc, buffer, size, divisor, type = gl.FLOAT) {
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, size, type, false, 0, 0);
    gl.vertexAttribDivisor(loc, divisor);
  }

  const agentVao = gl.createVertexArray();
  gl.bindVertexArray(agentVao);
  floatAttr(0, bAgents.buf, 4, 0);
  const tickVao = gl.createVertexArray();
  gl.bindVertexArray(tickVao);
  floatAttr(0, bTicks.buf, 4, 0);

  const circleVao = gl.createVertexArray();
  gl.bindVertexArray(circleVao);
  floatAttr(0, square, 2, 0);
  floatAttr(1, bCircles.buf, 4, 1);

  const quadVao = gl.createVertexArray();
  gl.bindVertexArray(quadVao);
  floatAttr(0, unitQuad, 2, 0);
  gl.bindVertexArray(null);

  const lodTex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, lodTex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);

  // Trails: an RGBA texture the size of the drawing buffer.
  const trail = { tex: null, fbo: null, w: 0, h: 0, camVersion: -1, lastT: 0 };

  const colors = new Float32Array(24);
  const classHex = [...SPECIES_COLORS, COLORS.leader, COLORS.predator];
  classHex.forEach((c, i) => colors.set(rgba(c), i * 4));
  // The same colours as RGBA bytes in one little-endian Uint32, for splat.js.
  const packed = new Uint32Array(classHex.map((c) => packHex(c)));
  const splatter = new Splatter();
  const splat = { ctx: splatCanvas ? splatCanvas.getContext('2d', { alpha: false }) : null, image: null, on: false };
  const splatWorld = {
    width: 1, height: 1, color: packHex(COLORS.world), background: packHex(COLORS.background),
    obstacles: [], obstacleColor: packHex(COLORS.obstacle),
  };
  const counts = new Uint32Array(6);
  const circles = new Float32Array(0);
  let circleData = circles;

  function fitCanvas() {
    const dpr = win.devicePixelRatio || 1;
    const cssW = canvas.clientWidth || 1;
    const cssH = canvas.clientHeight || 1;
    const w = Math.max(1, Math.round(cssW * dpr));
    const h = Math.max(1, Math.round(cssH * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    gl.viewport(0, 0, w, h);
    return { cssW, cssH, w, h };
  }

  function setCam(prog, size, cam) {
    gl.uniform2f(prog.u.u_css, size.cssW, size.cssH);
    gl.uniform3f(prog.u.u_cam, cam.scale, cam.offsetX, cam.offsetY);
  }

  function ensureTrail(size) {
    if (trail.tex && trail.w === size.w && trail.h === size.h) return;
    if (trail.tex) gl.deleteTexture(trail.tex);
    if (trail.fbo) gl.deleteFramebuffer(trail.fbo);
    trail.tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, trail.tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, size.w, size.h, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    trail.fbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, trail.fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, trail.tex, 0);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    trail.w = size.w;
    trail.h = size.h;
    trail.camVersion = -1;
  }

  function drawAgentInstances(vao, n, size, cam, lenPx, alpha, tint) {
    gl.useProgram(agentProg.p);
    setCam(agentProg, size, cam);
    gl.uniform1f(agentProg.u.u_len, lenPx);
    gl.uniform4fv(agentProg.u.u_colors, colors);
    gl.uniform4fv(agentProg.u.u_tint, tint ?? [0, 0, 0, 0]);
    gl.uniform1f(agentProg.u.u_alpha, alpha);
    gl.bindVertexArray(vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3 * n);
  }

  function drawQuad(size, cam, rect, mode, color, hot, tex) {
    gl.useProgram(quadProg.p);
    gl.uniform2f(quadProg.u.u_css, size.cssW, size.cssH);
    if (cam) gl.uniform3f(quadProg.u.u_cam, cam.scale, cam.offsetX, cam.offsetY);
    else gl.uniform3f(quadProg.u.u_cam, 0, 0, 0);
    gl.uniform4f(quadProg.u.u_rect, rect.x, rect.y, rect.w, rect.h);
    gl.uniform1i(quadProg.u.u_mode, mode);
    if (color) gl.uniform4fv(quadProg.u.u_color, color);
    if (hot) gl.uniform4fv(quadProg.u.u_hot, hot);
    if (tex) {
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.uniform1i(quadProg.u.u_tex, 0);
    }
    gl.bindVertexArray(quadVao);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  }

  function drawLod(frame, size, cam) {
    const { lod, rect } = frame;
    if (!lod || !rect || lod.cols <= 0 || lod.rows <= 0) return;
    // Uploaded every time: the decoder may update its array in place, and
    // a few thousand bytes cost nothing.
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, lodTex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8, lod.cols, lod.rows, 0, gl.RED, gl.UNSIGNED_BYTE, lod.d.subarray(0, lod.cols * lod.rows));
    drawQuad(size, cam, rect, 1, rgba(SPECIES_COLORS[0], 1), [0.95, 0.97, 1, 1], lodTex);
    const cellW = rect.w / lod.cols;
    const cellH = rect.h / lod.rows;
    if (Math.min(cellW, cellH) * cam.scale < TICK_MIN_CELL_PX) return;
    const n = lod.cols * lod.rows;
    if (tickVerts.length < n * 12) tickVerts = new Float32Array(n * 12);
    let k = 0;
    for (let r = 0; r < lod.rows; r++) {
      for (let c = 0; c < lod.cols; c++) {
        const i = r * lod.cols + c;
        if (lod.d[i] < TICK_MIN_D) continue;
        const x = rect.x + (c + 0.5) * cellW;
        const y = rect.y + (r + 0.5) * cellH;
        const h = (lod.a[i] * 2 * Math.PI) / 64;
        for (let v = 0, o = k * 12; v < 3; v++, o += 4) {
          tickVerts[o] = x;
          tickVerts[o + 1] = y;
          tickVerts[o + 2] = h;
          tickVerts[o + 3] = 0;
        }
        k++;
      }
    }
    bTicks.upload(tickVerts, k * 12);
    drawAgentInstances(tickVao, k, size, cam, Math.min(cellW, cellH) * cam.scale * 0.85, 1, [0.04, 0.05, 0.08, 0.9]);
  }

  function drawSplat(agents, n, size, cam, lenPx, frame) {
    splatWorld.width = frame.width;
    splatWorld.height = frame.height;
    splatWorld.obstacles = frame.obstacles;
    const bytes = splatter.render(agents, n, size.w, size.h, cam, size.w / size.cssW, lenPx, packed, splatWorld);
    const sc = splatCanvas;
    if (sc.width !== size.w || sc.height !== size.h) {
      sc.width = size.w;
      sc.height = size.h;
    }
    if (sc.style.width !== `${size.cssW}px` || sc.style.height !== `${size.cssH}px`) {
      sc.style.width = `${size.cssW}px`;
      sc.style.height = `${size.cssH}px`;
    }
    if (!splat.image || splat.image.data.buffer !== bytes.buffer) {
      splat.image = new ImageData(new Uint8ClampedArray(bytes.buffer, 0, size.w * size.h * 4), size.w, size.h);
    }
    splat.ctx.putImageData(splat.image, 0, 0);
    if (!splat.on) {
      splat.on = true;
      sc.hidden = false;
    }
  }

  // scene: { camera, agents (interp.js output), frame (frames.js) or null,
  //   hoverObstacleId, trails (bool), now (ms), agentsChanged (bool) }.
  // Returns the number of agents drawn.
  function draw(scene) {
    const size = fitCanvas();
    const cam = scene.camera;
    const frame = scene.frame;
    const agents = scene.agents;
    const lenPx = Math.min(MAX_AGENT_PX, Math.max(MIN_AGENT_PX, AGENT_LENGTH * cam.scale));
    const n = frame && agents.mode === 'detail' ? agents.count : 0;
    const useSplat = splat.ctx !== null && !scene.trails && n >= SPLAT_MIN_AGENTS &&
      lenPx * (size.w / size.cssW) <= SPLAT_MAX_PX;
    if (useSplat) {
      // The whole picture comes from the CPU (splat.js) on the canvas
      // underneath; this one is cleared once and left alone, so the
      // browser has nothing of it to read back.
      drawSplat(agents, n, size, cam, lenPx, frame);
      if (!splat.glClear) {
        gl.clearColor(0, 0, 0, 0);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        splat.glClear = true;
      }
      if (scene.countClasses) classCounts(agents.f, n);
      return n;
    }
    if (splat.on) {
      splat.on = false;
      splatCanvas.hidden = true;
    }
    splat.glClear = false;
    gl.disable(gl.DEPTH_TEST);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    const bg = rgba(COLORS.background);
    gl.clearColor(bg[0], bg[1], bg[2], 1);
    gl.clearDepth(1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if (!frame) return 0;
    {
      // The world's rectangle by a scissored clear: software WebGL clears
      // far faster than it shades a screen-sized quad.
      const dpr = size.w / size.cssW;
      const x0 = Math.max(0, Math.floor(cam.offsetX * dpr));
      const y1 = Math.min(size.h, Math.ceil((cam.offsetY + frame.height * cam.scale) * dpr));
      const x1 = Math.min(size.w, Math.ceil((cam.offsetX + frame.width * cam.scale) * dpr));
      const y0 = Math.max(0, Math.floor(cam.offsetY * dpr));
      if (x1 > x0 && y1 > y0) {
        const wc = rgba(COLORS.world);
        gl.enable(gl.SCISSOR_TEST);
        gl.scissor(x0, size.h - y1, x1 - x0, y1 - y0); // GL rows count from the bottom
        gl.clearColor(wc[0], wc[1], wc[2], 1);
        gl.clear(gl.COLOR_BUFFER_BIT);
        gl.disable(gl.SCISSOR_TEST);
      }
    }
    if (n > 0) {
      if (agentVerts.length < n * 12) agentVerts = new Float32Array(Math.max(n * 12, agentVerts.length * 2));
      const { x, y, heading, f } = agents;
      const v = agentVerts;
      for (let i = 0, o = 0; i < n; i++) {
        const xi = x[i];
        const yi = y[i];
        const hi = heading[i];
        const fi = f[i];
        v[o] = xi; v[o + 1] = yi; v[o + 2] = hi; v[o + 3] = fi;
        v[o + 4] = xi; v[o + 5] = yi; v[o + 6] = hi; v[o + 7] = fi;
        v[o + 8] = xi; v[o + 9] = yi; v[o + 10] = hi; v[o + 11] = fi;
        o += 12;
      }
      bAgents.upload(agentVerts, n * 12);
    }

    if (scene.trails && n > 0) {
      ensureTrail(size);
      // The trail texture must not stay bound while drawing into it (a
      // feedback loop, refused by WebGL even when nothing samples it).
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, null);
      gl.bindFramebuffer(gl.FRAMEBUFFER, trail.fbo);
      gl.viewport(0, 0, size.w, size.h);
      if (trail.camVersion !== cam.version) {
        // Trails are in screen space: a moved camera starts them afresh.
        gl.clearColor(0, 0, 0, 0);
        gl.clear(gl.COLOR_BUFFER_BIT);
        trail.camVersion = cam.version;
        trail.lastT = scene.now;
      } else {
        const fade = Math.min(1, ((scene.now - trail.lastT) / 1000) * TRAIL_FADE_PER_S);
        trail.lastT = scene.now;
        gl.blendEquation(gl.FUNC_REVERSE_SUBTRACT);
        gl.blendFunc(gl.ONE, gl.ONE);
        drawQuad(size, null, { x: 0, y: 0, w: 1, h: 1 }, 0, [fade, fade, fade, fade]);
        gl.blendEquation(gl.FUNC_ADD);
        gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
      }
      drawAgentInstances(agentVao, n, size, cam, Math.max(3, lenPx * 0.5), 0.5, null);
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.viewport(0, 0, size.w, size.h);
      drawQuad(size, null, { x: 0, y: 0, w: 1, h: 1 }, 2, null, null, trail.tex);
    }

    // Obstacles under the agents.
    const obs = frame.obstacles;
    if (obs.length > 0) {
      if (circleData.length < obs.length * 4) circleData = new Float32Array(obs.length * 8);
      for (let i = 0; i < obs.length; i++) {
        const o = obs[i];
        circleData.set([o.x, o.y, o.radius, o.id === scene.hoverObstacleId ? 1 : 0], i * 4);
      }
      bCircles.upload(circleData, obs.length * 4);
      gl.useProgram(circleProg.p);
      setCam(circleProg, size, cam);
      gl.uniform4fv(circleProg.u.u_fill, rgba(COLORS.obstacle));
      gl.uniform4fv(circleProg.u.u_edge, rgba(COLORS.obstacleHover));
      gl.bindVertexArray(circleVao);
      gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, obs.length);
    }

    if (frame.mode === 'lod') drawLod(frame, size, cam);

    if (n > 0) {
      gl.enable(gl.DEPTH_TEST);
      gl.depthFunc(gl.LEQUAL);
      drawAgentInstances(agentVao, n, size, cam, lenPx, 1, null);
      gl.disable(gl.DEPTH_TEST);
    }
    gl.bindVertexArray(null);
    if (scene.countClasses) classCounts(agents.f, n);
    return n;
  }

  // Agents per class (species 0–3, leaders, predators), for the legend.
  function classCounts(f, n) {
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const fl = f[i];
      counts[fl & 8 ? 5 : fl & 1 ? 4 : (fl >> 1) & 3]++;
    }
  }

  return { kind: 'webgl2', draw, counts, trailsActive: () => trail.tex !== null };
}
