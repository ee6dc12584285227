/* Fuzz target: the snapshot encoder (server/src/protocol/snapshot.c) against
 * the spec's reader (snap_decode.c), both ways round:
 *   - input that is a valid frame is decoded, turned into a view (positions
 *     and headings at their decoded values, trailing predator records as
 *     predators, entries in a shuffled order with their ids) and encoded
 *     again: the encoder must give back the same bytes;
 *   - any other input drives the making of a view (world size, agents with
 *     positions in and out of the world and any velocities, obstacles,
 *     targets, predators, any order of ids), which is encoded, read back
 *     and compared within the quantization of PROTOCOL.md. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_stream.h"
#include "protocol/snapshot.h"
#include "snap_decode.h"

#define MAX_AGENTS 4096
#define MAX_OBSTACLES 70 /* more than the world's 64: the encoder takes what it is given */
#define MAX_TARGETS 70
#define PI 3.14159265358979323846

/* A coordinate along an extent: mostly inside [0, extent], sometimes on or
 * past an edge, sometimes any float at all (NaN and infinities included). */
static float take_coordinate(stream_t *s, float extent)
{
    uint8_t how = take_u8(s);
    switch (how & 7) {
    case 0: return 0.0f;
    case 1: return extent;
    case 2: return -(float)take_u16(s) / 16.0f;
    case 3: return extent + (float)take_u16(s) / 16.0f;
    case 4: return take_f32(s);
    default: return (float)((double)take_u32(s) / 4294967295.0 * (double)extent);
    }
}

static float take_velocity(stream_t *s)
{
    uint8_t how = take_u8(s);
    switch (how & 3) {
    case 0: return 0.0f;
    case 1: return take_f32(s);
    default: return (float)(int16_t)take_u16(s) / 64.0f;
    }
}

/* The world's sizes: 10 … 10^6 units (--world, scenario "world"). */
static float take_extent(stream_t *s) { return (float)(10.0 * pow(10.0, 5.0 * take_u16(s) / 65535.0)); }

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Angle between two headings, in [0, π]. */
static double angle_between(double a, double b)
{
    double d = fmod(fabs(a - b), 2 * PI);
    return d > PI ? 2 * PI - d : d;
}

/* Agent record `rec` shows a point at (x, y) heading (vx, vy), as well as
 * the quantization allows. */
static void check_agent(const snap_frame_t *f, uint32_t rec, float x, float y, float vx, float vy, uint8_t flags)
{
    snap_agent_rec_t a = snap_agent(f, rec);
    const float pos[2] = {x, y}, extent[2] = {f->width, f->height};
    const uint16_t q[2] = {a.x_q, a.y_q};
    for (int k = 0; k < 2; k++) {
        double step = (double)extent[k] / 65536.0, error = fabs(snap_position(q[k], extent[k]) - pos[k]);
        if (!(pos[k] > 0.0f)) /* NaN too */
            REQUIRE(q[k] == 0, "record %u: %g quantized to %u", rec, pos[k], q[k]);
        else if (pos[k] >= extent[k])
            REQUIRE(q[k] == 65535, "record %u: %g of %g quantized to %u", rec, pos[k], extent[k], q[k]);
        else /* to the nearest step, but the last half step is clamped to 65535 */
            REQUIRE(error <= step * (q[k] < 65535 ? 0.5 + 1e-6 : 1.0), "record %u: %g of %g quantized to %u", rec,
                    pos[k], extent[k], q[k]);
    }
    if (vx == 0.0f && vy == 0.0f)
        REQUIRE(a.heading_q == 0, "record %u: no velocity, heading %u", rec, a.heading_q);
    else if (isfinite(vx) && isfinite(vy))
        REQUIRE(angle_between(snap_heading(a.heading_q), atan2(vy, vx)) <= PI / 256 + 1e-5,
                "record %u: heading of (%g, %g) quantized to %u", rec, vx, vy, a.heading_q);
    REQUIRE(a.flags == flags, "record %u: flags %u, expected %u", rec, a.flags, flags);
}

static uint8_t frame[SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * (MAX_AGENTS + SIM_MAX_PREDATORS) +
                     SNAP_OBSTACLE_BYTES * MAX_OBSTACLES + SNAP_TARGET_BYTES * MAX_TARGETS];
static float xs[MAX_AGENTS], ys[MAX_AGENTS], vxs[MAX_AGENTS], vys[MAX_AGENTS];
static uint32_t ids[MAX_AGENTS];
static uint8_t flags[MAX_AGENTS];
static obstacle_t obstacles[MAX_OBSTACLES];
static target_t targets[MAX_TARGETS];
static predator_t predators[SIM_MAX_PREDATORS];

