// Which decoder a binary frame goes to: protocol v2 frames (byte 1 = 2) to
// the v2 decoder (wire2.js), whose state lives as long as the socket;
// anything else to v1's (protocol.js), so a server that answers in v1 still
// works. The connection calls decode(); a new hello calls reset().

import { decodeSnapshot } from './protocol.js';
import { Wire2Decoder, WIRE2_VERSION } from './wire2.js';

export function createFrameDecoder() {
  let wire2 = new Wire2Decoder();
  return {
    decode(data) {
      const version = data.byteLength >= 2 ? new Uint8Array(data, 0, 2)[1] : 0;
      return version === WIRE2_VERSION ? wire2.decode(data) : decodeSnapshot(data);
    },
    // A new socket: v2 deltas start from a key.
    reset() {
      wire2 = new Wire2Decoder();
    },
  };
}
