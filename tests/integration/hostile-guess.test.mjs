// Guessing the control token costs the guesser, not the audience: wrong
// guesses are counted per address across connections (after three, each
// further one waits 1 s, doubling; a guess that comes too soon is answered
// rate_limited without being compared), and new sessions per address are
// limited (a burst of 200, then 10 a second: HTTP 429), so that reconnecting
// after every guess mints nothing. Against the simulation and against a
// relay (which answers auth itself), with the servers' own defaults: a
// guesser reconnecting as fast as it can from one address, then sixteen
// at once, while a bystander on another address keeps watching, newcomers
// are let in and the operator, from a fresh address, gets the role.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, httpGet, healthz, waitUntil, sleep, SERVER_OWN_CONNECT_LIMITS } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { openViewer, describe } from '../lib/viewer.mjs';
import { startBystander } from '../lib/bystander.mjs';
import { guess, countAnswers, summarize } from '../lib/guesser.mjs';
import { findNatsServer, startNats, startRelay } from '../lib/nats.mjs';

const TOKEN = 'Hq3v-Rk0Qz-N1y4W-c8JmT';
const T = { timeout: 120000 };
const ONE_ADDRESS_MS = 8000;
const SIXTEEN_MS = 8000;
// Wrong guesses an address gets compared at once (--auth-failures default).
const FREE_FAILURES = 3;
// A bystander's floor while under attack: the world keeps coming (30 a
// second when idle), robustly on a busy 2-core machine.
const MIN_MEAN_SNAPSHOTS = 10;
// People who arrive during each attack, each from an address of its own.
const NEWCOMERS = 6;

const natsBin = findNatsServer();

/** A figure of a process's /metrics (0 when the series is absent). */
async function metric(server, name) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} ([0-9.e+-]+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}

/**
 * NEWCOMERS people arriving one after another from fresh addresses
 * (127.0.<subnet>.1, .2, …) over durationMs, each leaving once it has its
 * hello: resolves with 'let in' or why not, for each.
 */
async function newcomers(join, subnet, durationMs) {
  const out = [];
  for (let i = 0; i < NEWCOMERS; i++) {
    await sleep(durationMs / (NEWCOMERS + 1));
    try {
      const v = await join(`127.0.${subnet}.${i + 1}`);
      out.push(v.hello ? 'let in' : 'no hello');
      v.close();
    } catch (e) {
      out.push(e.message);
    }
  }
  return out;
}

/** Wrong-token answers one address got per second after its first few, over seconds. */
function sustainedRate(log, address, seconds) {
  return Math.max(0, countAnswers(log, 'bad_token', address) - FREE_FAILURES) / seconds;
}

/**
 * The attack on one server (the simulation or a relay), with `bystander`
 * watching from 127.0.0.1 in a process of its own (lib/bystander.mjs: this
 * one's event loop is busy with the attack): `rates()` measures the
 * bystander over [from, to).
 * `join(address)` opens a session from address (v1 or v2 as the server
 * serves). Returns the figures for the caller's assertions.
 */
