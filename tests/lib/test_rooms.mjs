// The many-rooms knob (SWARMCAST_TEST_ROOMS=N; lib/server.mjs calls this
// after startServer): N rooms on the server under test, each with a viewer
// watching it, so that every attack of a suite written for one world meets
// a server of many (issue 24). A suite need not know: its own clients,
// budget and limits are what they were.
//
//   - The rooms hold no agents, so that they take nothing of the shared
//     population budget (a suite that resets its world to hello's
//     max_agents still can): the first room is made from the smallest
//     shipped scenario (couzin-torus, 150 agents: a model of its own) and
//     reset to none by its operator, once its budget has earned a reset
//     (about 3 s, less with --rate-scale); the others copy it. Each still
//     ticks 60 times a second on its own thread, and snapshots, metrics and
//     presence go to its viewer. Where the default room holds the whole
//     budget (--agents above the derived limit, which it then raises to
//     --agents), the server is started again with 150 more (--max-agents).
//   - Every room is made, and watched, from an address of its own
//     (127.0.240.1, .2, …: no suite uses them), so that neither the
//     creations per address (20 at once) nor the sessions per address
//     (--connect-burst, --max-per-address) of the suite are touched.
//   - The viewers are sessions: startServer raises a --max-clients the
//     suite gave by N, waitClients() counts them in, and ownClients()
//     takes them out of a /healthz figure.
//   - When the suite stops the server, check() first makes sure every
//     viewer is still connected and still gets snapshots (what the attack
//     did to the other rooms), and says what they saw.
import { openViewer } from './viewer.mjs';
import { withTimeout, sleep } from './server.mjs';

const STEP_MS = 10000;
// The agents of couzin-torus (client-web/scenarios/), the first room's.
const SCENARIO_AGENTS = 150;
export const ROOM_ADDRESS = (i) => `127.0.240.${i + 1}`;

/** A Client-like request() on a low-overhead viewer: the reply (ack, error, room_created) to cmd. */
export function request(v, cmd, timeoutMs = STEP_MS) {
  const id = 1 + Math.floor(Math.random() * 1e9);
  const from = v.texts.length;
  v.send({ ...cmd, id });
  return v.waitFor(() => v.texts.slice(from).find((m) => (m.type === 'ack' || m.type === 'error' || m.type === 'room_created') && m.id === id),
    `the reply to ${cmd.type}`, timeoutMs);
}

