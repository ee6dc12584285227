/* The sensing loop (sim/neighbours.h) against plain arithmetic: what one
 * agent sees of a span of candidates, in every compiled variant. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sim/neighbours.h"
#include "sim/neighbours_avx512.h"
#include "sim/prng.h"

#define SPAN 61 /* not a multiple of the lane count: the tail is padded */
#define PI 3.14159265358979323846

typedef struct span {
    float x[SPAN + 2 * SENSE_LANES], y[SPAN + 2 * SENSE_LANES];
    float vx[SPAN + 2 * SENSE_LANES], vy[SPAN + 2 * SENSE_LANES];
    float species[SPAN + 2 * SENSE_LANES];
} span_t;

/* Candidates scattered within 60 u of (500, 500), some inside each zone,
 * one exactly at the query point (the agent itself). */
static void fill_span(span_t *s, prng_t *rng)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < SPAN; k++) {
        s->x[k] = 500.0f + prng_range(rng, -60.0f, 60.0f);
        s->y[k] = 500.0f + prng_range(rng, -60.0f, 60.0f);
        s->vx[k] = prng_range(rng, -100.0f, 100.0f);
        s->vy[k] = prng_range(rng, -100.0f, 100.0f);
    }
    s->x[17] = s->y[17] = 500.0f;
    for (int k = SPAN; k < SPAN + SENSE_LANES; k++) s->x[k] = s->y[k] = SENSE_FAR;
}

/* Zones of 25 and 50 u, the same field of view for all three. */
static sense_params_t params_with_view(float fov_deg)
{
    float cos_half = cosf(fov_deg * (3.14159265f / 360.0f));
    sense_params_t sp = {.sep2 = 25.0f * 25.0f, .ali2 = 50.0f * 50.0f, .coh2 = 50.0f * 50.0f, .width = 1000, .height = 1000};
    for (int z = 0; z < ZONES; z++) {
        sp.blind[z] = fov_deg < 360.0f;
        sp.wide[z] = cos_half < 0.0f;
        sp.cos_half2[z] = cos_half * cos_half;
    }
    return sp;
}

static sense_quads_t sense_with(const span_t *s, const sense_params_t *sp, float vx, float vy, sense_mode_t mode)
{
    sense_self_t me = sense_self(sp, vx, vy, 0.0f, 0.0f);
    sense_acc_t acc;
    memset(&acc, 0, sizeof acc);
    sense_span(&acc, s->x, s->y, s->vx, s->vy, s->species, SPAN, 500.0f, 500.0f, &me, sp, mode);
    return sense_finish(&acc, mode.generic);
}

/* A field of view and the fast variant of the loop that serves it. */
typedef struct view_case {
    float fov;
    sense_mode_t fast;
} view_case_t;

static const view_case_t VIEW_CASES[] = {{300.0f, SENSE_WIDE_VIEW}, {120.0f, SENSE_NARROW_VIEW}, {360.0f, SENSE_SEES_ALL}};
#define N_VIEW_CASES (sizeof VIEW_CASES / sizeof VIEW_CASES[0])

static void every_variant_of_the_sensing_loop_should_give_the_same_bits(void **state)
{
    (void)state;
    prng_t rng;
    prng_seed(&rng, 11, 0);
    const view_case_t *cases = VIEW_CASES;
    for (int trial = 0; trial < 200; trial++) {
        span_t s;
        fill_span(&s, &rng);
        const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
        for (size_t c = 0; c < N_VIEW_CASES; c++) {
            sense_params_t sp = params_with_view(cases[c].fov);
            if (trial % 2) sp.contact2 = 14.0f * 14.0f, sp.inv_contact2 = 1.0f / sp.contact2; /* half with contact */
            sense_self_t me = sense_self(&sp, vx, vy, 0.0f, 0.0f);
            assert_true(sense_fast_ok(&sp, &me, false));
            sense_quads_t generic = sense_with(&s, &sp, vx, vy, SENSE_GENERIC);
            sense_quads_t fast = sense_with(&s, &sp, vx, vy, cases[c].fast);
            /* Sums and n_any bit for bit; n_ali equals n_any in the fast case. */
            assert_memory_equal(&generic.q[0], &fast.q[0], sizeof generic.q[0]);
            assert_memory_equal(&generic.q[1], &fast.q[1], sizeof generic.q[1]);
            /* … and the contact sum (the generic loop's counts beside it are its own). */
            assert_memory_equal(&generic.q[2][2], &fast.q[2][2], 2 * sizeof(float));
        }
    }
}

