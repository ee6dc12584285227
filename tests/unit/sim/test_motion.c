/* motion: the lane-wise looks at the obstacles and predators during a step (their places
 * copied side by side) answer exactly as the looks one by one do: the same
 * avoidance steer, bit for bit, and the same push out of an obstacle, in
 * bounded and wrapped worlds, with obstacles overlapping, on the edges and
 * round the agent. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sim/motion.h"
#include "sim/predators.h"
#include "sim/prng.h"
#include "sim/world.h"

static void make(world_t *w, int border, size_t obstacles, uint32_t seed)
{
    world_config_t cfg = {.width = 1000, .height = 600, .dt = 1.0f / 60.0f, .seed = seed, .agents = 8,
                          .max_agents = 8, .max_targets = 1, .threads = 1};
    assert_int_equal(world_init(w, &cfg), 0);
    char msg[160];
    assert_int_equal(world_set_param(w, (size_t)params_find("border"), border, msg, sizeof msg), SIM_OK);
    prng_t rng;
    prng_seed(&rng, seed, 11);
    for (size_t k = 0; k < obstacles; k++) {
        float x = prng_range(&rng, -20.0f, 1020.0f), y = prng_range(&rng, -20.0f, 620.0f);
        if (k % 7 == 3) x = 0.0f;                        /* on an edge */
        if (k % 11 == 5) y = 600.0f;
        if (k % 5 == 1) x = 500.0f + 40.0f * (float)(k % 3), y = 300.0f; /* overlapping, round the middle */
        assert_int_equal(world_add_obstacle(w, x, y, prng_range(&rng, 1.0f, 60.0f), NULL), SIM_OK);
    }
}

static void the_lanes_should_steer_round_obstacles_as_one_by_one(void **state)
{
    (void)state;
    const size_t counts[] = {1, 7, 8, 9, 33, SIM_MAX_OBSTACLES};
    for (int border = 0; border < 3; border++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            world_t w;
            make(&w, border, counts[c], (uint32_t)(c + 10 * border + 1));
            prng_t rng;
            prng_seed(&rng, (uint32_t)c, 12);
            int steered = 0;
            for (int q = 0; q < 3000; q++) {
                float px = prng_range(&rng, 0.0f, 1000.0f), py = prng_range(&rng, 0.0f, 600.0f);
                if (q % 9 == 0) px = 500.0f, py = 300.0f; /* among the overlapping ones */
                float a = prng_range(&rng, 0.0f, 6.2831853f), s = prng_range(&rng, 0.0f, 200.0f);
                float vx = s * cosf(a), vy = s * sinf(a);
                vec2 one = {0, 0}, lanes = {0, 0};
                w.places.valid = false;
                bool by_one = motion_avoid(&w, px, py, vx, vy, &one);
                motion_copy_places(&w);
                bool by_lanes = motion_avoid(&w, px, py, vx, vy, &lanes);
                assert_int_equal(by_one, by_lanes);
                assert_memory_equal(&one, &lanes, sizeof one);
                steered += by_one;
            }
            assert_true(steered > 0); /* the obstacles were in the way */
            world_free(&w);
        }
}

static void the_lanes_should_push_out_of_obstacles_as_one_by_one(void **state)
{
    (void)state;
    for (int border = 0; border < 3; border++)
        for (size_t count = 1; count <= SIM_MAX_OBSTACLES; count += 9) {
            world_t w;
            make(&w, border, count, (uint32_t)(count + 100 * border));
            prng_t rng;
            prng_seed(&rng, (uint32_t)count, 13);
            int pushed = 0;
            for (int q = 0; q < 2000; q++) {
                const float x = prng_range(&rng, 0.0f, 1000.0f), y = prng_range(&rng, 0.0f, 600.0f);
                const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
                float got[2][4];
                for (int lanes = 0; lanes < 2; lanes++) {
                    if (lanes)
                        motion_copy_places(&w);
                    else
                        w.places.valid = false;
                    motion_finish(&w, 0, x, y, vx, vy, 0);
                    got[lanes][0] = w.next.x[0], got[lanes][1] = w.next.y[0];
                    got[lanes][2] = w.next.vx[0], got[lanes][3] = w.next.vy[0];
                }
                assert_memory_equal(got[0], got[1], sizeof got[0]);
                pushed += got[0][0] != x || got[0][1] != y;
            }
            assert_true(pushed > 0); /* some points were inside */
            world_free(&w);
        }
}

