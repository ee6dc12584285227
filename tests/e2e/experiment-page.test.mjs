// Browser test of the experiment page (client-web/experiment.html): tiny
// experiments run by the real `swarmcast experiment run`, their CSVs given
// to the page served by the real server (strict CSP) and opened from disk
// (file://, no server), in headless Chromium.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/experiment-page.test.mjs
// Screenshots are left in tests/e2e/artifacts/ (experiment-*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

import { startServer, webRoot } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { FACTORIAL, CONTINUATION, runExperiment, canvasInk } from '../lib/experiment_page.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(here, 'artifacts');
const T = { timeout: 60000 };
const WAIT_MS = 15000;
// The first two line colours of client-web/experiment/line_chart.js.
const FIRST_LINE = '#0072b2';
const SECOND_LINE = '#d55e00';

let dir;
let factorial;
let continuation;
let server;
let browser;
let page;
const consoleErrors = [];
const pageErrors = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), 'swarmcast-exppage-'));
  factorial = await runExperiment(dir, 'factorial', FACTORIAL);
  continuation = await runExperiment(dir, 'continuation', CONTINUATION);
  server = await startServer({ agents: 50 });
  browser = await launchChromium();
  page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(server.httpUrl + '/experiment.html', { waitUntil: 'load', timeout: WAIT_MS });
});

