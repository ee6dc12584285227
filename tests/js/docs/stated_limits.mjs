// Limits, costs, rates and close codes the documents state that are not
// options: each is found in the documents by a pattern (its number captured)
// and compared with the value the code uses (a #define, an initializer, the
// --help text). A statement reworded so that its pattern no longer matches
// fails too ("stated nowhere"): update the pattern, never drop the check.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { backoffDelay, BACKOFF_MAX_MS } from '../../../client-web/net/connection.js';
import { CLIP_MAX_MS } from '../../../client-web/record/capture.js';
import { LOG_MAX_ROWS } from '../../../client-web/record/metrics_log.js';
import { WINDOWS } from '../../../client-web/record/plots.js';
import { repoRoot } from './doc_files.mjs';
import { NUMBER } from './help_options.mjs';
import { commandCosts, define, field } from './source_values.mjs';

const POLICY = 'server/src/people/client_policy.h';
const ADMISSION = 'server/src/net/admission.c';
const NET_INTERNAL = 'server/src/net/net_internal.h';

// A pattern over prose: spaces in it match any run of whitespace (a line
// break included), `**` around numbers is optional.
function p(source) {
  const re = source
    .replace(/\*\*/g, '(?:\\*\\*)?')
    .replace(/ /g, '\\s+');
  return new RegExp(re, 'gm');
}

const NUM = NUMBER;
const WORD = '(one|two|three|four|five|six|eight|ten|twenty|\\d+)';

export const WORDS = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, eight: 8, ten: 10, twenty: 20 };

// A shell script's default: `name=${VAR:-N}`.
function shellDefault(file, variable) {
  const m = new RegExp(`\\$\\{${variable}:-([0-9.]+)\\}`).exec(readFileSync(path.join(repoRoot, file), 'utf8'));
  if (!m) throw new Error(`${file}: no \${${variable}:-N}`);
  return Number(m[1]);
}

