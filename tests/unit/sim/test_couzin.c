/* The Couzin zone model (Couzin et al. 2002), tested by what the agents
 * do: repulsion decides alone, the heading turns at most θ·dt per tick,
 * a neighbour in the blind angle is not perceived, the speed is constant,
 * the same world steps to the same bits, and the group's collective state
 * (swarm, torus, parallel) follows the width of the zone of orientation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/commands.h"
#include "sim/models.h"
#include "sim/prng.h"
#include "sim_fixtures.h"

#define PI 3.14159265358979

/* A world of n agents placed by hand, Couzin's model, no noise. */
static void couzin_world(world_t *w, size_t n)
{
    make_world(w, 4000, 4000, n, 3);
    set_param(w, "model", MODEL_COUZIN);
    set_param(w, "cz_noise", 0);
    for (size_t i = 0; i < n; i++) place(w, i, 100.0f + 300.0f * (float)i, 100.0f, 120.0f, 0.0f); /* far apart */
}

static double heading_of(const world_t *w, uint32_t id)
{
    size_t i = index_of(w, id);
    return atan2(w->cur.vy[i], w->cur.vx[i]);
}

static double max_turn_per_tick(const world_t *w)
{
    return w->params.cz_turn_rate * (PI / 180.0) * w->dt;
}

static void repulsion_should_decide_alone_when_a_neighbour_is_inside_r_r(void **state)
{
    (void)state;
    /* The rule itself: orientation and attraction sums are ignored. */
    couzin_sums_t s = {.rep_x = -1, .rep_y = 0, .n_rep = 1, .ori_x = 0, .ori_y = 5, .n_ori = 5, .att_x = 3,
                       .att_y = 3, .n_att = 4};
    float dx, dy;
    assert_true(couzin_direction(&s, 0, 1, &dx, &dy));
    assert_float_equal(dx, -1.0f, 1e-6);
    assert_float_equal(dy, 0.0f, 1e-6);

    /* In a world: agent 0 flies along +x; agent 1 is 6 u ahead and to its
     * left (inside r_r = 10), while four agents to its left in the zone of
     * orientation fly toward +y and one in the zone of attraction is ahead
     * on the left too. Both would turn it left; repulsion turns it right. */
    world_t w;
    couzin_world(&w, 7);
    place(&w, 0, 1000, 1000, 120, 0);
    place(&w, 1, 1004, 1004.5f, 120, 0);
    for (int k = 0; k < 4; k++) place(&w, 2 + (size_t)k, 990.0f + 8.0f * (float)k, 1020, 0, 120);
    place(&w, 6, 1080, 1100, 120, 0);
    world_step(&w);
    double h = heading_of(&w, 0);
    print_message("heading after one tick %.5f rad (limit %.5f)\n", h, max_turn_per_tick(&w));
    assert_true(h < 0.0);
    assert_float_equal(h, -max_turn_per_tick(&w), 1e-4);

    /* Without agent 1 the same neighbours turn it left. */
    world_t v;
    couzin_world(&v, 7);
    place(&v, 0, 1000, 1000, 120, 0);
    for (int k = 0; k < 4; k++) place(&v, 2 + (size_t)k, 990.0f + 8.0f * (float)k, 1020, 0, 120);
    place(&v, 6, 1080, 1100, 120, 0);
    world_step(&v);
    assert_true(heading_of(&v, 0) > 0.0);
    world_free(&w);
    world_free(&v);
}

static void orientation_and_attraction_should_be_averaged_when_both_see_someone(void **state)
{
    (void)state;
    /* d_o = own heading (0, 1) + a neighbour's (0, 1): straight up;
     * d_a = toward +x; d = ½(d̂_o + d̂_a) = 45°. */
    couzin_sums_t s = {.ori_x = 0, .ori_y = 1, .n_ori = 1, .att_x = 2, .att_y = 0, .n_att = 2};
    float dx, dy;
    assert_true(couzin_direction(&s, 0, 1, &dx, &dy));
    assert_float_equal(atan2f(dy, dx), PI / 4, 1e-6);
    /* Only attraction: toward the neighbours. Nobody: no direction. */
    couzin_sums_t a = {.att_x = 0, .att_y = -3, .n_att = 3};
    assert_true(couzin_direction(&a, 1, 0, &dx, &dy));
    assert_float_equal(dy, -1.0f, 1e-6);
    couzin_sums_t none = {0};
    assert_false(couzin_direction(&none, 1, 0, &dx, &dy));
}

