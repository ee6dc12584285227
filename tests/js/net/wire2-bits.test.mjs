// The v2 decoder's bit primitives (client-web/net/wire2.js, BitReader) against
// streams written by the test-only writer: u(n), EG(k), SE(k), LSB-first.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BitReader, WireError } from '../../../client-web/net/wire2.js';
import { BitWriter } from './lib/wire2-writer.mjs';

const EDGE_VALUES = [0, 1, 2, 3, 7, 8, 15, 16, 255, 256, 1023, 65535, 65536, 2 ** 24 - 1, 2 ** 24,
  2 ** 30 - 1, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1];

function reader(w) {
  return new BitReader().attach(w.bytes());
}

test('bits are read least significant first: bit i is bit i&7 of byte i>>3', () => {
  const r = new BitReader().attach(Uint8Array.of(0b10110010, 0x01));
  assert.deepEqual([r.u(1), r.u(1), r.u(2), r.u(4)], [0, 1, 0, 0b1011]);
  assert.equal(r.u(1), 1);
  assert.equal(r.u(7), 0);
  assert.throws(() => r.u(1), WireError, 'a read past the end throws');
});

test('u(n) round-trips every width from 0 to 32 bits, with the all-ones value', () => {
  const w = new BitWriter();
  for (let n = 0; n <= 32; n++) w.u(2 ** n - 1, n).u(n === 0 ? 0 : 1, n);
  const r = reader(w);
  for (let n = 0; n <= 32; n++) {
    assert.equal(r.u(n), 2 ** n - 1, `u(${n}) of all ones`);
    assert.equal(r.u(n), n === 0 ? 0 : 1, `u(${n}) of one`);
  }
});

test('EG(k) round-trips edge values up to 2^32-1 for every k in 0..15', () => {
  for (let k = 0; k <= 15; k++) {
    const w = new BitWriter();
    for (const v of EDGE_VALUES) w.eg(v, k);
    const r = reader(w);
    for (const v of EDGE_VALUES) assert.equal(r.eg(k), v, `EG(${k}) of ${v}`);
    assert.ok(r.remaining() < 8, 'only padding is left');
  }
});

test('EG(k) round-trips random values at random bit offsets', () => {
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const w = new BitWriter();
  const want = [];
  for (let i = 0; i < 5000; i++) {
    const k = Math.floor(rand() * 16);
    const v = Math.floor(rand() * 2 ** Math.floor(rand() * 33));
    const pad = Math.floor(rand() * 3);
    w.u(0b101, pad);
    w.eg(v, k);
    want.push([pad, k, v]);
  }
  const r = reader(w);
  for (const [pad, k, v] of want) {
    r.u(pad);
    assert.equal(r.eg(k), v);
  }
});

test('SE(k) round-trips signed values including ±(2^31) and the zigzag edges', () => {
  const values = [0, 1, -1, 2, -2, 511, -512, 1024, -1025, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1];
  for (const k of [0, 1, 4, 15]) {
    const w = new BitWriter();
    for (const s of values) w.se(s, k);
    const r = reader(w);
    for (const s of values) assert.equal(r.se(k), s, `SE(${k}) of ${s}`);
  }
});

test('an EG prefix of 32 zero bits is accepted and one of 33 is rejected as malformed', () => {
  const ok = new BitWriter().zeros(32).u(1, 1).u(5, 32);
  assert.equal(reader(ok).eg(0), 2 ** 32 + 5 - 1);
  const bad = new BitWriter().zeros(33).u(1, 1).u(0, 40);
  assert.throws(() => reader(bad).eg(0), (e) => e instanceof WireError && /prefix/.test(e.message));
});

test('an EG code cut anywhere is rejected as a read past the end', () => {
  const full = new BitWriter().eg(2 ** 32 - 1, 3).bits;
  for (let cut = 0; cut < full.length; cut++) {
    const w = new BitWriter();
    w.bits = full.slice(0, cut);
    // Make the cut fall on a byte boundary so padding cannot complete the code.
    const r = new BitReader().attach(w.bytes());
    r.end = cut;
    assert.throws(() => r.eg(3), WireError, `cut at ${cut} bits`);
  }
});
