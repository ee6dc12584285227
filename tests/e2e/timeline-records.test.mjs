// Browser test of what the page records following the timeline: the metric
// plots (record/plots.js) put a cursor at the scrubbed tick and show the
// values of that moment; a clip of a span of the past (record/capture.js,
// "Record span") records ticks A to B, not the wall-clock minutes drawn.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/timeline-records.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { startServer, sleep } from '../lib/server.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';
import { METRICS, formatMetric } from '../../client-web/record/metrics_log.js';

const T = { timeout: 90000 };
const WAIT_MS = 20000;
const POLAR = METRICS.findIndex((m) => m.key === 'polarization');

let server, browser, page; // one page: its plots hold the metrics it has read since it opened
const [consoleErrors, pageErrors] = [[], []];

before(async () => {
  server = await startServer({ agents: 300, seed: 5, args: ['--keyframe-seconds', '0.5'] });
  browser = await launchChromium();
  page = await newPage(browser, { consoleErrors, pageErrors, timeoutMs: WAIT_MS });
  await page.goto(`${server.httpUrl}/`, { waitUntil: 'load', timeout: WAIT_MS });
  await waitInPage(page, () => window.swarmcast?.connected && window.swarmcast.framesDrawn > 0
    && window.swarmcast.timeline?.available && document.querySelectorAll('#panel .plot canvas').length > 0,
  null, 'the page with its plots and timeline', WAIT_MS);
  // A few seconds of metrics (4 a second by default) for the plots to hold.
  await waitInPage(page, () => window.swarmcast.plots.log.length >= 12, null, 'a dozen metrics messages', WAIT_MS);
});

after(() => closeBrowserAndServer(browser, server));

// Drags the timeline's slider to tick t, as a person would.
function drag(t) {
  return page.evaluate((tick) => {
    const slider = document.querySelector('#timeline .tl-slider');
    slider.value = String(tick);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
  }, t);
}

// The polarization plot: its caption's value, the cursor's x (CSS px) and
// how many pixels of the cursor's colour its canvas has in that column.
function polarizationPlot() {
  return page.evaluate(() => {
    const fig = document.querySelector('#panel figure.plot[data-metric="polarization"]');
    const canvas = fig.querySelector('canvas');
    const x = fig.dataset.cursorX === undefined ? null : Number(fig.dataset.cursorX);
    let ink = 0;
    if (x !== null) {
      const dpr = canvas.width / canvas.getBoundingClientRect().width;
      const col = Math.round(x * dpr);
      const d = canvas.getContext('2d').getImageData(Math.max(0, col - 1), 0, 3, canvas.height).data;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 200 && d[i + 2] > 200) ink++;
    }
    return { text: fig.querySelector('.plot-value').textContent, x, ink, past: fig.classList.contains('is-past') };
  });
}