/* Fisher-Yates with the stream's bytes: any order of ids 0 … n−1. */
static void shuffle_ids(stream_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = take_u16(s) % i;
        uint32_t t = ids[i - 1];
        ids[i - 1] = ids[j];
        ids[j] = t;
    }
}

static size_t encode_checked(const snap_view_t *v, snap_frame_t *f)
{
    size_t size = snap_encode(v, frame, sizeof frame);
    REQUIRE(size == snap_size(v) && size > 0, "encoded %zu bytes, snap_size says %zu", size, snap_size(v));
    REQUIRE(snap_decode(frame, size, f) == 0, "the encoder's frame of %zu bytes is not readable", size);
    REQUIRE(snap_decode(frame, size - 1, f) != 0, "a frame cut short by a byte is read");
    REQUIRE(snap_decode(frame, size, f) == 0, "read again");
    return size;
}

/* Input that is not a frame: a view made from it, encoded, read back. */
static void encode_then_read(const uint8_t *data, size_t size)
{
    stream_t s = {data, size};
    snap_view_t v = {.tick = take_u32(&s), .paused = take_u8(&s) & 1};
    v.width = take_extent(&s);
    v.height = take_extent(&s);
    v.n = take_u16(&s) % (MAX_AGENTS + 1);
    if (v.n > s.left / 4) v.n = s.left / 4; /* no more agents than the input describes */
    for (size_t i = 0; i < v.n; i++) {
        xs[i] = take_coordinate(&s, v.width);
        ys[i] = take_coordinate(&s, v.height);
        vxs[i] = take_velocity(&s);
        vys[i] = take_velocity(&s);
        flags[i] = take_u8(&s) & (AGENT_LEADER | AGENT_SPECIES_MASK); /* what the world sets on an agent */
    }
    shuffle_ids(&s, v.n);
    v.n_obstacles = take_u8(&s) % (MAX_OBSTACLES + 1);
    for (size_t k = 0; k < v.n_obstacles; k++)
        obstacles[k] = (obstacle_t){.id = take_u32(&s), .x = take_f32(&s), .y = take_f32(&s), .r = take_f32(&s)};
    v.n_targets = take_u8(&s) % (MAX_TARGETS + 1);
    for (size_t k = 0; k < v.n_targets; k++)
        targets[k] = (target_t){.client_id = take_u32(&s), .x = take_f32(&s), .y = take_f32(&s)};
    v.n_predators = take_u8(&s) % (SIM_MAX_PREDATORS + 1);
    for (size_t k = 0; k < v.n_predators; k++)
        predators[k] = (predator_t){take_coordinate(&s, v.width), take_coordinate(&s, v.height), take_velocity(&s),
                                    take_velocity(&s)};
    v.x = xs;
    v.y = ys;
    v.vx = vxs;
    v.vy = vys;
    v.flags = flags;
    v.id = take_u8(&s) & 1 ? ids : NULL; /* NULL: entry i is agent i */
    if (!v.id)
        for (size_t i = 0; i < v.n; i++) ids[i] = (uint32_t)i;
    v.obstacles = obstacles;
    v.targets = targets;
    v.predators = predators;

    snap_frame_t f;
    encode_checked(&v, &f);
    REQUIRE(f.tick == v.tick && (f.flags == (v.paused ? 1u : 0u)), "tick %u flags %u", f.tick, f.flags);
    REQUIRE(same_bits(f.width, v.width) && same_bits(f.height, v.height), "world %g x %g", f.width, f.height);
    REQUIRE(f.n_agents == v.n + v.n_predators && f.n_obstacles == v.n_obstacles && f.n_targets == v.n_targets,
            "counts %u %u %u", f.n_agents, f.n_obstacles, f.n_targets);
    for (size_t i = 0; i < v.n; i++) check_agent(&f, ids[i], xs[i], ys[i], vxs[i], vys[i], flags[i]);
    for (size_t k = 0; k < v.n_predators; k++)
        check_agent(&f, (uint32_t)(v.n + k), predators[k].x, predators[k].y, predators[k].vx, predators[k].vy,
                    AGENT_PREDATOR);
    for (uint32_t k = 0; k < f.n_obstacles; k++) {
        snap_obstacle_rec_t o = snap_obstacle(&f, k);
        REQUIRE(o.id == obstacles[k].id && same_bits(o.x, obstacles[k].x) && same_bits(o.y, obstacles[k].y) &&
                    same_bits(o.radius, obstacles[k].r),
                "obstacle %u", k);
    }
    for (uint32_t k = 0; k < f.n_targets; k++) {
        snap_target_rec_t t = snap_target(&f, k);
        REQUIRE(t.client_id == targets[k].client_id && same_bits(t.x, targets[k].x) && same_bits(t.y, targets[k].y),
                "target %u", k);
    }
}