/* The same sums in double precision, one candidate at a time, with the
 * angle from atan2: what the vector loop must compute. */
typedef struct plain_sums {
    double sep_x, sep_y, ali_x, ali_y, coh_x, coh_y;
    int n_any, n_ali;
} plain_sums_t;

static plain_sums_t sense_plainly(const span_t *s, float fov_deg, float vx, float vy)
{
    plain_sums_t r = {0};
    for (int k = 0; k < SPAN; k++) {
        double dx = (double)s->x[k] - 500.0, dy = (double)s->y[k] - 500.0, d = hypot(dx, dy);
        if (d == 0.0) continue; /* itself, or one at the very same spot */
        double angle = fabs(remainder(atan2(dy, dx) - atan2((double)vy, (double)vx), 2.0 * PI));
        if (angle > fov_deg * PI / 360.0) continue;
        if (d < 25.0) r.sep_x -= dx / (d * d), r.sep_y -= dy / (d * d);
        if (d < 50.0) {
            r.ali_x += s->vx[k], r.ali_y += s->vy[k];
            r.coh_x += dx, r.coh_y += dy;
            r.n_ali++;
        }
        r.n_any += d < 50.0;
    }
    return r;
}

static void sensing_should_sum_each_zone_over_the_visible_neighbours_in_it(void **state)
{
    (void)state;
    prng_t rng;
    prng_seed(&rng, 12, 0);
    const float fovs[] = {300.0f, 200.0f, 120.0f, 360.0f};
    int seen = 0;
    for (int trial = 0; trial < 200; trial++) {
        span_t s;
        fill_span(&s, &rng);
        const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
        for (size_t f = 0; f < sizeof fovs / sizeof fovs[0]; f++) {
            sense_params_t sp = params_with_view(fovs[f]);
            sense_sums_t got = sense_sums_of(sense_with(&s, &sp, vx, vy, SENSE_GENERIC));
            plain_sums_t want = sense_plainly(&s, fovs[f], vx, vy);
            assert_int_equal(got.n_any, want.n_any);
            assert_int_equal(got.n_ali, want.n_ali);
            assert_int_equal(got.n_coh, want.n_ali);
            const double got_v[6] = {got.sep_x, got.sep_y, got.ali_x, got.ali_y, got.coh_x, got.coh_y};
            const double want_v[6] = {want.sep_x, want.sep_y, want.ali_x, want.ali_y, want.coh_x, want.coh_y};
            for (int k = 0; k < 6; k++) assert_true(fabs(got_v[k] - want_v[k]) <= 1e-3 * (1.0 + fabs(want_v[k])));
            seen += want.n_any;
        }
    }
    assert_true(seen > 200 * 4 * 3); /* the spans did put neighbours in the zones */
}

/* The potential's sum (separation "potential") against double precision,
 * one candidate at a time: F(d) = −mA/d^(m+1) + nB/d^(n+1) away from each
 * candidate within the separation radius, all around, of any species but
 * only repelling another kind. */
