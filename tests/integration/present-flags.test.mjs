// The flags behind the presenter's screen and the embed (issue 20), on the
// real server and a real relay: the security headers of every HTTP
// response, exactly as libwebsockets' "best practices" option sent them
// without --allow-frame, and with frame-ancestors naming the allowed sites
// (and no X-Frame-Options) with it; --public-url in hello (v1 and v2, and a
// relay's own); bad values refused at start, from flags and the environment.
import { test, describe as suite, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

import { startServer, httpGet, serverBin, waitUntil, healthz, withTimeout } from '../lib/server.mjs';
import { connect } from '../lib/client.mjs';
import { connectV2 } from '../lib/client_v2.mjs';
import { findNatsServer, startNats, startRelay } from '../lib/nats.mjs';

const T = { timeout: 60000 };

// What libwebsockets 4.1's LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE
// sent on every response (captured with curl -sD- from the server built
// before the option was replaced by our own list).
const LWS_CSP = "default-src 'none'; img-src 'self' data: ; script-src 'self'; font-src 'self'; style-src 'self'; " +
  "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none';form-action 'self';";
const LWS_HEADERS = {
  'content-security-policy': LWS_CSP,
  'x-content-type-options': 'nosniff',
  'x-xss-protection': '1; mode=block',
  'x-frame-options': 'deny',
  'referrer-policy': 'no-referrer',
};
const SECURITY = Object.keys(LWS_HEADERS);
// Pages, a library from npm, the status endpoints and a missing file.
const PATHS = ['/', '/main.js', '/style.css', '/node_modules/qrcode-generator/dist/qrcode.mjs', '/healthz', '/metrics',
  '/no-such-file'];

function securityHeaders(res) {
  const out = {};
  for (const name of SECURITY) if (res.headers[name] !== undefined) out[name] = res.headers[name];
  return out;
}

async function checkHeaders(port, want) {
  for (const p of PATHS) {
    const res = await httpGet(port, p);
    assert.deepEqual(securityHeaders(res), want, `the security headers of GET ${p} (${res.status})`);
    for (const name of SECURITY) {
      const raw = res.headers[name];
      assert.ok(!Array.isArray(raw), `one ${name} header on ${p}, not several`);
    }
  }
}

const FRAMED = 'https://blog.example.org,http://127.0.0.1:8123';
const FRAMED_HEADERS = {
  ...LWS_HEADERS,
  'content-security-policy': LWS_CSP.replace("frame-ancestors 'none'", 'frame-ancestors https://blog.example.org http://127.0.0.1:8123'),
};
delete FRAMED_HEADERS['x-frame-options'];

test('without --allow-frame every response carries the same security headers libwebsockets sent, framing refused', T, async () => {
  const server = await startServer({ agents: 50 });
  try {
    await checkHeaders(server.port, LWS_HEADERS);
    const mjs = await httpGet(server.port, '/node_modules/qrcode-generator/dist/qrcode.mjs');
    assert.equal(mjs.status, 200, 'the QR library is served (scripts/web-deps.sh installs it)');
    assert.match(mjs.headers['content-type'], /^text\/javascript/, 'an ES module (.mjs) is served as JavaScript');
  } finally {
    await server.stop();
  }
});

test('--allow-frame names the sites in frame-ancestors, drops X-Frame-Options and changes nothing else', T, async () => {
  const server = await startServer({ agents: 50, args: ['--allow-frame', FRAMED] });
  try {
    await checkHeaders(server.port, FRAMED_HEADERS);
  } finally {
    await server.stop();
  }
  // The same from the environment.
  const fromEnv = await startServer({ agents: 50, env: { SWARMCAST_ALLOW_FRAME: 'https://blog.example.org' } });
  try {
    const res = await httpGet(fromEnv.port, '/');
    assert.match(res.headers['content-security-policy'], /frame-ancestors https:\/\/blog\.example\.org; base-uri/);
    assert.equal(res.headers['x-frame-options'], undefined);
  } finally {
    await fromEnv.stop();
  }
});

test('--public-url goes to every hello (v1 and v2) as public_url; without it there is no such field', T, async () => {
  const url = 'https://flock.example.org/demo';
  const server = await startServer({ agents: 50, args: ['--public-url', url] });
  const clients = [];
  try {
    const v1 = await connect(server.wsUrl);
    const v2 = await connectV2(server.wsUrl);
    clients.push(v1, v2);
    assert.equal(v1.hello.public_url, url);
    assert.equal(v2.hello.public_url, url);
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
  const plain = await startServer({ agents: 50, env: { SWARMCAST_PUBLIC_URL: '' } });
  try {
    const c = await connect(plain.wsUrl);
    assert.equal('public_url' in c.hello, false);
    c.close();
  } finally {
    await plain.stop();
  }
});

// Runs the binary with args and env and returns { code, stderr } (it must
// exit at once: a bad value is refused before anything starts).
function runRefused(args, env = {}) {
  return withTimeout(new Promise((resolve, reject) => {
    const proc = spawn(serverBin, ['--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (c) => { stderr += c; });
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stderr }));
  }), 10000, `swarmcast ${args.join(' ')} to exit`);
}

test('bad --public-url and --allow-frame values are refused at start with exit code 2', T, async () => {
  const badUrls = ['flock.example.org', 'javascript:alert(1)', 'ftp://x.org/', 'https://', 'https://x.org/a b',
    'https://x.org/\u0001', 'https://x.org/"><script>', `https://x.org/${'a'.repeat(600)}`];
  for (const v of badUrls) {
    const r = await runRefused(['--public-url', v]);
    assert.equal(r.code, 2, `--public-url ${JSON.stringify(v)} exits with 2\n${r.stderr}`);
    assert.match(r.stderr, /bad value .* for --public-url/);
  }
  const badOrigins = ['*', "'self'", 'https://x.org/', 'https://x.org;script-src *', 'https://x.org https://y.org',
    'https://x.org,', 'http://x.org:99999', 'x.org', `https://${'a'.repeat(1100)}.org`];
  for (const v of badOrigins) {
    const r = await runRefused(['--allow-frame', v]);
    assert.equal(r.code, 2, `--allow-frame ${JSON.stringify(v)} exits with 2\n${r.stderr}`);
    assert.match(r.stderr, /bad value .* for --allow-frame/);
  }
  const env = await runRefused([], { SWARMCAST_ALLOW_FRAME: 'https://x.org/path' });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /SWARMCAST_ALLOW_FRAME/);
  const envUrl = await runRefused([], { SWARMCAST_PUBLIC_URL: 'javascript:1' });
  assert.equal(envUrl.code, 2);
  assert.match(envUrl.stderr, /SWARMCAST_PUBLIC_URL/);
});

