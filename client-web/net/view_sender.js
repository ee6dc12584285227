// Tells the server which part of the world this page shows (protocol v2's
// `view` command), so it sends only that part, in detail or aggregated.
//
// Sent only when the rectangle changed, at most once per MIN_INTERVAL_MS
// (the server uses at most 10 a second; each costs a rate token): the last
// change is held back and sent when the interval has passed, so the server
// always ends up with where the camera stopped.

export const MIN_INTERVAL_MS = 100;
// Rectangles are rounded to this many world units: float noise is no change.
const GRAIN = 0.5;

function round(v) {
  return Math.round(v / GRAIN) * GRAIN;
}

export class ViewSender {
  // send(command) → id or null (not connected); budget: most agents wanted
  // in detail (null: the server's default).
  constructor({ send, budget = null }) {
    this.send = send;
    this.budget = budget;
    this.enabled = false; // the server speaks v2 (hello.protocol === 2)
    this.lastKey = null;
    this.lastAt = -Infinity;
    this.sent = 0;
  }

  // A new session: the server knows no view of ours.
  reset(enabled) {
    this.enabled = enabled;
    this.lastKey = null;
    this.lastAt = -Infinity;
  }

  // Called every frame with the camera's visible rectangle; returns the
  // command sent, or null.
  update(rect, now) {
    if (!this.enabled || rect.w <= 0 || rect.h <= 0) return null;
    const cmd = { type: 'view', x: round(rect.x), y: round(rect.y), w: Math.max(GRAIN, round(rect.w)), h: Math.max(GRAIN, round(rect.h)) };
    if (this.budget != null) cmd.budget = this.budget;
    const key = `${cmd.x},${cmd.y},${cmd.w},${cmd.h}`;
    if (key === this.lastKey || now - this.lastAt < MIN_INTERVAL_MS) return null;
    if (this.send(cmd) == null) return null;
    this.lastKey = key;
    this.lastAt = now;
    this.sent += 1;
    return cmd;
  }
}
