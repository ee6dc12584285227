/* atan2 and sin/cos without libm (sim/angles.h): within their stated
 * error of libm's double functions over the whole domain the heading
 * rules use, with atan2's quadrants and axes right, and the lane versions
 * the scalar ones' bits. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/angles.h"

static void atan2_should_stay_within_its_bound_all_round(void **state)
{
    (void)state;
    /* Points on circles of several radii, every 2π/2²⁰, and both axes. */
    const float radii[] = {1e-6f, 0.5f, 1.0f, 120.0f, 3e5f};
    double worst = 0.0;
    for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++)
        for (uint32_t k = 0; k < (1u << 20); k++) {
            const double a = -ANGLES_PI + 2.0 * ANGLES_PI * (double)k / (double)(1u << 20);
            const float x = radii[r] * (float)cos(a), y = radii[r] * (float)sin(a);
            const double err = fabs((double)angle_atan2(y, x) - atan2((double)y, (double)x));
            if (err > worst) worst = err;
        }
    print_message("atan2: largest error %.3g (bound %.3g)\n", worst, ANGLES_MAX_ERROR);
    assert_true(worst <= ANGLES_MAX_ERROR);
    assert_true(angle_atan2(0.0f, 1.0f) == 0.0f);
    assert_true(angle_atan2(0.0f, 0.0f) == 0.0f);
    assert_true(fabs(angle_atan2(1.0f, 0.0f) - ANGLES_PI / 2) <= ANGLES_MAX_ERROR);
    assert_true(fabs(angle_atan2(-1.0f, 0.0f) + ANGLES_PI / 2) <= ANGLES_MAX_ERROR);
    assert_true(fabs(angle_atan2(0.0f, -1.0f) - ANGLES_PI) <= ANGLES_MAX_ERROR);
}

static void sincos_should_stay_within_its_bound_over_many_turns(void **state)
{
    (void)state;
    double worst = 0.0;
    /* Every float in [−8π, 8π] a step of 2⁻¹⁷ apart: four turns each way
     * (a heading plus a turn, a desired angle plus noise, stay well inside). */
    for (int32_t k = -(int32_t)(8 * 3.1416 * 131072); k <= (int32_t)(8 * 3.1416 * 131072); k++) {
        const float a = (float)k / 131072.0f;
        float s, c;
        angle_sincos(a, &s, &c);
        const double es = fabs((double)s - sin((double)a)), ec = fabs((double)c - cos((double)a));
        if (es > worst) worst = es;
        if (ec > worst) worst = ec;
    }
    print_message("sincos: largest error %.3g (bound %.3g)\n", worst, ANGLES_MAX_ERROR);
    assert_true(worst <= ANGLES_MAX_ERROR);
}

static void the_lanes_should_give_the_scalar_bits(void **state)
{
    (void)state;
    /* Every direction and angle the other tests sweep, coarser, plus the
     * axes, zero and a few far turns. */
    for (int32_t k = -(1 << 16); k < (1 << 16); k += LANES) {
        lanes_f x, y, a;
        for (int l = 0; l < LANES; l++) {
            const double t = ANGLES_PI * (double)(k + l) / (double)(1 << 15);
            x[l] = (k + l) % 97 == 0 ? 0.0f : 3.0f * (float)cos(t);
            y[l] = (k + l) % 89 == 0 ? 0.0f : 3.0f * (float)sin(t);
            a[l] = (float)(4.0 * t);
        }
        const lanes_f at = angle_atan2_lanes(y, x);
        lanes_f s, c;
        angle_sincos_lanes(a, &s, &c);
        for (int l = 0; l < LANES; l++) {
            float s1, c1;
            angle_sincos(a[l], &s1, &c1);
            assert_memory_equal(&at[l], &(float){angle_atan2(y[l], x[l])}, sizeof(float));
            assert_memory_equal(&s[l], &s1, sizeof(float));
            assert_memory_equal(&c[l], &c1, sizeof(float));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(atan2_should_stay_within_its_bound_all_round),
        cmocka_unit_test(sincos_should_stay_within_its_bound_over_many_turns),
        cmocka_unit_test(the_lanes_should_give_the_scalar_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