test('scrubbing moves the plots\' cursor to the tick shown, with the values the page read at that tick', T, async () => {
  // Two metrics messages the page received: their ticks are moments to go back to.
  const rows = await page.evaluate(() => {
    const log = window.swarmcast.plots.log;
    const pick = (r) => ({ tick: log.tick[r], values: log.values.map((col) => col[r]) });
    return [pick(1), pick(log.length - 2)];
  });
  const moments = [];
  for (const row of rows) {
    await drag(row.tick);
    await waitInPage(page, (t) => window.swarmcast.tick === t && window.swarmcast.timeline.mode === 'paused'
      && window.swarmcast.plots.moment()?.tick === t
      && document.querySelector('#panel figure.plot[data-metric="polarization"]').dataset.cursorTick === String(t),
    row.tick, `the page and its plots at tick ${row.tick}`, WAIT_MS);
    const plot = await polarizationPlot();
    const moment = await page.evaluate(() => window.swarmcast.plots.moment());
    assert.equal(moment.metricsTick, row.tick, 'the metrics message of that tick');
    assert.deepEqual(moment.values, row.values);
    assert.equal(plot.text, formatMetric(METRICS[POLAR], row.values[POLAR]), 'the caption gives that moment\'s value');
    assert.ok(plot.past, 'the captions say they are of the past');
    assert.ok(plot.ink >= 10, `the cursor is drawn on the plot (${plot.ink} light pixels in its column)`);
    assert.match(await page.locator('#panel .plots-moment').textContent(), new RegExp(`at tick ${row.tick.toLocaleString('en-US')}`));
    moments.push(plot);
  }
  assert.ok(moments[1].x > moments[0].x + 5, `a later tick is further right (${moments[0].x} → ${moments[1].x})`);

  // A tick between two messages: the values of the newest message before it.
  const between = rows[0].tick + 1;
  await drag(between);
  await waitInPage(page, (t) => window.swarmcast.plots.moment()?.tick === t && window.swarmcast.tick === t, between,
    `the plots at tick ${between}`, WAIT_MS);
  assert.equal((await page.evaluate(() => window.swarmcast.plots.moment())).metricsTick, rows[0].tick);

  // Live again: no cursor, the captions show the newest values.
  await page.click('#timeline .tl-live');
  await waitInPage(page, () => window.swarmcast.timeline.mode === 'live' && window.swarmcast.plots.moment() === null
    && document.querySelector('#panel figure.plot[data-metric="polarization"]').dataset.cursorX === undefined,
  null, 'the plots live again', WAIT_MS);
  assert.equal(await page.locator('#panel .plots-moment').isVisible(), false);
  assert.equal((await polarizationPlot()).past, false);
  assert.deepEqual(pageErrors, []);
});

test('a clip of a scrubbed span records ticks A to B and nothing else, then stays paused on B', T, async () => {
  await page.evaluate(() => { document.querySelector('#panel .section-capture').open = true; });
  const spanBtn = page.locator('#panel .btn-span');
  if (await spanBtn.count() === 0) {
    // No WebM recorder in this Chromium: the clip button says so, and no span row is offered.
    assert.match(await page.locator('#panel .btn-clip').getAttribute('title'), /cannot record/);
    return;
  }
  const { from, to } = await page.evaluate(() => window.swarmcast.timeline);
  const a = Math.max(from, to - 300);
  const b = a + 90; // 1.5 s of the past at 60 ticks a second
  await page.fill('#panel input[name="span-from"]', String(a));
  await page.fill('#panel input[name="span-to"]', String(b));
  const started = Date.now();
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: WAIT_MS }),
    spanBtn.click(),
  ]);
  const took = Date.now() - started;
  const name = download.suggestedFilename();
  const bytes = readFileSync(await download.path());
  assert.match(name, new RegExp(`^swarmcast-ticks-${a}-${b}-.*\\.webm$`));
  assert.deepEqual([...bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3], 'an EBML (WebM) header');
  const span = await page.evaluate(() => window.swarmcast.capture.lastSpan());
  assert.equal(span.done, true);
  assert.equal(span.ticks[0], a, 'the first frame recorded is of tick A');
  assert.equal(span.ticks.at(-1), b, 'the last is of tick B');
  assert.ok(span.ticks.every((t) => t >= a && t <= b), `every frame recorded is of a tick from A to B: ${span.ticks}`);
  assert.ok(span.ticks.length >= 5, `${span.ticks.length} ticks recorded along the span`);
  // Played at 1×: the span's 1.5 s took about that long (not the minutes before it).
  assert.ok(took >= 1200, `recording took ${took} ms`);
  await waitInPage(page, (t) => window.swarmcast.timeline.mode === 'paused' && window.swarmcast.tick === t, b,
    'paused on B', WAIT_MS);
  assert.equal(await page.locator('#panel .btn-clip').textContent(), 'Record clip');

  // A span that is not kept is refused in words, and nothing is recorded.
  await page.fill('#panel input[name="span-from"]', String(b));
  await page.fill('#panel input[name="span-to"]', String(b + 10000000));
  await spanBtn.click();
  await sleep(300);
  assert.match(await page.locator('#status').textContent(), /cannot record that span: B has not happened yet/);
  assert.equal(await page.evaluate(() => window.swarmcast.capture.isRecording()), false);
  assert.deepEqual(pageErrors, []);
});
