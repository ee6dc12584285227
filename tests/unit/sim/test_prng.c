#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/prng.h"

static void prng_should_repeat_the_same_sequence_for_the_same_seed(void **state)
{
    (void)state;
    prng_t a, b;
    prng_seed(&a, 42, 1);
    prng_seed(&b, 42, 1);
    for (int i = 0; i < 1000; i++) assert_int_equal(prng_u32(&a), prng_u32(&b));
}

static void prng_should_give_different_sequences_for_different_seeds_and_streams(void **state)
{
    (void)state;
    prng_t a, b, c;
    prng_seed(&a, 42, 1);
    prng_seed(&b, 43, 1);
    prng_seed(&c, 42, 2);
    int same_seed = 0, same_stream = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t x = prng_u32(&a);
        same_seed += x == prng_u32(&b);
        same_stream += x == prng_u32(&c);
    }
    assert_true(same_seed < 3);
    assert_true(same_stream < 3);
}

static void prng_unit_should_stay_in_zero_one_and_average_one_half(void **state)
{
    (void)state;
    prng_t r;
    prng_seed(&r, 7, 1);
    double sum = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        float u = prng_unit(&r);
        assert_true(u >= 0.0f && u < 1.0f);
        sum += u;
    }
    /* Standard error of the mean is 0.29/sqrt(n) ≈ 0.0009. */
    assert_float_equal(sum / n, 0.5, 0.005);
}

static void prng_range_should_stay_inside_its_bounds(void **state)
{
    (void)state;
    prng_t r;
    prng_seed(&r, 9, 3);
    float lo = 1e9f, hi = -1e9f;
    for (int i = 0; i < 10000; i++) {
        float v = prng_range(&r, -3.0f, 5.0f);
        assert_true(v >= -3.0f && v < 5.0f);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    assert_true(lo < -2.9f && hi > 4.9f); /* and it covers the range */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prng_should_repeat_the_same_sequence_for_the_same_seed),
        cmocka_unit_test(prng_should_give_different_sequences_for_different_seeds_and_streams),
        cmocka_unit_test(prng_unit_should_stay_in_zero_one_and_average_one_half),
        cmocka_unit_test(prng_range_should_stay_inside_its_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
