#!/usr/bin/env python3
"""Reference encoder for swarmcast snapshot frames (protocol version 1).

Written straight from protocol/PROTOCOL.md, independently of the C server and
of the JavaScript decoder, with nothing but the Python 3 standard library.
It writes, next to this file, the test vectors NAME.bin (a snapshot frame)
and NAME.json (the same frame decoded, in the shape `decodeSnapshot` in
client-web/net/protocol.js returns, per-agent fields as parallel arrays).

Run by hand to regenerate (the output is deterministic):

    python3 protocol/vectors/make_vectors.py

Every frame is built from *source* values (float x, y, heading angle, flags),
which are then quantized per the spec. The source values are chosen so that
an encoder working in float32 (as the C server does) gets the same bytes:

  * every coordinate is exactly representable as a float32;
  * x / width * 65536 (and the same for y) is at least QUANT_MARGIN away
    from a .5 rounding boundary;
  * every heading is at least HEADING_MARGIN rad away from a heading
    quantization boundary ((k + 0.5) * 2pi / 256), because the C encoder
    recomputes the angle with atan2 from a velocity (cos t, sin t).

The C tests rebuild each frame from the JSON's *decoded* x, y, heading (as
float32) and must reproduce the .bin byte for byte; the script asserts that
re-quantizing the decoded values (in float64 and in emulated float32) gives
back the same x_q, y_q, heading_q.
"""

import json
import math
import os
import struct

KIND_SNAPSHOT = 0x53
VERSION = 1
HEADER = struct.Struct("<BBHIffIHH")   # 24 bytes
AGENT = struct.Struct("<HHBB")         # 6 bytes
OBSTACLE = struct.Struct("<Ifff")      # 16 bytes
TARGET = struct.Struct("<Iff")         # 12 bytes
assert HEADER.size == 24 and AGENT.size == 6
assert OBSTACLE.size == 16 and TARGET.size == 12

TWO_PI = 2.0 * math.pi
HEADING_STEP = TWO_PI / 256.0
QUANT_MARGIN = 0.05      # in quantization steps (the brief asks for >= 1e-3)
HEADING_MARGIN = 0.01    # rad

OUT_DIR = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- helpers

def f32(v):
    """Round a Python float to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def is_f32(v):
    return f32(v) == v


def round_half_away(v):
    """round() as C's lround/roundf does it (ties away from zero).

    The source values never sit near a tie, so the tie rule never matters;
    it is spelled out only so the result does not depend on Python's
    banker's rounding."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def quant_pos(v, extent):
    """x_q = min(65535, round(x / world_width * 65536))"""
    return min(65535, round_half_away(v / extent * 65536.0))


def quant_pos_f32(v, extent):
    """The same computed the way a float32 encoder would."""
    t = f32(f32(f32(v) / f32(extent)) * 65536.0)
    return min(65535, round_half_away(t))


def quant_heading(theta):
    """heading_q = round(theta / 2pi * 256) mod 256"""
    return round_half_away(theta / TWO_PI * 256.0) % 256


def decode_pos(q, extent):
    return q * extent / 65536.0


def decode_heading(q):
    return q * TWO_PI / 256.0


def pos_margin(v, extent):
    """Distance, in quantization steps, of v from a .5 rounding boundary."""
    t = v / extent * 65536.0
    return abs((t - math.floor(t)) - 0.5)


def heading_margin(theta):
    """Distance in rad of theta from a heading quantization boundary."""
    t = theta / HEADING_STEP
    return abs((t - math.floor(t)) - 0.5) * HEADING_STEP


def snap_pos(v, extent):
    """A float32-exact value at or just above v (multiples of 1/64), kept at
    least QUANT_MARGIN away from a rounding boundary and inside [0, extent]."""
    g = math.floor(v * 64.0) / 64.0
    while True:
        if g > extent:
            g = extent
        if is_f32(g) and pos_margin(g, extent) >= QUANT_MARGIN:
            return g
        g = g + 1.0 / 64.0 if g < extent else g - 1.0 / 64.0


