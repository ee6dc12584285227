// Screenshot and clip: a PNG of the view, and a WebM video of it recorded
// with MediaRecorder, both downloaded as files.
//
// The picture comes from deps.compose(target): draw the view as shown into
// the 2-D canvas `target` (a renderer that stacks a WebGL canvas and 2-D
// overlays knows how; without one, every canvas with the class `view-layer`
// is composited in document order at its place on the page). A WebGL canvas
// without preserveDrawingBuffer keeps its pixels only until the frame is
// shown, so compose() runs right after a draw, in the same task: the page's
// render loop calls frameDrawn() after each one, and a screenshot asks for a
// redraw and waits for it.
//
// A clip records a compositing canvas of its own (canvas.captureStream), fed
// after every drawn frame; it stops by itself after CLIP_MAX_MS.
//
// A clip of a span of the past ("Record span", with the timeline) records
// ticks A to B, not whatever minutes the page happens to draw: it seeks to
// A, starts recording once the frame of tick A is drawn, plays the past at
// 1× (so the clip lasts as long as the span did), feeds the recorder only
// frames of ticks A…B, and at B seeks exactly to B, records that frame and
// stops (the page stays paused at B). span_clip.js holds its pure rules.

import { downloadBlob, fileStamp } from './download.js';
import { SpanRecording, spanBounds, spanFileName } from './span_clip.js';

export const CLIP_MAX_MS = 60000;
export const CLIP_FPS = 30;
// The first of these the browser can record is used.
const CLIP_TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
const BACKGROUND = '#0b0e14';

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The canvases that make up the view, bottom first.
export function viewLayers(doc = document) {
  const layers = [...doc.querySelectorAll('canvas.view-layer')];
  return layers.length ? layers : [...doc.querySelectorAll('#world')];
}

// Draws the layers into `out` (resized to the layers' union box × scale):
// what a person sees of the view, without the HTML overlays.
export function composite(layers, out, scale = globalThis.devicePixelRatio || 1) {
  const boxes = layers.map((c) => c.getBoundingClientRect()).filter((b) => b.width > 0 && b.height > 0);
  if (boxes.length === 0) return null;
  const x0 = Math.min(...boxes.map((b) => b.left));
  const y0 = Math.min(...boxes.map((b) => b.top));
  const x1 = Math.max(...boxes.map((b) => b.right));
  const y1 = Math.max(...boxes.map((b) => b.bottom));
  const w = Math.max(1, Math.round((x1 - x0) * scale));
  const h = Math.max(1, Math.round((y1 - y0) * scale));
  if (out.width !== w || out.height !== h) {
    out.width = w;
    out.height = h;
  }
  const ctx = out.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, w, h);
  for (const c of layers) {
    const b = c.getBoundingClientRect();
    if (b.width <= 0 || b.height <= 0 || c.width === 0 || c.height === 0) continue;
    ctx.drawImage(c, (b.left - x0) * scale, (b.top - y0) * scale, b.width * scale, b.height * scale);
  }
  return { width: w, height: h };
}

export function clipType(Recorder = globalThis.MediaRecorder) {
  if (typeof Recorder !== 'function' || typeof Recorder.isTypeSupported !== 'function') return null;
  return CLIP_TYPES.find((t) => Recorder.isTypeSupported(t)) ?? null;
}

// The default compose(): the page's view-layer canvases.
export function composeLayers(target) {
  return composite(viewLayers(), target) ? target : null;
}

