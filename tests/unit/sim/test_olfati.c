/* Olfati-Saber's pair sums (olfati_sense): within their stated bound of
 * the same sums worked out in double precision with libm's square root,
 * cosine and division, for spans of every length, with and without
 * several species, the agent's own entry and per-pair wrapping, at the
 * default parameters and at the ends of their ranges. The kernel works the
 * bump out as a polynomial (bump.h), the σ-norm and the bump's argument
 * from one square root with folded constants, and sums in a fixed order:
 * this is the bound those choices keep. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sim/models.h"
#include "sim/params.h"
#include "sim/prng.h"

#define MAX_SPAN 256
#define PI 3.14159265358979323846

/* The exact sums, in double, of the pairs the kernel takes in range (the
 * same float displacements and the same range test), and the sums of the
 * terms' sizes, which the bound is relative to. */
typedef struct reference {
    double grad_x, grad_y, cons_x, cons_y;
    double grad_size, cons_size;
    int neighbours;
} reference_t;

static double exact_bump(double u, double h)
{
    if (u < h) return u >= 0.0 ? 1.0 : 0.0;
    if (u >= 1.0) return 0.0;
    return 0.5 * (1.0 + cos(PI * (u - h) / (1.0 - h)));
}

static double sigma_norm(double z2, double eps) { return (sqrt(1.0 + eps * z2) - 1.0) / eps; }

static float wrap_delta(float d, float extent)
{
    if (d > 0.5f * extent) return d - extent;
    if (d < -0.5f * extent) return d + extent;
    return d;
}

static reference_t reference(const sim_params_t *p, const float *X, const float *Y, const float *VX, const float *VY,
                             const float *S, float species, int32_t count, int32_t self, float px, float py, float vx,
                             float vy, bool pair_wrap, float width, float height)
{
    const double eps = p->os_eps, a = p->os_a, b = p->os_b, h = p->os_h_alpha;
    const double r_alpha = sigma_norm((double)p->os_r * p->os_r, eps), d_alpha = sigma_norm((double)p->os_d * p->os_d, eps);
    const double c = fabs(a - b) / sqrt(4.0 * a * b);
    const float r2 = p->os_r * p->os_r;
    reference_t ref = {0};
    for (int32_t j = 0; j < count; j++) {
        float dx = X[j] - px, dy = Y[j] - py;
        if (pair_wrap) dx = wrap_delta(dx, width), dy = wrap_delta(dy, height);
        const float d2 = dx * dx + dy * dy;
        const bool in = d2 < r2 && (self >= 0 ? j != self : d2 > 0.0f);
        if (!in) continue;
        const bool own = !S || S[j] == species;
        const double root = sqrt(1.0 + eps * d2), z = (root - 1.0) / eps;
        const double s = z - d_alpha + c, phi = 0.5 * ((a + b) * s / sqrt(1.0 + s * s) + (a - b));
        const double rho = exact_bump(z / r_alpha, h);
        const double g = rho * (own || phi < 0.0 ? phi : 0.0) / root;
        ref.grad_x += g * dx, ref.grad_y += g * dy;
        /* a term's size: what an error of φ or ρ of its own order moves it by */
        ref.grad_size += fmax(a, b) * sqrt((double)d2) / root;
        if (!own) continue;
        ref.cons_x += rho * ((double)VX[j] - vx), ref.cons_y += rho * ((double)VY[j] - vy);
        ref.cons_size += fabs((double)VX[j] - vx) + fabs((double)VY[j] - vy);
        ref.neighbours++;
    }
    return ref;
}

/* The largest error found, relative to the terms' sizes. */
typedef struct worst {
    double grad, cons;
} worst_t;

/* One random span of `count` candidates around the agent (some beyond
 * reach), padded as the kernel's spans are: LANES entries far away, then
 * LANES of anything. */
