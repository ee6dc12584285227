/* Olfati-Saber's bump function without libm (sim/bump.h): within its
 * stated error of the exact ½(1 + cos(π(u − h)/(1 − h))) over the whole
 * domain, exactly 1 below h and 0 from 1 on, and the lane version the
 * same bits as the scalar one. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/bump.h"

/* The exact bump, in double precision. */
static double exact_bump(double u, double h)
{
    if (u < h) return u >= 0.0 ? 1.0 : 0.0;
    if (u >= 1.0) return 0.0;
    return 0.5 * (1.0 + cos(3.14159265358979323846 * (u - h) / (1.0 - h)));
}

static void the_polynomial_cosine_should_stay_within_its_bound_over_the_whole_domain(void **state)
{
    (void)state;
    /* Every float s in [0, 1] a step of 2⁻²² apart, and both ends. */
    double worst = 0.0;
    float worst_s = 0.0f;
    for (uint32_t k = 0; k <= (1u << 22); k++) {
        const float s = (float)k / (float)(1u << 22);
        const lanes_f v = bump_cos_lanes((lanes_f){0} + s);
        const double err = fabs((double)v[0] - 0.5 * (1.0 + cos(3.14159265358979323846 * (double)s)));
        if (err > worst) worst = err, worst_s = s;
    }
    print_message("bump: largest error %.3g at s = %.7f (bound %.3g)\n", worst, (double)worst_s, (double)BUMP_MAX_ERROR);
    assert_true(worst <= (double)BUMP_MAX_ERROR);
}

static void the_bump_should_be_one_below_h_zero_from_one_and_close_to_the_exact_one_between(void **state)
{
    (void)state;
    const float hs[] = {0.0f, 0.2f, 0.5f, 0.9f, 0.99f};
    for (size_t j = 0; j < sizeof hs / sizeof hs[0]; j++) {
        const float h = hs[j], inv_span = 1.0f / (1.0f - h);
        for (int k = -100; k <= 1200; k++) {
            const float u = (float)k / 1000.0f;
            const float b = bump_of(u, h, inv_span);
            if (u < 0.0f || u >= 1.0f) {
                assert_true(b == 0.0f);
            } else if (u < h) {
                assert_true(b == 1.0f);
            } else {
                /* (u − h)·inv_span rounds: allow the slope times one ulp of s. */
                const double slope = 3.14159265358979323846 / 2.0 * (double)inv_span;
                assert_true(fabs((double)b - exact_bump(u, h)) <= (double)BUMP_MAX_ERROR + slope * 2.4e-7);
            }
        }
    }
}

static void the_lanes_should_give_the_scalar_bits(void **state)
{
    (void)state;
    const float h = 0.2f, inv_span = 1.0f / (1.0f - h);
    for (int k = 0; k < 1000; k += 8) {
        lanes_f u;
        for (int l = 0; l < LANES; l++) u[l] = (float)(k + l) / 900.0f - 0.05f;
        const lanes_f b = bump_lanes(u, h, inv_span);
        for (int l = 0; l < LANES; l++) assert_memory_equal(&b[l], &(float){bump_of(u[l], h, inv_span)}, sizeof(float));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_polynomial_cosine_should_stay_within_its_bound_over_the_whole_domain),
        cmocka_unit_test(the_bump_should_be_one_below_h_zero_from_one_and_close_to_the_exact_one_between),
        cmocka_unit_test(the_lanes_should_give_the_scalar_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
