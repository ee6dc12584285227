// The state file (issue 8, goal 5): the operator's set-up (model,
// parameters, obstacles, optionally the agents) survives a restart; it is
// written periodically and at shutdown; a corrupt file gives a clear message
// and a clean start, the bad file kept aside, never a crash.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startServer, sleep } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';

const T = { timeout: 40000 };
const paramValue = (hello, name) => hello.params.find((p) => p.name === name)?.value;

function tempDir() {
  return mkdtempSync(path.join(tmpdir(), 'swarmcast-state-'));
}

// Servers still running when a test ends (it failed half-way) are killed.
const live = new Set();
afterEach(async () => {
  for (const server of live) await server.stop({ signal: 'SIGKILL' }).catch(() => {});
  live.clear();
});

/** Starts a server on `file`, connects, returns { server, c }. */
async function withState(file, { args = [], env = {}, agents = 300 } = {}) {
  const server = await startServer({ agents, args: file ? ['--state-file', file, ...args] : args, env });
  live.add(server);
  const c = await connect(server.wsUrl);
  return { server, c };
}

async function stop(server, c) {
  c?.close();
  const r = await server.stop();
  live.delete(server);
  assert.deepEqual(r, { code: 0, signal: null }, `clean exit\n${server.output()}`);
}

const OBSTACLE = { x: 612.5, y: 345.25, radius: 33 };
const hasObstacle = (s) => s.obstacles.some((o) => o.x === OBSTACLE.x && o.y === OBSTACLE.y && o.radius === OBSTACLE.radius);

test('a missing state file starts clean; model, parameters and obstacles set by the operator come back after a restart (flag, then environment variable)', T, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'state.json');
  try {
    let { server, c } = await withState(file);
    assert.equal(paramValue(c.hello, 'w_sep'), 1.5, 'a missing file: defaults');
    assert.equal(paramValue(c.hello, 'model'), 'reynolds');
    await c.command({ type: 'set_model', model: 'olfati2' });
    await c.command({ type: 'set_param', name: 'w_sep', value: 4.25 });
    await c.command({ type: 'set_param', name: 'border', value: 'bounce' });
    const add = await c.command({ type: 'add_obstacle', ...OBSTACLE });
    await c.nextSnapshot((s) => s.tick >= add.tick && hasObstacle(s), 'the obstacle');
    await stop(server, c);
    assert.ok(existsSync(file), 'the state file was written at shutdown');
    const written = readFileSync(file, 'utf8');

    ({ server, c } = await withState(null, { env: { SWARMCAST_STATE_FILE: file } }));
    const s = await c.nextSnapshot(() => true, 'a snapshot after the restart');
    console.log(`# state file (${written.length} bytes) restored: model ${paramValue(c.hello, 'model')}, w_sep ${paramValue(c.hello, 'w_sep')}, ` +
      `border ${paramValue(c.hello, 'border')}, obstacles ${JSON.stringify(s.obstacles)}`);
    assert.equal(paramValue(c.hello, 'model'), 'olfati2');
    assert.equal(paramValue(c.hello, 'w_sep'), 4.25);
    assert.equal(paramValue(c.hello, 'border'), 'bounce');
    assert.ok(hasObstacle(s), `the obstacle is back: ${JSON.stringify(s.obstacles)}`);
    assert.equal(s.obstacles.length, 1);
    await stop(server, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the state file is written periodically: a SIGKILL loses nothing older than --state-every', T, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'state.json');
  try {
    let { server, c } = await withState(file, { args: ['--state-every', '1'] });
    await c.command({ type: 'set_param', name: 'w_coh', value: 2.75 });
    await sleep(2500);
    server.proc.kill('SIGKILL');
    await server.exited;
    live.delete(server);
    const left = readdirSync(dir);
    assert.ok(existsSync(file), `written before the kill (the directory holds ${left.join(', ')})`);
    ({ server, c } = await withState(file));
    console.log(`# after SIGKILL: the directory held ${left.join(', ')}; w_coh restored as ${paramValue(c.hello, 'w_coh')}`);
    assert.equal(paramValue(c.hello, 'w_coh'), 2.75);
    await stop(server, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with --state-agents the agents come back too', T, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'state.json');
  try {
    // (the population limit named: the derived one follows the machine's speed)
    let { server, c } = await withState(file, { args: ['--state-agents', '--max-agents', '1000'] });
    const add = await c.command({ type: 'add_agents', count: 25 });
    await c.nextSnapshot((s) => s.tick >= add.tick && s.agents.count === 325, '325 agents');
    await stop(server, c);
    ({ server, c } = await withState(file, { args: ['--state-agents', '--max-agents', '1000'] }));
    const s = await c.nextSnapshot(() => true, 'a snapshot after the restart');
    console.log(`# --state-agents: 325 agents before, ${s.agents.count} after the restart (--agents 300)`);
    assert.equal(s.agents.count, 325);
    await stop(server, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const [what, content] of [
  ['garbage', () => Buffer.from('this is not a state file \u0000\u00ff{{{', 'latin1')],
  ['a state file cut in half', (good) => good.subarray(0, Math.floor(good.length / 2))],
  ['JSON of another kind', () => Buffer.from('{"swarmcast_state": 999999, "params": {"w_sep": "lots"}}')],
]) {
  test(`a corrupt state file (${what}) gives a clear message and a clean start, the bad file kept aside`, T, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    try {
      // a real file first, for the variant that damages one
      let { server, c } = await withState(file);
      await c.command({ type: 'set_param', name: 'w_sep', value: 6.5 });
      await stop(server, c);
      assert.ok(existsSync(file), 'the first run wrote a state file');
      const bad = content(readFileSync(file));
      writeFileSync(file, bad);

      ({ server, c } = await withState(file));
      const s = await c.nextSnapshot(() => true, 'a snapshot from the clean start');
      const log = server.output();
      const kept = readdirSync(dir).filter((f) => /\.bad-/.test(f));
      const message = log.split('\n').find((l) => l.includes('state')) ?? '';
      console.log(`# corrupt state file (${what}, ${bad.length} bytes): started, w_sep ${paramValue(c.hello, 'w_sep')}, ` +
        `${s.agents.count} agents; kept aside as ${kept.join(', ') || 'nothing'}; message: ${message.trim()}`);
      assert.equal(paramValue(c.hello, 'w_sep'), 1.5, 'a clean start: defaults');
      assert.equal(s.agents.count, 300);
      assert.match(log, new RegExp(path.basename(file).replace('.', '\\.')), 'the message names the file');
      assert.equal(kept.length, 1, `one *.bad-* file next to it: ${readdirSync(dir).join(', ')}`);
      assert.ok(readFileSync(path.join(dir, kept[0])).equals(bad), 'the bad file is kept as it was');
      // and the set-up from now on is kept again
      await c.command({ type: 'set_param', name: 'w_sep', value: 7.5 });
      await stop(server, c);
      ({ server, c } = await withState(file));
      assert.equal(paramValue(c.hello, 'w_sep'), 7.5, 'a new state file was written');
      await stop(server, c);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
