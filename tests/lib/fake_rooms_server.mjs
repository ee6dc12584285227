// A stand-in for the server's rooms (protocol/PROTOCOL.md, "Rooms"), for
// browser tests of the page alone: it serves client-web/ at / and at /r/…
// with the server's Content-Security-Policy, and speaks just enough of the
// protocol on /ws?room=CODE: hello (with room, room_name, rooms), no
// snapshots; create_room, auth with a room's token, room_rename,
// room_close, ping; an unknown code closed with 4404, a closed room with
// 4410. It is not the server: tests/e2e/rooms.test.mjs checks the real one.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { WebSocketServer } from 'ws';

import { webRoot } from './server.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.png': 'image/png', '.json': 'application/json' };
const CSP = "default-src 'none'; img-src 'self' data: ; script-src 'self'; font-src 'self'; style-src 'self'; " +
  "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none';form-action 'self';";

function hello(clientId, room) {
  return {
    type: 'hello', protocol: 1, server: 'fake-rooms', client_id: clientId,
    world: { width: 1600, height: 900 }, tick_hz: 60, snapshot_hz: 30,
    limits: { max_message_bytes: 4096, max_agents: 3000, max_obstacles: 64, max_add_agents: 1000, visitor_obstacles: 3 },
    role: 'visitor', control_token: false, params: [],
    room: room.code, room_name: room.name, rooms: 'open',
  };
}

// options: { rooms: [{ code, name, token }] } besides the default room;
// scenarios the server knows: couzin-torus only (the page must show the
// error for the others).
export async function startFakeRoomsServer({ rooms = [], newCodes = ['NEWR2345', 'NEWR6789'] } = {}) {
  const table = new Map([['', { code: '', name: '', token: null, sockets: new Set() }]]);
  for (const r of rooms) table.set(r.code, { name: '', token: null, ...r, sockets: new Set() });
  const received = []; // { room, msg } of every command
  const opened = []; // the room argument of every WebSocket opened
  let nextClient = 1;
  const codes = [...newCodes];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let p = decodeURIComponent(url.pathname);
    if (p.startsWith('/r/')) p = p.slice(2); // /r/main.js → /main.js
    let file = path.join(webRoot, path.normalize(p));
    if (!file.startsWith(webRoot)) file = path.join(webRoot, 'index.html');
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
    } catch {
      file = path.join(webRoot, 'index.html'); // /r/CODE: the page
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-security-policy': CSP });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  const wss = new WebSocketServer({
    server,
    path: '/ws',
    handleProtocols: (protocols) => (protocols.has('swarmcast.v1') ? 'swarmcast.v1' : false),
  });
  wss.on('connection', (ws, req) => {
    const code = new URL(req.url, 'http://x').searchParams.get('room') ?? '';
    opened.push(code);
    const room = table.get(code);
    if (!room || room.closed) {
      ws.close(room ? 4410 : 4404, room ? 'room closed' : 'no such room');
      return;
    }
    room.sockets.add(ws);
    ws.on('close', () => room.sockets.delete(ws));
    ws.send(JSON.stringify(hello(nextClient++, room)));
    const reply = (m) => ws.send(JSON.stringify(m));
    ws.on('message', (data) => {
      let msg;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      received.push({ room: code, msg });
      const { id } = msg;
      if (msg.type === 'ping') reply({ type: 'pong', id });
      else if (msg.type === 'auth') {
        if (room.token && msg.token === room.token) reply({ type: 'ack', cmd: 'auth', id, role: 'operator' });
        else reply({ type: 'error', cmd: 'auth', id, code: 'bad_token', message: 'wrong token' });
      } else if (msg.type === 'create_room') {
        if (msg.from === 'scenario' && msg.scenario !== 'couzin-torus') {
          reply({ type: 'error', cmd: 'create_room', id, code: 'bad_value', message: `no scenario "${msg.scenario}" on this server` });
          return;
        }
        const newCode = codes.shift();
        if (!newCode) {
          reply({ type: 'error', cmd: 'create_room', id, code: 'limit_reached', message: 'this server holds its 2 rooms already (--max-rooms)' });
          return;
        }
        const token = `r_${randomBytes(16).toString('hex')}`;
        table.set(newCode, { code: newCode, name: msg.name ?? '', token, sockets: new Set(), from: msg });
        reply({ type: 'room_created', id, code: newCode, name: msg.name ?? '', token, path: `/r/${newCode}` });
      } else if (msg.type === 'room_rename') {
        room.name = msg.name;
        reply({ type: 'ack', cmd: 'room_rename', id, name: msg.name });
      } else if (msg.type === 'room_close') {
        room.closed = true;
        for (const s of room.sockets) s.close(4410, 'room closed');
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    httpUrl: `http://127.0.0.1:${port}`,
    rooms: table,
    received,
    opened,
    async stop() {
      for (const c of wss.clients) c.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
