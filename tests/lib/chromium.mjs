// Headless Chromium for the browser tests, through playwright-core (no
// browser download: it drives Debian's /usr/bin/chromium, or
// SWARMCAST_CHROMIUM).
import { chromium } from 'playwright-core';

import { withTimeout } from './server.mjs';

export const CHROMIUM = process.env.SWARMCAST_CHROMIUM || '/usr/bin/chromium';

export function launchChromium() {
  return withTimeout(chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  }), 20000, 'Chromium to start');
}

/**
 * A new 1280x720 page in its own context (its own storage), recording what
 * it logs as an error and what it throws into the given arrays.
 */
export async function newPage(browser, { consoleErrors = [], pageErrors = [], timeoutMs = 10000 } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${JSON.stringify(msg.location())})`);
  });
  page.on('pageerror', (err) => pageErrors.push(String(err?.stack || err)));
  page.setDefaultTimeout(timeoutMs);
  return page;
}

/**
 * Waits until the page-side predicate fn(arg) returns something truthy, and
 * returns that value; fails naming `what` after timeoutMs.
 */
export async function waitInPage(page, fn, arg, what, timeoutMs = 10000) {
  try {
    const h = await page.waitForFunction(fn, arg, { timeout: timeoutMs });
    return await h.jsonValue();
  } catch (e) {
    throw new Error(`timed out waiting for ${what}: ${e.message.split('\n')[0]}`);
  }
}

/** Closes the browser (bounded), then stops the server, whatever failed. */
export async function closeBrowserAndServer(browser, server) {
  try {
    if (browser) await withTimeout(browser.close(), 10000, 'Chromium to close');
  } finally {
    if (server) await server.stop();
  }
}