static void the_lanes_should_flee_predators_as_one_by_one(void **state)
{
    (void)state;
    for (int border = 0; border < 3; border++)
        for (size_t count = 1; count <= SIM_MAX_PREDATORS; count += 5) {
            world_t w;
            make(&w, border, 0, (uint32_t)(count + 7 * border));
            prng_t rng;
            prng_seed(&rng, (uint32_t)count, 14);
            w.n_predators = count;
            for (size_t k = 0; k < count; k++)
                w.predators[k] = (predator_t){prng_range(&rng, 0.0f, 1000.0f), prng_range(&rng, 0.0f, 600.0f),
                                              prng_range(&rng, -200.0f, 200.0f), prng_range(&rng, -200.0f, 200.0f)};
            w.predators[0].x = 0.0f; /* on an edge */
            int fled = 0;
            for (int q = 0; q < 3000; q++) {
                float x = prng_range(&rng, 0.0f, 1000.0f), y = prng_range(&rng, 0.0f, 600.0f);
                if (q % 13 == 0) x = w.predators[q % count].x, y = w.predators[q % count].y; /* on one */
                vec2 one = {0, 0}, lanes = {0, 0};
                w.places.valid = false;
                const bool by_one = motion_evade(&w, x, y, &one);
                motion_copy_places(&w);
                const bool by_lanes = motion_evade(&w, x, y, &lanes);
                assert_int_equal(by_one, by_lanes);
                assert_memory_equal(&one, &lanes, sizeof one);
                fled += by_one;
            }
            assert_true(fled > 0);
            world_free(&w);
        }
}

/* The calibration's dearest layout (sim/capacity.c): 64 obstacles 2.5 u
 * apart, each holding the whole crowd, so that every agent is in many
 * buffers at once (the last holder decides, or a hit after it) and is
 * pushed out through a chain of them (the ray's point found in one
 * obstacle after another, round after round). */
static void a_crowd_among_overlapping_obstacles_should_steer_and_be_pushed_as_one_by_one(void **state)
{
    (void)state;
    for (int border = 0; border < 3; border++) {
        world_t w;
        make(&w, border, 0, (uint32_t)(border + 40));
        const float radius[] = {1.5f, 3.0f, 20.0f};
        for (size_t k = 0; k < SIM_MAX_OBSTACLES; k++)
            assert_int_equal(world_add_obstacle(&w, 490.0f + 2.5f * (float)(k % 8), 290.0f + 2.5f * (float)(k / 8),
                                                radius[k % 3], NULL),
                             SIM_OK);
        prng_t rng;
        prng_seed(&rng, (uint32_t)border, 15);
        int steered = 0, pushed = 0;
        for (int q = 0; q < 3000; q++) {
            const float x = prng_range(&rng, 470.0f, 530.0f), y = prng_range(&rng, 270.0f, 330.0f);
            const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
            vec2 one = {0, 0}, lanes = {0, 0};
            w.places.valid = false;
            const bool by_one = motion_avoid(&w, x, y, vx, vy, &one);
            motion_finish(&w, 0, x, y, vx, vy, 0);
            const float got_one[4] = {w.next.x[0], w.next.y[0], w.next.vx[0], w.next.vy[0]};
            motion_copy_places(&w);
            const bool by_lanes = motion_avoid(&w, x, y, vx, vy, &lanes);
            motion_finish(&w, 0, x, y, vx, vy, 0);
            const float got_lanes[4] = {w.next.x[0], w.next.y[0], w.next.vx[0], w.next.vy[0]};
            assert_int_equal(by_one, by_lanes);
            assert_memory_equal(&one, &lanes, sizeof one);
            assert_memory_equal(got_one, got_lanes, sizeof got_one);
            steered += by_one;
            pushed += got_one[0] != x || got_one[1] != y;
        }
        assert_true(steered > 2000 && pushed > 1000); /* most points were among and inside them */
        world_free(&w);
    }
}