const natsBin = findNatsServer();
const skip = natsBin ? false : 'nats-server not found: install it with scripts/deps.sh test (Debian package nats-server)';

suite('a relay serves pages too: the same headers, its own public URL', { skip }, () => {
  let nats;
  let sim;
  let relay;
  before(async () => {
    nats = await startNats({ bin: natsBin });
    sim = await startServer({ agents: 50, args: ['--nats', nats.url, '--public-url', 'https://sim.example.org/'] });
    relay = await startRelay(nats.url, { args: ['--allow-frame', FRAMED, '--public-url', 'https://relay.example.org/room'] });
    let last = null;
    await waitUntil(async () => (last = await healthz(relay)).status === 200, 'the relay fed by the simulation',
      { timeoutMs: 30000, intervalMs: 200 }).catch((e) => {
      throw new Error(`${e.message}; last ${last?.status} ${last?.text}\n${relay.output()}`);
    });
  });
  after(async () => {
    for (const p of [relay, sim]) await p?.stop({ signal: 'SIGKILL' }).catch(() => {});
    await nats?.stop({ signal: 'SIGKILL' });
  });

  test('the relay\'s responses carry --allow-frame\'s headers, and its viewers\' hello its own public_url', T, async () => {
    await checkHeaders(relay.port, FRAMED_HEADERS);
    const c = await connectV2(relay.wsUrl);
    try {
      assert.equal(c.hello.public_url, 'https://relay.example.org/room', 'the relay\'s, not the simulation\'s');
    } finally {
      c.close();
    }
    const direct = await connectV2(sim.wsUrl);
    try {
      assert.equal(direct.hello.public_url, 'https://sim.example.org/');
    } finally {
      direct.close();
    }
  });
});
