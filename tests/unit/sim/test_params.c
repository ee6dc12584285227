#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sim/params.h"

static void registry_should_have_unique_names_and_defaults_inside_their_ranges(void **state)
{
    (void)state;
    assert_true(params_count() >= 14);
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        assert_non_null(d->name);
        assert_non_null(d->help);
        assert_true(d->min <= d->def && d->def <= d->max);
        assert_int_equal(params_find(d->name), (int)i);
        for (size_t j = i + 1; j < params_count(); j++) assert_string_not_equal(d->name, params_desc(j)->name);
    }
    assert_null(params_desc(params_count()));
}

static void defaults_should_be_the_registry_defaults(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    for (size_t i = 0; i < params_count(); i++) assert_float_equal(params_get(&p, i), params_desc(i)->def, 1e-6);
    assert_float_equal(p.sep_radius, 25.0f, 0);
    assert_int_equal(p.border, BORDER_WRAP);
}

static void set_should_store_a_value_inside_the_range(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    char msg[160];
    int i = params_find("max_speed");
    assert_int_equal(params_set(&p, (size_t)i, 200, msg, sizeof msg), SIM_OK);
    assert_float_equal(p.max_speed, 200.0f, 0);
}

static void set_should_refuse_values_outside_the_range_and_change_nothing(void **state)
{
    (void)state;
    sim_params_t p, before;
    params_defaults(&p);
    before = p;
    char msg[160];
    int i = params_find("sep_radius");
    assert_int_equal(params_set(&p, (size_t)i, 500, msg, sizeof msg), SIM_E_OUT_OF_RANGE);
    assert_non_null(strstr(msg, "sep_radius"));
    assert_non_null(strstr(msg, "200"));
    assert_int_equal(params_set(&p, (size_t)i, 0.5, msg, sizeof msg), SIM_E_OUT_OF_RANGE);
    assert_int_equal(params_set(&p, (size_t)i, NAN, msg, sizeof msg), SIM_E_BAD_TYPE);
    assert_int_equal(params_set(&p, (size_t)i, INFINITY, msg, sizeof msg), SIM_E_BAD_TYPE);
    assert_memory_equal(&p, &before, sizeof p);
}

static void enum_should_take_whole_indices_and_names(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    char msg[160];
    int i = params_find("border");
    const param_desc_t *d = params_desc((size_t)i);
    assert_int_equal(d->type, PARAM_ENUM);
    assert_int_equal(params_enum_index(d, "bounce"), BORDER_BOUNCE);
    assert_int_equal(params_enum_index(d, "sideways"), -1);
    assert_int_equal(params_set(&p, (size_t)i, 0.5, msg, sizeof msg), SIM_E_BAD_TYPE);
    assert_int_equal(params_set(&p, (size_t)i, 3, msg, sizeof msg), SIM_E_OUT_OF_RANGE);
    assert_int_equal(params_set(&p, (size_t)i, BORDER_BOUNCE, msg, sizeof msg), SIM_OK);
    assert_int_equal(p.border, BORDER_BOUNCE);
}

static void get_should_give_the_shortest_decimal_of_the_stored_float(void **state)
{
    (void)state;
    sim_params_t p;
    params_defaults(&p);
    char msg[160];
    int i = params_find("w_ali");
    assert_int_equal(params_set(&p, (size_t)i, 0.1, msg, sizeof msg), SIM_OK);
    assert_true(params_get(&p, (size_t)i) == 0.1); /* not 0.100000001490116 */
    assert_int_equal(params_set(&p, (size_t)i, 1.0 / 3.0, msg, sizeof msg), SIM_OK);
    assert_true((float)params_get(&p, (size_t)i) == p.w_ali);
}

static void find_should_return_minus_one_for_unknown_names(void **state)
{
    (void)state;
    assert_int_equal(params_find("no_such_param"), -1);
    assert_int_equal(params_find(""), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_should_have_unique_names_and_defaults_inside_their_ranges),
        cmocka_unit_test(defaults_should_be_the_registry_defaults),
        cmocka_unit_test(set_should_store_a_value_inside_the_range),
        cmocka_unit_test(set_should_refuse_values_outside_the_range_and_change_nothing),
        cmocka_unit_test(enum_should_take_whole_indices_and_names),
        cmocka_unit_test(get_should_give_the_shortest_decimal_of_the_stored_float),
        cmocka_unit_test(find_should_return_minus_one_for_unknown_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