static void the_heading_should_turn_by_at_most_theta_dt_per_tick(void **state)
{
    (void)state;
    /* The limit, and a small error turned in full. */
    assert_float_equal(couzin_turn(0.0f, 2.0f, 0.1f), 0.1f, 1e-7);
    assert_float_equal(couzin_turn(0.0f, -2.0f, 0.1f), -0.1f, 1e-7);
    assert_float_equal(couzin_turn(0.0f, 0.05f, 0.1f), 0.05f, 1e-7);
    /* Across ±π the short way round: from 3.1 to −3.1 is +0.083. */
    assert_float_equal(couzin_turn(3.1f, -3.1f, 0.1f), 3.1f + 0.0831853f, 1e-5);

    /* A crowd with noise: no agent's heading ever changes by more. */
    world_t w;
    make_world(&w, 2000, 2000, 300, 11);
    set_param(&w, "model", MODEL_COUZIN);
    for (size_t i = 0; i < w.n; i++) w.cur.x[i] = 900 + fmodf(w.cur.x[i], 200), w.cur.y[i] = 900 + fmodf(w.cur.y[i], 200);
    const double limit = max_turn_per_tick(&w);
    double before[300], largest = 0;
    world_step(&w);
    for (size_t i = 0; i < w.n; i++) before[w.cur.id[i]] = atan2(w.cur.vy[i], w.cur.vx[i]);
    for (int t = 0; t < 200; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) {
            double h = atan2(w.cur.vy[i], w.cur.vx[i]), turn = fabs(remainder(h - before[w.cur.id[i]], 2 * PI));
            largest = fmax(largest, turn);
            before[w.cur.id[i]] = h;
        }
    }
    print_message("largest turn in a tick %.5f rad, limit %.5f\n", largest, limit);
    assert_true(largest <= limit + 1e-5);
    assert_true(largest > 0.9 * limit); /* the limit is reached: it is what bounds the turns */
    world_free(&w);
}

static void a_neighbour_in_the_blind_angle_should_be_ignored(void **state)
{
    (void)state;
    /* Directly behind, in the zone of attraction and then in the zone of
     * repulsion: the agent flies on. */
    const float behind[] = {-60.0f, -5.0f};
    for (int k = 0; k < 2; k++) {
        world_t w;
        couzin_world(&w, 2);
        place(&w, 0, 1000, 1000, 120, 0);
        place(&w, 1, 1000 + behind[k], 1000.5f, 0, 120);
        for (int t = 0; t < 5; t++) world_step(&w);
        assert_float_equal(heading_of(&w, 0), 0.0, 1e-6);
        world_free(&w);
    }
    /* Just inside the field of perception (134° off the heading), it is seen. */
    world_t w;
    couzin_world(&w, 2);
    const float a = 134.0f * (float)PI / 180.0f;
    place(&w, 0, 1000, 1000, 120, 0);
    place(&w, 1, 1000 + 60 * cosf(a), 1000 + 60 * sinf(a), 120, 0);
    world_step(&w);
    assert_float_equal(heading_of(&w, 0), max_turn_per_tick(&w), 1e-4);
    world_free(&w);
    /* With a 360° field the one behind is seen too. */
    couzin_world(&w, 2);
    set_param(&w, "cz_fov", 360);
    place(&w, 0, 1000, 1000, 120, 0);
    place(&w, 1, 940, 1000.5f, 0, 120);
    world_step(&w);
    assert_true(fabs(heading_of(&w, 0)) > 0.9 * max_turn_per_tick(&w));
    world_free(&w);
}

static void agents_should_keep_the_constant_speed(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 200, 4);
    set_param(&w, "model", MODEL_COUZIN);
    set_param(&w, "cz_speed", 90);
    for (int t = 0; t < 300; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) assert_float_equal(hypotf(w.cur.vx[i], w.cur.vy[i]), 90.0f, 1e-3);
    }
    world_free(&w);
}