async function created(v, cmd) {
  const reply = await request(v, cmd);
  if (reply.type !== 'room_created') throw new Error(`rooms knob: ${JSON.stringify(cmd)} was refused: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * Makes n rooms on server (its argv says --rooms, --control-token) and a
 * viewer in each. Returns { count, codes, viewers, check() } or null when
 * the server makes no rooms (--rooms off).
 */
export async function makeTestRooms(server, n, { parallel = 4 } = {}) {
  const flag = (name) => { const i = server.argv.lastIndexOf(name); return i >= 0 ? server.argv[i + 1] : undefined; };
  if (flag('--rooms') === 'off') {
    console.log(`# rooms knob: --rooms off, no rooms made`);
    return null;
  }
  const t0 = performance.now();
  const url = server.wsUrl;
  const viewers = [];
  const closeAll = (list) => { for (const v of list) v.close(); };
  const creators = [];
  try {
    // The first room, reset to no agents by its operator.
    const first = await openViewer(url, { name: 'rooms knob: creator 1', localAddress: ROOM_ADDRESS(0), timeoutMs: STEP_MS });
    creators.push(first);
    const token = flag('--control-token');
    if (flag('--rooms') === 'operators' && token) await request(first, { type: 'auth', token });
    const firstRoom = { type: 'create_room', from: 'scenario', scenario: 'couzin-torus', name: 'Test room 1' };
    const reply = await request(first, firstRoom);
    if (reply.code === 'limit_reached' && /population budget/.test(reply.message)) {
      // The default room holds the whole budget (--agents above what this
      // machine steps raises the limit to it): startServer starts again
      // with room for the first room's scenario, given back by its reset.
      throw Object.assign(new Error(reply.message), { maxAgents: first.hello.limits.max_agents, moreAgents: SCENARIO_AGENTS });
    }
    if (reply.type !== 'room_created') throw new Error(`rooms knob: ${JSON.stringify(firstRoom)} was refused: ${JSON.stringify(reply)}`);
    const a = reply;
    const va = await openViewer(`${url}?room=${a.code}`, { name: `rooms knob: room 1 (${a.code})`, localAddress: ROOM_ADDRESS(0), timeoutMs: STEP_MS });
    viewers.push(va);
    const auth = await request(va, { type: 'auth', token: a.token });
    if (auth.type !== 'ack') throw new Error(`rooms knob: the room's token: ${JSON.stringify(auth)}`);
    // A reset costs a whole budget, which a new session earns in about 3 s.
    let reset;
    for (let tries = 0; tries < 60; tries++) {
      reset = await request(va, { type: 'reset', agents: 0 });
      if (reset.code !== 'rate_limited') break;
      await sleep(250);
    }
    if (reset.type !== 'ack') throw new Error(`rooms knob: the reset to no agents: ${JSON.stringify(reset)}`);
    first.close();
    await withTimeout(first.closed, STEP_MS, `${first.name} to close`);
    // The others copy it, each made and watched from an address of its own,
    // `parallel` at a time: a creator is a session too, and the places
    // the suite left (--max-clients plus n) hold the viewers and `parallel`.
    const rest = [];
    let next = 1;
    const lane = async () => {
      while (next < n) {
        const i = next++;
        const c = await openViewer(`${url}?room=${a.code}`, { name: `rooms knob: creator ${i + 1}`, localAddress: ROOM_ADDRESS(i), timeoutMs: STEP_MS });
        creators.push(c);
        const made = await created(c, { type: 'create_room', from: 'copy', name: `Test room ${i + 1}` });
        c.close();
        await withTimeout(c.closed, STEP_MS, `${c.name} to close`);
        const v = await openViewer(`${url}?room=${made.code}`, { name: `rooms knob: room ${i + 1} (${made.code})`, localAddress: ROOM_ADDRESS(i), timeoutMs: STEP_MS });
        viewers.push(v);
        rest.push(made.code);
      }
    };
    await Promise.all(Array.from({ length: parallel }, lane));
    for (const v of viewers) await v.nextSnapshot(() => true, 'a first snapshot', STEP_MS);
    const codes = [a.code, ...rest];
    const ms = Math.round(performance.now() - t0);
    const made = performance.now();
    console.log(`# rooms knob: ${n} rooms of no agents made and watched in ${ms} ms: ${codes.join(' ')}`);
    return {
      count: viewers.length,
      codes,
      viewers,
      /**
       * Whether the rooms came through the attack: every viewer still
       * connected and given a snapshot now. Resolves to a list of problems
       * (empty when none) and prints what the viewers saw.
       */
      async check() {
        const problems = [];
        const until = performance.now();
        await Promise.all(viewers.map(async (v) => {
          if (v.closeInfo) {
            problems.push(`${v.name} was closed with ${v.closeInfo.code} ${v.closeInfo.reason}`);
            return;
          }
          await v.nextSnapshot(() => true, 'a snapshot at the end', STEP_MS).catch((e) => problems.push(e.message));
        }));
        const m = viewers.map((v) => v.measure(made, until, Math.max(1, until - made)));
        const rates = m.map((x) => x.rate);
        const gaps = m.map((x) => x.maxGapMs);
        // (rates over less than a second say little: then only the count)
        const rated = until - made >= 1000
          ? `snapshots/s min ${Math.min(...rates).toFixed(1)} mean ${(rates.reduce((s, x) => s + x, 0) / rates.length).toFixed(1)}, longest gap ${Math.max(...gaps)} ms`
          : `${viewers.reduce((s, v) => s + v.arrivals.length, 0)} snapshots in all`;
        console.log(`# rooms knob: ${viewers.length} room viewers over ${((until - made) / 1000).toFixed(1)} s: ${rated}; ` +
          `${problems.length ? `PROBLEMS: ${problems.join('; ')}` : 'all still connected and served'}`);
        return problems;
      },
      close: () => closeAll(viewers),
    };
  } catch (e) {
    closeAll([...creators, ...viewers]);
    throw e;
  }
}