static void the_potential_should_sum_each_pairs_force_within_the_separation_radius(void **state)
{
    (void)state;
    prng_t rng;
    prng_seed(&rng, 13, 0);
    const int exponents[][2] = {{1, 2}, {2, 5}, {3, 4}};
    for (int trial = 0; trial < 200; trial++) {
        span_t s;
        fill_span(&s, &rng);
        for (int k = 0; k < SPAN; k++) s.species[k] = (float)(k % 2);
        const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
        const int m = exponents[trial % 3][0], n = exponents[trial % 3][1];
        const double A = 20000.0, B = 120000.0;
        sense_params_t sp = params_with_view(300.0f);
        sp.potential = true;
        sp.pot_m1 = m + 1, sp.pot_n1 = n + 1;
        sp.pot_ma = (float)(m * A), sp.pot_nb = (float)(n * B);
        const sense_self_t plain = {.coh_is_ali = true, .sep_view_is_ali = true, .ali2 = sp.ali2};
        assert_false(sense_fast_ok(&sp, &plain, false)); /* the potential needs the generic loop */
        for (int by_kind = 0; by_kind < 2; by_kind++) {
            sense_self_t me = sense_self(&sp, vx, vy, 0.0f, 0.0f);
            if (by_kind) me.species = 1.0f;
            sense_acc_t acc;
            memset(&acc, 0, sizeof acc);
            sense_span(&acc, s.x, s.y, s.vx, s.vy, s.species, SPAN, 500.0f, 500.0f, &me, &sp, SENSE_GENERIC);
            const sense_sums_t got = sense_sums_of(sense_finish(&acc, true));
            double want_x = 0.0, want_y = 0.0, scale = 0.0;
            for (int k = 0; k < SPAN; k++) {
                const double dx = (double)s.x[k] - 500.0, dy = (double)s.y[k] - 500.0, d = hypot(dx, dy);
                if (d == 0.0 || d >= 25.0) continue;
                double f = -m * A / pow(d, m + 1) + n * B / pow(d, n + 1);
                if (by_kind && s.species[k] != 1.0f && f < 0.0) f = 0.0; /* another kind only repels */
                want_x -= dx / d * f, want_y -= dy / d * f;
                scale += fabs(f);
            }
            assert_true(fabs(got.pair_x - want_x) <= 1e-4 * (1.0 + scale));
            assert_true(fabs(got.pair_y - want_y) <= 1e-4 * (1.0 + scale));
        }
    }
}

/* Contact (personal_space r): Σ d̂ (1/d − d/r²) away from every body
 * closer than r, all round (whatever the view) and of every species; none
 * at all when r is 0. */
static void the_contact_sum_should_count_every_body_inside_personal_space(void **state)
{
    (void)state;
    prng_t rng;
    prng_seed(&rng, 13, 0);
    for (int trial = 0; trial < 50; trial++) {
        span_t s;
        fill_span(&s, &rng);
        for (int k = 0; k < SPAN; k++) s.species[k] = (float)(k % 2);
        const float vx = prng_range(&rng, -150.0f, 150.0f), vy = prng_range(&rng, -150.0f, 150.0f);
        const double r = 10.0 + trial % 3 * 5.0;
        sense_params_t sp = params_with_view(120.0f); /* a narrow view: contact still sees behind */
        sp.contact2 = (float)(r * r), sp.inv_contact2 = 1.0f / sp.contact2;
        for (int by_kind = 0; by_kind < 2; by_kind++) {
            sense_self_t me = sense_self(&sp, vx, vy, 0.0f, 0.0f);
            if (by_kind) me.species = 1.0f;
            sense_acc_t acc;
            memset(&acc, 0, sizeof acc);
            sense_span(&acc, s.x, s.y, s.vx, s.vy, s.species, SPAN, 500.0f, 500.0f, &me, &sp, SENSE_GENERIC);
            const sense_sums_t got = sense_sums_of(sense_finish(&acc, true));
            double want_x = 0.0, want_y = 0.0, scale = 0.0;
            for (int k = 0; k < SPAN; k++) {
                const double dx = (double)s.x[k] - 500.0, dy = (double)s.y[k] - 500.0, d = hypot(dx, dy);
                if (d == 0.0 || d >= r) continue;
                const double c = 1.0 / d - d / (r * r);
                want_x -= dx / d * c, want_y -= dy / d * c;
                scale += c;
            }
            assert_true(fabs(got.pair_x - want_x) <= 1e-4 * (1.0 + scale));
            assert_true(fabs(got.pair_y - want_y) <= 1e-4 * (1.0 + scale));
        }
        sp.contact2 = sp.inv_contact2 = 0.0f; /* personal_space 0 */
        const sense_sums_t none = sense_sums_of(sense_with(&s, &sp, vx, vy, SENSE_NARROW_VIEW));
        assert_true(none.pair_x == 0.0f && none.pair_y == 0.0f);
    }
}

