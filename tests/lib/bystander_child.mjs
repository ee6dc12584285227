// A bystander in a process of its own (tests/lib/bystander.mjs starts it):
// it watches one server and prints each snapshot's arrival as
// "<ms since the epoch, sub-millisecond> <tick>", so that what it measures
// is the server, not the test process it would otherwise share with the
// attack it watches.
//
//   node bystander_child.mjs URL v1|v2 LOCAL_ADDRESS
import { openViewer } from './viewer.mjs';
import { connectV2 } from './client_v2.mjs';

const [url, protocol, localAddress] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const print = (line) => process.stdout.write(`${line}\n`);

async function main() {
  let socket;
  if (protocol === 'v2') {
    const c = await connectV2(url, { localAddress });
    c.ws.on('message', (data, isBinary) => { if (isBinary) print(`${now().toFixed(3)} ${c.state?.seq ?? 0}`); });
    c.view(0, 0, 1600, 900);
    socket = c.ws;
  } else {
    const v = await openViewer(url, { name: 'bystander', localAddress });
    v.ws.on('message', (data, isBinary) => { if (isBinary) print(`${now().toFixed(3)} ${v.arrivals.at(-1)?.tick ?? 0}`); });
    socket = v.ws;
  }
  socket.on('close', (code) => { print(`close ${code}`); process.exit(0); });
  print('ready');
}

main().catch((e) => { print(`error ${e.message}`); process.exit(1); });
