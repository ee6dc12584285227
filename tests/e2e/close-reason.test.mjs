// Browser test of the status line when the server turns the page away: the
// server's close reason stays on screen through every retry, until a hello
// ends it.
//
//   SWARMCAST_BIN=build/server/swarmcast node --test tests/e2e/close-reason.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { launchChromium, newPage, waitInPage, closeBrowserAndServer } from '../lib/chromium.mjs';

const T = { timeout: 40000 };
const WAIT_MS = 10000;

let server;
let browser;
let page;
const pageErrors = [];

before(async () => {
  // One viewer at a time: a second one is closed with 1013.
  server = await startServer({ agents: 100, seed: 7, args: ['--max-clients', '1'] });
  browser = await launchChromium();
  page = await newPage(browser, { pageErrors, timeoutMs: WAIT_MS });
});

after(() => closeBrowserAndServer(browser, server));

test('"server full" stays in the status line through the retries and goes with the next hello', T, async () => {
  const hog = await connect(server.wsUrl); // takes the only place
  let released = false;
  try {
    // Every text the status line shows, recorded in the page as it changes.
    await page.addInitScript(() => {
      window.__statusTexts = [];
      new MutationObserver(() => {
        const line = document.querySelector('#status .status-line');
        if (line) window.__statusTexts.push(line.textContent);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(server.httpUrl + '/', { waitUntil: 'load', timeout: WAIT_MS });
    await waitInPage(page, () => window.__statusTexts.some((t) => /\(1013\)/.test(t)), null, 'the first 1013', WAIT_MS);
    // Wait for two more tries: the countdown starts again from a longer
    // delay each time (0.5 s, 1 s, 2 s, …).
    await waitInPage(page, () => {
      let restarts = 0;
      let last = Infinity;
      for (const t of window.__statusTexts) {
        const m = /reconnecting in ([\d.]+)s/.exec(t);
        if (!m) continue;
        const secs = Number(m[1]);
        if (secs > last) restarts++;
        last = secs;
      }
      return restarts >= 2;
    }, null, 'two more tries', 15000);
    const texts = await page.evaluate(() => window.__statusTexts);
    const first = texts.findIndex((t) => /\(1013\)/.test(t));
    const since = texts.slice(first);
    const without = since.filter((t) => !t.startsWith('closed: server full, try again later (1013)'));
    assert.deepEqual(without, [], `every text since the first close names it: ${JSON.stringify(since.slice(0, 12))}`);
    assert.equal(await page.evaluate(() => document.getElementById('status').classList.contains('is-closed')), true);

    hog.close();
    released = true;
    await waitInPage(page, () => window.swarmcast.connected, null, 'the page to get in', 15000);
    await waitInPage(page, () => !/1013/.test(document.querySelector('#status .status-line').textContent),
      null, 'the reason to go', WAIT_MS);
    assert.match(await page.locator('#status .status-line').textContent(), /^connected · client \d+/);
    assert.equal(await page.evaluate(() => document.getElementById('status').classList.contains('is-closed')), false);
    assert.deepEqual(pageErrors, []);
  } finally {
    if (!released) hog.close();
  }
});