static void the_view_test_should_agree_with_the_angle_between_heading_and_neighbour(void **state)
{
    (void)state;
    prng_t rng;
    prng_seed(&rng, 13, 0);
    int visible = 0, hidden = 0;
    for (int trial = 0; trial < 4000; trial++) {
        const float fov = prng_range(&rng, 10.0f, 350.0f);
        const float cos_half = cosf(fov * (3.14159265f / 360.0f));
        const float vx = prng_range(&rng, -1.0f, 1.0f), vy = prng_range(&rng, -1.0f, 1.0f);
        lanes_f dx, dy;
        for (int k = 0; k < SENSE_LANES; k++) dx[k] = prng_range(&rng, -50.0f, 50.0f), dy[k] = prng_range(&rng, -50.0f, 50.0f);
        const lanes_f dot = vx * dx + vy * dy, d2 = dx * dx + dy * dy;
        const lanes_i in_view = lanes_in_view(dot, d2, cos_half * cos_half * (vx * vx + vy * vy), cos_half < 0.0f);
        for (int k = 0; k < SENSE_LANES; k++) {
            double angle = fabs(remainder(atan2((double)dy[k], (double)dx[k]) - atan2((double)vy, (double)vx), 2.0 * PI));
            double half = fov * PI / 360.0;
            if (fabs(angle - half) < 1e-3) continue; /* on the edge: either answer is right */
            assert_int_equal(in_view[k] != 0, angle < half);
            *(angle < half ? &visible : &hidden) += 1;
        }
    }
    assert_true(visible > 1000 && hidden > 1000);
}


#ifdef SENSE_HAS_AVX512
static SENSE_AVX512_TARGET uint32_t sense_avx512_with(const span_t *s, const sense_params_t *sp,
                                                       const sense_self_t *me, sense_mode_t mode, sense_acc_t *acc)
{
    return sense_span_avx512(acc, s->x, s->y, s->vx, s->vy, SPAN, 500.0f, 500.0f, me, sp, mode);
}
#endif

/* The mask-register loop (neighbours_avx512.h) leaves every lane of every
 * sum with the portable loop's bits, and its count and finish give the
 * portable finish's quads: velocities of −0 and 0 among the candidates,
 * an agent standing still, contact on and off, each view. */
static void the_avx512_loop_should_leave_every_lane_as_the_portable_one_does(void **state)
{
    (void)state;
#ifdef SENSE_HAS_AVX512
    if (!sense_avx512_usable()) skip();
    prng_t rng;
    prng_seed(&rng, 12, 0);
    const view_case_t *cases = VIEW_CASES;
    for (int trial = 0; trial < 400; trial++) {
        span_t s;
        fill_span(&s, &rng);
        s.vx[3] = -0.0f, s.vy[3] = 0.0f, s.x[5] = s.x[17], s.y[5] = s.y[17]; /* a −0 velocity, a body on the agent */
        const bool still = trial % 7 == 0;
        const float vx = still ? 0.0f : prng_range(&rng, -150.0f, 150.0f), vy = still ? 0.0f : prng_range(&rng, -150.0f, 150.0f);
        for (size_t c = 0; c < N_VIEW_CASES; c++) {
            sense_params_t sp = params_with_view(cases[c].fov);
            if (trial % 2) sp.contact2 = 14.0f * 14.0f, sp.inv_contact2 = 1.0f / sp.contact2;
            const sense_self_t me = sense_self(&sp, vx, vy, 0.0f, 0.0f);
            const sense_mode_t mode = me.sees_everything ? SENSE_SEES_ALL : cases[c].fast;
            sense_acc_t sums[2]; /* portable, masked */
            memset(sums, 0, sizeof sums);
            sense_span(&sums[0], s.x, s.y, s.vx, s.vy, NULL, SPAN, 500.0f, 500.0f, &me, &sp, mode);
            const uint32_t counted = sense_avx512_with(&s, &sp, &me, mode, &sums[1]);
            const sense_quads_t want = sense_finish(&sums[0], false), got = sense_finish_counted(&sums[1], counted);
            assert_true(want.q[1][2] > 0.0f);
            assert_memory_equal(&want, &got, sizeof want);
            sums[1].minus_n = sums[0].minus_n; /* counted apart */
            assert_memory_equal(&sums[0], &sums[1], sizeof sums[0]);
        }
    }
#else
    skip(); /* no AVX-512 build of the kernels */
#endif
}

