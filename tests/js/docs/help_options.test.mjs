// The --help parser of the docs tests on lines of each layout --help has
// had: a default in the closing "(…)", two options sharing one "(10, 200)",
// a default mid-line, a remark in brackets that is not a default, a switch.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { parseOptions, parseParams } from './help_options.mjs';

const pad = ' '.repeat(47);
const help = [
  'usage: swarmcast [options]',
  '',
  '  --port N             SWARMCAST_PORT          TCP port, 0 for any free one (8080)',
  '  --world WxH          SWARMCAST_WORLD         world size in units (1600x900)',
  '  --connect-rate R     SWARMCAST_CONNECT_RATE  new sessions per second per address, after a',
  '  --connect-burst N    SWARMCAST_CONNECT_BURST burst of N; faster ones get HTTP 429 (10, 200)',
  '  --room-agents N      SWARMCAST_ROOM_AGENTS   agents of a room made from the defaults (300): every',
  `${pad}room takes its agents from the one --max-agents`,
  '  --max-per-address N  SWARMCAST_MAX_PER_ADDRESS WebSocket sessions per remote address (a room',
  `${pad}behind one NAT; at most --max-clients counts) (256)`,
  '  --public-url URL     SWARMCAST_PUBLIC_URL    the address people join at, when it is not the',
  `${pad}page's own (behind a proxy)`,
  '  --control-token T    SWARMCAST_CONTROL_TOKEN operators present T (auth); others watch',
  `${pad}(make a strong one) (none: all open)`,
  '  --deflate            SWARMCAST_DEFLATE       permessage-deflate (1: on; off)',
  '  --nats-prefix P      SWARMCAST_NATS_PREFIX   subject prefix (swarmcast)',
  '',
  'Parameters (--set, and set_param over the protocol):',
  '  model            reynolds|couzin        default reynolds flocking model',
  '  pot_a            0..1e+06 u^(m+2)/s^2   default 20000    potential: attraction A',
  '  os_c2_alpha      0..100                 default 3.46     Olfati-Saber: consensus gain',
].join('\n');

test('options: each layout gives its default, and a remark gives none', () => {
  const o = parseOptions(help);
  assert.equal(o.get('--port').default, 8080);
  assert.equal(o.get('--world').default, '1600x900');
  assert.equal(o.get('--connect-rate').default, 10);
  assert.equal(o.get('--connect-burst').default, 200);
  assert.equal(o.get('--room-agents').default, 300);
  assert.equal(o.get('--max-per-address').default, 256);
  assert.equal(o.get('--public-url').default, undefined);
  assert.equal(o.get('--control-token').default, 'none');
  assert.equal(o.get('--deflate').default, 'off');
  assert.equal(o.get('--nats-prefix').default, 'swarmcast');
  assert.equal(o.get('--port').env, 'SWARMCAST_PORT');
});

test('parameters: enum, scientific and decimal defaults and ranges', () => {
  const p = parseParams(help);
  assert.equal(p.get('model').default, 'reynolds');
  assert.deepEqual(p.get('model').values, ['reynolds', 'couzin']);
  assert.equal(p.get('pot_a').max, 1e6);
  assert.equal(p.get('pot_a').default, 20000);
  assert.equal(p.get('os_c2_alpha').default, 3.46);
});
