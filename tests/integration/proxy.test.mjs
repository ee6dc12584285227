// Behind a real reverse proxy (Debian's Caddy on loopback, plain HTTP and
// with its internal CA): the audience's real addresses and operations off
// the public face (issue 20, goals 2 and 3).
//
//  - --trusted-proxy 127.0.0.1: every session through Caddy is counted under
//    the address Caddy saw (clients bound to 127.0.0.2, 127.0.0.3, …), so
//    --max-per-address 2 lets two in per address, refuses the third of one
//    address with 1013 and still lets other addresses in;
//  - a forged X-Forwarded-For or Forwarded picks nothing: from a peer that
//    is not a trusted proxy it is ignored, and through Caddy the address
//    Caddy saw is the one read (the nearest untrusted, from the right);
//  - /metrics is 404 on the public port and through the proxy, 200 on the
//    metrics listener; the public /healthz says "ok" only;
//  - a room behind one address: 250 sessions from one address with the
//    server's default limits all get in (the connect burst is 200: the rest
//    retry the 429 as the page does, client-web/net/connection.js) and each
//    steers its own target; with
//    --max-per-address set, that many and no more.
//
// caddy comes with scripts/deps.sh test; without it the file says so and
// skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import WebSocket from 'ws';
import { spawnSync } from 'node:child_process';
import { startServer, httpGet, healthz, publicHealthz, waitUntil, sleep, serverBin } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { caddyAvailable, startCaddy } from '../lib/caddy.mjs';
import { backoffDelay } from '../../client-web/net/connection.js';

// A given population limit skips the start-up calibration (seconds under ASan on a busy machine).
const QUICK = ['--max-agents', '1000'];
const HAVE_CADDY = caddyAvailable();
if (!HAVE_CADDY) console.log('# caddy not found: these tests need Debian\'s caddy (scripts/deps.sh test installs it)');
const T = { timeout: 120000, skip: HAVE_CADDY ? false : 'caddy not found (scripts/deps.sh test installs it)' };

/**
 * Opens one swarmcast.v1 session. Resolves to { outcome, ws, clientId }:
 * outcome 'in' (hello received; the socket stays open), 'closed CODE' (closed
 * before any hello: a refusal) or 'http STATUS' (the upgrade was refused).
 */
function open(url, { localAddress, headers = {}, ca, timeoutMs = 20000 } = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, ['swarmcast.v1'], { localAddress, headers, ca, handshakeTimeout: timeoutMs });
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => { ws.terminate(); finish({ outcome: 'timeout' }); }, timeoutMs);
    ws.on('message', (data, binary) => {
      if (binary || done) return;
      const m = JSON.parse(data.toString('utf8'));
      if (m.type === 'hello') finish({ outcome: 'in', ws, clientId: m.client_id });
    });
    ws.on('unexpected-response', (req, res) => {
      finish({ outcome: `http ${res.statusCode}` });
      req.destroy();
    });
    ws.on('close', (code) => finish({ outcome: `closed ${code}` }));
    ws.on('error', (e) => finish({ outcome: `error ${e.message}` }));
  });
}

/** open(), again after the page's own backoff whenever the upgrade is refused (HTTP 429). */
async function join(url, opts) {
  for (let attempt = 0; ; attempt++) {
    const r = await open(url, opts);
    if (r.outcome !== 'http 429') return { ...r, attempts: attempt + 1 };
    await sleep(backoffDelay(attempt));
  }
}

const tally = (results) => results.reduce((m, r) => ({ ...m, [r.outcome]: (m[r.outcome] ?? 0) + 1 }), {});
const closeAll = (results) => { for (const r of results) r.ws?.close(); };

/** A figure of the metrics listener's /metrics. */
async function metric(server, series) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

