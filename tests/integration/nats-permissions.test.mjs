// NATS locked as shipped: a real nats-server with THE config file of the
// scaled set-up (docker/nats.conf; its passwords given through the
// environment, as docker/nats-secrets.sh and compose do), the real
// simulation logged in as `sim` and a real relay as `relay1` (tag 1). Then,
// as strangers would try it: a client without a password, or with a wrong
// one, is refused; a client holding another relay's credentials (relay2) is
// refused on relay 1's command, lease and reply subjects and on the stream,
// and what it may publish on its own subjects cannot act for relay 1's
// viewers (the simulation checks each envelope's tag against its subject's);
// the simulation's user cannot publish commands. With the right credentials
// a viewer through the relay gets frames and its commands round-trip.
//
// Skipped (with the reason) when nats-server is not installed;
// scripts/deps.sh test installs it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect as natsConnect } from 'nats';

import { startServer, httpGet, healthz, waitUntil } from '../lib/server.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay } from '../lib/nats.mjs';
import { envelopeMsg, decodeEnvelope, ENVELOPE } from '../lib/nats_wire.mjs';

const CONF = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docker', 'nats.conf');
const TOKEN = 'nats-permissions-test-token';
// Test passwords, handed to nats-server as docker/nats.conf's variables.
const PASSWORDS = { sim: 'p-test-sim-7f3a', relay1: 'p-test-relay1-c41d', relay2: 'p-test-relay2-9be0' };
// Generous: two cores shared with other work; every wait is for a condition.
const T = { timeout: 60000 };
const WAIT = { timeoutMs: 15000 };
// The request id of every forged command (the victim's own are small).
const FORGED_ID = 990001;

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';

let nats, sim, relay;

/** A figure of a process's /metrics (0 when the series is absent). */
async function metric(server, name) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}

/**
 * A NATS connection (the `nats` package) as user/password, that keeps every
 * permission violation the server reports on it: { nc, refused: [{ operation,
 * subject }] }. The server answers a refused publish or subscription with
 * -ERR and keeps the connection.
 */
async function natsAs(user, password) {
  const nc = await natsConnect({ servers: `127.0.0.1:${nats.port}`, user, pass: password, name: `test-${user}`,
    timeout: 5000, maxReconnectAttempts: 0 });
  const refused = [];
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error' && s.data === 'PERMISSIONS_VIOLATION' && s.permissionContext) refused.push(s.permissionContext);
    }
  })().catch(() => {});
  return { nc, refused };
}

/** Waits until the server has said that `operation` on `subject` was refused. */
function waitRefused(client, operation, subject) {
  return waitUntil(() => client.refused.some((r) => r.operation === operation && r.subject === subject),
    `a permissions violation for ${operation} to ${subject}`, WAIT);
}

/** Resolves with the error a connection attempt fails with (it must fail). */
async function refusedConnection(opts) {
  try {
    const nc = await natsConnect({ servers: `127.0.0.1:${nats.port}`, timeout: 5000, maxReconnectAttempts: 0, ...opts });
    await nc.close();
  } catch (e) {
    return e;
  }
  throw new Error(`nats-server let ${JSON.stringify(opts)} in`);
}

/** An operator on the relay: a viewer that gave the control token. */
async function operatorOnRelay() {
  const c = await connectV2(relay.wsUrl);
  const auth = await c.request({ type: 'auth', token: TOKEN }, WAIT);
  assert.equal(auth.type, 'ack', JSON.stringify(auth));
  return c;
}

/**
 * The operator's own set_param, sent after the forgeries were flushed to
 * nats-server, acked and broadcast: the simulation has handled everything
 * published before it (one subscriber gets the server's order).
 */
async function barrier(operator, value) {
  const mark = operator.mark();
  const ack = await operator.request({ type: 'set_param', name: 'w_sep', value }, WAIT);
  assert.equal(ack.type, 'ack', JSON.stringify(ack));
  await operator.waitText((m) => m.type === 'param' && m.name === 'w_sep' && m.value === value,
    'the operator\'s own parameter', { after: mark, ...WAIT });
}

before(async () => {
  if (skip) return;
  nats = await startNats({ bin: natsBin, args: ['-c', CONF], env: {
    SWARMCAST_NATS_SIM_PASSWORD: PASSWORDS.sim,
    SWARMCAST_NATS_RELAY1_PASSWORD: PASSWORDS.relay1,
    SWARMCAST_NATS_RELAY2_PASSWORD: PASSWORDS.relay2,
  } });
  // --rate-scale 4: an operator can afford `auth` and a few parameters at
  // both the relay and the simulation.
  const limits = ['--control-token', TOKEN, '--rate-scale', '4'];
  sim = await startServer({ args: ['--nats', nats.url, ...limits],
    env: { SWARMCAST_NATS_USER: 'sim', SWARMCAST_NATS_PASSWORD: PASSWORDS.sim } });
  relay = await startRelay(nats.url, { args: [...limits, '--relay-tag', '1', '--relay-name', 'edge-1'],
    env: { SWARMCAST_NATS_USER: 'relay1', SWARMCAST_NATS_PASSWORD: PASSWORDS.relay1 } });
  let last = null;
  await waitUntil(async () => (last = await healthz(relay)).status === 200, 'the relay serving', { timeoutMs: 30000 })
    .catch((e) => { throw new Error(`${e.message}; last: ${last?.text}\n${relay.output()}\n${nats.output()}`); });
});

