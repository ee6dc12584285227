// "Open in a room": when the experiment page is served by a swarmcast
// server started with --experiments DIR, a run of a sweep in DIR/NAME opens
// in a new room of that server (create_room, "from":"run"; PROTOCOL.md
// "Rooms"), the whole run on its timeline, in a new tab at tick 0; the
// page also links to it. The room's operator token is kept as
// the viewer keeps it (localStorage, swarmcast.room.CODE.token), so the
// link opens the room as its operator. From disk (file:) there is no
// server: the page offers only the shell line (watch_command.js).
(function (ns) {
  'use strict';

  const TIMEOUT_MS = 8000;

  /** Whether the page came from a server that could make rooms. */
  ns.servedByServer = function servedByServer(loc = globalThis.location) {
    return loc.protocol === 'http:' || loc.protocol === 'https:';
  };

  /** The experiment's name under --experiments: the typed folder's last part. */
  ns.experimentName = function experimentName(dir) {
    const parts = String(dir).trim().split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
    return parts.length ? parts[parts.length - 1] : '';
  };

  /**
   * Asks the server for a room of one run: resolves with room_created
   * ({code, token, path}), rejects with an Error whose message is the
   * server's (or the connection's) words.
   */
  ns.openRunRoom = function openRunRoom(experiment, runId, {
    WebSocketImpl = globalThis.WebSocket, loc = globalThis.location, timeoutMs = TIMEOUT_MS,
  } = {}) {
    return new Promise((resolve, reject) => {
      const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
      const ws = new WebSocketImpl(`${scheme}//${loc.host}/ws`, 'swarmcast.v2');
      let done = false;
      const finish = (fn, value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        try { ws.close(1000); } catch { /* closing already */ }
        fn(value);
      };
      const timer = setTimeout(() => finish(reject, new Error('the server did not answer')), timeoutMs);
      ws.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        let msg;
        try { msg = JSON.parse(event.data); } catch { return; }
        if (msg.type === 'hello') {
          if (msg.rooms === 'off') finish(reject, new Error('this server makes no rooms'));
          else ws.send(JSON.stringify({ type: 'create_room', from: 'run', experiment, run: runId, id: 1 }));
        } else if (msg.type === 'room_created') {
          finish(resolve, msg);
        } else if (msg.type === 'error' && msg.id === 1) {
          finish(reject, new Error(msg.message || msg.code));
        }
      });
      ws.addEventListener('close', () => finish(reject, new Error('the connection closed')));
      ws.addEventListener('error', () => finish(reject, new Error('no connection to the server')));
    });
  };

  /**
   * Where a run's room opens: its page at tick 0, paused. The server steps
   * the whole run into the room's past when it makes it (PROTOCOL.md
   * "Rooms"), so the timeline holds the run from its first tick to its
   * last; a run too long to step at once runs live from tick 0, and tick 0
   * is kept all the same.
   */
  ns.runRoomHref = function runRoomHref(path, loc = globalThis.location) {
    const url = new URL(path, loc.href);
    url.searchParams.set('t', '0');
    return url.toString();
  };

  /** Keeps a room's token where the viewer looks for it; false when the browser keeps nothing. */
  ns.keepRoomToken = function keepRoomToken(code, token, storage = globalThis.localStorage) {
    try {
      storage.setItem(`swarmcast.room.${code}.token`, token);
      return true;
    } catch {
      return false;
    }
  };
})(globalThis.SwarmcastExperiment ??= {});
