// Fan-out from other people's actions: clients burst parameter changes while
// viewers keep reading. What others cause (param broadcasts) must never close
// a viewer, and every viewer's control panel must end up showing the same,
// final values (issue 8, "fair sharing").
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { openViewer, describe } from '../lib/viewer.mjs';

// Parameters with a range that takes 1 ... 16.75 in steps of 0.25 (exact in
// float32, so the stored value equals the value sent), and that change
// nothing about the amount of work a tick does.
const NAMES = ['w_sep', 'w_ali', 'w_coh', 'w_avoid', 'w_leader', 'w_target', 'w_wander', 'w_flee',
  'fov_sep', 'fov_ali', 'fov_coh', 'wander_jitter', 'max_force', 'os_a', 'os_b', 'os_c1_alpha'];
const PER_CLIENT = 32;

/** The newest value of each parameter a Client saw: its hello, then the param broadcasts. */
function panelOf(client) {
  const panel = new Map();
  for (const m of client.texts) {
    if (m.type === 'hello') for (const p of m.params) panel.set(p.name, p.value);
    else if (m.type === 'param' && m.species === undefined) panel.set(m.name, m.value);
  }
  return panel;
}

const pick = (panel, names) => Object.fromEntries(names.map((n) => [n, panel.get(n)]));

/**
 * On a fresh server watched by two viewers (and a third that stops reading
 * during the burst, if `pausedViewer`), `n` clients each send PER_CLIENT
 * set_param in one burst and wait for their replies.
 */
async function burst(n, round, { withPausedViewer = false } = {}) {
  const server = await startServer({ agents: 300 });
  const viewers = [];
  const senders = [];
  let pausedViewer = null;
  try {
    viewers.push(await openViewer(server.wsUrl, { name: 'viewer 1' }), await openViewer(server.wsUrl, { name: 'viewer 2' }));
    if (withPausedViewer) {
      pausedViewer = await openViewer(server.wsUrl, { name: 'viewer 3 (stops reading)' });
      viewers.push(pausedViewer);
    }
    for (let i = 0; i < n; i++) senders.push(await connect(server.wsUrl));
    await run(server, viewers, senders, n, round, pausedViewer);
  } finally {
    for (const c of [...senders, ...viewers]) c.close();
    const r = await server.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
  }
}

async function run(server, viewers, senders, n, round, pausedViewer) {
  const from = performance.now();
  if (pausedViewer) pausedViewer.ws._socket.pause();
  try {
    const replies = await Promise.all(senders.map((c, i) => Promise.all(Array.from({ length: PER_CLIENT }, (_, k) => c.request({
      type: 'set_param',
      name: NAMES[(k + i) % NAMES.length],
      value: 1 + ((round * 7 + i * PER_CLIENT + k) % 64) * 0.25,
    }, { timeoutMs: 15000 }).catch((e) => ({ type: 'no reply', message: e.message }))))));
    if (pausedViewer) {
      // reading stays off a little longer than the burst, as for a tab in the background
      await sleep(2000);
      pausedViewer.ws._socket.resume();
    }
    const flat = replies.flat();
    const acked = flat.filter((r) => r.type === 'ack').length;
    const refused = flat.filter((r) => r.type === 'error');
    const lost = flat.filter((r) => r.type === 'no reply').length;
    const burstMs = Math.round(performance.now() - from);

    // the authority: the values a newcomer's hello reports once every reply is in
    const judge = await connect(server.wsUrl);
    const final = pick(new Map(judge.hello.params.map((p) => [p.name, p.value])), NAMES);
    judge.close();

    const watchers = [...viewers, ...senders.map((c, i) => ({ name: `sender ${i + 1}`, client: c }))];
    const panel = (w) => pick(w.client ? panelOf(w.client) : w.panel, NAMES);
    const converged = (w) => JSON.stringify(panel(w)) === JSON.stringify(final);
    // every watcher must get there (or be closed, which fails below)
    await Promise.all(watchers.map((w) => (w.client ?? w).waitFor(
      () => converged(w) || (w.client ?? w).closeInfo, `${w.name}'s panel to show the final values`, { timeoutMs: 10000, allowClosed: true },
    ).catch(() => {})));
    const to = performance.now();

    const closes = watchers.map((w) => ({ name: w.name, close: (w.client ?? w).closeInfo })).filter((x) => x.close);
    const paramsSeen = viewers.map((v) => v.texts.filter((m) => m.type === 'param').length);
    console.log(`# fan-out, ${n} clients x ${PER_CLIENT} set_param: ${acked} acked, ${refused.length} refused ` +
      `(${[...new Set(refused.map((r) => r.code))].join(', ') || 'none'}), ${lost} unanswered, in ${burstMs} ms; param messages seen by the viewers so far: ${paramsSeen.join(', ')}; ` +
      `closed: ${closes.length ? JSON.stringify(closes) : 'none'}${pausedViewer ? `; ${pausedViewer.name} did not read for the burst + 2 s` : ''}`);
    for (const v of viewers) console.log(`#   ${v.name}: ${describe(v.measure(from, to))}`);

    assert.deepEqual(closes, [], 'no viewer and no sender was closed');
    assert.deepEqual(flat.filter((r) => r.type === 'no reply').slice(0, 3), [], 'every command got its reply');
    assert.ok(acked > 0, 'some of the changes were applied');
    for (const r of refused) assert.equal(r.code, 'rate_limited', `only rate limiting may refuse a valid set_param: ${JSON.stringify(r)}`);
    for (const w of watchers) assert.deepEqual(panel(w), final, `${w.name}'s panel shows the final values`);
    for (const v of viewers) {
      assert.deepEqual(v.texts.filter((m) => m.type === 'error'), [], `${v.name} saw no error`);
      await v.nextSnapshot(() => true, `${v.name}: a snapshot after the burst`);
    }
  } finally {
    if (pausedViewer) pausedViewer.ws._socket.resume();
  }
}

test('three clients bursting 32 parameter changes each close no viewer, and every panel converges to the final values', { timeout: 60000 }, async () => {
  await burst(3, 1);
});

test('ten clients bursting 32 parameter changes each close no viewer, not even one that stops reading for a while, and every panel converges', { timeout: 60000 }, async () => {
  await burst(10, 2, { withPausedViewer: true });
});