/* Eight agents at a time, one per lane (motion_avoid_agents,
 * motion_evade_agents and the push out in motion_finish_lanes), against
 * each agent's answer one by one (no places copied), lane for lane: in
 * the calibration's dearest layout (every agent among and inside many of
 * 64 overlapping obstacles, predators amid them) and among scattered
 * obstacles, in bounded and wrapped worlds, for every batch size. */
static void eight_agents_at_a_time_should_answer_as_each_one_by_one(void **state)
{
    (void)state;
    for (int border = 0; border < 3; border++)
        for (int layout = 0; layout < 2; layout++) {
            world_t w;
            make(&w, border, layout ? 41 : 0, (uint32_t)(border + 60 + layout)); /* 41: a pair loop's tail */
            const float radius[] = {1.5f, 3.0f, 20.0f};
            for (size_t k = 0; !layout && k < SIM_MAX_OBSTACLES; k++)
                assert_int_equal(world_add_obstacle(&w, 490.0f + 2.5f * (float)(k % 8),
                                                    290.0f + 2.5f * (float)(k / 8), radius[k % 3], NULL),
                                 SIM_OK);
            prng_t rng;
            prng_seed(&rng, (uint32_t)(border + 2 * layout), 16);
            w.n_predators = SIM_MAX_PREDATORS;
            for (size_t k = 0; k < SIM_MAX_PREDATORS; k++)
                w.predators[k] = (predator_t){prng_range(&rng, 460.0f, 540.0f), prng_range(&rng, 260.0f, 340.0f),
                                              prng_range(&rng, -200.0f, 200.0f), prng_range(&rng, -200.0f, 200.0f)};
            w.predators[1].x = 0.0f; /* on an edge */
            int steered = 0, fled = 0, pushed = 0;
            for (int q = 0; q < 800; q++) {
                const int count = 1 + q % LANES;
                float x[LANES], y[LANES], vx[LANES], vy[LANES];
                for (int k = 0; k < LANES; k++) {
                    x[k] = layout ? prng_range(&rng, 0.0f, 1000.0f) : prng_range(&rng, 470.0f, 530.0f);
                    y[k] = layout ? prng_range(&rng, 0.0f, 600.0f) : prng_range(&rng, 270.0f, 330.0f);
                    vx[k] = prng_range(&rng, -150.0f, 150.0f), vy[k] = prng_range(&rng, -150.0f, 150.0f);
                    if (k == 3 && q % 5 == 0) vx[k] = vy[k] = 0.0f;                       /* standing still */
                    if (k == 5 && q % 7 == 0) x[k] = w.predators[2].x, y[k] = w.predators[2].y; /* on one */
                }
                float sx[LANES], sy[LANES], ax[LANES], ay[LANES];
                int32_t steers[LANES], away[LANES];
                motion_copy_places(&w);
                motion_avoid_agents(&w, count, x, y, vx, vy, sx, sy, steers);
                motion_evade_agents(&w, count, x, y, ax, ay, away);
                float fx[LANES], fy[LANES], fvx[LANES], fvy[LANES];
                const uint8_t flags[LANES] = {0};
                memcpy(fx, x, sizeof fx), memcpy(fy, y, sizeof fy), memcpy(fvx, vx, sizeof fvx), memcpy(fvy, vy, sizeof fvy);
                motion_finish_lanes(&w, 0, count, fx, fy, fvx, fvy, flags);
                float lanes_out[LANES][4];
                for (int k = 0; k < count; k++)
                    lanes_out[k][0] = w.next.x[k], lanes_out[k][1] = w.next.y[k], lanes_out[k][2] = w.next.vx[k],
                    lanes_out[k][3] = w.next.vy[k];
                w.places.valid = false;
                for (int k = 0; k < LANES; k++) {
                    vec2 s = {0, 0}, a = {0, 0};
                    const bool by_one = k < count && motion_avoid(&w, x[k], y[k], vx[k], vy[k], &s);
                    const bool fled_one = k < count && motion_evade(&w, x[k], y[k], &a);
                    assert_int_equal(by_one, steers[k] != 0);
                    assert_int_equal(fled_one, away[k] != 0);
                    const vec2 s_lanes = {sx[k], sy[k]}, a_lanes = {ax[k], ay[k]};
                    if (by_one) assert_memory_equal(&s, &s_lanes, sizeof s);
                    if (fled_one) assert_memory_equal(&a, &a_lanes, sizeof a);
                    if (k >= count) continue;
                    motion_finish(&w, (size_t)k, x[k], y[k], vx[k], vy[k], 0); /* agent k's id, if respawned */
                    const float one[4] = {w.next.x[k], w.next.y[k], w.next.vx[k], w.next.vy[k]};
                    assert_memory_equal(one, lanes_out[k], sizeof one);
                    steered += by_one, fled += fled_one, pushed += one[0] != x[k] || one[1] != y[k];
                }
            }
            /* The layouts did what they are for: most agents among and
             * inside the lattice, some near the scattered obstacles. */
            assert_true(steered > (layout ? 50 : 2000) && fled > 500 && pushed > (layout ? 20 : 1000));
            world_free(&w);
        }
}

