// The QR code the presenter's corner draws (client-web/present/qr.js, with
// the npm package qrcode-generator from client-web/node_modules) decodes
// back to the address, read by a real decoder (jsQR, tests/node_modules).
//   node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import jsQR from 'jsqr';

import { QUIET_MODULES, loadQrLibrary, qrModules } from '../../../client-web/present/qr.js';

const libraryFile = fileURLToPath(new URL('../../../client-web/node_modules/qrcode-generator/dist/qrcode.mjs', import.meta.url));
const skip = existsSync(libraryFile) ? false : 'client-web/node_modules not installed (scripts/web-deps.sh)';

// The modules as an RGBA image, px pixels per module, with the quiet zone.
function image(modules, px = 4) {
  const side = (modules.size + 2 * QUIET_MODULES) * px;
  const data = new Uint8ClampedArray(side * side * 4).fill(255);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const r = Math.floor(y / px) - QUIET_MODULES;
      const c = Math.floor(x / px) - QUIET_MODULES;
      if (r >= 0 && c >= 0 && r < modules.size && c < modules.size && modules.dark(r, c)) {
        const i = (y * side + x) * 4;
        data[i] = data[i + 1] = data[i + 2] = 0;
      }
    }
  }
  return { data, side };
}

test('the library loads as an ES module, as the browser loads it', { skip }, async () => {
  const qrcode = await loadQrLibrary(new URL(`file://${libraryFile}`).href);
  assert.equal(typeof qrcode, 'function');
});

test('a join address drawn as modules decodes back to the same address', { skip }, async () => {
  const qrcode = await loadQrLibrary(new URL(`file://${libraryFile}`).href);
  for (const url of ['http://127.0.0.1:8080/', 'https://flock.example.org/',
    `https://example.org/${'a'.repeat(400)}?relays=ws://a/ws,ws://b/ws`]) {
    const m = qrModules(qrcode, url);
    assert.ok(m.size >= 21 && (m.size - 17) % 4 === 0, `a QR code's size is 17 + 4·version (${m.size})`);
    const { data, side } = image(m);
    const read = jsQR(data, side, side);
    assert.ok(read, `jsQR finds the code of ${url.slice(0, 40)}…`);
    assert.equal(read.data, url);
  }
});

test('a library that cannot be loaded gives null, not an exception', async () => {
  assert.equal(await loadQrLibrary('file:///nonexistent/qrcode.mjs'), null);
});
