/* Small helpers shared by the simulation tests: build a world, place agents
 * by hand, find an agent by id after steps have re-sorted the arrays. */
#ifndef SWARMCAST_SIM_FIXTURES_H
#define SWARMCAST_SIM_FIXTURES_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/world.h"

static inline void make_world(world_t *w, float width, float height, size_t agents, uint32_t seed)
{
    world_config_t cfg = {
        .width = width,
        .height = height,
        .dt = 1.0f / 60.0f,
        .seed = seed,
        .agents = agents,
        .max_agents = 100000,
        .max_targets = 8,
    };
    assert_int_equal(world_init(w, &cfg), 0);
}

/* Before the first step the arrays are in id order, so index == id. */
static inline void place(world_t *w, size_t id, float x, float y, float vx, float vy)
{
    assert_true(id < w->n);
    assert_int_equal(w->cur.id[id], id);
    w->cur.x[id] = x;
    w->cur.y[id] = y;
    w->cur.vx[id] = vx;
    w->cur.vy[id] = vy;
}

/* Two worlds hold the same agents, bit for bit, in the same order. */
static inline void assert_same_state(const world_t *a, const world_t *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->tick, b->tick);
    assert_memory_equal(a->cur.x, b->cur.x, a->n * sizeof(float));
    assert_memory_equal(a->cur.y, b->cur.y, a->n * sizeof(float));
    assert_memory_equal(a->cur.vx, b->cur.vx, a->n * sizeof(float));
    assert_memory_equal(a->cur.vy, b->cur.vy, a->n * sizeof(float));
    assert_memory_equal(a->cur.id, b->cur.id, a->n * sizeof(uint32_t));
    assert_memory_equal(a->cur.flags, b->cur.flags, a->n);
}

static inline size_t index_of(const world_t *w, uint32_t id)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->cur.id[i] == id) return i;
    fail_msg("no agent with id %u", id);
    return 0;
}

static inline float distance_between(const world_t *w, uint32_t a, uint32_t b)
{
    size_t i = index_of(w, a), j = index_of(w, b);
    return hypotf(w->cur.x[i] - w->cur.x[j], w->cur.y[i] - w->cur.y[j]);
}

static inline void set_param(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    assert_true(index >= 0);
    assert_int_equal(world_set_param(w, (size_t)index, value, msg, sizeof msg), SIM_OK);
}

/* Order parameter: |mean of unit headings|, 1 when all agents fly alike. */
static inline double polarization(const world_t *w)
{
    double sx = 0, sy = 0;
    size_t counted = 0;
    for (size_t i = 0; i < w->n; i++) {
        double s = hypot(w->cur.vx[i], w->cur.vy[i]);
        if (s == 0) continue;
        sx += w->cur.vx[i] / s;
        sy += w->cur.vy[i] / s;
        counted++;
    }
    return counted ? hypot(sx, sy) / (double)counted : 0;
}

#endif
