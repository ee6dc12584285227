#include "experiment/merge.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiment/journal.h"
#include "experiment/manifest.h"
#include "experiment/out_dir.h"
#include "experiment/results.h"
#include "persist/whole_file.h"
#include "protocol/utf8.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

/* Every folder holds the same experiment.json, and none is the output. */
static int same_experiment(const char *out_dir, const char *const *dirs, int n, char **first_text)
{
    char out_real[PATH_MAX];
    bool out_exists = realpath(out_dir, out_real) != NULL;
    *first_text = NULL;
    for (int k = 0; k < n; k++) {
        char path[4096], real[PATH_MAX];
        if (out_exists && realpath(dirs[k], real) && strcmp(real, out_real) == 0) {
            fprintf(stderr, "swarmcast: merge: --out %s is one of the folders merged; name a new one\n", out_dir);
            return EXIT_USAGE;
        }
        size_t len;
        char *text = out_dir_path(dirs[k], "experiment.json", path, sizeof path) ? NULL : whole_file_read(path, &len);
        if (!text) {
            fprintf(stderr, "swarmcast: merge: cannot read %s/experiment.json: %s (not an experiment's output folder?)\n",
                    dirs[k], strerror(errno));
            return EXIT_IO;
        }
        if (*first_text && strcmp(text, *first_text) != 0) {
            fprintf(stderr, "swarmcast: merge: %s holds another experiment than %s (experiment.json differs)\n", dirs[k],
                    dirs[0]);
            free(text);
            return EXIT_USAGE;
        }
        if (*first_text)
            free(text);
        else
            *first_text = text;
    }
    return EXIT_OK;
}

/* The union of the folders' journals, one block per run in the plan's order. */
static int write_journal(const char *path, const run_plan_t *plan, journal_index_t *idx)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int rc = 0;
    for (size_t i = 0; i < plan->n_runs && !rc; i++) {
        const journal_entry_t *e = &idx->entries[i];
        if (e->state == RUN_NOT_DONE) continue;
        char *rows = NULL;
        size_t len = 0, n_rows = 0;
        if (e->state == RUN_OK && journal_rows(idx, i, &rows, &len)) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < len; k++) n_rows += rows[k] == '\n';
        rc = journal_append_delivered(f, plan->runs[i].id, i, e->state == RUN_OK, rows, len, n_rows, e->why,
                                      e->deliveries);
        free(rows);
    }
    if (fclose(f)) rc = -1;
    return rc;
}

int merge_run(const char *out_dir, const char *const *dirs, int n_dirs)
{
    time_t started = time(NULL);
    char *text = NULL, msg[500] = "out of memory", path[4096];
    int rc = same_experiment(out_dir, dirs, n_dirs, &text);
    free(text);
    if (rc) return rc;
    experiment_t e;
    if (out_dir_path(dirs[0], "experiment.json", path, sizeof path) ||
        experiment_load(path, &e, msg, sizeof msg) != EXPERIMENT_OK) {
        fprintf(stderr, "swarmcast: merge: %s: %s\n", path, msg);
        return EXIT_USAGE;
    }
    run_plan_t plan = {0};
    journal_index_t idx = {0};
    int lock = -1;
    rc = EXIT_IO;
    if (run_plan_make(&e, &plan, msg, sizeof msg) || journal_index_init(&idx, &plan)) goto fail;
    for (int k = 0; k < n_dirs; k++) {
        char journal[4096];
        if (out_dir_path(dirs[k], "runs.journal", journal, sizeof journal) ||
            journal_read(&idx, &plan, journal, false, msg, sizeof msg))
            goto fail;
    }
    char merged[4096];
    if (out_dir_lock(out_dir, &lock, msg, sizeof msg) || out_dir_prepare(path, &e, out_dir, msg, sizeof msg) ||
        out_dir_path(out_dir, "runs.journal", merged, sizeof merged))
        goto fail;
    if (write_journal(merged, &plan, &idx)) {
        text_fail(msg, sizeof msg, "cannot write %s: %s", merged, strerror(errno));
        goto fail;
    }
    journal_index_free(&idx);
    if (journal_index_init(&idx, &plan) || journal_read(&idx, &plan, merged, false, msg, sizeof msg) ||
        results_write(&e, &plan, &idx, out_dir, msg, sizeof msg))
        goto fail;
    char share[48];
    snprintf(share, sizeof share, "merge of %d folders", n_dirs);
    manifest_info_t info = {.started = started, .ended = time(NULL), .share = share};
    if (manifest_write(out_dir, &plan, &idx, &info, msg, sizeof msg)) goto fail;
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; i < plan.n_runs; i++) counts[idx.entries[i].state]++;
    fprintf(stderr, "swarmcast: merged %d folders into %s: %zu of %zu runs done (%zu failed), %zu not done\n", n_dirs,
            out_dir, counts[RUN_OK] + counts[RUN_FAILED], plan.n_runs, counts[RUN_FAILED], counts[RUN_NOT_DONE]);
    rc = EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "swarmcast: merge: %s\n", msg);
done:
    out_dir_unlock(lock);
    journal_index_free(&idx);
    run_plan_free(&plan);
    experiment_free(&e);
    return rc;
}