/* A valid frame: its content, as a view, encodes to the same bytes. */
static void read_then_encode(const snap_frame_t *in, const uint8_t *data, size_t size)
{
    if (!(in->width >= 10.0f && in->width <= 1e6f && in->height >= 10.0f && in->height <= 1e6f)) return;
    if (in->n_agents > MAX_AGENTS + SIM_MAX_PREDATORS || in->n_obstacles > MAX_OBSTACLES ||
        in->n_targets > MAX_TARGETS)
        return;
    /* trailing records flagged exactly "predator" become predators */
    size_t n = in->n_agents, n_pred = 0;
    while (n > 0 && n_pred < SIM_MAX_PREDATORS && snap_agent(in, (uint32_t)(n - 1)).flags == AGENT_PREDATOR) {
        n--;
        n_pred++;
    }
    if (n > MAX_AGENTS) return;
    /* entry i of the view holds agent (i + shift) mod n */
    size_t shift = n ? in->tick % n : 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = (uint32_t)((i + shift) % n);
        snap_agent_rec_t a = snap_agent(in, id);
        double heading = snap_heading(a.heading_q), speed = 1 + i % 300;
        ids[i] = id;
        xs[i] = (float)snap_position(a.x_q, in->width);
        ys[i] = (float)snap_position(a.y_q, in->height);
        vxs[i] = (float)(speed * cos(heading));
        vys[i] = (float)(speed * sin(heading));
        flags[i] = a.flags;
    }
    for (size_t k = 0; k < n_pred; k++) {
        snap_agent_rec_t a = snap_agent(in, (uint32_t)(n + k));
        double heading = snap_heading(a.heading_q);
        predators[k] = (predator_t){(float)snap_position(a.x_q, in->width), (float)snap_position(a.y_q, in->height),
                                    (float)cos(heading), (float)sin(heading)};
    }
    for (uint32_t k = 0; k < in->n_obstacles; k++) {
        snap_obstacle_rec_t o = snap_obstacle(in, k);
        obstacles[k] = (obstacle_t){.id = o.id, .x = o.x, .y = o.y, .r = o.radius};
    }
    for (uint32_t k = 0; k < in->n_targets; k++) {
        snap_target_rec_t t = snap_target(in, k);
        targets[k] = (target_t){.client_id = t.client_id, .x = t.x, .y = t.y};
    }
    snap_view_t v = {.tick = in->tick, .paused = in->flags & 1, .width = in->width, .height = in->height,
                     .n = n, .x = xs, .y = ys, .vx = vxs, .vy = vys, .id = ids, .flags = flags,
                     .obstacles = obstacles, .n_obstacles = in->n_obstacles, .targets = targets,
                     .n_targets = in->n_targets, .predators = predators, .n_predators = n_pred};
    snap_frame_t f;
    size_t out = encode_checked(&v, &f);
    REQUIRE(out == size, "%zu bytes re-encoded as %zu", size, out);
    /* the header's flags: only bit 0 is defined, the rest the encoder writes as 0 */
    REQUIRE(frame[2] == (data[2] & 1) && frame[3] == 0, "header flags %02x%02x from %02x%02x", frame[3], frame[2],
            data[3], data[2]);
    /* Obstacles and targets are 4-byte fields from the tables' start; a
     * NaN's payload may change in a float copy, so NaN equals NaN there. */
    size_t tables = SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * (size_t)in->n_agents;
    for (size_t b = 0; b < size; b++) {
        if (b == 2 || b == 3 || frame[b] == data[b]) continue;
        bool nan_pair = false;
        if (b >= tables) {
            size_t word = tables + ((b - tables) & ~(size_t)3);
            float was, now;
            memcpy(&was, data + word, sizeof was);
            memcpy(&now, frame + word, sizeof now);
            nan_pair = isnan(was) && isnan(now);
        }
        REQUIRE(nan_pair, "byte %zu of %zu re-encoded as %02x, was %02x", b, size, frame[b], data[b]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    snap_frame_t f;
    if (snap_decode(data, size, &f) == 0)
        read_then_encode(&f, data, size);
    else
        encode_then_read(data, size);
    return 0;
}
