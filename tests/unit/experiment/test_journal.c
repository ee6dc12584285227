/* Unit tests of the journal of finished runs (server/src/experiment/journal.c)
 * and the summary's interval (results.c): blocks read back where they were
 * written, the first success of a run stands, blocks of other plans are
 * skipped, a torn last block is cut off (and refused where it must not be
 * repaired), and Student's t is the table's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment/journal.h"
#include "experiment/results.h"

static experiment_t e;
static run_plan_t plan;
static char path[] = "/tmp/swarmcast-journal-XXXXXX";

static int setup(void **state)
{
    (void)state;
    char msg[400];
    if (experiment_load_text("{\"factors\": [{\"param\": \"w_ali\", \"values\": [1, 2]}], \"replicates\": 2, \"steps\": 5}",
                             ".", &e, msg, sizeof msg) ||
        run_plan_make(&e, &plan, msg, sizeof msg))
        return -1;
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    run_plan_free(&plan);
    experiment_free(&e);
    return 0;
}

static void write_text(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void read_ok(journal_index_t *idx, bool repair)
{
    char msg[400] = "";
    assert_int_equal(journal_index_init(idx, &plan), 0);
    if (journal_read(idx, &plan, path, repair, msg, sizeof msg)) fail_msg("%s", msg);
}

static void blocks_read_back(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(journal_append(f, plan.runs[2].id, 2, true, "a,1\nb,2\n", 8, 2, NULL), 0);
    assert_int_equal(journal_append(f, plan.runs[0].id, 0, false, NULL, 0, 0, "no\nmemory"), 0);
    assert_int_equal(journal_append(f, plan.runs[0].id, 0, true, "c,3\n", 4, 1, NULL), 0);
    assert_int_equal(journal_append(f, plan.runs[0].id, 0, true, "later\n", 6, 1, NULL), 0); /* the first success stands */
    assert_int_equal(journal_append(f, plan.runs[1].id, 1, false, NULL, 0, 0, "bad set-up"), 0);
    assert_int_equal(journal_append(f, 0x1234, 3, true, "other\n", 6, 1, NULL), 0); /* not this plan's run 3 */
    fclose(f);
    journal_index_t idx;
    read_ok(&idx, false);
    assert_int_equal(idx.entries[0].state, RUN_OK);
    assert_int_equal(idx.entries[1].state, RUN_FAILED);
    assert_string_equal(idx.entries[1].why, "bad set-up");
    assert_int_equal(idx.entries[2].state, RUN_OK);
    assert_int_equal(idx.entries[3].state, RUN_NOT_DONE);
    char *rows;
    size_t len;
    assert_int_equal(journal_rows(&idx, 2, &rows, &len), 0);
    assert_string_equal(rows, "a,1\nb,2\n");
    free(rows);
    assert_int_equal(journal_rows(&idx, 0, &rows, &len), 0);
    assert_string_equal(rows, "c,3\n");
    free(rows);
    assert_int_equal(journal_rows(&idx, 1, &rows, &len), 0);
    assert_null(rows);
    journal_index_free(&idx);
}

/* The pool's blocks say how many deliveries a run took; old blocks say nothing (0). */
static void deliveries_read_back(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(journal_append_delivered(f, plan.runs[0].id, 0, true, "a,1\n", 4, 1, NULL, 2), 0);
    assert_int_equal(journal_append_delivered(f, plan.runs[1].id, 1, false, NULL, 0, 0, "worker lost 3 times", 3), 0);
    assert_int_equal(journal_append(f, plan.runs[2].id, 2, true, "b,2\n", 4, 1, NULL), 0);
    fclose(f);
    journal_index_t idx;
    read_ok(&idx, false);
    assert_int_equal(idx.entries[0].state, RUN_OK);
    assert_int_equal(idx.entries[0].deliveries, 2);
    assert_int_equal(idx.entries[1].state, RUN_FAILED);
    assert_int_equal(idx.entries[1].deliveries, 3);
    assert_string_equal(idx.entries[1].why, "worker lost 3 times");
    assert_int_equal(idx.entries[2].deliveries, 0);
    char *rows;
    size_t len;
    assert_int_equal(journal_rows(&idx, 0, &rows, &len), 0);
    assert_string_equal(rows, "a,1\n");
    free(rows);
    journal_index_free(&idx);
}

static void a_torn_block_is_cut_off(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(journal_append(f, plan.runs[1].id, 1, true, "x,1\n", 4, 1, NULL), 0);
    long whole = ftell(f);
    char hex[17];
    run_id_text(plan.runs[2].id, hex);
    fprintf(f, "@run %s 2 ok 3\ny,1\ny,2\n", hex); /* killed before its third row */
    fclose(f);

    journal_index_t idx;
    char msg[400] = "";
    assert_int_equal(journal_index_init(&idx, &plan), 0);
    assert_int_not_equal(journal_read(&idx, &plan, path, false, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "in the middle of a run's block"));
    journal_index_free(&idx);

    read_ok(&idx, true);
    assert_int_equal(idx.entries[1].state, RUN_OK);
    assert_int_equal(idx.entries[2].state, RUN_NOT_DONE);
    journal_index_free(&idx);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, whole);

    /* a block whose row count does not match its head is not whole either */
    write_text("");
    f = fopen(path, "w");
    fprintf(f, "@run %s 2 ok 2\ny,1\n@end %s\n", hex, hex);
    fclose(f);
    read_ok(&idx, true);
    assert_int_equal(idx.entries[2].state, RUN_NOT_DONE);
    journal_index_free(&idx);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
}

static void a_missing_journal_is_empty(void **state)
{
    (void)state;
    unlink(path);
    journal_index_t idx;
    read_ok(&idx, true);
    for (size_t i = 0; i < plan.n_runs; i++) assert_int_equal(idx.entries[i].state, RUN_NOT_DONE);
    journal_index_free(&idx);
}

static void student_t_quantiles(void **state)
{
    (void)state;
    assert_true(isnan(student_t975(0)));
    assert_true(fabs(student_t975(1) - 12.706) < 1e-9);
    assert_true(fabs(student_t975(4) - 2.776) < 1e-9);
    assert_true(fabs(student_t975(30) - 2.042) < 1e-9);
    /* past the table: 40 → 2.021, 120 → 1.980, then towards 1.960 */
    assert_true(fabs(student_t975(40) - 2.021) < 1e-3);
    assert_true(fabs(student_t975(120) - 1.980) < 1e-3);
    assert_true(student_t975(100000) > 1.9599 && student_t975(100000) < 1.9601);
    for (unsigned df = 1; df < 200; df++) assert_true(student_t975(df + 1) < student_t975(df));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_read_back),
        cmocka_unit_test(deliveries_read_back),
        cmocka_unit_test(a_torn_block_is_cut_off),
        cmocka_unit_test(a_missing_journal_is_empty),
        cmocka_unit_test(student_t_quantiles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
