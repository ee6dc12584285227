// For the experiment page's browser test: tiny real experiments run by
// `swarmcast experiment run` (seconds), and what a canvas on the page has
// drawn.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { runOk } from './headless.mjs';

// Two factors (a heat map), replicates (intervals), a metric that has no
// value without obstacles (min_clearance: empty cells).
export const FACTORIAL = {
  description: 'e2e: two factors',
  scenario: { agents: 40, model: 'reynolds', params: { border: 'wrap' } },
  factors: [{ param: 'w_ali', values: [0.5, 1.5] }, { param: 'w_sep', values: [1, 2, 3] }],
  replicates: 3, master_seed: 1, steps: 60, record_every: 20,
  metrics: ['polarization', 'clusters', 'min_clearance'],
};

// A continuation: ali_radius up then down, for two populations.
export const CONTINUATION = {
  description: 'e2e: up and down',
  scenario: { agents: 40, model: 'reynolds', params: { border: 'wrap' } },
  factors: [{ param: 'ali_radius', first: 10, step: 10, last: 40, sweep: 'up_down' },
    { param: 'agents', values: [30, 40] }],
  replicates: 2, master_seed: 1, steps: 40, warmup: 20, metrics: ['polarization', 'milling'],
};

// Runs to open in a room with the whole run on its timeline: two runs of
// 600 steps, recorded every 150.
export const WATCHED_RUNS = {
  description: 'runs to open in a room',
  scenario: { agents: 60, model: 'reynolds', params: { border: 'wrap' } },
  factors: [{ param: 'w_ali', values: [0.5, 1.5] }],
  replicates: 1, master_seed: 3, steps: 600, record_every: 150,
  metrics: ['polarization', 'milling'],
};

/** Runs `experiment` (an object) in dir/<name>/; returns that output folder. */
export async function runExperiment(dir, name, experiment) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(experiment));
  const out = path.join(dir, name);
  mkdirSync(out, { recursive: true });
  await runOk(['experiment', 'run', file, '--out', out, '--workers', '1'], { timeoutMs: 60000 });
  return out;
}

/**
 * What the canvas at `selector` holds: { drawn: pixels not transparent and
 * not white, colours: how many distinct colours among them, near: pixels
 * within `tolerance` of #rrggbb `hex` (0 without hex) }.
 */
export function canvasInk(page, selector, hex = null, tolerance = 60) {
  return page.evaluate(({ selector, hex, tolerance }) => {
    const c = document.querySelector(selector);
    if (!c || !c.width || !c.height) return { drawn: 0, colours: 0, near: 0 };
    const want = hex ? [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) : null;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let drawn = 0;
    let near = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] === 0 || (d[i] > 245 && d[i + 1] > 245 && d[i + 2] > 245)) continue;
      drawn++;
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (want && Math.abs(d[i] - want[0]) + Math.abs(d[i + 1] - want[1]) + Math.abs(d[i + 2] - want[2]) <= tolerance) near++;
    }
    return { drawn, colours: colours.size, near };
  }, { selector, hex, tolerance });
}
