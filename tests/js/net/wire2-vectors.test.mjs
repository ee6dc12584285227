// The v2 decoder (client-web/net/wire2.js) against the shared vectors
// protocol/vectors/v2-NAME.json + v2-NAME-K.bin, made by the C encoder
// (tests/tools/wire2_vectors.c): each JSON lists frames to feed one decoder
// in order, with the state expected after each, or {"error": true} for a
// frame the decoder must reject (and then hold the state it had).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { Wire2Decoder, WireError } from '../../../client-web/net/wire2.js';
import { assertState } from './lib/wire2-expect.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = path.resolve(here, '../../../protocol/vectors');
const names = readdirSync(vectorsDir).filter((f) => /^v2-.*\.json$/.test(f)).sort();

test('the v2 vectors cover keys, deltas, chains, LOD, sub-rects, header-only and rejected frames', () => {
  for (const n of ['detail-key', 'detail-delta', 'chain', 'lod', 'subrect', 'no-chunks', 'rejected']) {
    assert.ok(names.includes(`v2-${n}.json`), `protocol/vectors/v2-${n}.json exists`);
  }
});

for (const file of names) {
  test(`decodes the ${file} vector's frames to their expected states`, () => {
    const vec = JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8'));
    const dec = new Wire2Decoder();
    assert.ok(vec.frames.length > 0);
    for (const [i, fr] of vec.frames.entries()) {
      const bin = readFileSync(path.join(vectorsDir, fr.bin));
      const what = `${file} frame ${i} (${fr.bin})`;
      if (fr.expect.error) {
        const before = dec.state;
        assert.throws(() => dec.decode(bin), WireError, `${what} is rejected`);
        assert.equal(dec.state, before, `${what}: state unchanged`);
      } else {
        // From an ArrayBuffer for odd frames, a Node Buffer for even ones.
        const input = i % 2 ? bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.length) : bin;
        assertState(dec.decode(input), fr.expect, what);
      }
    }
  });
}