/* A predator's prey, looked for eight agents at a time in each cell,
 * against a scan of every agent one by one: in a crowd (the whole crowd
 * in a cell or four, so the scan's nearest is the search's), with and
 * without a tail of fewer than eight or sixteen (the scan's two chains),
 * with twins, in bounded and wrapped worlds. */
static void a_predator_should_find_the_nearest_agent_as_one_by_one(void **state)
{
    (void)state;
    for (int border = 0; border < 3; border++)
        for (size_t n = 5; n <= 205; n += 25) {
            world_config_t cfg = {.width = 400, .height = 400, .dt = 1.0f / 60.0f, .seed = (uint32_t)n,
                                  .agents = n, .max_agents = n, .max_targets = 1, .threads = 1};
            world_t w;
            assert_int_equal(world_init(&w, &cfg), 0);
            char msg[160];
            assert_int_equal(world_set_param(&w, (size_t)params_find("border"), border, msg, sizeof msg), SIM_OK);
            prng_t rng;
            prng_seed(&rng, (uint32_t)(n + (size_t)border), 17);
            for (size_t i = 0; i < n; i++) {
                w.cur.x[i] = prng_range(&rng, 190.0f, 210.0f), w.cur.y[i] = prng_range(&rng, 190.0f, 210.0f);
                if (i % 5 == 4) w.cur.x[i] = w.cur.x[i - 3], w.cur.y[i] = w.cur.y[i - 3]; /* twins, apart in the array */
            }
            world_agents_placed(&w);
            world_step(&w); /* sorts the agents into the grid */
            /* Twins within a cell (across cells the rings' order decides),
             * 8 apart in the array (the same lane of the scan's two
             * chains) or 16 (the same chain); the crowd stays within the
             * cells searched. */
            for (size_t c = 0; c < (size_t)w.grid.nx * (size_t)w.grid.ny; c++)
                for (size_t i = w.grid.cell_start[c]; i + 16 < w.grid.cell_start[c + 1]; i += 3) {
                    const size_t twin = i + (i % 2 ? 16 : 8);
                    w.cur.x[twin] = w.cur.x[i], w.cur.y[twin] = w.cur.y[i];
                }
            for (int q = 0; q < 200; q++) {
                float x = prng_range(&rng, 180.0f, 220.0f), y = prng_range(&rng, 180.0f, 220.0f);
                if (q % 4 == 0) { /* on an agent with a twin: the first of the two is the answer */
                    const size_t i = (size_t)q % w.n;
                    x = w.cur.x[i], y = w.cur.y[i];
                }
                long want = -1;
                float least = INFINITY;
                for (size_t i = 0; i < w.n; i++) {
                    const float dx = w.cur.x[i] - x, dy = w.cur.y[i] - y, d2 = dx * dx + dy * dy;
                    if (d2 < least) least = d2, want = (long)i;
                }
                assert_int_equal(predators_nearest_agent(&w, x, y), want);
            }
            world_free(&w);
        }
}

