// The HTTPS front as shipped: docker/Caddyfile itself (what
// docker/compose-https.yml and compose-scaled.yml run in docker/caddy.Dockerfile),
// run by Debian's caddy on loopback without Docker, with the variables the
// compose files set (no domain: https://localhost from Caddy's internal CA;
// free ports for 80 and 443), in front of two real servers as the scaled
// set-up's two relays. docker/check.sh runs the same file in containers.
//
//  - https://localhost/healthz answers through it, its certificate verified
//    against Caddy's own root; plain http:// is redirected to https://;
//    /metrics is 404 from Caddy itself;
//  - viewers over wss:// from four addresses get frames; Caddy spreads them
//    over both upstreams and the servers (--trusted-proxy 127.0.0.1/32)
//    count each by the address Caddy forwarded;
//  - with one upstream stopped, new viewers all reach the other.
//
// caddy comes with scripts/deps.sh test; without it the file says so and
// skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http from 'node:http';
import WebSocket from 'ws';
import { startServer, healthz, httpGet, waitUntil } from '../lib/server.mjs';
import { caddyAvailable, startShippedCaddy } from '../lib/caddy.mjs';

const HAVE_CADDY = caddyAvailable();
const T = { timeout: 120000, skip: HAVE_CADDY ? false : 'caddy not found (scripts/deps.sh test installs it)' };
const WAIT = { timeoutMs: 30000, intervalMs: 200 };

let servers = [];
let caddy = null;

before(async () => {
  if (!HAVE_CADDY) return;
  servers = await Promise.all([0, 1].map(() => startServer({ agents: 300, args: ['--trusted-proxy', '127.0.0.1/32'] })));
  caddy = await startShippedCaddy(servers.map((s) => s.port));
});

after(async () => {
  if (caddy) await caddy.stop();
  await Promise.all(servers.map((s) => s.stop()));
});

/** A GET through the front to https://localhost:PORT (connected on 127.0.0.1), trusting only Caddy's root. */
function get(path) {
  return new Promise((resolve, reject) => {
    const req = https.get({
      host: '127.0.0.1', port: caddy.httpsPort, path, servername: 'localhost', ca: caddy.ca, agent: false,
      headers: { Host: `localhost:${caddy.httpsPort}` },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`GET ${path} timed out`)));
  });
}

/** A v2 viewer over wss:// from `localAddress`; resolves to the socket after its first frame. */
function viewer(localAddress) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${caddy.httpsPort}/ws`, 'swarmcast.v2', {
      ca: caddy.ca, servername: 'localhost', headers: { Host: `localhost:${caddy.httpsPort}` }, localAddress,
    });
    const timer = setTimeout(() => { ws.terminate(); reject(new Error(`no frame for the viewer from ${localAddress}`)); }, 30000);
    ws.on('message', (data, isBinary) => { if (isBinary) { clearTimeout(timer); resolve(ws); } });
    ws.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/** swarmcast_forwarded_total{outcome="client"} of a server (its metrics listener). */
async function forwardedClients(server) {
  const { body } = await httpGet(server.metricsPort, '/metrics');
  const m = /^swarmcast_forwarded_total\{outcome="client"\} (\d+)/m.exec(body);
  return m ? Number(m[1]) : 0;
}

test('https://localhost through docker/Caddyfile: verified against its own CA, http redirected, /metrics 404', T, async () => {
  await waitUntil(async () => (await get('/healthz')).status === 200, 'the front to answer /healthz', WAIT);
  const hz = await get('/healthz');
  assert.equal(hz.body.trim(), 'ok');
  const page = await get('/');
  assert.equal(page.status, 200);
  assert.match(page.body, /<html/i);
  assert.equal((await get('/metrics')).status, 404, '/metrics through the front');
  const redirect = await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: caddy.httpPort, path: '/', headers: { Host: 'localhost' }, agent: false },
      (res) => { res.resume(); resolve({ status: res.statusCode, location: res.headers.location }); }).on('error', reject);
  });
  assert.ok([301, 302, 307, 308].includes(redirect.status), `http:// answered ${redirect.status}`);
  assert.match(redirect.location, /^https:\/\/localhost/);
});

test('viewers over wss:// from four addresses reach both upstreams, each counted by its forwarded address', T, async () => {
  const before0 = await Promise.all(servers.map(forwardedClients));
  const sockets = [];
  try {
    for (const a of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) sockets.push(await viewer(a));
    const clients = await Promise.all(servers.map(async (s) => (await healthz(s)).body.clients));
    assert.ok(clients.every((n) => n >= 1), `viewers per upstream: ${clients.join(', ')}`);
    assert.equal(clients[0] + clients[1], 4);
    const after0 = await Promise.all(servers.map(forwardedClients));
    assert.equal(after0[0] - before0[0] + after0[1] - before0[1], 4,
      'every session through Caddy is counted under the address Caddy forwarded');
  } finally {
    for (const ws of sockets) ws.terminate();
  }
});

test('with one upstream stopped, new viewers all reach the other', T, async () => {
  await servers[1].stop();
  const sockets = [];
  try {
    for (const a of ['127.0.0.6', '127.0.0.7', '127.0.0.8']) sockets.push(await viewer(a));
    await waitUntil(async () => (await healthz(servers[0])).body.clients === 3, 'the three viewers on the running upstream', WAIT);
  } finally {
    for (const ws of sockets) ws.terminate();
  }
});