function getTls(url, ca) {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

// ------------------------------------------------------------------ per real address

let server;
let caddy;
before(async () => {
  if (!HAVE_CADDY) return;
  server = await startServer({ agents: 50, args: ['--trusted-proxy', '127.0.0.1', '--max-per-address', '2', ...QUICK], startTimeoutMs: 30000 });
  caddy = await startCaddy(server.port);
});
after(async () => {
  await caddy?.stop();
  if (server) {
    const r = await server.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
  }
});

test('behind a trusted proxy each real address has its own limit: 2 in from 127.0.0.2, its 3rd refused with 1013, 127.0.0.3 still in', T, async () => {
  const a = [await open(caddy.wsUrl, { localAddress: '127.0.0.2' }), await open(caddy.wsUrl, { localAddress: '127.0.0.2' })];
  const third = await open(caddy.wsUrl, { localAddress: '127.0.0.2' });
  const b = await open(caddy.wsUrl, { localAddress: '127.0.0.3' });
  // A client behind the proxy writes its own X-Forwarded-For and Forwarded
  // naming a fresh address: Caddy's entry for what it saw is the one read.
  const forged = await open(caddy.wsUrl, { localAddress: '127.0.0.2', headers: { 'X-Forwarded-For': '127.0.0.99', Forwarded: 'for=127.0.0.98' } });
  const forwarded = await metric(server, 'swarmcast_forwarded_total{outcome="client"}');
  console.log(`# through Caddy, --max-per-address 2: 127.0.0.2 ${a.map((r) => r.outcome).join(', ')}; its 3rd ${third.outcome}; ` +
    `127.0.0.3 ${b.outcome}; 127.0.0.2 forging X-Forwarded-For/Forwarded ${forged.outcome}; forwarded{client} ${forwarded}`);
  try {
    assert.deepEqual(a.map((r) => r.outcome), ['in', 'in']);
    assert.equal(third.outcome, 'closed 1013', 'the third from one real address is refused');
    assert.equal(b.outcome, 'in', 'another real address is served');
    assert.equal(forged.outcome, 'closed 1013', 'a forged header does not move a client to another address');
    assert.ok(forwarded >= 5, `the server read Caddy's X-Forwarded-For (${forwarded})`);
  } finally {
    closeAll([...a, third, b, forged]);
  }
  await waitUntil(async () => (await healthz(server)).body?.clients === 0, 'every session gone', { timeoutMs: 10000 });
});

test('a header from a peer that is not a trusted proxy is ignored: the limit applies to the peer', T, async () => {
  // 127.0.0.4 is not trusted: whatever it claims, it is 127.0.0.4.
  const claims = ['127.0.0.50', '127.0.0.51', '127.0.0.52'];
  const results = [];
  for (const c of claims) results.push(await open(server.wsUrl, { localAddress: '127.0.0.4', headers: { 'X-Forwarded-For': c, Forwarded: `for=${c}` } }));
  console.log(`# from 127.0.0.4 (untrusted) claiming ${claims.join(', ')}: ${results.map((r) => r.outcome).join(', ')}`);
  try {
    assert.deepEqual(results.map((r) => r.outcome), ['in', 'in', 'closed 1013']);
  } finally {
    closeAll(results);
  }
  await waitUntil(async () => (await healthz(server)).body?.clients === 0, 'every session gone', { timeoutMs: 10000 });
});

test('a trusted peer\'s RFC 7239 Forwarded names the client when there is no X-Forwarded-For; a malformed header leaves the peer, counted', T, async () => {
  // Straight from 127.0.0.1, the trusted proxy's own address, as another proxy would.
  const malformedBefore = await metric(server, 'swarmcast_forwarded_total{outcome="malformed"}');
  const fwd = [];
  for (const h of ['for="127.0.0.20:4711"', 'For=127.0.0.20;proto=http', 'for=127.0.0.20']) fwd.push(await open(server.wsUrl, { headers: { Forwarded: h } }));
  const bad = [];
  for (let i = 0; i < 3; i++) bad.push(await open(server.wsUrl, { headers: { 'X-Forwarded-For': 'not an address' } }));
  const malformed = await metric(server, 'swarmcast_forwarded_total{outcome="malformed"}') - malformedBefore;
  console.log(`# from the trusted 127.0.0.1, Forwarded for=127.0.0.20 x3: ${fwd.map((r) => r.outcome).join(', ')}; ` +
    `a malformed X-Forwarded-For x3 (counted as 127.0.0.1): ${bad.map((r) => r.outcome).join(', ')}; forwarded{malformed} +${malformed}`);
  try {
    assert.deepEqual(fwd.map((r) => r.outcome), ['in', 'in', 'closed 1013']);
    assert.deepEqual(bad.map((r) => r.outcome), ['in', 'in', 'closed 1013']);
    assert.equal(malformed, 3);
  } finally {
    closeAll([...fwd, ...bad]);
  }
  await waitUntil(async () => (await healthz(server)).body?.clients === 0, 'every session gone', { timeoutMs: 10000 });
});

test('/metrics is not on the public port nor through the proxy; the metrics listener has it; the public /healthz says ok only', T, async () => {
  const direct = await httpGet(server.port, '/metrics');
  const proxied = await httpGet(caddy.port, '/metrics');
  const ops = await httpGet(server.metricsPort, '/metrics');
  const pub = await publicHealthz(server);
  const proxiedHealth = await httpGet(caddy.port, '/healthz');
  const detail = await healthz(server);
  console.log(`# /metrics: public ${direct.status}, through Caddy ${proxied.status}, metrics listener ${ops.status} (${ops.body.length} bytes); ` +
    `/healthz public ${pub.status} ${JSON.stringify(pub.text)}, through Caddy ${proxiedHealth.status} ${JSON.stringify(proxiedHealth.body)}, ` +
    `metrics listener ${detail.status} ${detail.text.slice(0, 80)}…`);
  assert.equal(direct.status, 404);
  assert.equal(proxied.status, 404);
  assert.equal(ops.status, 200);
  assert.match(ops.body, /^swarmcast_connections \d+$/m);
  assert.equal(pub.status, 200);
  assert.equal(pub.text, 'ok\n');
  assert.equal(proxiedHealth.body, 'ok\n');
  assert.equal(detail.status, 200);
  assert.equal(typeof detail.body?.tick, 'number', 'the detailed JSON is on the metrics listener');
  // The metrics listener is on loopback only by default: the server says where.
  assert.match(server.output(), /swarmcast metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
});

test('with Caddy\'s internal CA (https, wss): per real address the same', T, async () => {
  const tls = await startCaddy(server.port, { tls: true });
  const results = [];
  try {
    const page = await getTls(`${tls.url}/`, tls.ca);
    assert.equal(page.status, 200, 'the page over https');
    const health = await getTls(`${tls.url}/healthz`, tls.ca);
    const metrics = await getTls(`${tls.url}/metrics`, tls.ca);
    for (const addr of ['127.0.0.5', '127.0.0.5', '127.0.0.5', '127.0.0.6']) results.push(await open(tls.wsUrl, { localAddress: addr, ca: tls.ca }));
    console.log(`# through Caddy with tls internal: GET / ${page.status}, /healthz ${health.status} ${JSON.stringify(health.body)}, /metrics ${metrics.status}; ` +
      `wss from 127.0.0.5 x3, 127.0.0.6: ${results.map((r) => r.outcome).join(', ')}`);
    assert.equal(health.body, 'ok\n');
    assert.equal(metrics.status, 404);
    assert.deepEqual(results.map((r) => r.outcome), ['in', 'in', 'closed 1013', 'in']);
  } finally {
    closeAll(results);
    await tls.stop();
  }
  await waitUntil(async () => (await healthz(server)).body?.clients === 0, 'every session gone', { timeoutMs: 10000 });
});

// ------------------------------------------------------------------ a room behind one address

/**
 * n people from one address join through Caddy at once, retrying a 429 as
 * the page does; those let in set a target each, and an observer waits to
 * see every one of them at its own place. Returns the figures.
 */
async function room(srv, proxy, n) {
  const observer = await connect(srv.wsUrl);
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: n }, () => join(proxy.wsUrl, { localAddress: '127.0.0.7', timeoutMs: 30000 })));
  const joinedS = (performance.now() - t0) / 1000;
  const inside = results.filter((r) => r.outcome === 'in');
  const want = new Map();
  inside.forEach((r, i) => {
    const x = 10 + (i % 40) * 35;
    const y = 10 + Math.floor(i / 40) * 35;
    want.set(r.clientId, { x, y });
    r.ws.send(JSON.stringify({ type: 'set_target', x, y }));
  });
  let seen = 0;
  await observer.waitFor(() => {
    const targets = observer.lastSnapshot?.targets ?? [];
    seen = targets.filter((t) => want.has(t.client_id) && Math.abs(t.x - want.get(t.client_id).x) < 0.01 && Math.abs(t.y - want.get(t.client_id).y) < 0.01).length;
    return seen === want.size;
  }, `all ${want.size} targets in a snapshot`, { timeoutMs: 30000 }).catch(() => {});
  const clients = (await healthz(srv)).body?.clients;
  const refused = await metric(srv, 'swarmcast_connections_refused_total{reason="connect_rate"}');
  observer.close();
  closeAll(results);
  return { results, inside: inside.length, seen, joinedS, clients, refused, maxAttempts: Math.max(...results.map((r) => r.attempts)) };
}