async function attack(where, server, { rates, join }) {
  const url = server.wsUrl;
  const from = performance.now();

  // One address, as fast as it can (four connections at a time).
  const one = '127.0.0.30';
  const newcomersDuring1 = newcomers(join, 1, ONE_ADDRESS_MS);
  const log1 = await guess({ url, addresses: [one], durationMs: ONE_ADDRESS_MS, loopsPerAddress: 4 });
  const newcomers1 = await newcomersDuring1;
  const rate1 = sustainedRate(log1, one, ONE_ADDRESS_MS / 1000);
  console.log(`# ${where}: one address reconnecting for ${ONE_ADDRESS_MS / 1000} s: ${log1.length} attempts (${summarize(log1)}); ` +
    `wrong-token answers ${countAnswers(log1, 'bad_token')}, ${rate1.toFixed(2)}/s after the first ${FREE_FAILURES}`);

  // Sixteen addresses at once.
  const sixteen = Array.from({ length: 16 }, (_, i) => `127.0.0.${2 + i}`);
  const newcomersDuring16 = newcomers(join, 2, SIXTEEN_MS);
  const operatorDuring = (async () => {
    await sleep(SIXTEEN_MS / 2);
    const op = await join('127.0.0.200');
    const auth = await op.request({ type: 'auth', token: TOKEN });
    const set = await op.request({ type: 'set_param', name: 'w_sep', value: 1.75 });
    op.close();
    return { auth, set };
  })();
  const log16 = await guess({ url, addresses: sixteen, durationMs: SIXTEEN_MS });
  const operator = await operatorDuring;
  const newcomers16 = await newcomersDuring16;
  const wrong16 = countAnswers(log16, 'bad_token');
  const worst16 = Math.max(...sixteen.map((a) => sustainedRate(log16, a, SIXTEEN_MS / 1000)));
  console.log(`# ${where}: sixteen addresses reconnecting for ${SIXTEEN_MS / 1000} s: ${log16.length} attempts (${summarize(log16)}); ` +
    `wrong-token answers ${wrong16} in all, ${(wrong16 / (SIXTEEN_MS / 1000)).toFixed(1)}/s; ` +
    `the busiest address ${worst16.toFixed(2)}/s after its first ${FREE_FAILURES}`);
  const bystander = rates(from, performance.now());
  console.log(`# ${where}: bystander on 127.0.0.1 during both attacks: ${describe(bystander)}`);
  const letIn = [...newcomers1, ...newcomers16].filter((x) => x === 'let in').length;
  console.log(`# ${where}: newcomers from other addresses let in during the attacks: ${letIn} of ${NEWCOMERS * 2} ` +
    `(${[...newcomers1, ...newcomers16].filter((x) => x !== 'let in').join(', ') || 'none refused'}); operator from 127.0.0.200: ` +
    `auth ${operator.auth.type}, set_param ${operator.set.type}`);

  // The guesser's own address, once its wait is over, is let in with the right token.
  const last = log1.filter((e) => e.answer === 'rate_limited').pop();
  const waitS = Number(/try again in (\d+) s/.exec(last?.message ?? '')?.[1] ?? NaN);
  const counters = {
    refusedConnectRate: await metric(server, 'swarmcast_connections_refused_total{reason="connect_rate"}'),
    authFailed: await metric(server, 'swarmcast_auth_failed_total'),
    authRateLimited: await metric(server, 'swarmcast_auth_rate_limited_total'),
  };
  console.log(`# ${where}: /metrics: refused for connect_rate ${counters.refusedConnectRate}, auth failed ${counters.authFailed}, ` +
    `auth rate_limited ${counters.authRateLimited}; the guesser's last hint: "${last?.message}"`);
  return { log1, log16, rate1, worst16, bystander, letIn, operator, one, waitS, counters };
}

/** The assertions every attacked server must meet. */
function assertHeld(r) {
  // The guesser tried hard and never got in.
  assert.ok(r.log1.length >= 30, `the single guesser made ${r.log1.length} attempts`);
  assert.equal(countAnswers(r.log1, 'ack') + countAnswers(r.log16, 'ack'), 0, 'no wrong token was accepted');
  assert.ok(countAnswers(r.log1, 'rate_limited') > 0, `guesses were refused rate_limited: ${summarize(r.log1)}`);
  assert.ok(countAnswers(r.log1, 'http 429') > 0, `reconnecting was refused (429): ${summarize(r.log1)}`);
  // At most one wrong-token answer a second, sustained, from any address.
  assert.ok(r.rate1 <= 1, `one address: ${r.rate1.toFixed(2)} wrong-token answers/s after the first ${FREE_FAILURES}`);
  assert.ok(r.worst16 <= 1, `sixteen addresses: the busiest got ${r.worst16.toFixed(2)}/s after its first ${FREE_FAILURES}`);
  // The hint tells how long to wait.
  assert.ok(r.waitS >= 1 && r.waitS <= 30, `rate_limited says when to try again: ${r.waitS} s`);
  // The audience kept its world, newcomers got in, the operator got the role.
  assert.ok(r.bystander.rate >= MIN_MEAN_SNAPSHOTS && r.bystander.minSnapshots > 0,
    `the bystander kept its snapshots: ${describe(r.bystander)}`);
  assert.equal(r.letIn, NEWCOMERS * 2, 'every newcomer from another address was let in during the attacks');
  assert.equal(r.operator.auth.type, 'ack', `the operator's auth: ${JSON.stringify(r.operator.auth)}`);
  assert.equal(r.operator.set.type, 'ack', `the operator's set_param: ${JSON.stringify(r.operator.set)}`);
  assert.ok(r.counters.refusedConnectRate > 0 && r.counters.authFailed > 0 && r.counters.authRateLimited > 0,
    `/metrics counted it: ${JSON.stringify(r.counters)}`);
}

