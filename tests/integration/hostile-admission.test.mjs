// Fair admission: one address that fills the server (within its
// --max-per-address) cannot lock everyone else out. When the server is
// full, a newcomer from an address holding at least two sessions fewer
// than the heaviest one takes that address's newest session's place (that
// one is closed with 1013 "server full"); the heavy address itself is
// still refused with 1013, as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { startServer, httpGet, waitClients } from '../lib/server.mjs';
import { openViewer } from '../lib/viewer.mjs';

const T = { timeout: 60000 };

/** A viewer from localAddress once it got its hello, or the code it was closed with. */
async function tryOpen(url, localAddress) {
  // A refused session is opened, then closed with 1013 at once.
  const v = await openViewer(url, { name: localAddress, localAddress, waitHello: false });
  await v.waitFor(() => v.hello || v.closeInfo, 'hello or close');
  return v.hello ? v : v.closeInfo.code;
}

test('a full server makes room for an address holding fewer sessions: the heaviest address loses its newest, and is itself still refused', T, async () => {
  const server = await startServer({ agents: 50, args: ['--max-clients', '8'] });
  const heavy = [];
  try {
    for (let i = 0; i < 8; i++) heavy.push(await openViewer(server.wsUrl, { name: `heavy ${i}`, localAddress: '127.0.0.40' }));
    await waitClients(server, 8);
    const again = await tryOpen(server.wsUrl, '127.0.0.40');
    const newcomer = await tryOpen(server.wsUrl, '127.0.0.41');
    const newestClose = await heavy[7].closed;
    const second = await tryOpen(server.wsUrl, '127.0.0.42');
    const nextClose = await heavy[6].closed;
    const { body } = await httpGet(server.port, '/metrics');
    const madeRoom = Number(/^swarmcast_connections_made_room_total (\d+)$/m.exec(body)?.[1]);
    console.log(`# fair admission, --max-clients 8 all from 127.0.0.40: its 9th ${again}; a newcomer from 127.0.0.41 ` +
      `${typeof newcomer === 'object' ? 'let in' : newcomer}, 127.0.0.40's newest closed with ${newestClose.code} "${newestClose.reason}"; ` +
      `127.0.0.42 ${typeof second === 'object' ? 'let in' : second}, the next newest closed with ${nextClose.code}; made room ${madeRoom}`);
    assert.equal(again, 1013, 'the address holding every slot is refused more');
    assert.equal(typeof newcomer, 'object', `the newcomer from another address is let in (${newcomer})`);
    assert.equal(newestClose.code, 1013);
    assert.match(newestClose.reason, /server full/);
    assert.equal(typeof second, 'object', `a second newcomer is let in too (${second})`);
    assert.equal(nextClose.code, 1013);
    for (let i = 0; i < 6; i++) assert.equal(heavy[i].closeInfo, null, `heavy ${i}, older, is still connected`);
    assert.equal(madeRoom, 2);
    await waitClients(server, 8);
    newcomer.close();
    second.close();
  } finally {
    for (const v of heavy) v.close();
    const r = await server.stop();
    assert.deepEqual(r, { code: 0, signal: null }, `server exit\n${server.output()}`);
  }
});
