// Fakes for driving client-web/net/connection.js in node: a WebSocket the test
// opens, answers and closes by hand, and timers that run only when told.

/** A socket the test drives by hand; every one made is in FakeSocket.all. */
export class FakeSocket {
  static all = [];
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.readyState = 1;
    FakeSocket.all.push(this);
  }
  send() {}
  close() {
    this.readyState = 3;
  }
}

/** Timers that only queue: runNext() runs the oldest; pending lists them ({ fn, ms }). */
export function fakeTimers() {
  const pending = [];
  return {
    pending,
    setTimeout: (fn, ms) => {
      pending.push({ fn, ms });
      return pending.length;
    },
    clearTimeout: () => {},
    setInterval: () => 0,
    clearInterval: () => {},
    runNext() {
      pending.shift()?.fn();
    },
  };
}
