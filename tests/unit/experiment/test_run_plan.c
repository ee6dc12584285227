/* Unit tests of the plan of runs (server/src/experiment/run_plan.c): seeds
 * are stable (the same file, the same seeds and ids), distinct between
 * replicates and across a sweep, untouched when the design grows, and the id
 * changes with anything that changes a run's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/run_plan.h"

static void plan_of(const char *text, experiment_t *e, run_plan_t *p)
{
    char msg[400] = "";
    if (experiment_load_text(text, ".", e, msg, sizeof msg)) fail_msg("refused: %s (%s)", msg, text);
    if (run_plan_make(e, p, msg, sizeof msg)) fail_msg("no plan: %s", msg);
}

static void done(experiment_t *e, run_plan_t *p)
{
    run_plan_free(p);
    experiment_free(e);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static const char SWEEP[] = "{\"factors\": [{\"param\": \"w_ali\", \"first\": 0.1, \"step\": 0.1, \"last\": 2}, "
                            "{\"param\": \"delay_ticks\", \"values\": [0, 2, 4, 8, 16]}], "
                            "\"replicates\": 10, \"master_seed\": 3, \"steps\": 500}";

static void seeds_are_stable_and_distinct(void **state)
{
    (void)state;
    experiment_t e, e2;
    run_plan_t p, p2;
    plan_of(SWEEP, &e, &p);
    plan_of(SWEEP, &e2, &p2);
    assert_int_equal(p.n_runs, 20 * 5 * 10);
    for (size_t i = 0; i < p.n_runs; i++) {
        assert_int_equal(p.runs[i].seed, p2.runs[i].seed);
        assert_int_equal(p.runs[i].id, p2.runs[i].id);
        /* point by point, replicates within */
        assert_int_equal(p.runs[i].point, i / 10);
        assert_int_equal(p.runs[i].replicate, i % 10);
    }
    /* 1,000 runs, 1,000 seeds and 1,000 ids */
    uint64_t *seeds = malloc(p.n_runs * sizeof *seeds), *ids = malloc(p.n_runs * sizeof *ids);
    for (size_t i = 0; i < p.n_runs; i++) {
        seeds[i] = p.runs[i].seed;
        ids[i] = p.runs[i].id;
    }
    qsort(seeds, p.n_runs, sizeof *seeds, compare_u64);
    qsort(ids, p.n_runs, sizeof *ids, compare_u64);
    for (size_t i = 1; i < p.n_runs; i++) {
        assert_true(seeds[i] != seeds[i - 1]);
        assert_true(ids[i] != ids[i - 1]);
    }
    free(seeds);
    free(ids);
    done(&e, &p);
    done(&e2, &p2);
}

/* Find the run of a point (by its values) and replicate. */
static const planned_run_t *find(const run_plan_t *p, double w_ali, double delay, uint32_t replicate)
{
    for (size_t i = 0; i < p->n_runs; i++)
        if (design_value(&p->design, p->runs[i].point, 0) == w_ali &&
            design_value(&p->design, p->runs[i].point, 1) == delay && p->runs[i].replicate == replicate)
            return &p->runs[i];
    return NULL;
}

static void growing_the_design_keeps_the_runs(void **state)
{
    (void)state;
    experiment_t small_e, big_e;
    run_plan_t small, big;
    plan_of("{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2]}, {\"param\": \"delay_ticks\", \"values\": [0, 4]}],"
            " \"replicates\": 2, \"master_seed\": 9, \"steps\": 100}", &small_e, &small);
    plan_of("{\"factors\": [{\"param\": \"w_ali\", \"values\": [0.5, 1, 2, 3]}, {\"param\": \"delay_ticks\", \"values\": [0, 4, 8]}],"
            " \"replicates\": 5, \"master_seed\": 9, \"steps\": 100}", &big_e, &big);
    for (size_t i = 0; i < small.n_runs; i++) {
        const planned_run_t *a = &small.runs[i];
        const planned_run_t *b = find(&big, design_value(&small.design, a->point, 0),
                                      design_value(&small.design, a->point, 1), a->replicate);
        assert_non_null(b);
        assert_int_equal(a->seed, b->seed);
        assert_int_equal(a->id, b->id);
    }
    done(&small_e, &small);
    done(&big_e, &big);
}

static void the_id_follows_what_a_run_does(void **state)
{
    (void)state;
    static const char *const variants[] = {
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 101}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100, \"warmup\": 5}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100, \"record_every\": 10}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100, \"metrics\": [\"milling\"]}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100,"
        " \"stop\": {\"metric\": \"polarization\", \"above\": 0.9}}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 1, \"steps\": 100, \"scenario\": {\"agents\": 7}}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1.5]}], \"master_seed\": 1, \"steps\": 100}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1]}], \"master_seed\": 2, \"steps\": 100}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2], \"sweep\": \"up\"}], \"master_seed\": 1, \"steps\": 100}",
        "{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2], \"sweep\": \"up_down\"}], \"master_seed\": 1, \"steps\": 100}",
    };
    enum { N = sizeof variants / sizeof variants[0] };
    uint64_t ids[N];
    uint32_t seeds[N];
    for (size_t i = 0; i < N; i++) {
        experiment_t e;
        run_plan_t p;
        plan_of(variants[i], &e, &p);
        assert_int_equal(p.n_runs, 1);
        ids[i] = p.runs[0].id;
        seeds[i] = p.runs[0].seed;
        done(&e, &p);
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++)
            if (ids[i] == ids[j]) fail_msg("the same id for\n  %s\n  %s", variants[i], variants[j]);
    /* the seed depends on the master seed and the point, not on the length of a run */
    assert_int_equal(seeds[0], seeds[1]);
    assert_int_equal(seeds[0], seeds[6]);
    assert_int_not_equal(seeds[0], seeds[7]);
    assert_int_not_equal(seeds[0], seeds[8]);
}

static void the_plan_as_csv(void **state)
{
    (void)state;
    experiment_t e;
    run_plan_t p;
    plan_of("{\"factors\": [{\"param\": \"border\", \"values\": [\"bounce\"]}, {\"param\": \"w_ali\", \"values\": [0.1, 3],"
            " \"sweep\": \"up_down\"}], \"replicates\": 2, \"steps\": 10}", &e, &p);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(run_plan_write_csv(&e, &p, f), 0);
    fclose(f);
    char id[17], expected[200];
    run_id_text(p.runs[1].id, id);
    snprintf(expected, sizeof expected, "\n%s,0,1,%u,bounce,0.1;3;0.1\n", id, p.runs[1].seed);
    assert_true(strncmp(text, "run_id,point,replicate,seed,border,w_ali\n", 41) == 0);
    if (!strstr(text, expected)) fail_msg("no row %s in\n%s", expected, text);
    free(text);
    done(&e, &p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeds_are_stable_and_distinct),
        cmocka_unit_test(growing_the_design_keeps_the_runs),
        cmocka_unit_test(the_id_follows_what_a_run_does),
        cmocka_unit_test(the_plan_as_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