static void same_worlds_should_stay_bit_identical_and_noise_should_matter(void **state)
{
    (void)state;
    world_t w[3];
    for (int k = 0; k < 3; k++) {
        make_world(&w[k], 1200, 1200, 300, 21);
        set_param(&w[k], "model", MODEL_COUZIN);
        set_param(&w[k], "cz_noise", k == 2 ? 0.316 : 0);
    }
    for (int t = 0; t < 300; t++)
        for (int k = 0; k < 3; k++) world_step(&w[k]);
    assert_memory_equal(w[0].cur.x, w[1].cur.x, w[0].n * sizeof(float));
    assert_memory_equal(w[0].cur.y, w[1].cur.y, w[0].n * sizeof(float));
    assert_memory_equal(w[0].cur.vx, w[1].cur.vx, w[0].n * sizeof(float));
    assert_memory_equal(w[0].cur.vy, w[1].cur.vy, w[0].n * sizeof(float));
    assert_true(memcmp(w[0].cur.x, w[2].cur.x, w[0].n * sizeof(float)) != 0);
    for (int k = 0; k < 3; k++) world_free(&w[k]);

    /* With noise, the same seed gives the same bits whatever the threads. */
    for (int k = 0; k < 2; k++) {
        world_config_t cfg = {.width = 3000, .height = 3000, .dt = 1.0f / 60, .seed = 8, .agents = 6000,
                              .max_agents = 6000, .max_targets = 2, .threads = k + 1};
        assert_int_equal(world_init(&w[k], &cfg), 0);
        set_param(&w[k], "model", MODEL_COUZIN);
        for (int t = 0; t < 30; t++) world_step(&w[k]);
    }
    assert_memory_equal(w[0].cur.x, w[1].cur.x, w[0].n * sizeof(float));
    assert_memory_equal(w[0].cur.vy, w[1].cur.vy, w[0].n * sizeof(float));
    world_free(&w[0]);
    world_free(&w[1]);
}

static void switching_to_couzin_live_should_widen_the_grid_to_its_zones_and_back(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 300, 6);
    for (int t = 0; t < 10; t++) world_step(&w);
    const float reynolds_cell = w.grid_cell;
    sim_result_t res;
    sim_cmd_t cmd = {.kind = CMD_SET_MODEL, .model = MODEL_COUZIN};
    sim_apply(&w, &cmd, &res);
    assert_int_equal(res.status, SIM_OK);
    assert_int_equal(w.params.model, MODEL_COUZIN);
    /* r_r + Δr_o + Δr_a = 10 + 20 + 140 u: every perceived neighbour is in the 3x3 block. */
    assert_float_equal(w.grid_cell, 170.0f, 0);
    set_param(&w, "cz_dr_a", 200);
    assert_float_equal(w.grid_cell, 230.0f, 0);
    for (int t = 0; t < 60; t++) world_step(&w);
    for (size_t i = 0; i < w.n; i++) assert_float_equal(hypotf(w.cur.vx[i], w.cur.vy[i]), 120.0f, 1e-3);
    cmd.model = MODEL_REYNOLDS;
    sim_apply(&w, &cmd, &res);
    assert_int_equal(res.status, SIM_OK);
    assert_float_equal(w.grid_cell, reynolds_cell, 0); /* the other models keep their small cells */
    world_step(&w);
    world_free(&w);
}

/* Polarization and angular momentum about the centre, as the paper
 * defines them (the world is large enough that the group never wraps). */
static void group_order(const world_t *w, double *p, double *m)
{
    double cx = 0, cy = 0, sx = 0, sy = 0, spin = 0;
    for (size_t i = 0; i < w->n; i++) cx += w->cur.x[i], cy += w->cur.y[i];
    cx /= (double)w->n, cy /= (double)w->n;
    for (size_t i = 0; i < w->n; i++) {
        double s = hypot(w->cur.vx[i], w->cur.vy[i]), rx = w->cur.x[i] - cx, ry = w->cur.y[i] - cy;
        double vx = w->cur.vx[i] / s, vy = w->cur.vy[i] / s, r = hypot(rx, ry);
        sx += vx, sy += vy;
        if (r > 0) spin += (rx * vy - ry * vx) / r;
    }
    *p = hypot(sx, sy) / (double)w->n;
    *m = fabs(spin) / (double)w->n;
}

/* 100 agents set off from a 150 u square with random headings in the
 * middle of a world too large for them to reach its edge; the order
 * averaged over the last 15 s of 60 s. */