test('a room behind one address: 250 people through the proxy with the default limits all get in (the last 50 after a 429 and the page\'s retry) and each steers its own target', { ...T, timeout: 180000 }, async () => {
  // The server's own limits (no test overrides): only the trust is set.
  const srv = await startServer({ agents: 20, args: ['--trusted-proxy', '127.0.0.1', '--snapshot-hz', '5', ...QUICK], startTimeoutMs: 30000,
    env: { SWARMCAST_CONNECT_RATE: '', SWARMCAST_CONNECT_BURST: '' } });
  const proxy = await startCaddy(srv.port);
  try {
    const r = await room(srv, proxy, 250);
    console.log(`# 250 from 127.0.0.7 through Caddy, default limits: ${JSON.stringify(tally(r.results))} in ${r.joinedS.toFixed(1)} s ` +
      `(up to ${r.maxAttempts} attempts each; ${r.refused} upgrades refused 429 on the way); /healthz clients ${r.clients}; ` +
      `targets seen each at its own place: ${r.seen}`);
    assert.equal(r.inside, 250, `every one got in: ${JSON.stringify(tally(r.results))}`);
    assert.equal(r.seen, 250, 'every one steers its own target');
    assert.ok(r.refused > 0, 'past the burst, some were refused 429 and retried');
  } finally {
    await proxy.stop();
    const exit = await srv.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, `server exit\n${srv.output()}`);
  }
});

