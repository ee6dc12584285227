// Compares a Wire2Decoder state with an expectation written by the C side
// (protocol/vectors/v2-*.json and swarmcast-wire2-stream's lines):
//   { seq, tick, paused, population, keyed, scene?, mode, rect, items: [[qx, qy, h, f]...], lod }
import assert from 'node:assert/strict';

export function assertState(st, want, what) {
  for (const k of ['seq', 'tick', 'paused', 'population', 'keyed', 'mode']) {
    assert.equal(st[k], want[k], `${what}: ${k}`);
  }
  if ('scene' in want) assert.deepEqual(st.scene, want.scene, `${what}: scene`);
  if (want.rect === null) {
    assert.equal(st.rect, null, `${what}: rect`);
  } else {
    for (const k of ['level', 'x0', 'y0', 'x1', 'y1', 'qx0', 'qy0', 'qx1', 'qy1']) {
      assert.equal(st.rect[k], want.rect[k], `${what}: rect.${k}`);
    }
  }
  const items = want.items;
  if (st.count !== items.length) assert.fail(`${what}: ${st.count} items, expected ${items.length}`);
  for (let i = 0; i < items.length; i++) {
    const [qx, qy, h, f] = items[i];
    if (st.qx[i] !== qx || st.qy[i] !== qy || st.h[i] !== h || st.f[i] !== f) {
      assert.fail(`${what}: item ${i} is [${st.qx[i]}, ${st.qy[i]}, ${st.h[i]}, ${st.f[i]}], expected [${items[i]}]`);
    }
  }
  if (want.lod === null) {
    assert.equal(st.lod, null, `${what}: lod`);
  } else {
    assert.equal(st.lod.cols, want.lod.cols, `${what}: lod.cols`);
    assert.equal(st.lod.rows, want.lod.rows, `${what}: lod.rows`);
    assert.deepEqual([...st.lod.d], want.lod.d, `${what}: lod.d`);
    assert.deepEqual([...st.lod.a], want.lod.a, `${what}: lod.a`);
  }
}
