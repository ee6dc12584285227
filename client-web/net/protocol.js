// swarmcast snapshot decoder, protocol version 1 (see protocol/PROTOCOL.md).
//
// Used by the browser client and by the Node tests; no dependencies. The
// decoder only reads: per-agent data goes into typed arrays (no per-agent
// objects), so a frame with 100,000 agents decodes in about a millisecond.

export const PROTOCOL_VERSION = 1;
export const SNAPSHOT_KIND = 0x53; // 'S'

export const HEADER_BYTES = 24;
export const AGENT_BYTES = 6;
export const OBSTACLE_BYTES = 16;
export const TARGET_BYTES = 12;

/** Header `flags` bit 0: the simulation is paused. */
export const SNAPSHOT_FLAG_PAUSED = 1;
/** Agent `flags` bit 0: the agent is a leader. */
export const AGENT_FLAG_LEADER = 1;
/** Agent `flags` bits 1–2: the agent's species, 0–3. */
export const AGENT_SPECIES_SHIFT = 1;
export const AGENT_SPECIES_MASK = 0x06;
/** Agent `flags` bit 3: the agent is a predator. */
export const AGENT_FLAG_PREDATOR = 8;

/** The species (0–3) in an agent's flags byte. */
export function agentSpecies(flags) {
  return (flags & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT;
}

const TWO_PI = 2 * Math.PI;
const HEADING_SCALE = TWO_PI / 256;

/** Size in bytes of a snapshot with the given counts. */
export function snapshotSize(agents, obstacles, targets) {
  return HEADER_BYTES + AGENT_BYTES * agents + OBSTACLE_BYTES * obstacles + TARGET_BYTES * targets;
}

function toDataView(data) {
  if (data instanceof ArrayBuffer) return new DataView(data);
  if (typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer) {
    return new DataView(data);
  }
  // Uint8Array, Node Buffer (a Uint8Array with a byteOffset into a shared
  // pool), DataView or any other view: respect offset and length.
  if (ArrayBuffer.isView(data)) return new DataView(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('decodeSnapshot: expected an ArrayBuffer, a typed array or a Buffer, got ' +
    (data === null ? 'null' : typeof data));
}

function hex(n) {
  return '0x' + n.toString(16).padStart(2, '0');
}

/**
 * Decode one binary snapshot frame.
 *
 * @param {ArrayBuffer|Uint8Array|DataView} data  the frame (a Node Buffer works too)
 * @returns {{kind:number, version:number, flags:number, paused:boolean, tick:number,
 *   world_width:number, world_height:number,
 *   agents:{count:number, x_q:Uint16Array, y_q:Uint16Array, heading_q:Uint8Array,
 *           flags:Uint8Array, x:Float64Array, y:Float64Array, heading:Float64Array},
 *   obstacles:{id:number, x:number, y:number, radius:number}[],
 *   targets:{client_id:number, x:number, y:number}[]}}
 * @throws {Error} for an unknown kind or version, or a length that does not
 *   match the counts in the header
 */
export function decodeSnapshot(data) {
  const dv = toDataView(data);
  const len = dv.byteLength;
  if (len < 2) {
    throw new Error(`snapshot: truncated frame (${len} bytes; the header alone is ${HEADER_BYTES})`);
  }
  const kind = dv.getUint8(0);
  if (kind !== SNAPSHOT_KIND) {
    throw new Error(`snapshot: unknown kind ${hex(kind)} (expected ${hex(SNAPSHOT_KIND)})`);
  }
  const version = dv.getUint8(1);
  if (version !== PROTOCOL_VERSION) {
    throw new Error(`snapshot: unknown version ${version} (this decoder knows ${PROTOCOL_VERSION})`);
  }
  if (len < HEADER_BYTES) {
    throw new Error(`snapshot: truncated frame (${len} bytes; the header alone is ${HEADER_BYTES})`);
  }
  const flags = dv.getUint16(2, true);
  const tick = dv.getUint32(4, true);
  const world_width = dv.getFloat32(8, true);
  const world_height = dv.getFloat32(12, true);
  const count = dv.getUint32(16, true);
  const obstacleCount = dv.getUint16(20, true);
  const targetCount = dv.getUint16(22, true);
  const expected = snapshotSize(count, obstacleCount, targetCount);
  if (len !== expected) {
    throw new Error(`snapshot: length ${len} bytes differs from the ${expected} bytes its counts ` +
      `give (24 + 6·${count} agents + 16·${obstacleCount} obstacles + 12·${targetCount} targets)` +
      (len < expected ? ': truncated' : ': extra bytes'));
  }

  const x_q = new Uint16Array(count);
  const y_q = new Uint16Array(count);
  const heading_q = new Uint8Array(count);
  const aflags = new Uint8Array(count);
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  const heading = new Float64Array(count);
  // x = x_q · width / 65536; dividing by a power of two is exact, so this
  // product is the same number.
  const sx = world_width / 65536;
  const sy = world_height / 65536;
  let off = HEADER_BYTES;
  for (let i = 0; i < count; i++, off += AGENT_BYTES) {
    const xq = dv.getUint16(off, true);
    const yq = dv.getUint16(off + 2, true);
    const hq = dv.getUint8(off + 4);
    x_q[i] = xq;
    y_q[i] = yq;
    heading_q[i] = hq;
    aflags[i] = dv.getUint8(off + 5);
    x[i] = xq * sx;
    y[i] = yq * sy;
    heading[i] = hq * HEADING_SCALE;
  }

  const obstacles = new Array(obstacleCount);
  for (let i = 0; i < obstacleCount; i++, off += OBSTACLE_BYTES) {
    obstacles[i] = {
      id: dv.getUint32(off, true),
      x: dv.getFloat32(off + 4, true),
      y: dv.getFloat32(off + 8, true),
      radius: dv.getFloat32(off + 12, true),
    };
  }
  const targets = new Array(targetCount);
  for (let i = 0; i < targetCount; i++, off += TARGET_BYTES) {
    targets[i] = {
      client_id: dv.getUint32(off, true),
      x: dv.getFloat32(off + 4, true),
      y: dv.getFloat32(off + 8, true),
    };
  }

  return {
    kind,
    version,
    flags,
    paused: (flags & SNAPSHOT_FLAG_PAUSED) !== 0,
    tick,
    world_width,
    world_height,
    agents: { count, x_q, y_q, heading_q, flags: aflags, x, y, heading },
    obstacles,
    targets,
  };
}