/* The nearest target of eight points at a time (motion_nearest_target_agents:
 * through the index while the lanes' look-ups are cheap, else a scan of
 * every target for the eight at once) against a scan of the table one by
 * one: targets on a ring round a crowd (the index gives up), scattered
 * (it answers), a few (no index), with twins (the first of the equally
 * near, whichever of the scan's chains holds each twin), in bounded and
 * wrapped worlds, for every batch size. */
static void eight_points_should_find_their_nearest_targets_as_one_by_one(void **state)
{
    (void)state;
    /* 4096 scattered: the index answers the eight; 150 and 1001 leave the
     * scan's four chains a tail of 2 and 1. */
    const size_t counts[] = {3, 40, 150, 512, 1001, 4096};
    for (int border = 0; border < 3; border++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int ring = 0; ring < 2; ring++) {
                const size_t n = counts[c];
                world_config_t cfg = {.width = 1000, .height = 600, .dt = 1.0f / 60.0f, .seed = 3, .agents = 8,
                                      .max_agents = 8, .max_targets = n, .threads = 1};
                world_t w;
                assert_int_equal(world_init(&w, &cfg), 0);
                char msg[160];
                assert_int_equal(world_set_param(&w, (size_t)params_find("border"), border, msg, sizeof msg), SIM_OK);
                prng_t rng;
                prng_seed(&rng, (uint32_t)(c + 3 * (size_t)border + 9 * (size_t)ring), 18);
                const float cx = ring ? 80.0f : 500.0f, cy = 300.0f; /* a ring across the wrapped edge, or not */
                for (size_t k = 0; k < n; k++) {
                    const float a = 6.2831853f * (float)k / (float)n;
                    float x = ring ? cx + 100.0f * cosf(a) : prng_range(&rng, 0.0f, 1000.0f);
                    float y = ring ? cy + 100.0f * sinf(a) : prng_range(&rng, 0.0f, 600.0f);
                    if (k % 17 == 9) x = w.targets[k - 1].x, y = w.targets[k - 1].y; /* a twin of the one before */
                    if (x < 0.0f) x += 1000.0f;
                    assert_int_equal(world_set_target(&w, (uint32_t)k + 1, x, y), SIM_OK);
                }
                target_index_build(&w.target_index, w.targets, w.n_targets, w.width, w.height, border == BORDER_WRAP);
                for (int q = 0; q < 400; q++) {
                    const int count = 1 + q % LANES;
                    float x[LANES], y[LANES], tx[LANES], ty[LANES];
                    int32_t found[LANES];
                    /* Round the ring's centre the index gives up, on the ring it
                     * answers: alternating, the batches after a give-up scan
                     * without asking (INDEX_RETRY), and must answer the same. */
                    const float spread = ring && q % 3 == 0 ? 100.0f : 10.0f;
                    for (int k = 0; k < LANES; k++) {
                        const float a = prng_range(&rng, 0.0f, 6.2831853f), r = prng_range(&rng, 0.0f, spread);
                        x[k] = ring ? fmodf(cx + r * cosf(a) + 1000.0f, 1000.0f) : prng_range(&rng, 0.0f, 1000.0f);
                        y[k] = ring ? cy + r * sinf(a) : prng_range(&rng, 0.0f, 600.0f);
                    }
                    motion_nearest_target_agents(&w, count, x, y, tx, ty, found);
                    for (int k = 0; k < LANES; k++) {
                        float least = INFINITY, dx = 0.0f, dy = 0.0f;
                        for (size_t j = 0; k < count && j < w.n_targets; j++) {
                            float ex = w.targets[j].x - x[k], ey = w.targets[j].y - y[k];
                            if (border == BORDER_WRAP) ex = motion_wrap_delta(ex, w.width), ey = motion_wrap_delta(ey, w.height);
                            if (ex * ex + ey * ey < least) least = ex * ex + ey * ey, dx = ex, dy = ey;
                        }
                        assert_int_equal(found[k] != 0, least < INFINITY);
                        const float want[2] = {dx, dy}, got[2] = {tx[k], ty[k]};
                        assert_memory_equal(want, got, sizeof want);
                    }
                }
                world_free(&w);
            }
}