after(async () => {
  await closeBrowserAndServer(browser, server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const until = (fn, arg, what) => waitInPage(page, fn, arg, what, WAIT_MS);
const legend = (section) => page.locator(`#${section} .u-legend`).innerText();
const plotCanvas = (section) => `#${section} .chart canvas`;

async function choose(...files) {
  await page.setInputFiles('#files', files);
  await until((n) => document.body.dataset.loaded === String(n), files.length, `${files.length} files read`);
}

test('served with the viewer: a metric against a factor, with its interval, one line per value of another', T, async () => {
  await choose(path.join(factorial, 'summary.csv'), path.join(factorial, 'results.csv'));
  assert.match(await page.locator('#status').innerText(), /summary\.csv: 6 design points, factors w_ali, w_sep/);
  assert.equal(await page.locator('#against').isVisible(), true);
  assert.equal(await page.locator('#branches').isVisible(), false, 'no continuation in this file');
  // Polarization against w_ali, one line per w_sep value (the defaults), drawn.
  assert.equal(await page.locator('#against select[name="x"]').inputValue(), 'w_ali');
  assert.equal(await page.locator('#against select[name="by"]').inputValue(), 'w_sep');
  const text = await legend('against');
  for (const v of [1, 2, 3]) assert.match(text, new RegExp(`polarization · w_sep = ${v}`));
  const ink = await canvasInk(page, plotCanvas('against'), FIRST_LINE);
  assert.ok(ink.near > 50, `the first line and its band are drawn (${ink.near} pixels of its colour)`);
  assert.ok(ink.colours > 20, `three lines, bands and axes (${ink.colours} colours)`);
  // Any metric: clusters instead.
  await page.selectOption('#against select[name="metric"]', 'clusters');
  assert.match(await legend('against'), /clusters · w_sep = 1/);
  await page.locator('#against').screenshot({ path: path.join(artifacts, 'experiment-against.png') });
});

test('two factors as a heat map of the mean', T, async () => {
  assert.equal(await page.locator('#heat').isVisible(), true);
  const ink = await canvasInk(page, '#heat canvas');
  assert.ok(ink.drawn > 20000, `cells drawn (${ink.drawn} pixels)`);
  assert.ok(ink.colours >= 6, `the cells differ in colour (${ink.colours} colours)`);
  assert.match(await page.locator('#heat canvas').getAttribute('aria-label'),
    /heat map of the mean of polarization over w_ali and w_sep, from [0-9.]+ to [0-9.]+/);
  // A metric with no values (no obstacles): grey cells, said so.
  await page.selectOption('#heat select[name="metric"]', 'min_clearance');
  assert.match(await page.locator('#heat canvas').getAttribute('aria-label'), /min_clearance .*: no values/);
  await page.selectOption('#heat select[name="metric"]', 'polarization');
  await page.locator('#heat').screenshot({ path: path.join(artifacts, 'experiment-heat.png') });
});

test('results.csv: a metric over ticks for the chosen runs', T, async () => {
  assert.equal(await page.locator('#ticks').isVisible(), true);
  assert.equal(await page.locator('#ticks select.runs option').count(), 18);
  assert.equal((await legend('ticks')).match(/polarization · [0-9a-f]{16}/g).length, 3, 'the first three runs');
  await page.selectOption('#ticks select.runs', { index: 5 });
  assert.equal((await legend('ticks')).match(/polarization · [0-9a-f]{16}/g).length, 1);
  assert.ok((await canvasInk(page, plotCanvas('ticks'), FIRST_LINE)).near > 30);
  // The chosen run's line to watch it live, with the folder typed in.
  const runId = await page.locator('#ticks select.runs option').nth(5).getAttribute('value');
  await page.fill('#ticks input.out-dir', 'sweep results');
  assert.equal(await page.locator('#ticks .watch-lines li code').count(), 1);
  assert.equal(await page.locator('#ticks .watch-lines li code').innerText(),
    `swarmcast experiment scenario 'sweep results' ${runId} > run.json && swarmcast --scenario run.json`);
  await page.locator('#ticks').screenshot({ path: path.join(artifacts, 'experiment-ticks.png') });
});

test('a continuation: the up and the down branch as two lines against the swept value', T, async () => {
  await choose(path.join(continuation, 'summary.csv'));
  assert.match(await page.locator('#status').innerText(), /a continuation over ali_radius/);
  assert.equal(await page.locator('#branches').isVisible(), true);
  const text = await legend('branches');
  assert.match(text, /polarization · up/);
  assert.match(text, /polarization · down/);
  assert.ok((await canvasInk(page, plotCanvas('branches'), FIRST_LINE)).near > 30, 'the up branch is drawn');
  assert.ok((await canvasInk(page, plotCanvas('branches'), SECOND_LINE)).near > 30, 'the down branch is drawn');
  // The other factor is held at its first value; "(any)" is there for sampled designs.
  assert.deepEqual(await page.locator('#branches select[name="fixed:agents"] option').allInnerTexts(), ['(any)', '30', '40']);
  assert.equal(await page.locator('#branches select[name="fixed:agents"]').inputValue(), '30');
  await page.selectOption('#branches select[name="fixed:agents"]', '(any)');
  assert.match(await page.locator('#branches .collide').innerText(), /Several design points fall on one place/);
  await page.selectOption('#branches select[name="fixed:agents"]', '40');
  assert.equal(await page.locator('#branches .collide').innerText(), '');
  await page.locator('#branches').screenshot({ path: path.join(artifacts, 'experiment-branches.png') });
});

test('opened from disk (file://), no server: a summary dropped on the page is plotted; a wrong file is refused', T, async () => {
  const local = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  try {
    await local.goto(pathToFileURL(path.join(webRoot, 'experiment.html')).href, { waitUntil: 'load', timeout: WAIT_MS });
    // In the page: the browser's File (window.File, not Node's).
    const drop = (name, text) => local.evaluate(({ name, text }) => {
      const dt = new window.DataTransfer();
      dt.items.add(new window.File([text], name, { type: 'text/csv' }));
      document.body.dispatchEvent(new window.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, { name, text });
    await drop('summary.csv', readFileSync(path.join(continuation, 'summary.csv'), 'utf8'));
    await waitInPage(local, () => document.body.dataset.loaded === '1', null, 'the dropped file read', WAIT_MS);
    assert.match(await local.locator('#branches .u-legend').innerText(), /polarization · down/);
    assert.ok((await canvasInk(local, plotCanvas('branches'), SECOND_LINE)).near > 30);
    await drop('notes.csv', 'tick,polarization\n1,0.5\n');
    await waitInPage(local, () => document.getElementById('status').classList.contains('error'), null, 'the refusal', WAIT_MS);
    assert.match(await local.locator('#status').innerText(), /notes\.csv: not a summary\.csv or results\.csv/);
  } finally {
    await local.context().close();
  }
});

test('the viewer links to the page', T, async () => {
  const viewer = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  try {
    await viewer.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
    await waitInPage(viewer, () => document.querySelector('a.plots-experiment-link'), null, 'the link in the panel', WAIT_MS);
    const href = await viewer.locator('a.plots-experiment-link').evaluate((a) => a.href);
    assert.equal(href, server.httpUrl + '/experiment.html');
    await viewer.goto(href, { waitUntil: 'load', timeout: WAIT_MS });
    assert.equal(await viewer.locator('h1').innerText(), 'Experiment results');
  } finally {
    await viewer.context().close();
  }
});

test('no console errors and no uncaught exceptions', () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(pageErrors, []);
});
