/* Unit tests of the design expansion (server/src/experiment/design.c and
 * design_table.c): a factorial has the product of the lists' lengths and
 * every combination once, zip pairs the lists, a Latin hypercube hits each
 * stratum of each factor exactly once and depends only on the master seed,
 * and a table is read whole or refused with the line of its bad row. */
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

#include "experiment/design.h"
#include "experiment/experiment_file.h"
#include "sim/params.h"

static void load_ok(const char *text, const char *dir, experiment_t *e)
{
    char msg[400] = "";
    if (experiment_load_text(text, dir, e, msg, sizeof msg)) fail_msg("refused: %s (%s)", msg, text);
}

static void expand_ok(const experiment_t *e, design_t *d)
{
    char msg[400] = "";
    if (design_expand(e, d, msg, sizeof msg)) fail_msg("not expanded: %s", msg);
}

static void factorial_has_every_combination_once(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2, 3]},"
            " {\"param\": \"delay_ticks\", \"values\": [0, 5]},"
            " {\"param\": \"border\", \"values\": [\"wrap\", \"bounce\", \"respawn\", \"wrap\"]}], \"steps\": 1}",
            ".", &e);
    design_t d;
    expand_ok(&e, &d);
    assert_int_equal(d.n_points, 3 * 2 * 4);
    /* the first factor varies slowest, the last fastest */
    assert_true(design_value(&d, 0, 0) == 1 && design_value(&d, 0, 2) == 0);
    assert_true(design_value(&d, 1, 0) == 1 && design_value(&d, 1, 2) == 1);
    assert_true(design_value(&d, 8, 0) == 2 && design_value(&d, 8, 1) == 0);
    /* every (w_ali, delay, border index) combination exactly once */
    int seen[3][2][4] = {{{0}}};
    for (size_t p = 0; p < d.n_points; p++) {
        int a = (int)design_value(&d, p, 0) - 1, b = (int)design_value(&d, p, 1) / 5;
        int c = (int)(p % 4); /* the list's position: "wrap" is in it twice, as written */
        assert_true(design_value(&d, p, 2) == e.factors[2].values[c]);
        seen[a][b][c]++;
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 4; c++) assert_int_equal(seen[a][b][c], 1);
    design_free(&d);
    experiment_free(&e);

    /* no factors: one point, the base scenario */
    load_ok("{\"steps\": 1}", ".", &e);
    expand_ok(&e, &d);
    assert_int_equal(d.n_points, 1);
    design_free(&d);
    experiment_free(&e);
}

static void zip_pairs_the_lists(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2, 3]}, {\"param\": \"w_sep\", \"values\": [4, 5, 6]}],"
            " \"design\": \"zip\", \"steps\": 1}", ".", &e);
    design_t d;
    expand_ok(&e, &d);
    assert_int_equal(d.n_points, 3);
    for (size_t p = 0; p < 3; p++) {
        assert_true(design_value(&d, p, 0) == (double)p + 1);
        assert_true(design_value(&d, p, 1) == (double)p + 4);
    }
    design_free(&d);
    experiment_free(&e);
}

static void swept_factor_is_not_a_point(void **state)
{
    (void)state;
    experiment_t e;
    load_ok("{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2, 3], \"sweep\": \"up\"},"
            " {\"param\": \"w_sep\", \"values\": [4, 5]}], \"steps\": 1}", ".", &e);
    design_t d;
    expand_ok(&e, &d);
    assert_int_equal(d.n_points, 2);
    assert_true(isnan(design_value(&d, 0, 0)) && isnan(design_value(&d, 1, 0)));
    assert_true(design_value(&d, 1, 1) == 5);
    design_free(&d);
    experiment_free(&e);
}

static const char LHS[] = "{\"factors\": [{\"param\": \"w_ali\", \"lo\": 0.5, \"hi\": 2.5},"
                          " {\"param\": \"fov_ali\", \"lo\": 90, \"hi\": 360},"
                          " {\"param\": \"delay_ticks\", \"lo\": 0, \"hi\": 9}],"
                          " \"design\": {\"lhs\": 10}, \"master_seed\": %d, \"steps\": 1}";

static void lhs(int seed, experiment_t *e, design_t *d)
{
    char text[sizeof LHS + 16];
    snprintf(text, sizeof text, LHS, seed);
    load_ok(text, ".", e);
    expand_ok(e, d);
}

