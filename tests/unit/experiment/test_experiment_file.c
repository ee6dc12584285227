/* Unit tests of the experiment file's reader
 * (server/src/experiment/experiment_file.c): the fields come out as written,
 * first/step/last spells out exact values, a swept factor's path is ordered,
 * and every kind of bad file is refused with a message naming its field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/experiment_file.h"
#include "sim/params.h"

static void load_ok(const char *text, experiment_t *e)
{
    char msg[400] = "";
    int rc = experiment_load_text(text, ".", e, msg, sizeof msg);
    if (rc) fail_msg("refused: %s (%s)", msg, text);
}

static void every_field(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"scenario\": {\"agents\": 300, \"model\": \"olfati1\"},"
            " \"factors\": [{\"param\": \"delay_ticks\", \"values\": [0, 4, 8]},"
            "              {\"param\": \"border\", \"values\": [\"bounce\", \"wrap\"]},"
            "              {\"param\": \"agents\", \"values\": [100, 200]}],"
            " \"design\": \"factorial\", \"replicates\": 5, \"master_seed\": 42,"
            " \"steps\": 3000, \"warmup\": 600, \"record_every\": 100,"
            " \"metrics\": [\"polarization\", \"clusters\"],"
            " \"stop\": {\"metric\": \"polarization\", \"above\": 0.95}}",
            &e);
    assert_int_equal(e.n_factors, 3);
    assert_string_equal(e.factors[0].name, "delay_ticks");
    assert_int_equal(e.factors[0].param, params_find("delay_ticks"));
    assert_int_equal(e.factors[0].n_values, 3);
    assert_true(e.factors[0].values[2] == 8);
    assert_true(e.factors[1].values[0] == BORDER_BOUNCE && e.factors[1].values[1] == BORDER_WRAP);
    assert_int_equal(e.factors[2].param, EXPERIMENT_FACTOR_AGENTS);
    assert_int_equal(e.design, DESIGN_FACTORIAL);
    assert_int_equal(e.replicates, 5);
    assert_int_equal(e.master_seed, 42);
    assert_int_equal(e.steps, 3000);
    assert_int_equal(e.warmup, 600);
    assert_int_equal(e.record_every, 100);
    assert_true(e.metrics[METRIC_POLARIZATION] && e.metrics[METRIC_CLUSTERS] && !e.metrics[METRIC_MILLING]);
    assert_true(e.has_stop && e.stop_metric == METRIC_POLARIZATION && e.stop_above && e.stop_value == 0.95);
    assert_int_equal(e.swept, -1);
    assert_non_null(strstr(e.scenario_json, "\"olfati1\""));
    experiment_free(&e);
}

static void defaults(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"steps\": 10}", &e);
    assert_int_equal(e.n_factors, 0);
    assert_int_equal(e.replicates, 1);
    assert_int_equal(e.record_every, 0); /* only the end */
    for (int m = 0; m < METRIC_COUNT; m++) assert_true(e.metrics[m]);
    assert_false(e.has_stop);
    experiment_free(&e);
    /* steps may come from the scenario */
    load_ok("{\"scenario\": {\"steps\": 77}}", &e);
    assert_int_equal(e.steps, 77);
    experiment_free(&e);
}

static void first_step_last_is_exact(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"first\": 0, \"step\": 0.1, \"last\": 1}], \"steps\": 1}", &e);
    assert_int_equal(e.factors[0].n_values, 11);
    /* the decimals a person means, not k × 0.1 in binary (0.30000000000000004) */
    static const char *const written[] = {"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"};
    for (size_t k = 0; k < 11; k++) {
        char text[64];
        factor_value_format(&e.factors[0], e.factors[0].values[k], text, sizeof text);
        assert_string_equal(text, written[k]);
    }
    experiment_free(&e);
    load_ok("{\"factors\": [{\"param\": \"delay_ticks\", \"first\": 12, \"step\": -4, \"last\": 0}], \"steps\": 1}", &e);
    assert_int_equal(e.factors[0].n_values, 4);
    assert_true(e.factors[0].values[3] == 0);
    experiment_free(&e);
}

static void sweep_paths(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [2, 1, 3], \"sweep\": \"up_down\"}], \"steps\": 1}", &e);
    assert_int_equal(e.swept, 0);
    double up_down[] = {1, 2, 3, 2, 1};
    assert_int_equal(e.factors[0].n_values, 5);
    for (size_t k = 0; k < 5; k++) assert_true(e.factors[0].values[k] == up_down[k]);
    experiment_free(&e);
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [2, 1, 3], \"sweep\": \"down\"}], \"steps\": 1}", &e);
    assert_true(e.factors[0].values[0] == 3 && e.factors[0].values[2] == 1);
    experiment_free(&e);
}

static void scenario_from_a_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/swarmcast-exp-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/base.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"agents\": 123, \"steps\": 9}", f);
    fclose(f);
    experiment_t e;
    char msg[400];
    assert_int_equal(experiment_load_text("{\"scenario\": \"base.json\"}", dir, &e, msg, sizeof msg), EXPERIMENT_OK);
    assert_non_null(strstr(e.scenario_json, "123"));
    assert_int_equal(e.steps, 9);
    experiment_free(&e);
    unlink(path);
    rmdir(dir);
}