static void run_group(float dr_o, float dr_a, uint32_t seed, double *p, double *m)
{
    world_t w;
    make_world(&w, 16000, 16000, 100, seed);
    set_param(&w, "model", MODEL_COUZIN);
    set_param(&w, "cz_dr_o", dr_o);
    set_param(&w, "cz_dr_a", dr_a);
    prng_t r;
    prng_seed(&r, seed, 5);
    for (size_t i = 0; i < w.n; i++) {
        float a = prng_range(&r, -(float)PI, (float)PI);
        place(&w, i, 8000 + prng_range(&r, 0, 150), 8000 + prng_range(&r, 0, 150), 120 * cosf(a), 120 * sinf(a));
    }
    *p = *m = 0;
    const int ticks = 60 * 60, averaged = 15 * 60;
    for (int t = 0; t < ticks; t++) {
        world_step(&w);
        if (t < ticks - averaged || t % 30) continue;
        double pt, mt;
        group_order(&w, &pt, &mt);
        *p += pt / (averaged / 30), *m += mt / (averaged / 30);
    }
    world_free(&w);
}

/* The groups' seeds. A sanitizer's build steps some forty times slower,
 * and the physics above is what it is for: there, one group per state. */
static const uint32_t group_seeds[] = {3, 1, 2};
#if defined(__SANITIZE_ADDRESS__) /* GCC */
#define GROUP_SEEDS 1
#elif defined(__has_feature) /* Clang */
#if __has_feature(address_sanitizer)
#define GROUP_SEEDS 1
#endif
#endif
#ifndef GROUP_SEEDS
#define GROUP_SEEDS 3
#endif

static void the_collective_state_should_follow_the_zone_of_orientation(void **state)
{
    (void)state;
    /* Couzin et al. 2002, Fig. 2 (Δr_a = 14 body lengths of 10 u): Δr_o
     * near 0 gives a swarm (low p and m), a narrow zone of orientation
     * mostly a torus (high m, low p; a group may also set off parallel
     * there), a wide one a highly parallel group. */
    double p_swarm = 0, m_swarm = 0, p_par = 0;
    int tori = 0;
    for (int k = 0; k < GROUP_SEEDS; k++) {
        const uint32_t seed = group_seeds[k];
        double p, m;
        run_group(0, 140, seed, &p, &m);
        print_message("swarm    (dr_o 0):   p %.3f m %.3f\n", p, m);
        p_swarm += p / GROUP_SEEDS, m_swarm += m / GROUP_SEEDS;
        run_group(20, 140, seed, &p, &m);
        print_message("torus    (dr_o 2):   p %.3f m %.3f\n", p, m);
        tori += m > 0.6 && p < 0.3;
        run_group(150, 140, seed, &p, &m);
        print_message("parallel (dr_o 15):  p %.3f m %.3f\n", p, m);
        p_par += p / GROUP_SEEDS;
    }
    assert_true(p_swarm < 0.3 && m_swarm < 0.3);
    assert_true(3 * tori >= 2 * GROUP_SEEDS); /* most */
    assert_true(p_par > 0.9);
}

/* couzin_sense's two loops (vector masks, and AVX-512's mask registers
 * where the CPU has them) give the same sums, bit for bit, on random
 * spans of up to three of the portable loop's chunks: candidates in every
 * zone, behind and in front, on the agent's own spot, and the span's
 * padding far away. */