test('a room behind one address with --max-per-address 50: 50 of 60 get in, the others are refused with 1013', { ...T, timeout: 120000 }, async () => {
  const srv = await startServer({ agents: 20, args: ['--trusted-proxy', '127.0.0.1', '--snapshot-hz', '5', '--max-per-address', '50', ...QUICK], startTimeoutMs: 30000 });
  const proxy = await startCaddy(srv.port);
  try {
    const r = await room(srv, proxy, 60);
    console.log(`# 60 from 127.0.0.7 through Caddy, --max-per-address 50: ${JSON.stringify(tally(r.results))}; targets seen ${r.seen}`);
    assert.deepEqual(tally(r.results), { in: 50, 'closed 1013': 10 });
    assert.equal(r.seen, 50);
  } finally {
    await proxy.stop();
    const exit = await srv.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, `server exit\n${srv.output()}`);
  }
});

// ------------------------------------------------------------------ bad values

test('bad --trusted-proxy and --metrics-listen values are refused at start, saying what is wrong', async () => {
  const cases = [
    [['--trusted-proxy', '10.0.0.1/8'], /"10\.0\.0\.1\/8": it has bits set below its prefix/],
    [['--trusted-proxy', '127.0.0.1,proxy.example'], /"proxy\.example": not an IPv4 or IPv6 address/],
    [['--trusted-proxy', '::1/129'], /at most \/128/],
    [['--metrics-listen', 'localhost:9080'], /--metrics-listen: want ADDR:PORT/],
    [['--metrics-listen', '127.0.0.1'], /--metrics-listen: want ADDR:PORT/],
    [['--port', '8080', '--metrics-listen', '127.0.0.1:8080'], /must not use the public port/],
    [['--bind', '127.0.0.1', '--metrics-listen', '[::1]:9080'], /is IPv6 but --bind 127\.0\.0\.1 is IPv4/],
    [['--port', '65000'], /no room for the metrics port/],
  ];
  for (const [args, message] of cases) {
    const r = spawnSync(serverBin, args, { encoding: 'utf8', timeout: 10000, env: { ...process.env, SWARMCAST_TRUSTED_PROXY: '', SWARMCAST_METRICS_LISTEN: '' } });
    assert.equal(r.status, 2, `swarmcast ${args.join(' ')} exits with 2, not ${r.status}\n${r.stderr}`);
    assert.match(r.stderr, message, `swarmcast ${args.join(' ')} explains itself`);
  }
  const env = spawnSync(serverBin, [], { encoding: 'utf8', timeout: 10000, env: { ...process.env, SWARMCAST_TRUSTED_PROXY: '300.1.2.3' } });
  assert.equal(env.status, 2);
  assert.match(env.stderr, /SWARMCAST_TRUSTED_PROXY: "300\.1\.2\.3"/);
});