static void check_span(const sim_params_t *p, uint64_t seed, int32_t count, bool species, bool self, bool pair_wrap,
                       worst_t *worst)
{
    static float X[MAX_SPAN + 2 * LANES], Y[MAX_SPAN + 2 * LANES], VX[MAX_SPAN + 2 * LANES], VY[MAX_SPAN + 2 * LANES],
        S[MAX_SPAN + 2 * LANES];
    const float width = pair_wrap ? 3.0f * p->os_r : 1600.0f, height = pair_wrap ? 2.5f * p->os_r : 900.0f;
    const float px = pair_wrap ? 0.3f * p->os_r : 800.0f, py = pair_wrap ? 2.2f * p->os_r : 450.0f;
    const float vx = 40.0f, vy = -25.0f;
    for (int32_t j = 0; j < count + 2 * LANES; j++) {
        const float reach = 1.3f * p->os_r * (float)prng_hash_unit(seed, 0, (uint32_t)j, 0);
        const float angle = 6.2831853f * (float)prng_hash_unit(seed, 1, (uint32_t)j, 0);
        X[j] = px + reach * cosf(angle), Y[j] = py + reach * sinf(angle);
        if (pair_wrap) X[j] = fmodf(X[j] + width, width), Y[j] = fmodf(Y[j] + height, height);
        VX[j] = 300.0f * (float)prng_hash_unit(seed, 2, (uint32_t)j, 0) - 150.0f;
        VY[j] = 300.0f * (float)prng_hash_unit(seed, 3, (uint32_t)j, 0) - 150.0f;
        S[j] = (float)(prng_hash_unit(seed, 4, (uint32_t)j, 0) < 0.5);
    }
    const int32_t me = self ? count / 2 : -1;
    if (count > 0 && !self) X[count / 3] = px, Y[count / 3] = py; /* the agent itself, at distance 0 */
    for (int32_t j = count; j < count + LANES; j++) X[j] = Y[j] = 1e30f;
    const olfati_consts_t k = olfati_consts(p);
    olfati_sums_t sums = {0};
    olfati_sense(&k, X, Y, VX, VY, species ? S : NULL, 1.0f, count, me, px, py, vx, vy, pair_wrap, width, height, &sums);
    const reference_t ref =
        reference(p, X, Y, VX, VY, species ? S : NULL, 1.0f, count, me, px, py, vx, vy, pair_wrap, width, height);
    assert_int_equal(sums.neighbours, ref.neighbours);
    const double grad = fmax(fabs(sums.grad_x - ref.grad_x), fabs(sums.grad_y - ref.grad_y));
    const double cons = fmax(fabs(sums.cons_x - ref.cons_x), fabs(sums.cons_y - ref.cons_y));
    if (ref.grad_size > 0.0) worst->grad = fmax(worst->grad, grad / ref.grad_size);
    if (ref.cons_size > 0.0) worst->cons = fmax(worst->cons, cons / ref.cons_size);
    if (ref.grad_size == 0.0) assert_true(sums.grad_x == 0.0f && sums.grad_y == 0.0f);
}

static void set(sim_params_t *p, float eps, float a, float b, float h, float d, float r)
{
    params_defaults(p);
    p->os_eps = eps, p->os_a = a, p->os_b = b, p->os_h_alpha = h, p->os_d = d, p->os_r = r;
}

static void the_pair_sums_should_stay_within_their_bound_of_the_exact_ones(void **state)
{
    (void)state;
    sim_params_t sets[6];
    params_defaults(&sets[0]);                           /* ε 0.1, a = b = 5, h 0.2, d 25, r 30 */
    set(&sets[1], 0.001f, 0.01f, 100.0f, 0.0f, 25.0f, 30.0f); /* the ends of the ranges */
    set(&sets[2], 1.0f, 100.0f, 0.5f, 0.99f, 200.0f, 240.0f);
    set(&sets[3], 0.1f, 2.0f, 8.0f, 0.5f, 5.0f, 6.0f);
    set(&sets[4], 0.3f, 5.0f, 5.0f, 0.9f, 1.0f, 1.2f);
    set(&sets[5], 0.01f, 1.0f, 3.0f, 0.2f, 60.0f, 90.0f);
    worst_t worst = {0};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        for (int32_t count = 0; count <= MAX_SPAN; count += (count < 40 ? 1 : 23))
            for (int variant = 0; variant < 8; variant++)
                check_span(&sets[s], 1000 * s + (uint64_t)count, count, variant & 1, variant & 2, variant & 4, &worst);
    print_message("olfati pairs: largest error %.3g (gradient), %.3g (consensus), bound %.3g\n", worst.grad, worst.cons,
                  OLFATI_PAIR_ERROR);
    assert_true(worst.grad <= OLFATI_PAIR_ERROR);
    assert_true(worst.cons <= OLFATI_PAIR_ERROR);
}

/* The common loop tests 0 < ‖d‖² < r² as one comparison of the bits
 * (olfati_consts' r2_open_bound): the very spot (0, and −0), r exactly
 * and a hair beyond are out; a hair inside r and a subnormal ‖d‖² are in. */
static void the_range_should_be_the_open_interval_of_the_distance_squared(void **state)
{
    (void)state;
    const float xs[] = {0.0f, -0.0f, 30.0f, nextafterf(30.0f, 0.0f), 1e-20f, nextafterf(30.0f, 31.0f), 15.0f, -29.0f};
    const int in_range = 4; /* a hair inside r, 1e-20 (‖d‖² 1e-40), 15 and −29 */
    float X[8 + 2 * LANES], Y[8 + 2 * LANES], VX[8 + 2 * LANES], VY[8 + 2 * LANES];
    for (int j = 0; j < 8 + 2 * LANES; j++) {
        X[j] = j < 8 ? xs[j] : 1e30f, Y[j] = 0.0f;
        VX[j] = 1.0f + (float)j, VY[j] = -2.0f;
    }
    for (int unequal = 0; unequal < 2; unequal++) { /* a = b, and a < b: both common loops */
        sim_params_t p;
        params_defaults(&p); /* r = 30: r² = 900 exactly */
        if (unequal) p.os_a = 2.0f;
        const olfati_consts_t k = olfati_consts(&p);
        olfati_sums_t sums = {0};
        olfati_sense(&k, X, Y, VX, VY, NULL, 0.0f, 8, -1, 0.0f, 0.0f, 0.0f, 0.0f, false, 100.0f, 100.0f, &sums);
        assert_int_equal(sums.neighbours, in_range);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_pair_sums_should_stay_within_their_bound_of_the_exact_ones),
        cmocka_unit_test(the_range_should_be_the_open_interval_of_the_distance_squared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