def heading_near(k, delta):
    """A heading close to the centre of quantization bin k (any integer,
    negative ones give negative angles), offset by delta rad."""
    theta = k * HEADING_STEP + delta
    assert heading_margin(theta) >= HEADING_MARGIN, (k, delta, theta)
    return theta


# ---------------------------------------------------------------- frames

class Frame:
    def __init__(self, name, width, height, tick, paused):
        assert is_f32(width) and is_f32(height)
        self.name = name
        self.width = float(width)
        self.height = float(height)
        self.tick = tick
        self.paused = paused
        self.agents = []       # (x, y, theta, flags) source values
        self.obstacles = []    # (id, x, y, radius)
        self.targets = []      # (client_id, x, y)

    def agent(self, x, y, theta, flags=0):
        assert is_f32(x) and is_f32(y), (x, y)
        assert 0.0 <= x <= self.width and 0.0 <= y <= self.height, (x, y)
        assert pos_margin(x, self.width) >= QUANT_MARGIN, x
        assert pos_margin(y, self.height) >= QUANT_MARGIN, y
        assert heading_margin(theta) >= HEADING_MARGIN, theta
        assert flags in (0, 1)
        self.agents.append((x, y, theta, flags))

    def obstacle(self, oid, x, y, radius):
        assert is_f32(x) and is_f32(y) and is_f32(radius)
        self.obstacles.append((oid, x, y, radius))

    def target(self, client_id, x, y):
        assert is_f32(x) and is_f32(y)
        self.targets.append((client_id, x, y))

    # -- encoding, straight from PROTOCOL.md
    def encode(self):
        targets = sorted(self.targets)   # increasing client_id order
        out = bytearray(HEADER.pack(
            KIND_SNAPSHOT, VERSION, 1 if self.paused else 0, self.tick,
            self.width, self.height,
            len(self.agents), len(self.obstacles), len(targets)))
        for x, y, theta, flags in self.agents:
            out += AGENT.pack(quant_pos(x, self.width), quant_pos(y, self.height),
                              quant_heading(theta), flags)
        for oid, x, y, r in self.obstacles:
            out += OBSTACLE.pack(oid, x, y, r)
        for cid, x, y in targets:
            out += TARGET.pack(cid, x, y)
        n = 24 + 6 * len(self.agents) + 16 * len(self.obstacles) + 12 * len(targets)
        assert len(out) == n
        return bytes(out)

    # -- the decoded view, as the JS decoder returns it
    def decoded(self):
        w, h = self.width, self.height
        a = {"x_q": [], "y_q": [], "heading_q": [], "flags": [],
             "x": [], "y": [], "heading": [], "leader": []}
        for x, y, theta, flags in self.agents:
            xq, yq, hq = quant_pos(x, w), quant_pos(y, h), quant_heading(theta)
            # a float32 encoder agrees on the source values
            assert quant_pos_f32(x, w) == xq and quant_pos_f32(y, h) == yq, (x, y)
            dx = round(decode_pos(xq, w), 6)
            dy = round(decode_pos(yq, h), 6)
            dh = round(decode_heading(hq), 6)
            # ... and re-encoding the JSON's decoded values gives the same bytes
            for enc in (quant_pos, quant_pos_f32):
                assert enc(dx, w) == xq and enc(f32(dx), w) == xq, (dx, xq)
                assert enc(dy, h) == yq and enc(f32(dy), h) == yq, (dy, yq)
            assert round_half_away(dx / w * 65536) == xq or xq == 65535
            assert round_half_away(dy / h * 65536) == yq or yq == 65535
            assert quant_heading(dh) == hq and quant_heading(f32(dh)) == hq
            # the C encoder goes through a velocity and atan2 (in (-pi, pi])
            th = math.atan2(math.sin(f32(dh)), math.cos(f32(dh)))
            assert quant_heading(th) == hq and heading_margin(th) >= HEADING_MARGIN
            th = math.atan2(math.sin(theta), math.cos(theta))
            assert quant_heading(th) == hq
            a["x_q"].append(xq)
            a["y_q"].append(yq)
            a["heading_q"].append(hq)
            a["flags"].append(flags)
            a["x"].append(num(dx))
            a["y"].append(num(dy))
            a["heading"].append(num(dh))
            a["leader"].append(bool(flags & 1))
        return {
            "kind": KIND_SNAPSHOT,
            "version": VERSION,
            "flags": 1 if self.paused else 0,
            "paused": self.paused,
            "tick": self.tick,
            "world_width": num(w),
            "world_height": num(h),
            "agents": a,
            "obstacles": [{"id": oid, "x": num(x), "y": num(y), "radius": num(r)}
                          for oid, x, y, r in self.obstacles],
            "targets": [{"client_id": cid, "x": num(x), "y": num(y)}
                        for cid, x, y in sorted(self.targets)],
        }

    def write(self):
        data = self.encode()
        doc = self.decoded()
        self_check(data, doc)
        with open(os.path.join(OUT_DIR, self.name + ".bin"), "wb") as f:
            f.write(data)
        with open(os.path.join(OUT_DIR, self.name + ".json"), "w") as f:
            f.write(to_json(doc) + "\n")
        print("%-6s %6d bytes  %4d agents  %d obstacles  %d targets" % (
            self.name, len(data), len(self.agents), len(self.obstacles),
            len(self.targets)))