after(async () => {
  for (const p of [relay, sim]) await p?.stop({ signal: 'SIGKILL' }).catch(() => {});
  await nats?.stop({ signal: 'SIGKILL' });
});

test('with the shipped config and its credentials, a viewer through the relay gets frames and a command round-trips',
  { skip, ...T }, async () => {
    const v = await connectV2(relay.wsUrl);
    assert.equal(v.hello.client_id >>> 22, 1, 'the relay serves under its tag, 1');
    await v.waitFrame(() => true, '30 frames through the relay', { from: 29, ...WAIT });
    const ack = await v.request({ type: 'set_target', x: 100, y: 100 }, WAIT);
    assert.equal(ack.type, 'ack', JSON.stringify(ack));
    assert.deepEqual(v.decodeErrors, []);
    console.log(`# through relay1 (tag 1): ${v.frames.length} frames, set_target acked at tick ${ack.tick}`);
    v.close();
  });

test('a client without a password, or with a wrong one, is refused', { skip, ...T }, async () => {
  const refusals = [];
  for (const [what, opts] of [['no user', {}], ['a wrong password', { user: 'relay1', pass: 'guess' }],
    ['an unknown user', { user: 'viewer', pass: 'viewer' }]]) {
    const e = await refusedConnection(opts);
    assert.equal(e.code, 'AUTHORIZATION_VIOLATION', `${what}: ${e.message}`);
    refusals.push(`${what}: ${e.code}`);
  }
  console.log(`# refused connections: ${refusals.join('; ')}`);
});

test('another relay\'s credentials cannot publish on relay 1\'s subjects or the stream, nor hear relay 1\'s answers',
  { skip, ...T }, async () => {
    const victim = await operatorOnRelay();
    const other = await natsAs('relay2', PASSWORDS.relay2);
    const heard = [];
    other.nc.subscribe('swarmcast.reply.1', { callback: (err, m) => { if (!err) heard.push(m.subject); } });
    const forged = (id) => envelopeMsg({ kind: ENVELOPE.TEXT, operator: true, clientId: victim.hello.client_id,
      text: JSON.stringify({ type: 'set_param', name: 'w_sep', value: 4.25, id }) });
    other.nc.publish('swarmcast.cmd.1', forged(FORGED_ID));
    other.nc.publish('swarmcast.lease.1', Buffer.from(JSON.stringify({ relay: 'x', tag: 1, views: [], clients: 0 })));
    other.nc.publish('swarmcast.reply.1', envelopeMsg({ kind: ENVELOPE.KICK, clientId: victim.hello.client_id,
      code: 1008, text: 'kicked by a stranger' }));
    other.nc.publish('swarmcast.frame', Buffer.from('SB'));
    other.nc.publish('swarmcast.news', Buffer.from('SB'));
    await other.nc.flush();
    await waitRefused(other, 'subscription', 'swarmcast.reply.1');
    for (const s of ['swarmcast.cmd.1', 'swarmcast.lease.1', 'swarmcast.reply.1', 'swarmcast.frame', 'swarmcast.news'])
      await waitRefused(other, 'publish', s);
    await barrier(victim, 1.5);
    assert.ok(!victim.texts.some((m) => m.type === 'param' && m.value === 4.25), 'the forged set_param was not applied');
    assert.ok(!victim.texts.some((m) => m.id === FORGED_ID), 'no answer to a forged command');
    assert.equal(victim.closeInfo, null, 'the victim was not kicked');
    assert.deepEqual(heard, [], 'relay 1\'s answers were not heard');
    console.log(`# relay2's credentials refused: ${other.refused.map((r) => `${r.operation} ${r.subject}`).join(', ')}`);
    await other.nc.close();
    victim.close();
  });

