// Browser test: a run of a sweep, chosen on the experiment page served by
// a server with --experiments, opens in a new tab showing that run with
// the timeline — at its first tick, the whole run on the bar, any tick of
// it a drag away.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/run-timeline.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { WATCHED_RUNS, runExperiment } from '../lib/experiment_page.mjs';
import { METRICS, formatMetric } from '../../client-web/record/metrics_log.js';

const T = { timeout: 90000 };
const WAIT_MS = 20000;
const STEPS = WATCHED_RUNS.steps;

let dir, out, server, browser;
const [consoleErrors, pageErrors] = [[], []];

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-runtl-'));
  out = await runExperiment(dir, 'sweep', WATCHED_RUNS);
  server = await startServer({ agents: 50, args: ['--experiments', dir] });
  browser = await launchChromium();
});

after(async () => {
  await closeBrowserAndServer(browser, server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a run chosen on the results page opens in a new tab with its whole run on the timeline', T, async () => {
  const page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/experiment.html`, { waitUntil: 'load', timeout: WAIT_MS });
  await page.setInputFiles('#files', [path.join(out, 'summary.csv'), path.join(out, 'results.csv')]);
  await waitInPage(page, () => document.body.dataset.loaded === '2', null, 'the results read', WAIT_MS);
  await page.fill('#ticks input.out-dir', 'sweep');
  const open = page.locator('#ticks .watch-lines li').first().getByRole('button', { name: /open run .* in a new room/ });
  const [tab] = await Promise.all([page.waitForEvent('popup', { timeout: WAIT_MS }), open.click()]);
  tab.on('pageerror', (err) => pageErrors.push(err));
  // The tab lands on the room, paused at the run's first tick …
  await waitInPage(tab, () => /\/r\/[A-Z0-9]{8}\?t=0$/.test(location.pathname + location.search)
    && window.swarmcast?.connected && window.swarmcast.timeline?.available
    && window.swarmcast.timeline.mode === 'paused' && window.swarmcast.tick === 0,
  null, 'the run\'s room at tick 0', WAIT_MS);
  // … with the whole run on the timeline, from its first tick to its last
  // (the room's thread steps it, a slice every tick: the bar's end follows).
  await waitInPage(tab, (steps) => Number(document.querySelector('#timeline .tl-slider').max) === steps, STEPS,
    'the bar to reach the run\'s last tick', WAIT_MS);
  const bar = await tab.evaluate(() => {
    const slider = document.querySelector('#timeline .tl-slider');
    return { min: Number(slider.min), max: Number(slider.max), shown: !document.querySelector('#timeline').hidden };
  });
  assert.deepEqual(bar, { min: 0, max: STEPS, shown: true });
  // A drag to the middle of the run shows that tick.
  await tab.evaluate((t) => {
    const slider = document.querySelector('#timeline .tl-slider');
    slider.value = String(t);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
  }, STEPS / 2);
  await waitInPage(tab, (t) => window.swarmcast.tick === t && window.swarmcast.framesDrawn > 0, STEPS / 2,
    `the run at tick ${STEPS / 2}`, WAIT_MS);
  // The plots give the values of that moment (the server's: the page never
  // saw the run's past live): the run's own, as results.csv has them.
  const runId = await page.locator('#ticks select.runs option').first().getAttribute('value');
  const row = readFileSync(path.join(out, 'results.csv'), 'utf8').split('\n')
    .map((l) => l.split(',')).find((c) => c[0] === runId && Number(c[6]) === STEPS / 2);
  assert.ok(row, `results.csv has run ${runId} at tick ${STEPS / 2}`);
  await waitInPage(tab, (t) => window.swarmcast.plots.moment()?.metricsTick === t, STEPS / 2,
    'the metrics of that tick', WAIT_MS);
  // (the captions follow within a tenth of a second)
  const want = formatMetric(METRICS.find((m) => m.key === 'polarization'), Number(row[7]));
  await waitInPage(tab, (text) => document.querySelector('#panel figure.plot[data-metric="polarization"] .plot-value')
    .textContent === text, want, `the caption to read ${want}`, WAIT_MS);
  // The results page links to the room too (opened as its operator: the token is kept).
  const link = page.locator('#ticks .watch-lines a.room-link');
  assert.match(await link.getAttribute('href'), /\/r\/[A-Z0-9]{8}\?t=0$/);
  assert.equal(await tab.evaluate(() => window.swarmcast.role), 'operator');
  assert.deepEqual(pageErrors, []);
});