def num(v):
    """Integral floats as JSON integers (1600 rather than 1600.0)."""
    v = float(v)
    return int(v) if v.is_integer() else v


def to_json(v, indent=""):
    """JSON with one key per line but arrays of numbers on a single line."""
    inner = indent + "  "
    if isinstance(v, dict):
        items = ["%s%s: %s" % (inner, json.dumps(k), to_json(x, inner)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}" if items else "{}"
    if isinstance(v, list):
        if all(not isinstance(x, (dict, list)) for x in v):
            return "[" + ", ".join(json.dumps(x) for x in v) + "]"
        return "[\n" + ",\n".join(inner + to_json(x, inner) for x in v) + "\n" + indent + "]"
    return json.dumps(v)


def self_check(data, doc):
    """Decode the frame back (independently of the encoder above) and compare."""
    kind, ver, flags, tick, w, h, na, no, nt = HEADER.unpack_from(data, 0)
    assert (kind, ver, flags, tick) == (doc["kind"], doc["version"], doc["flags"], doc["tick"])
    assert (w, h) == (doc["world_width"], doc["world_height"])
    assert len(data) == 24 + 6 * na + 16 * no + 12 * nt
    off = 24
    a = doc["agents"]
    for i in range(na):
        xq, yq, hq, fl = AGENT.unpack_from(data, off)
        off += 6
        assert (xq, yq, hq, fl) == (a["x_q"][i], a["y_q"][i], a["heading_q"][i], a["flags"][i])
        assert abs(xq * w / 65536 - a["x"][i]) < 1e-6
        assert abs(yq * h / 65536 - a["y"][i]) < 1e-6
        assert abs(hq * TWO_PI / 256 - a["heading"][i]) < 1e-6
    for o in doc["obstacles"]:
        assert OBSTACLE.unpack_from(data, off) == (o["id"], o["x"], o["y"], o["radius"])
        off += 16
    for t in doc["targets"]:
        assert TARGET.unpack_from(data, off) == (t["client_id"], t["x"], t["y"])
        off += 12
    assert off == len(data)


# ---------------------------------------------------------------- vectors

def make_empty():
    # nothing at all, paused, tick 0 (as right after a reset while paused)
    return Frame("empty", 1600, 900, tick=0, paused=True)


def make_basic():
    f = Frame("basic", 1600, 900, tick=1234, paused=False)
    f.agent(100.0, 200.0, heading_near(0, 0.001))
    f.agent(snap_pos(800.3, 1600), snap_pos(450.7, 900), heading_near(64, -0.0015))   # ~pi/2, down
    f.agent(snap_pos(1234.56, 1600), snap_pos(87.65, 900), heading_near(128, 0.0005), flags=1)  # leader, ~pi
    f.agent(snap_pos(12.34, 1600), snap_pos(876.54, 900), heading_near(-64, 0.002))  # ~-pi/2, up
    f.agent(snap_pos(1599.9, 1600), snap_pos(0.1, 900), heading_near(37, 0.0))
    f.agent(snap_pos(640.0, 1600), snap_pos(360.0, 900), heading_near(-100, -0.001), flags=1)
    f.obstacle(5, 400.0, 300.0, 40.0)
    f.obstacle(9, 1212.75, 640.5, 87.25)
    f.target(3, 800.5, 450.25)
    f.target(1, 100.125, 820.0)    # listed out of order: encoded by client_id
    return f


def make_edges():
    # a non-square world; u32 tick at its maximum
    w, h = 1000.0, 400.0
    f = Frame("edges", w, h, tick=4294967295, paused=False)
    far_x = f32(w * (65535.75 / 65536.0))    # rounds to 65536 -> clamped to 65535
    far_y = f32(h * (65535.75 / 65536.0))
    assert quant_pos(far_x, w) == 65535 and far_x / w * 65536 > 65535.5
    f.agent(0.0, 0.0, 0.0)                              # origin, heading 0
    f.agent(w, h, math.pi)                              # exactly on the far edge: clamps
    f.agent(far_x, far_y, heading_near(128, -0.002))    # just below the edge: clamps too
    f.agent(0.0, far_y, TWO_PI - 0.002)                 # just below 2pi: wraps to 0
    f.agent(far_x, 0.0, -0.002)                         # just below 0: also 0
    f.agent(snap_pos(500.0, w), snap_pos(200.0, h), -math.pi / 2)       # negative: 192
    f.agent(snap_pos(250.0, w), snap_pos(100.0, h), heading_near(-1, 0.001))  # 255
    f.agent(snap_pos(750.0, w), snap_pos(300.0, h), heading_near(-127, 0.0))  # 129
    f.agent(f32(w / 65536), f32(h / 65536), heading_near(1, 0.0), 1)   # exactly one step: q = 1
    f.agent(snap_pos(w * 0.999, w), snap_pos(h * 0.5, h), heading_near(255, 0.0015), 1)
    f.obstacle(0, 0.0, 0.0, 1.0)
    f.obstacle(4294967295, w, h, 500.0)
    f.target(0, 0.0, 0.0)
    f.target(4294967295, w, h)
    return f


def make_many():
    # 500 agents from a fixed linear congruential generator
    w, h = 1600.0, 900.0
    f = Frame("many", w, h, tick=100000, paused=True)
    s = 12345

    def rnd():
        nonlocal s
        s = (s * 1103515245 + 12345) % 2147483648
        return s / 2147483648.0

    for i in range(500):
        x = snap_pos(rnd() * w, w)
        y = snap_pos(rnd() * h, h)
        k = int(rnd() * 256) - 128                     # -128 .. 127
        theta = heading_near(k, (rnd() - 0.5) * 0.004)  # within 0.002 of a bin centre
        f.agent(x, y, theta, 1 if i % 17 == 0 else 0)
    for j in range(3):
        f.obstacle(j * 2 + 1, 200.0 + 400.0 * j, 450.0, 30.0 + 10.0 * j)
    f.target(7, 1500.0, 100.0)
    return f


def main():
    for make in (make_empty, make_basic, make_edges, make_many):
        frame = make()
        frame.write()
        with open(os.path.join(OUT_DIR, frame.name + ".json")) as f:
            assert json.load(f) == frame.decoded()


if __name__ == "__main__":
    main()