test('on its own subjects a relay cannot act for another relay\'s viewers: the simulation checks the tag',
  { skip, ...T }, async () => {
    const victim = await operatorOnRelay();
    const other = await natsAs('relay2', PASSWORDS.relay2);
    const answers = [];
    other.nc.subscribe('swarmcast.reply.2', { callback: (err, m) => { if (!err) answers.push(Buffer.from(m.data)); } });
    await other.nc.flush();
    // A lease of its own tag (what relay2 may do): tag 2 is live at the simulation.
    const lease = (tag) => Buffer.from(JSON.stringify({ relay: 'rogue#1', tag, views: [], clients: 0 }));
    other.nc.publish('swarmcast.lease.2', lease(2), { reply: 'swarmcast.reply.2' });
    await waitUntil(() => answers.some((a) => a[0] === 0x7b && JSON.parse(a).ok === true), 'the lease of tag 2 granted',
      WAIT);
    const refusedBefore = await metric(sim, 'swarmcast_nats_refused_total');
    // A lease for tag 1 on its own subject, whose answer it names relay 1's: refused, answered on its own.
    other.nc.publish('swarmcast.lease.2', lease(1), { reply: 'swarmcast.reply.1' });
    await waitUntil(() => answers.some((a) => a[0] === 0x7b && JSON.parse(a).error === 'bad_request'),
      'the lease claiming tag 1 answered bad_request on reply.2', WAIT);
    // An envelope on its own subject about relay 1's operator: refused.
    for (const kind of [ENVELOPE.TEXT, ENVELOPE.OPEN, ENVELOPE.CLOSE]) {
      other.nc.publish('swarmcast.cmd.2', envelopeMsg({ kind, operator: true, clientId: victim.hello.client_id,
        text: kind === ENVELOPE.TEXT ? JSON.stringify({ type: 'set_param', name: 'w_sep', value: 4.5, id: FORGED_ID }) : '' }),
      { reply: 'swarmcast.reply.2' });
    }
    await other.nc.flush();
    await barrier(victim, 1.25);
    assert.ok(!victim.texts.some((m) => m.type === 'param' && m.value === 4.5), 'the set_param in the victim\'s name was not applied');
    assert.ok(!victim.texts.some((m) => m.id === FORGED_ID), 'no answer to it at the victim');
    assert.ok(!victim.texts.some((m) => m.type === 'activity' &&
      m.items.some((i) => i.id === victim.hello.client_id && / left$/.test(i.text))), 'the forged CLOSE did not make the victim leave');
    assert.ok(!answers.some((a) => decodeEnvelope(a)?.clientId === victim.hello.client_id), 'nor at the rogue relay');
    // The OPEN (a role) and the CLOSE (a departure) leave no trace but the count.
    const refused = (await metric(sim, 'swarmcast_nats_refused_total')) - refusedBefore;
    assert.ok(refused >= 4, `the simulation counted ${refused} refusals (a lease and three envelopes)`);
    assert.deepEqual(other.refused, [], 'relay2 used only its own subjects');
    console.log(`# relay2 on its own subjects, claiming relay 1's viewer ${victim.hello.client_id}: ${refused} refused at the simulation`);
    await other.nc.close();
    victim.close();
  });

test('the simulation\'s user cannot publish commands or leases, nor hear a relay\'s answers', { skip, ...T }, async () => {
  const s = await natsAs('sim', PASSWORDS.sim);
  s.nc.subscribe('swarmcast.reply.1', { callback: () => {} });
  s.nc.publish('swarmcast.cmd.1', envelopeMsg({ kind: ENVELOPE.OPEN, clientId: (1 << 22) | 99 }));
  s.nc.publish('swarmcast.lease.1', Buffer.from('{}'));
  await s.nc.flush();
  await waitRefused(s, 'publish', 'swarmcast.cmd.1');
  await waitRefused(s, 'publish', 'swarmcast.lease.1');
  await waitRefused(s, 'subscription', 'swarmcast.reply.1');
  console.log(`# sim's credentials refused: ${s.refused.map((r) => `${r.operation} ${r.subject}`).join(', ')}`);
  await s.nc.close();
  // Its refusals did not disturb the real simulation's own connection.
  assert.equal((await healthz(relay)).status, 200);
});

test('a relay whose --relay-tag is not its user\'s says so, and is not served', { skip, ...T }, async () => {
  const wrong = await startRelay(nats.url, { args: ['--relay-tag', '5', '--relay-name', 'edge-wrong'],
    env: { SWARMCAST_NATS_USER: 'relay2', SWARMCAST_NATS_PASSWORD: PASSWORDS.relay2 } });
  try {
    await waitUntil(() => /refused by the server's permissions \(1 so far\): .*swarmcast\.(reply|lease|cmd)\.5/i
      .test(wrong.output()), 'the refusal on stderr', WAIT);
    assert.ok(await metric(wrong, 'swarmcast_nats_permission_violations_total') >= 1);
    assert.notEqual((await healthz(wrong)).status, 200, 'no lease, no frames: not healthy');
    console.log(`# relay2's user with tag 5: ${wrong.output().match(/refused by the server's permissions[^\n]*/)[0]}`);
  } finally {
    await wrong.stop();
  }
});

test('the shipped permissions allow all that the simulation and the relay do', { skip, ...T }, async () => {
  for (const [name, p] of [['the simulation', sim], ['the relay', relay]]) {
    assert.equal(await metric(p, 'swarmcast_nats_permission_violations_total'), 0, `${name}: ${p.output()}`);
    assert.ok(await metric(p, 'swarmcast_nats_published_messages_total') > 0, `${name} published`);
  }
});