// help(name) reads the parsed --help options; each entry's value(help) gives
// the number its statements must show (a list: one per captured number).
export const statedLimits = [
  { what: 'the page\'s reconnection waits (s): doubling from the first, then every …',
    find: [p(`retries by itself \\(${NUM}, ${NUM}, ${NUM}, ${NUM}, then every ${NUM} s\\)`)],
    value: () => [0, 1, 2, 3].map((n) => backoffDelay(n) / 1000).concat(BACKOFF_MAX_MS / 1000) },
  { what: 'the longest clip the page records (s)',
    find: [p(`MediaRecorder, up to ${NUM} s`)],
    value: () => CLIP_MAX_MS / 1000 },
  { what: 'the metrics the page keeps for its CSV, at the default --metrics-hz (hours)',
    find: [p(`every metrics message the page has received \\(up to ${WORD} hours\\)`)],
    value: (help) => LOG_MAX_ROWS / help.get('--metrics-hz').default / 3600 },
  { what: 'the plots\' windows (minutes)',
    find: [p(`plotted over the last ${NUM}, ${NUM} or ${NUM} minutes`)],
    value: () => WINDOWS.map((s) => s / 60) },
  { what: 'each fuzz target\'s time (s)',
    find: [p(`\`FUZZ_SECONDS\` \\(default ${NUM}\\)`), p(`each libFuzzer target runs for ${NUM} s`)],
    value: () => shellDefault('scripts/fuzz.sh', 'FUZZ_SECONDS') },
  { what: 'the snapshot rate',
    find: [p(`snapshot rate \\(default ${NUM} Hz\\)`)],
    value: (help) => help.get('--snapshot-hz').default },
  { what: 'the contact push at most, in max_force',
    find: [p(`up to ${NUM} times \`max_force\``)],
    value: () => define('server/src/sim/reynolds.c', 'PUSH_MAX') },
  { what: 'a client\'s command budget (tokens it may save)',
    find: [p(`budget of at most \\*\\*${NUM}\\*\\* tokens`), p(`may save ${NUM} command tokens`)],
    value: () => define(POLICY, 'POLICY_BUCKET') },
  { what: 'the budget\'s refill per second',
    find: [p(`refilled at \\*\\*${NUM} per second`), p(`refilled at ${NUM} a second`), p(`command budget \\(${NUM} commands a second`)],
    value: () => define(POLICY, 'POLICY_REFILL_PER_S') },
  { what: 'the budget a new connection starts with',
    find: [p(`starts with \\*\\*${NUM}\\*\\*`), p(`and starts with ${NUM} \\(`), p(`gets ${NUM} tokens each time`)],
    value: () => define(POLICY, 'POLICY_START') },
  { what: 'a new connection\'s wait before it can pay for a reset (s, one decimal)',
    find: [p(`until the connection has earned it, ${NUM} s\\)`)],
    value: () => Math.round(10 * (commandCosts().get('reset') - define(POLICY, 'POLICY_START')) / define(POLICY, 'POLICY_REFILL_PER_S')) / 10 },
  { what: 'parameter changes a full budget pays for at once, then per second',
    find: [p(`a burst of ${NUM} parameter changes fits once, then ${NUM} a second`)],
    value: () => [define(POLICY, 'POLICY_BUCKET') / commandCosts().get('set_param'),
      define(POLICY, 'POLICY_REFILL_PER_S') / commandCosts().get('set_param')] },
  { what: 'rate-limited refusals before 1008',
    find: [p(`more than \\*\\*${NUM}\\*\\* such refusals`)],
    value: () => define(POLICY, 'POLICY_STRIKES') },
  { what: 'refusals forgiven per second',
    find: [p(`net of ${NUM} forgiven per second`)],
    value: () => define(POLICY, 'POLICY_FORGIVEN_PER_S') },
  { what: 'auth costs',
    find: [p(`\`auth\` costs ${NUM} of the client's budget`), p(`\\| \`auth\` \\| ${NUM} \\|`)],
    value: () => define(POLICY, 'POLICY_COST_AUTH') },
  { what: 'presence hello costs',
    find: [p(`\\| \`hello\` \\(presence\\) \\| ${NUM} \\|`)],
    value: () => define(POLICY, 'POLICY_COST_HELLO') },
  { what: 'cursor costs',
    find: [p(`\\| \`cursor\` \\| ${NUM} \\|`)],
    value: () => define(POLICY, 'POLICY_COST_CURSOR') },
  { what: 'inspect costs',
    find: [p(`\\| \`inspect\` \\| ${NUM} \\|`)],
    value: () => define(POLICY, 'POLICY_COST_INSPECT') },
  { what: 'a refused message costs',
    find: [p(`\\| a message refused as malformed or forbidden \\| ${NUM} \\|`)],
    value: () => define(POLICY, 'POLICY_COST_REFUSED') },
  ...['set_target', 'remove_obstacle', 'set_param', 'add_obstacle', 'add_agents', 'reset'].map((cmd) => ({
    what: `${cmd} costs`,
    find: [p(`^\\| (?:\`[a-z_]+\`, )*\`${cmd}\`(?:, \`[a-z_]+\`)* \\| ${NUM}`)],
    value: () => commandCosts().get(cmd) })),
  { what: 'moving a target, a parameter, a reset cost (README)',
    find: [p(`moving a target costs ${NUM}`)],
    value: () => commandCosts().get('set_target') },
  { what: 'a parameter costs (README)',
    find: [p(`a parameter ${NUM}, a reset all`)],
    value: () => commandCosts().get('set_param') },
  { what: 'a command message\'s size cap (bytes)',
    find: [p(`at most \\*\\*${NUM} bytes\\*\\*`), p(`a message longer than ${NUM} bytes`)],
    value: () => define('server/src/protocol/messages.h', 'PROTOCOL_MAX_MESSAGE_BYTES') },
  { what: 'the reassembly buffer (KiB)',
    find: [p(`the ${NUM} KiB reassembly buffer`), p(`reassembly \\(${NUM} KiB`)],
    value: () => define('server/src/protocol/messages.h', 'PROTOCOL_MAX_MESSAGE_BYTES') / 1024 },
  { what: 'commands queued per client for the next tick',
    find: [p(`more than ${NUM} commands waiting`), p(`queue \\(≤ ${NUM} per client\\)`)],
    value: () => define('server/src/app/app_internal.h', 'PENDING_PER_CLIENT') },
  { what: 'pending replies per client',
    find: [p(`its ${NUM} pending replies`), p(`up to ${NUM} pending replies`)],
    value: () => define(NET_INTERNAL, 'OUTBOX_CAP') },
  { what: 'a session\'s send buffer (KiB)',
    find: [p(`send buffer \\(${NUM} KiB\\)`), p(`its ${NUM} KiB send buffer`), p(`\\(${NUM} KiB to send\\)`)],
    value: () => define(NET_INTERNAL, 'SESSION_SNDBUF_BYTES') / 1024 },
  { what: 'obstacles a visitor may own',
    find: [p(`may own at most \\*\\*${NUM}\\*\\* at once`), p(`up to ${WORD} obstacles`), p(`keep up to ${WORD} obstacles`)],
    value: () => define('server/src/sim/commands.h', 'SIM_VISITOR_OBSTACLES') },
  { what: 'obstacles in the world',
    find: [p(`when ${NUM} exist`), p(`the world's limit of ${NUM}`)],
    value: () => define('server/src/sim/world.h', 'SIM_MAX_OBSTACLES') },
  { what: 'add_agents count at most',
    find: [p(`1 ≤ count ≤ ${NUM}`)],
    value: () => define('server/src/sim/world.h', 'SIM_MAX_ADD_AGENTS') },
  { what: 'add_agents scatter radius',
    find: [p(`scattered within ${NUM} u`)],
    value: () => define('server/src/sim/world.h', 'SIM_SPAWN_RADIUS') },
  { what: 'an obstacle\'s largest radius',
    find: [p(`1 ≤ radius ≤ ${NUM}`)],
    value: () => define('server/src/sim/world.h', 'SIM_OBSTACLE_MAX_RADIUS') },
  { what: 'an obstacle\'s fastest speed',
    find: [p(`−1000 ≤ vx, vy ≤ ${NUM}`)],
    value: () => define('server/src/sim/world.h', 'SIM_OBSTACLE_MAX_SPEED') },
  { what: 'the first wait after too many wrong tokens (s)',
    find: [p(`guess from that address waits ${NUM} s`), p(`guess waits ${NUM} s, then`), p(`waits ${NUM} s, doubling`)],
    value: () => define(ADMISSION, 'AUTH_DELAY_MS') / 1000 },
  { what: 'the longest wait after wrong tokens (s)',
    find: [p(`16 and at most ${NUM} s after`), p(`16 and ${NUM} s after`), p(`may wait up to ${NUM} s before`), p(`doubling, up to ${NUM} s`)],
    value: () => define(ADMISSION, 'AUTH_DELAY_MAX_MS') / 1000 },
  { what: 'quiet minutes that forget failed tokens',
    find: [p(`${WORD} minutes without a failure`), p(`${WORD} quiet minutes forget`)],
    value: () => define(ADMISSION, 'AUTH_FORGET_MS') / 60000 },
  { what: 'a token\'s longest length (bytes)',
    find: [p(`not a string, or longer than ${NUM} bytes`)],
    value: () => define('server/src/protocol/auth_decode.h', 'AUTH_MAX_TOKEN') },
  { what: 'a JSON number\'s longest length',
    find: [p(`at most ${NUM} characters long`)],
    value: () => define('server/src/protocol/json_strict.h', 'JSON_STRICT_MAX_NUMBER_CHARS') },
  { what: 'JSON nesting depth',
    find: [p(`nested at most ${NUM} deep`)],
    value: () => define('server/src/protocol/json_strict.h', 'JSON_STRICT_MAX_DEPTH') },
  { what: 'idle time before a seat can be taken (s)',
    find: [p(`no message of its own for \\*\\*${NUM} s\\*\\*`), p(`sent no message for ${NUM} s`)],
    value: () => define(ADMISSION, 'FAIR_SEAT_IDLE_MS') / 1000 },
  { what: 'an unfinished HTTP request or upgrade (s)',
    find: [p(`not finished within ${NUM} s`)],
    value: () => define('server/src/net/net.c', 'HANDSHAKE_TIMEOUT_S') },
  { what: 'pings: every third of --idle-timeout (s)',
    find: [p(`pings go out every ${NUM} s`)],
    value: (help) => help.get('--idle-timeout').default / 3 },
  { what: 'a client silent this long is closed (s)',
    find: [p(`a client silent for ${NUM} s`)],
    value: (help) => help.get('--idle-timeout').default },
  { what: 'a client that reads nothing is closed (s)',
    find: [p(`reads nothing for ${NUM} s`), p(`half-sent for ${NUM} s`)],
    value: (help) => help.get('--stall-timeout').default },
  { what: 'sessions per address (prose)',
    find: [p(`holds at most ${NUM} sessions`), p(`is closed; ${NUM} sessions per address`), p(`at most ${NUM} sessions, \\d+ new`)],
    value: (help) => help.get('--max-per-address').default },
  { what: 'the new-session burst per address (prose)',
    find: [p(`a burst of ${NUM}, then \\d+ a second`), p(`${NUM} people joining at once get in at once`)],
    value: (help) => help.get('--connect-burst').default },
  { what: 'new sessions per second per address (prose)',
    find: [p(`a burst of \\d+, then ${NUM} a second`), p(`keep arriving at ${NUM} a second`), p(`${NUM} new ones a second after the burst`)],
    value: (help) => help.get('--connect-rate').default },
  { what: 'wrong tokens before the waits (prose)',
    find: [p(`after ${NUM} \\(\`--auth-failures\`\\)`), p(`after \\*\\*${NUM}\\*\\* \\(\`--auth-failures\`\\)`)],
    value: (help) => help.get('--auth-failures').default },
  { what: 'seats (prose)',
    find: [p(`would fill all ${NUM}`), p(`\\(256 per address, ${NUM} seats\\)`), p(`about 18 µs for ${NUM} seats`)],
    value: (help) => help.get('--max-clients').default },
  { what: 'wrong room codes an address may type before waiting',
    find: [p(`typed ${NUM} wrong room codes`)],
    value: () => field('server/src/rooms/room_guard.c', 'wrong_burst') },
  { what: 'seconds between wrong room codes after the burst',
    find: [p(`then one per ${NUM} s`)],
    value: () => 1 / field('server/src/rooms/room_guard.c', 'wrong_per_s') },
  { what: 'rooms an address may make at once',
    find: [p(`${NUM} rooms per address at once`)],
    value: () => field('server/src/rooms/room_guard.c', 'create_burst') },
  { what: 'rooms an address may make after its burst: one a minute',
    find: [p(`rooms per address at once then ${WORD} a minute`)],
    value: () => 60 * field('server/src/rooms/room_guard.c', 'create_per_s') },
  { what: 'rooms kept per --max-rooms',
    find: [p(`At most (\\d+) × \`--max-rooms\` rooms are kept`)],
    value: () => define('server/src/app/room_store.c', 'ROOMS_KEPT_PER_OPEN') },
  { what: 'no such room / room closed / too many codes close codes',
    find: [p(`\\*\\*${NUM}\\*\\* "no such room"`), p(`closes \`\\?room=\` with ${NUM}`)],
    value: () => define('server/src/app/rooms.c', 'CLOSE_NO_SUCH_ROOM') },
  { what: 'room closed close code',
    find: [p(`\\*\\*${NUM}\\*\\* "room closed"`)],
    value: () => define('server/src/app/rooms.c', 'CLOSE_ROOM_CLOSED') },
  { what: 'too many room codes close code',
    find: [p(`closes it with \\*\\*${NUM}\\*\\*, unread`)],
    value: () => define('server/src/app/rooms.c', 'CLOSE_TOO_MANY_CODES') },
  { what: 'a full server\'s close code',
    find: [p(`closed with \\*\\*${NUM}\\*\\* "server full`), p(`\\*\\*${NUM}\\*\\* "server full, try again later"`), p(`more are closed with ${NUM}`)],
    value: () => define(ADMISSION, 'CLOSE_TRY_AGAIN_LATER') },
  { what: 'too many new sessions: the HTTP status',
    find: [p(`refused with HTTP \\*\\*${NUM}\\*\\*`), p(`refused \\(HTTP ${NUM};`), p(`refused with HTTP ${NUM} before`), p(`faster ones get HTTP ${NUM}`)],
    value: () => define(ADMISSION, 'HTTP_TOO_MANY_REQUESTS') },
  { what: 'a relay tag\'s largest value',
    find: [p(`\\| 1–${NUM}: the relay's viewers`)],
    value: () => define('server/src/config.h', 'CONFIG_MAX_RELAY_TAG') },
  { what: 'a relay viewer id\'s tag shift',
    find: [p(`\`N << ${NUM} \\\\\\| local id\``)],
    value: () => define('server/src/bridge/remote_clients.h', 'REMOTE_TAG_SHIFT') },
  { what: 'NATS reconnect wait (ms)',
    find: [p(`reconnect to NATS by themselves \\(every ${NUM} ms\\)`)],
    value: () => define('server/src/bridge/nats_link.h', 'NATS_LINK_RECONNECT_WAIT_MS') },
  { what: 'a relay\'s silence before "world restarting" (s)',
    find: [p(`When no snapshot has come for ${NUM} s`), p(`a snapshot came within ${NUM} s`)],
    value: () => define('server/src/relay/relay_internal.h', 'FRAME_SILENCE_NS') / 1e9 },
  { what: 'origins --allow-frame takes at most',
    find: [p(`at most ${NUM}, no path`)],
    value: () => define('server/src/net/http_headers.h', 'HTTP_ALLOW_FRAME_ORIGINS') },
  { what: '--public-url\'s longest length',
    find: [p(`at most ${NUM} bytes of printable ASCII`)],
    value: () => define('server/src/net/http_headers.h', 'HTTP_PUBLIC_URL_MAX') },
  { what: 'a view\'s budget when the client names none',
    find: [p(`server default ${NUM}\\)`), p(`drawn one by one \\(default ${NUM},`)],
    value: () => define('server/src/stream/viewers.h', 'VIEWERS_DEFAULT_BUDGET') },
  { what: 'inspection updates per second',
    find: [p(`updated ${WORD} times a second`)],
    value: () => define('server/src/app/app_internal.h', 'INSPECT_HZ') },
  { what: 'an experiment pool\'s acknowledgement deadline (s)',
    find: [p(`\\(\`--ack-wait\`, ${NUM} s;`), p(`\`--ack-wait\` \\(${NUM} s\\)`)],
    value: () => field('server/src/experiment/experiment_cli.c', 'ack_wait_s') },
  { what: 'an experiment pool\'s deliveries before a run fails',
    find: [p(`lost \`--max-deliver\` times \\(${NUM}\\)`), p(`\`--max-deliver\` \\(${NUM}\\)`)],
    value: () => field('server/src/experiment/experiment_cli.c', 'max_deliver') },
];

// Statements about the parameters' defaults that are arithmetic on them.
export function paramLimits(params) {
  const d = (name) => params.get(name).default;
  return [
    { what: 'the potential\'s equilibrium distance (nB/mA)^(1/(n−m)) at the defaults (u)',
      find: [p(`\\(${NUM} u by default\\)`)],
      value: () => Math.round((d('pot_n') * d('pot_b')) / (d('pot_m') * d('pot_a'))) ** (1 / (d('pot_n') - d('pot_m'))) },
    { what: 'couzin\'s angular noise (rad/√s)',
      find: [p(`\\(${NUM} rad/√s = the paper's`)],
      value: () => d('cz_noise') },
  ];
}