static void both_sensing_loops_should_give_the_same_bits(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    prng_t rng;
    prng_seed(&rng, 25, 7);
    enum { N = 700, PAD = 8 };
    float X[N + PAD], Y[N + PAD], VX[N + PAD], VY[N + PAD];
    long perceived = 0, repelled = 0;
    for (int round = 0; round < 200; round++) {
        p.cz_fov = round % 3 == 0 ? 360.0f : prng_range(&rng, 10.0f, 350.0f);
        const couzin_consts_t k = couzin_consts(&p); /* avx512 where the CPU and the build have it */
        couzin_consts_t portable = k;
        portable.avx512 = false;
        const int n = 1 + (int)(prng_unit(&rng) * N);
        for (int j = 0; j < N + PAD; j++) {
            const bool far = j >= n;
            X[j] = far ? 1e30f : prng_range(&rng, -200.0f, 200.0f);
            Y[j] = far ? 1e30f : prng_range(&rng, -200.0f, 200.0f);
            VX[j] = prng_range(&rng, -1.0f, 1.0f), VY[j] = prng_range(&rng, -1.0f, 1.0f);
        }
        X[round % n] = 3.0f, Y[round % n] = -4.0f; /* one on the agent's spot */
        const float vx = round % 5 == 0 ? 0.0f : prng_range(&rng, -120.0f, 120.0f), vy = prng_range(&rng, -120.0f, 120.0f);
        couzin_sums_t a, b;
        couzin_sense(&portable, X, Y, VX, VY, NULL, 0.0f, n, -1, 3.0f, -4.0f, vx, vy, false, 1000.0f, 1000.0f, &a);
        couzin_sense(&k, X, Y, VX, VY, NULL, 0.0f, n, -1, 3.0f, -4.0f, vx, vy, false, 1000.0f, 1000.0f, &b);
        assert_memory_equal(&a, &b, sizeof a);
        perceived += a.n_rep + a.n_ori + a.n_att;
        repelled += a.n_rep > 0;
    }
    /* The spans held neighbours in the zones, not only far ones. */
    assert_true(perceived > 1000 && repelled > 10);
}

/* Two bodies a hair apart near the origin: each offset is not 0 but its
 * square underflows, so d² = 0. Distance 0 is in no zone (no direction to
 * it), with or without a blind angle, on every loop; with a blind angle
 * r̂ = d·(1/√0) is infinite, not NaN, and would look inside the field of
 * perception. */
static void a_neighbour_at_squared_distance_zero_should_not_be_perceived(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    enum { N = 40, PAD = 8 };
    float X[N + PAD], Y[N + PAD], VX[N + PAD], VY[N + PAD];
    for (int j = 0; j < N + PAD; j++) X[j] = Y[j] = 1e30f, VX[j] = 1.0f, VY[j] = 0.0f;
    for (int fov = 0; fov < 2; fov++) {
        p.cz_fov = fov ? 270.0f : 360.0f;
        couzin_consts_t k = couzin_consts(&p);
        for (int loop = 0; loop < 3; loop++) { /* AVX-512 where there is one, portable, general (wrapped) */
            k.avx512 = k.avx512 && loop == 0;
            for (int n = 1; n <= N; n += 13) {
                for (int j = 0; j < n; j++) X[j] = Y[j] = 1e-30f * (float)(j + 1); /* ahead of the agent */
                couzin_sums_t s;
                couzin_sense(&k, X, Y, VX, VY, NULL, 0.0f, n, -1, 0.0f, 0.0f, 1.0f, 1.0f, loop == 2, 1000.0f,
                             1000.0f, &s);
                assert_int_equal(s.n_rep + s.n_ori + s.n_att, 0);
                assert_true(s.rep_x == 0.0f && s.rep_y == 0.0f && s.att_x == 0.0f && s.att_y == 0.0f);
                for (int j = 0; j < n; j++) X[j] = Y[j] = 1e30f;
            }
        }
    }
}

/* One term of the double-precision reference: what couzin_sense adds for
 * candidate j, classified by the same float compares as the kernel (so a
 * pair on a zone's or the field's edge falls on the same side) but with r̂
 * worked out in double. Returns the zone: 0 none, 1 repulsion, 2
 * orientation, 3 attraction. */
static int reference_term(const couzin_consts_t *k, float dx, float dy, float hx, float hy, bool blind, double *tx,
                          double *ty)
{
    const float d2 = dx * dx + dy * dy;
    if (!(d2 > 0.0f && d2 < k->ra2)) return 0;
    const float inv = 1.0f / sqrtf(d2);
    if (blind && !(hx * (dx * inv) + hy * (dy * inv) >= k->cos_half)) return 0;
    const double len = sqrt((double)dx * dx + (double)dy * dy);
    *tx = dx / len, *ty = dy / len;
    return d2 < k->rr2 ? 1 : d2 < k->ro2 ? 2 : 3;
}

/* couzin_sense's sums against the same sums in double precision, on
 * random spans of up to SIM_MAX_CANDIDATES candidates in every zone, with
 * and without a blind angle, on both loops: within COUZIN_SUM_ERROR of the
 * sum of the terms' sizes, and the counts exact. */
