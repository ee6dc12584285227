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

import { downloadBlob, fileStamp } from './download.js';

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
// soon), onNote(text, tone) (a line in the status), now() → ms }
export function createCapture(deps) {
  const { root, requestRedraw } = deps;
  const compose = deps.compose ?? composeLayers;
  const onNote = deps.onNote ?? (() => {});
  const now = deps.now ?? (() => performance.now());
  const afterDraw = []; // callbacks for the next drawn frame
  let clip = null; // { recorder, canvas, chunks, startedAt, timer }

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

  function startClip() {
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
    const c = { recorder, canvas, chunks: [], startedAt: now(), timer: null };
    recorder.ondataavailable = (ev) => {
      if (ev.data && ev.data.size > 0) c.chunks.push(ev.data);
    };
    recorder.onstop = () => {
      for (const track of stream.getTracks()) track.stop();
      const blob = new Blob(c.chunks, { type: 'video/webm' });
      if (blob.size > 0) downloadBlob(blob, `swarmcast-${fileStamp()}.webm`);
      else onNote('the clip came out empty', 'error');
    };
    recorder.start(1000);
    c.timer = setInterval(() => {
      const secs = Math.floor((now() - c.startedAt) / 1000);
      clipBtn.textContent = `Stop clip (${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')})`;
      if (now() - c.startedAt >= CLIP_MAX_MS) stopClip();
    }, 250);
    clip = c;
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
    clipBtn.textContent = 'Record clip';
    clipBtn.classList.remove('is-recording');
    clipBtn.setAttribute('aria-pressed', 'false');
  }

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
    isRecording: () => clip !== null,
    // Called by the render loop right after every drawn frame.
    frameDrawn() {
      if (clip) compose(clip.canvas);
      if (afterDraw.length) for (const fn of afterDraw.splice(0)) fn();
    },
  };
}