/* Wandering eight agents at a time (motion_wander_agents) against
 * motion_wander agent by agent: the same direction and the same new angle
 * on the circle, bit for bit, for every batch size, for agents standing
 * still, and with angles crossing 0 and 2π; lanes not asked are left as
 * they were. */
static void eight_agents_should_wander_as_each_one_by_one(void **state)
{
    (void)state;
    enum { N = 64 };
    world_config_t cfg = {.width = 1000, .height = 600, .dt = 1.0f / 60.0f, .seed = 21, .agents = N,
                          .max_agents = N, .max_targets = 1, .threads = 1};
    world_t w;
    assert_int_equal(world_init(&w, &cfg), 0);
    char msg[160];
    assert_int_equal(world_set_param(&w, (size_t)params_find("w_wander"), 1.0, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_set_param(&w, (size_t)params_find("wander_jitter"), 100.0, msg, sizeof msg), SIM_OK);
    assert_non_null(w.wander);
    prng_t rng;
    prng_seed(&rng, 21, 19);
    float saved[N];
    int wandered = 0, wrapped = 0;
    for (int q = 0; q < 2000; q++) {
        w.tick = (uint64_t)q * 7u;
        const int count = 1 + q % LANES;
        uint32_t ids[LANES];
        float vx[LANES], vy[LANES], dx[LANES], dy[LANES];
        int32_t wanders[LANES];
        for (int k = 0; k < LANES; k++) {
            ids[k] = (uint32_t)((q * LANES + k * 5) % N); /* distinct within a batch */
            vx[k] = prng_range(&rng, -150.0f, 150.0f), vy[k] = prng_range(&rng, -150.0f, 150.0f);
            if (k == 2 && q % 3 == 0) vx[k] = vy[k] = 0.0f; /* standing still */
            wanders[k] = prng_range(&rng, 0.0f, 1.0f) < 0.7f ? -1 : 0;
            dx[k] = dy[k] = -7.0f; /* a lane not asked keeps this */
            if (q % 4 == 0) w.wander[ids[k]] = k % 2 ? 0.001f : 6.2830f; /* by the seam */
        }
        memcpy(saved, w.wander, sizeof saved);
        motion_wander_agents(&w, count, ids, vx, vy, wanders, dx, dy);
        float after[N];
        memcpy(after, w.wander, sizeof after);
        memcpy(w.wander, saved, sizeof saved);
        for (int k = 0; k < LANES; k++) {
            if (k >= count || !wanders[k]) {
                assert_true(dx[k] == -7.0f && dy[k] == -7.0f);
                assert_memory_equal(&after[ids[k]], &saved[ids[k]], sizeof(float));
                continue;
            }
            const vec2 one = motion_wander(&w, ids[k], vx[k], vy[k]);
            const float got[2] = {dx[k], dy[k]};
            assert_memory_equal(&one, got, sizeof got);
            assert_memory_equal(&after[ids[k]], &w.wander[ids[k]], sizeof(float));
            wandered++;
            wrapped += fabsf(w.wander[ids[k]] - saved[ids[k]]) > 3.0f;
        }
    }
    assert_true(wandered > 5000 && wrapped > 100); /* the angles crossed the seam */
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_lanes_should_steer_round_obstacles_as_one_by_one),
        cmocka_unit_test(the_lanes_should_push_out_of_obstacles_as_one_by_one),
        cmocka_unit_test(the_lanes_should_flee_predators_as_one_by_one),
        cmocka_unit_test(a_crowd_among_overlapping_obstacles_should_steer_and_be_pushed_as_one_by_one),
        cmocka_unit_test(eight_agents_at_a_time_should_answer_as_each_one_by_one),
        cmocka_unit_test(a_predator_should_find_the_nearest_agent_as_one_by_one),
        cmocka_unit_test(eight_points_should_find_their_nearest_targets_as_one_by_one),
        cmocka_unit_test(eight_agents_should_wander_as_each_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