/* Each bad file is refused, and its message names the field. */
static void bad_files_name_the_field(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"[1]", "JSON object"},
        {"{\"steps\": 1,", "not valid JSON"},
        {"{\"stepz\": 1}", "unknown field 'stepz'"},
        {"{}", "steps: missing"},
        {"{\"steps\": 0}", "steps:"},
        {"{\"steps\": 1.5}", "steps:"},
        {"{\"steps\": 10, \"warmup\": 10}", "warmup:"},
        {"{\"steps\": 1, \"replicates\": 0}", "replicates:"},
        {"{\"steps\": 1, \"master_seed\": -1}", "master_seed:"},
        {"{\"steps\": 1, \"record_every\": \"often\"}", "record_every:"},
        {"{\"steps\": 1, \"metrics\": [\"polarisation\"]}", "metrics[0]: unknown metric polarisation"},
        {"{\"steps\": 1, \"metrics\": []}", "metrics:"},
        {"{\"steps\": 1, \"stop\": {\"metric\": \"polarization\"}}", "stop:"},
        {"{\"steps\": 1, \"scenario\": {\"agents\": -3}}", "scenario: field 'agents'"},
        {"{\"steps\": 1, \"scenario\": \"/nonexistent/x.json\"}", "scenario: cannot read"},
        {"{\"steps\": 1, \"factors\": {}}", "factors: must be a list"},
        {"{\"steps\": 1, \"factors\": [{\"values\": [1]}]}", "factors[0].param"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"nope\", \"values\": [1]}]}", "factors[0].param: unknown parameter 'nope'"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1, 1e9]}]}", "factors[0].values[1]: w_ali"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"border\", \"values\": [\"torus\"]}]}", "factors[0].values[0]"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"agents\", \"values\": [0]}]}", "factors[0].values[0]: agents"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": []}]}", "factors[0].values"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1], \"lo\": 0}]}", "give one of"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"first\": 0, \"step\": -1, \"last\": 2}]}", "factors[0].step"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"first\": 0, \"step\": 1e-9, \"last\": 2}]}", "factors[0].step"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"lo\": 2, \"hi\": 1}]}", "lo (2) must be below hi (1)"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1], \"colour\": 1}]}", "unknown field 'colour'"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1]}, {\"param\": \"w_ali\", \"values\": [2]}]}",
         "factors[1].param: w_ali is already factors[0]"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1, 1], \"sweep\": \"up\"}]}", "must differ"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1], \"sweep\": \"sideways\"}]}", "factors[0].sweep"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1], \"sweep\": \"up\"},"
         " {\"param\": \"w_sep\", \"values\": [1], \"sweep\": \"up\"}]}", "only one factor is swept"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2]}, {\"param\": \"w_sep\", \"values\": [1]}],"
         " \"design\": \"zip\"}", "factors[1] (w_sep): 1 values, but zip needs"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"lo\": 0, \"hi\": 1}]}", "factorial design needs values"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"design\": {\"lhs\": 4}}", "lhs design needs lo and hi"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"lo\": 0, \"hi\": 1}], \"design\": {\"lhs\": 0}}", "design.lhs"},
        {"{\"steps\": 1, \"design\": \"random\"}", "design:"},
        {"{\"steps\": 1, \"design\": {\"lhs\": 3}}", "design: lhs needs factors"},
        {"{\"steps\": 1, \"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2], \"sweep\": \"up\"}],"
         " \"stop\": {\"metric\": \"polarization\", \"above\": 0.9}}", "stop: a continuation"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        experiment_t e;
        char msg[400] = "";
        int rc = experiment_load_text(cases[i].text, ".", &e, msg, sizeof msg);
        if (rc == EXPERIMENT_OK) fail_msg("accepted: %s", cases[i].text);
        if (!strstr(msg, cases[i].says)) fail_msg("%s\n  says: %s\n  expected it to say: %s", cases[i].text, msg, cases[i].says);
        /* nothing is left to free */
        assert_null(e.factors);
        assert_null(e.scenario_json);
    }
}

static void values_read_back_from_their_text(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [0.1, 1e-7, 3]}, {\"param\": \"border\", \"values\": [\"respawn\"]}],"
            " \"steps\": 1}", &e);
    char text[64];
    double back;
    char why[200];
    for (size_t k = 0; k < 3; k++) {
        factor_value_format(&e.factors[0], e.factors[0].values[k], text, sizeof text);
        assert_int_equal(factor_value_text(&e.factors[0], text, &back, why, sizeof why), 0);
        assert_true(back == e.factors[0].values[k]);
    }
    factor_value_format(&e.factors[0], 0.1, text, sizeof text);
    assert_string_equal(text, "0.1");
    factor_value_format(&e.factors[1], BORDER_RESPAWN, text, sizeof text);
    assert_string_equal(text, "respawn");
    assert_int_equal(factor_value_text(&e.factors[1], "respawn", &back, why, sizeof why), 0);
    assert_true(back == BORDER_RESPAWN);
    assert_int_not_equal(factor_value_text(&e.factors[1], "0.5", &back, why, sizeof why), 0);
    experiment_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field),
        cmocka_unit_test(defaults),
        cmocka_unit_test(first_step_last_is_exact),
        cmocka_unit_test(sweep_paths),
        cmocka_unit_test(scenario_from_a_file),
        cmocka_unit_test(bad_files_name_the_field),
        cmocka_unit_test(values_read_back_from_their_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