/**
 * After the wait its last rate_limited answer named, the guesser's address
 * gets in with the right token (a failure it had after that answer makes
 * it wait once more, as the new answer says).
 */
async function assertRightTokenAfterWait(r, join) {
  let waitS = r.waitS;
  let reply;
  for (let i = 0; i < 2; i++) {
    await sleep(waitS * 1000 + 500);
    const c = await join(r.one);
    reply = await c.request({ type: 'auth', token: TOKEN });
    c.close();
    if (reply.code !== 'rate_limited') break;
    waitS = Number(/try again in (\d+) s/.exec(reply.message)?.[1]);
  }
  console.log(`# right token from the guessing address after its wait: ${reply.type} (${r.one}, waited ${waitS} s)`);
  assert.equal(reply.type, 'ack', `after the wait the right token from ${r.one} works: ${JSON.stringify(reply)}`);
}

/** Snapshot rates of a v2 client from its decoded frames (Date.now() times). */
let sim;

before(async () => {
  sim = await startServer({ agents: 300, args: ['--control-token', TOKEN], env: SERVER_OWN_CONNECT_LIMITS });
});

after(async () => {
  if (sim) {
    const r = await sim.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${sim.output()}`);
  }
});

test('the simulation: guessing from one and from sixteen addresses is held to under one wrong answer a second each; the audience keeps watching and gets in', T, async () => {
  const bystander = await startBystander(sim.wsUrl, { protocol: 'v1', localAddress: '127.0.0.1' });
  const join = async (localAddress) => {
    const v = await openViewer(sim.wsUrl, { name: `from ${localAddress}`, localAddress });
    // A Client-like request() on the low-overhead viewer's socket.
    v.request = (cmd) => {
      const id = Math.floor(Math.random() * 1e9);
      v.send({ ...cmd, id });
      return v.waitFor(() => v.texts.find((m) => (m.type === 'ack' || m.type === 'error') && m.id === id), `the reply to ${cmd.type}`);
    };
    return v;
  };
  try {
    const r = await attack('simulation', sim, { rates: bystander.measure, join });
    assertHeld(r);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
    await assertRightTokenAfterWait(r, join);
  } finally {
    await bystander.close();
  }
});

test('the startup warns about a guessable token and says how to make a strong one', T, async () => {
  const weak = await startServer({ agents: 10, args: ['--control-token', 'secret'] });
  try {
    await waitUntil(() => /control token is guessable/.test(weak.output()), 'the warning', { timeoutMs: 5000 });
    assert.match(weak.output(), /6 characters, fewer than 16.*openssl rand -base64 18/);
    assert.doesNotMatch(sim.output(), /guessable/, 'a strong token is not warned about');
  } finally {
    await weak.stop();
  }
});

test('a relay: the same attack on the relay, which answers auth itself', { ...T, skip: natsBin ? false : 'nats-server not found' }, async () => {
  const nats = await startNats({ bin: natsBin });
  const world = await startServer({ agents: 300, args: ['--control-token', TOKEN, '--nats', nats.url] });
  const relay = await startRelay(nats.url, { args: ['--control-token', TOKEN, '--relay-name', 'guessed'], env: SERVER_OWN_CONNECT_LIMITS });
  let bystander;
  try {
    await waitUntil(async () => (await healthz(relay)).status === 200, 'the relay to be fed', { timeoutMs: 30000, intervalMs: 200 });
    bystander = await startBystander(relay.wsUrl, { protocol: 'v2', localAddress: '127.0.0.1' });
    const join = (localAddress) => connectV2(relay.wsUrl, { localAddress });
    const r = await attack('relay', relay, { rates: bystander.measure, join });
    assertHeld(r);
    assert.equal(bystander.closeInfo, null, 'the bystander is still connected');
    await assertRightTokenAfterWait(r, join);
  } finally {
    await bystander?.close();
    const exits = { relay: await relay.stop(), world: await world.stop() };
    await nats.stop();
    assert.deepEqual(exits, { relay: { code: 0, signal: null }, world: { code: 0, signal: null } },
      `clean exits\n${relay.output()}\n${world.output()}`);
  }
});
