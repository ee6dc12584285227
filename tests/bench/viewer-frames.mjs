// The viewer's frame times: the real server with 1k, 10k and 100k agents,
// simulation paused, the page in headless Chromium at 1400×850, and the
// time between requestAnimationFrame callbacks measured in the page over a
// few seconds while every frame is redrawn in full (the viewer is told each
// frame that the scene changed: a paused world with a still camera would
// otherwise draw nothing at all, which measures nothing). A benchmark, not a
// test: it prints a table and asserts nothing about speed.
//
//   node tests/bench/viewer-frames.mjs [--agents 1000,10000,100000] [--seconds 5]
//                                      [--renderer webgl2|2d] [--wire 1|2] [--running]
//
// --running keeps the simulation stepping (frames arrive and are interpolated).
// --wire 1 makes the page ask for protocol v1 (every agent in every frame).
// SWARMCAST_BIN picks the server binary (default build/server/swarmcast).
import { startServer } from '../lib/server.mjs';
import { launchChromium, waitInPage } from '../lib/chromium.mjs';

function options(argv) {
  const o = { agents: '1000,10000,100000', seconds: 5, renderer: 'webgl2', wire: '2', running: false };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'running') {
      o.running = true;
      continue;
    }
    if (!(key in o) || argv[i + 1] === undefined) {
      console.error('usage: viewer-frames.mjs [--agents N,N,…] [--seconds S] [--renderer webgl2|2d] [--wire 1|2] [--running]');
      process.exit(2);
    }
    o[key] = argv[++i];
  }
  o.seconds = Number(o.seconds);
  o.agents = o.agents.split(',').map(Number);
  return o;
}

// A world with about the default density (1000 agents on 1600×900), so the
// flock looks alike at every size.
function worldFor(agents) {
  const k = Math.sqrt(Math.max(1, agents / 1000));
  return `${Math.round(1600 * k)}x${Math.round(900 * k)}`;
}

// Runs in the page: collects rAF timestamps for `ms`, forcing a full redraw
// each frame; returns the frame intervals and how many renders happened.
function measureInPage(ms) {
  return new Promise((resolve) => {
    const v = window.swarmcast.viewer;
    const times = [];
    const renders0 = v.stats.renders;
    const t0 = performance.now();
    function step(t) {
      times.push(t);
      v.invalidate();
      if (t - t0 < ms) requestAnimationFrame(step);
      else resolve({ times, renders: v.stats.renders - renders0, kind: v.kind, wire: window.swarmcast.hello.protocol ?? 1 });
    }
    requestAnimationFrame(step);
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function measure(browser, o, agents) {
  const server = await startServer({
    agents,
    args: ['--world', worldFor(agents), '--max-agents', String(Math.max(agents, 1000))],
    startTimeoutMs: 30000,
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 850 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    // A budget above the population: agents are drawn, not the aggregated view.
    const q = `?budget=${Math.max(200000, agents)}${o.renderer === '2d' ? '&renderer=2d' : ''}${o.wire === '1' ? '&wire=1' : ''}`;
    await page.goto(server.httpUrl + q);
    await waitInPage(page, (n) => window.swarmcast.agentCount >= n && window.swarmcast.framesDrawn > 0, agents,
      `${agents} agents on the page`, 60000);
    if (!o.running) {
      await page.evaluate(() => window.swarmcast.send({ type: 'pause' }));
      await waitInPage(page, () => window.swarmcast.paused === true, null, 'the pause', 30000);
    }
    await page.waitForTimeout(1000); // let the interpolation buffer play out
    const r = await page.evaluate(measureInPage, o.seconds * 1000);
    const dts = [];
    for (let i = 1; i < r.times.length; i++) dts.push(r.times[i] - r.times[i - 1]);
    dts.sort((a, b) => a - b);
    const median = percentile(dts, 0.5);
    const p95 = percentile(dts, 0.95);
    return { agents, renderer: r.kind, wire: r.wire, frames: dts.length, renders: r.renders, median, p95,
      fps: 1000 / median, errors: errors.length };
  } finally {
    await context.close();
    await server.stop();
  }
}

const o = options(process.argv.slice(2));
const browser = await launchChromium();
const rows = [];
try {
  for (const n of o.agents) rows.push(await measure(browser, o, n));
} finally {
  await browser.close();
}
console.log(`viewer frame times, 1400×850, headless Chromium, ${o.running ? 'simulation running' : 'simulation paused'}, full redraw every frame`);
console.log('agents    renderer  wire  frames  renders  median ms  p95 ms   fps(median)  page errors');
for (const r of rows) {
  console.log(`${String(r.agents).padEnd(9)} ${r.renderer.padEnd(9)} v${r.wire}    ${String(r.frames).padStart(6)}  ${String(r.renders).padStart(7)}  ` +
    `${r.median.toFixed(1).padStart(9)}  ${r.p95.toFixed(1).padStart(6)}   ${r.fps.toFixed(1).padStart(10)}  ${String(r.errors).padStart(11)}`);
}
