/* metrics_past: the metrics of a tick of the past are the newest row at or
 * before it; the ring keeps the newest max_rows; a paused world's repeats
 * replace the row of their tick; a reset starts the past again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "timeline/metrics_past.h"

static metrics_t at(uint64_t tick, double polarization)
{
    return (metrics_t){.tick = tick, .agents = 10, .polarization = polarization};
}

static void newest_at_or_before(void **state)
{
    (void)state;
    metrics_past_t *p = metrics_past_create(100);
    assert_non_null(p);
    metrics_t m;
    assert_false(metrics_past_at(p, 50, &m));
    for (uint64_t t = 15; t <= 150; t += 15) {
        metrics_t row = at(t, (double)t / 1000.0);
        metrics_past_add(p, &row);
    }
    assert_false(metrics_past_at(p, 14, &m)); /* before the first row: none */
    assert_true(metrics_past_at(p, 15, &m));
    assert_int_equal(m.tick, 15);
    assert_true(metrics_past_at(p, 59, &m));
    assert_int_equal(m.tick, 45);
    assert_float_equal(m.polarization, 0.045, 1e-12);
    assert_true(metrics_past_at(p, 1000, &m));
    assert_int_equal(m.tick, 150);
    metrics_past_destroy(p);
}

static void ring_keeps_the_newest(void **state)
{
    (void)state;
    metrics_past_t *p = metrics_past_create(4);
    for (uint64_t t = 1; t <= 10; t++) {
        metrics_t row = at(t * 10, 0);
        metrics_past_add(p, &row);
    }
    assert_int_equal(metrics_past_rows(p), 4);
    metrics_t m;
    assert_false(metrics_past_at(p, 69, &m)); /* 10 … 60 went first */
    assert_true(metrics_past_at(p, 75, &m));
    assert_int_equal(m.tick, 70);
    assert_true(metrics_past_at(p, 100, &m));
    assert_int_equal(m.tick, 100);
    metrics_past_destroy(p);
}

static void paused_repeats_and_resets(void **state)
{
    (void)state;
    metrics_past_t *p = metrics_past_create(8);
    metrics_t a = at(100, 0.1), again = at(100, 0.7), later = at(115, 0.2);
    metrics_past_add(p, &a);
    metrics_past_add(p, &again); /* paused at 100: one row, the newest word */
    metrics_past_add(p, &later);
    assert_int_equal(metrics_past_rows(p), 2);
    metrics_t m;
    assert_true(metrics_past_at(p, 110, &m));
    assert_float_equal(m.polarization, 0.7, 1e-12);
    metrics_t reset = at(0, 0.9);
    metrics_past_add(p, &reset); /* the ticks went back */
    assert_int_equal(metrics_past_rows(p), 1);
    assert_true(metrics_past_at(p, 110, &m));
    assert_int_equal(m.tick, 0);
    assert_null(metrics_past_create(0));
    metrics_past_destroy(NULL);
    metrics_past_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(newest_at_or_before),
        cmocka_unit_test(ring_keeps_the_newest),
        cmocka_unit_test(paused_repeats_and_resets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