static void latin_hypercube_hits_each_stratum_once(void **state)
{
    (void)state;
    experiment_t e;
    design_t d;
    lhs(7, &e, &d);
    assert_int_equal(d.n_points, 10);
    for (size_t j = 0; j < 3; j++) {
        const factor_t *f = &e.factors[j];
        int hits[10] = {0};
        for (size_t p = 0; p < 10; p++) {
            double v = design_value(&d, p, j);
            assert_true(v >= f->lo && v <= f->hi);
            /* delay_ticks is whole: 0..9 are its ten strata */
            int s = j == 2 ? (int)v : (int)floor((v - f->lo) / (f->hi - f->lo) * 10);
            assert_true(s >= 0 && s < 10);
            if (j == 2) assert_true(v == floor(v));
            hits[s]++;
        }
        for (int s = 0; s < 10; s++) assert_int_equal(hits[s], 1);
    }
    /* the same seed gives the same design, another seed another */
    experiment_t e2, e3;
    design_t d2, d3;
    lhs(7, &e2, &d2);
    lhs(8, &e3, &d3);
    assert_memory_equal(d.values, d2.values, 30 * sizeof(double));
    assert_true(memcmp(d.values, d3.values, 30 * sizeof(double)) != 0);
    design_free(&d);
    design_free(&d2);
    design_free(&d3);
    experiment_free(&e);
    experiment_free(&e2);
    experiment_free(&e3);
}

static char dir[] = "/tmp/swarmcast-design-XXXXXX";

static void write_table(const char *text)
{
    char path[300];
    snprintf(path, sizeof path, "%s/points.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char TABLE_EXPERIMENT[] = "{\"factors\": [{\"param\": \"w_ali\", \"lo\": 0, \"hi\": 3}, {\"param\": \"border\"}],"
                                       " \"design\": {\"table\": \"points.csv\"}, \"steps\": 1}";

static void table_is_read_as_written(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    /* columns in another order, a comment, a blank line, quotes, CRLF */
    write_table("border,w_ali\r\n# made by hand\nwrap,0.25\n\n\"bounce\", 1.5\r\nrespawn,3\n");
    experiment_t e;
    design_t d;
    load_ok(TABLE_EXPERIMENT, dir, &e);
    expand_ok(&e, &d);
    assert_int_equal(d.n_points, 3);
    assert_true(design_value(&d, 0, 0) == 0.25 && design_value(&d, 0, 1) == BORDER_WRAP);
    assert_true(design_value(&d, 1, 0) == 1.5 && design_value(&d, 1, 1) == BORDER_BOUNCE);
    assert_true(design_value(&d, 2, 0) == 3 && design_value(&d, 2, 1) == BORDER_RESPAWN);
    design_free(&d);
    experiment_free(&e);
}

static void bad_tables_are_refused_whole(void **state)
{
    (void)state;
    static const struct {
        const char *csv, *says;
    } cases[] = {
        {"w_ali,border\n1,wrap\n2,nowhere\n", "line 3, column border"},
        {"w_ali,border\n1,wrap\n9,wrap\n", "line 3, column w_ali: 9 is outside"},
        {"w_ali,border\n1,wrap\nx,wrap\n", "line 3, column w_ali"},
        {"w_ali,border\n1,wrap,3\n", "line 2 has 3 cells, the header 2"},
        {"w_ali,border\n1\n", "line 2 has 1 cells"},
        {"w_ali\n1\n", "no column for factor border"},
        {"w_ali,border,w_sep\n", "column 'w_sep' is not one of the factors"},
        {"w_ali,w_ali,border\n", "column 'w_ali' appears twice"},
        {"w_ali,border\n", "has no rows"},
        {"# nothing\n\n", "has no header"},
        {NULL, "line 2 is longer than 4096 bytes"}, /* a cell of 5000 digits */
    };
    char long_line[5100] = "w_ali,border\n";
    memset(long_line + strlen(long_line), '1', 5000);
    strcat(long_line, ",wrap\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_table(cases[i].csv ? cases[i].csv : long_line);
        experiment_t e;
        design_t d;
        load_ok(TABLE_EXPERIMENT, dir, &e);
        char msg[400] = "";
        const char *csv = cases[i].csv ? cases[i].csv : "(5000 digits)";
        if (design_expand(&e, &d, msg, sizeof msg) == 0) fail_msg("accepted: %s", csv);
        if (!strstr(msg, cases[i].says)) fail_msg("%s\n  says: %s\n  expected: %s", csv, msg, cases[i].says);
        assert_null(d.values);
        experiment_free(&e);
    }
    char path[300];
    snprintf(path, sizeof path, "%s/points.csv", dir);
    unlink(path);
    experiment_t e;
    design_t d;
    load_ok(TABLE_EXPERIMENT, dir, &e);
    char msg[400] = "";
    assert_int_not_equal(design_expand(&e, &d, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "cannot read"));
    experiment_free(&e);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(factorial_has_every_combination_once),
        cmocka_unit_test(zip_pairs_the_lists),
        cmocka_unit_test(swept_factor_is_not_a_point),
        cmocka_unit_test(latin_hypercube_hits_each_stratum_once),
        cmocka_unit_test(table_is_read_as_written),
        cmocka_unit_test(bad_tables_are_refused_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