static void the_sums_should_be_within_the_stated_bound_of_exact_ones(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    prng_t rng;
    prng_seed(&rng, 25, 11);
    enum { N = SIM_MAX_CANDIDATES, PAD = 8 };
    static float X[N + PAD], Y[N + PAD], VX[N + PAD], VY[N + PAD];
    double worst = 0.0;
    for (int round = 0; round < 120; round++) {
        p.cz_fov = round % 2 ? 270.0f : 360.0f;
        p.cz_r_r = prng_range(&rng, 1.0f, 30.0f);
        couzin_consts_t k = couzin_consts(&p); /* reach 171–200 */
        if (round % 4 >= 2) k.avx512 = false;
        const int n = round < 4 ? N - round : 1 + (int)(prng_unit(&rng) * N);
        const float px = 500.0f, py = 400.0f, vx = prng_range(&rng, -1.0f, 1.0f) * 120.0f, vy = 60.0f;
        for (int j = 0; j < N + PAD; j++) {
            const bool far = j >= n;
            const float r = prng_range(&rng, 0.0f, 190.0f), a = prng_range(&rng, 0.0f, 6.2831853f);
            X[j] = far ? 1e30f : px + r * cosf(a), Y[j] = far ? 1e30f : py + r * sinf(a);
            const float h = prng_range(&rng, 0.0f, 6.2831853f);
            VX[j] = cosf(h), VY[j] = sinf(h);
        }
        couzin_sums_t got;
        couzin_sense(&k, X, Y, VX, VY, NULL, 0.0f, n, -1, px, py, vx, vy, false, 2000.0f, 2000.0f, &got);
        const float speed = sqrtf(vx * vx + vy * vy), hx = vx / speed, hy = vy / speed;
        double sum[3][2] = {{0}}, size[3] = {0};
        int counts[3] = {0};
        for (int j = 0; j < n; j++) {
            double tx = 0, ty = 0;
            const int zone = reference_term(&k, X[j] - px, Y[j] - py, hx, hy, p.cz_fov < 360.0f, &tx, &ty);
            if (!zone) continue;
            if (zone == 2) tx = VX[j], ty = VY[j];
            if (zone == 1) tx = -tx, ty = -ty;
            sum[zone - 1][0] += tx, sum[zone - 1][1] += ty;
            size[zone - 1] += fabs(tx) + fabs(ty);
            counts[zone - 1]++;
        }
        assert_int_equal(got.n_rep, counts[0]);
        assert_int_equal(got.n_ori, counts[1]);
        assert_int_equal(got.n_att, counts[2]);
        const float kernel[3][2] = {{got.rep_x, got.rep_y}, {got.ori_x, got.ori_y}, {got.att_x, got.att_y}};
        for (int z = 0; z < 3; z++)
            for (int c = 0; c < 2; c++) {
                const double error = fabs(kernel[z][c] - sum[z][c]) / (size[z] > 0 ? size[z] : 1.0);
                if (error > worst) worst = error;
                assert_true(error <= COUZIN_SUM_ERROR);
            }
    }
    print_message("largest error: %.3g of the terms' sizes (bound %.3g)\n", worst, COUZIN_SUM_ERROR);
    /* The spans were summed with rounding, not exactly in double. */
    assert_true(worst > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repulsion_should_decide_alone_when_a_neighbour_is_inside_r_r),
        cmocka_unit_test(orientation_and_attraction_should_be_averaged_when_both_see_someone),
        cmocka_unit_test(the_heading_should_turn_by_at_most_theta_dt_per_tick),
        cmocka_unit_test(a_neighbour_in_the_blind_angle_should_be_ignored),
        cmocka_unit_test(agents_should_keep_the_constant_speed),
        cmocka_unit_test(same_worlds_should_stay_bit_identical_and_noise_should_matter),
        cmocka_unit_test(switching_to_couzin_live_should_widen_the_grid_to_its_zones_and_back),
        cmocka_unit_test(the_collective_state_should_follow_the_zone_of_orientation),
        cmocka_unit_test(both_sensing_loops_should_give_the_same_bits),
        cmocka_unit_test(the_sums_should_be_within_the_stated_bound_of_exact_ones),
        cmocka_unit_test(a_neighbour_at_squared_distance_zero_should_not_be_perceived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