/* The step senses a cell with delayed positions unwrapped when no
 * displacement in it is longer than half the world (kernel.c,
 * short_displacements): the wrap pair by pair must then change no bit.
 * Candidates up to just under half the world away on either side, every
 * field of view, the species test and the counts of the generic loop;
 * and a displacement over half the world does change the sums (so
 * the comparison can fail). */
static void sensing_should_not_change_when_no_displacement_needs_wrapping(void **state)
{
    (void)state;
    const float fovs[] = {360.0f, 300.0f, 120.0f};
    prng_t rng;
    prng_seed(&rng, 8, 19);
    for (int f = 0; f < 3; f++)
        for (int round = 0; round < 200; round++) {
            span_t s;
            fill_span(&s, &rng);
            for (int k = 0; k < SPAN; k += 7) /* far ones, up to half the world away each way */
                s.x[k] = 500.0f + prng_range(&rng, -500.0f, 500.0f), s.y[k] = 500.0f + prng_range(&rng, -500.0f, 500.0f);
            for (int k = 0; k < SPAN; k++) s.species[k] = (float)(k % 3);
            sense_params_t sp = params_with_view(fovs[f]);
            sp.count_ahead = sp.count_zones = true;
            const float vx = prng_range(&rng, -100.0f, 100.0f), vy = prng_range(&rng, -100.0f, 100.0f);
            sense_self_t me = sense_self(&sp, vx, vy, 0.0f, 0.0f);
            me.species = (float)(round % 3);
            me.self = 17;
            sense_quads_t q[2];
            for (int wrap = 0; wrap < 2; wrap++) {
                sp.pair_wrap = wrap;
                sense_acc_t acc;
                memset(&acc, 0, sizeof acc);
                sense_span(&acc, s.x, s.y, s.vx, s.vy, s.species, SPAN, 500.0f, 500.0f, &me, &sp, SENSE_GENERIC);
                q[wrap] = sense_finish(&acc, true);
            }
            assert_memory_equal(&q[0], &q[1], sizeof q[0]);
        }
    span_t s; /* one neighbour over half the world away: near the other way round */
    fill_span(&s, &rng);
    s.x[3] = 500.0f + 990.0f, s.y[3] = 500.0f; /* 10 u away round the torus */
    sense_params_t sp = params_with_view(360.0f);
    sense_quads_t q[2];
    for (int wrap = 0; wrap < 2; wrap++) {
        sp.pair_wrap = wrap;
        q[wrap] = sense_with(&s, &sp, 10.0f, 0.0f, SENSE_GENERIC);
    }
    assert_true(memcmp(&q[0], &q[1], sizeof q[0]) != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_of_the_sensing_loop_should_give_the_same_bits),
        cmocka_unit_test(the_avx512_loop_should_leave_every_lane_as_the_portable_one_does),
        cmocka_unit_test(sensing_should_sum_each_zone_over_the_visible_neighbours_in_it),
        cmocka_unit_test(the_potential_should_sum_each_pairs_force_within_the_separation_radius),
        cmocka_unit_test(the_contact_sum_should_count_every_body_inside_personal_space),
        cmocka_unit_test(the_view_test_should_agree_with_the_angle_between_heading_and_neighbour),
        cmocka_unit_test(sensing_should_not_change_when_no_displacement_needs_wrapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