// deps: { root (element for the buttons), compose(target) → target | null
// (see above; default composeLayers), requestRedraw() (draw the view again
// soon), onNote(text, tone) (a line in the status), now() → ms,
// timeline (optional: the span clip) { state (timeline.js's), send(command),
// tickHz(), shownTick() (the tick of the frame on screen) } }
export function createCapture(deps) {
  const { root, requestRedraw } = deps;
  const compose = deps.compose ?? composeLayers;
  const onNote = deps.onNote ?? (() => {});
  const now = deps.now ?? (() => performance.now());
  const afterDraw = []; // callbacks for the next drawn frame
  let clip = null; // { recorder, canvas, chunks, startedAt, timer, span }
  let lastSpan = null; // the last span clip's SpanRecording (its ticks), for the page's hooks

  const shotBtn = el('button', 'btn btn-screenshot', 'Screenshot');
  shotBtn.type = 'button';
  shotBtn.title = 'save the view as a PNG image';
  shotBtn.dataset.action = 'screenshot';
  const clipBtn = el('button', 'btn btn-clip', 'Record clip');
  clipBtn.type = 'button';
  clipBtn.dataset.action = 'clip';
  clipBtn.setAttribute('aria-pressed', 'false');
  const type = clipType();
  const clipNote = el('p', 'capture-note');
  if (!type) {
    clipBtn.disabled = true;
    clipBtn.title = 'this browser cannot record video (no MediaRecorder for WebM)';
    clipNote.textContent = clipBtn.title;
  } else {
    clipBtn.title = `record the view as a WebM video (at most ${CLIP_MAX_MS / 1000} s); press again to stop and save`;
    clipNote.textContent = `WebM video, up to ${CLIP_MAX_MS / 1000} s.`;
  }
  const row = el('div', 'panel-actions capture-actions');
  row.append(shotBtn, clipBtn);
  root.replaceChildren(row, clipNote);

  // The span of the past: ticks A and B, typed or taken from the moment shown.
  const timeline = deps.timeline ?? null;
  const spanRow = el('div', 'panel-actions capture-span');
  const tickInput = (name, label) => {
    const input = el('input', 'capture-span-tick');
    input.type = 'number';
    input.min = '0';
    input.step = '1';
    input.name = name;
    input.setAttribute('aria-label', label);
    return input;
  };
  const fromInput = tickInput('span-from', 'the span\'s first tick (A)');
  const toInput = tickInput('span-to', 'the span\'s last tick (B)');
  const markBtn = (text, title, input) => {
    const b = el('button', 'btn btn-span-mark', text);
    b.type = 'button';
    b.title = title;
    b.setAttribute('aria-label', title);
    b.addEventListener('click', (ev) => {
      if (ev.detail > 0) b.blur();
      input.value = String(shownTick());
    });
    return b;
  };
  const spanBtn = el('button', 'btn btn-span', 'Record span');
  spanBtn.type = 'button';
  spanBtn.dataset.action = 'clip-span';
  spanBtn.title = 'record ticks A to B of the kept past as a WebM video (played at 1×)';
  // Each end kept together on one line: its letter, its tick, "here".
  const end = (letter, input) => {
    const group = el('span', 'capture-span-end');
    group.append(el('span', 'capture-span-label', letter), input, markBtn('here', `${letter} = the moment shown`, input));
    return group;
  };
  spanRow.append(end('A', fromInput), end('B', toInput), spanBtn);
  if (timeline && type) root.append(spanRow);

  // The tick on screen: the past's while scrubbing, else the newest.
  function shownTick() {
    return timeline.shownTick?.() ?? (timeline.state.mode === 'live' ? timeline.state.to : timeline.state.tick);
  }

  // Runs fn right after the next drawn frame.
  function afterNextDraw(fn) {
    afterDraw.push(fn);
    requestRedraw?.();
  }

  function screenshot() {
    return new Promise((resolve, reject) => {
      afterNextDraw(() => {
        const out = compose(document.createElement('canvas'));
        if (!out || out.width === 0 || out.height === 0) {
          reject(new Error('nothing to capture'));
          return;
        }
        out.toBlob((blob) => {
          if (!blob) {
            reject(new Error('the browser made no PNG'));
            return;
          }
          downloadBlob(blob, `swarmcast-${fileStamp()}.png`);
          resolve({ width: out.width, height: out.height, bytes: blob.size });
        }, 'image/png');
      });
    });
  }

  function startClip(span = null) {
    const canvas = compose(document.createElement('canvas'));
    if (!canvas) return;
    const stream = canvas.captureStream(CLIP_FPS);
    let recorder;
    try {
      recorder = new MediaRecorder(stream, { mimeType: type });
    } catch (err) {
      onNote(`cannot record a clip: ${err.message}`, 'error');
      return;
    }
    const c = { recorder, canvas, chunks: [], startedAt: now(), timer: null, span };
    recorder.ondataavailable = (ev) => {
      if (ev.data && ev.data.size > 0) c.chunks.push(ev.data);
    };
    recorder.onstop = () => {
      for (const track of stream.getTracks()) track.stop();
      const blob = new Blob(c.chunks, { type: 'video/webm' });
      const name = span ? spanFileName(span.from, span.to, fileStamp()) : `swarmcast-${fileStamp()}.webm`;
      if (blob.size > 0) downloadBlob(blob, name);
      else onNote('the clip came out empty', 'error');
    };
    recorder.start(1000);
    c.timer = setInterval(() => {
      const secs = Math.floor((now() - c.startedAt) / 1000);
      clipBtn.textContent = `Stop clip (${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')})`;
      if (now() - c.startedAt >= CLIP_MAX_MS) stopClip();
    }, 250);
    clip = c;
    spanBtn.disabled = true;
    clipBtn.textContent = 'Stop clip (0:00)';
    clipBtn.classList.add('is-recording');
    clipBtn.setAttribute('aria-pressed', 'true');
    requestRedraw?.();
  }

  function stopClip() {
    if (!clip) return;
    const c = clip;
    clip = null;
    clearInterval(c.timer);
    if (c.recorder.state !== 'inactive') c.recorder.stop();
    if (c.span && !c.span.done) {
      c.span.cancel();
      timeline.send({ type: 'timeline', op: 'pause' }); // stopped early: stay where it got to
    }
    spanBtn.disabled = false;
    clipBtn.textContent = 'Record clip';
    clipBtn.classList.remove('is-recording');
    clipBtn.setAttribute('aria-pressed', 'false');
  }

  // Ticks A to B of the past: seek A, record from its frame on, play at 1×.
  function startSpan() {
    if (clip) return false;
    const tickHz = timeline.tickHz?.() ?? 60;
    const bounds = spanBounds(fromInput.value, toInput.value, timeline.state, Math.floor((CLIP_MAX_MS / 1000) * tickHz));
    if (bounds.error) {
      onNote(`cannot record that span: ${bounds.error}`, 'error');
      return false;
    }
    fromInput.value = String(bounds.from);
    toInput.value = String(bounds.to);
    lastSpan = new SpanRecording(bounds.from, bounds.to, (command) => timeline.send(command));
    startClip(lastSpan);
    if (!clip) return false;
    lastSpan.start();
    return true;
  }

  spanBtn.addEventListener('click', (ev) => {
    if (ev.detail > 0) spanBtn.blur();
    startSpan();
  });

  shotBtn.addEventListener('click', (ev) => {
    if (ev.detail > 0) shotBtn.blur();
    screenshot().catch((err) => onNote(`screenshot failed: ${err.message}`, 'error'));
  });
  clipBtn.addEventListener('click', (ev) => {
    if (ev.detail > 0) clipBtn.blur();
    if (clip) stopClip();
    else startClip();
  });

  return {
    screenshot,
    startClip,
    stopClip,
    startSpan,
    isRecording: () => clip !== null,
    // The last span clip: { from, to, ticks (those recorded, in order), done }.
    lastSpan: () => (lastSpan ? { from: lastSpan.from, to: lastSpan.to, ticks: [...lastSpan.ticks], done: lastSpan.done } : null),
    // Called by the render loop right after every drawn frame, with the
    // newest frame's tick and whether the picture is that frame (settled).
    frameDrawn(tick, settled = true) {
      if (clip && !clip.span) compose(clip.canvas);
      else if (clip) {
        const verdict = clip.span.drawn(tick, timeline.state.mode, settled);
        if (verdict.record) compose(clip.canvas);
        // The last frame has reached the canvas: give the recorder a moment
        // to take it before stopping.
        if (verdict.finished) setTimeout(stopClip, 250);
      }
      if (afterDraw.length) for (const fn of afterDraw.splice(0)) fn();
    },
  };
}
