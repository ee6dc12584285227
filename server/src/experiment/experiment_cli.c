/* experiment_cli: `swarmcast experiment COMMAND ...`, the researcher's side of
 * the program (docs/EXPERIMENTS.md). */
#include "experiment/experiment_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SWARMCAST_SOURCE_EXPERIMENTS
#define SWARMCAST_SOURCE_EXPERIMENTS "experiments"
#endif

#include "experiment/experiment_file.h"
#include "install_paths.h"
#include "experiment/merge.h"
#include "experiment/pool_coordinator.h"
#include "experiment/run_plan.h"
#include "experiment/run_scenario.h"
#include "experiment/runner.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

const char experiment_usage[] =
    "usage: swarmcast experiment plan FILE               list the runs as CSV (run_id, point, replicate,\n"
    "                                                    seed, each factor)\n"
    "       swarmcast experiment run FILE --out DIR [--workers N] [--shard I/N | --index I]\n"
    "                                                    run them, N at a time (default: one per core);\n"
    "                                                    again: goes on where it stopped\n"
    "       swarmcast experiment run FILE --out DIR --nats URL [--ack-wait S] [--max-deliver N]\n"
    "                                                    run them on a pool of `swarmcast worker --nats URL`\n"
    "                                                    (any number, anywhere, joining at any time)\n"
    "       swarmcast experiment merge --out DIR DIR...  join the folders of a sweep's shards\n"
    "       swarmcast experiment scenario DIR RUN_ID     one run as a scenario file (stdout)\n"
    "\n"
    "An experiment is one JSON file: a base scenario, factors and a design,\n"
    "replicates and a master seed, steps and what to record. DIR gets\n"
    "results.csv (every recorded row), summary.csv (mean, sd and 95% interval per\n"
    "design point), manifest.json and the journal of finished runs.\n"
    "Exit status: 0; 3 some runs failed (the others done); 2 a bad file or\n"
    "option; 1 an I/O error. docs/EXPERIMENTS.md has the format and examples.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "swarmcast: experiment: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (swarmcast experiment --help)\n");
    return EXIT_USAGE;
}

/* A FILE that is not there and names no folder may be one of the shipped
 * experiments: PREFIX/share/swarmcast/experiments beside an installed
 * binary, the source tree's experiments/ beside a built one. */
static const char *find_experiment(const char *given, char *buf, size_t len)
{
    if (strchr(given, '/') || access(given, F_OK) == 0) return given;
    char dir[4096];
    if (install_share_dir("experiments", dir, sizeof dir)) snprintf(dir, sizeof dir, "%s", SWARMCAST_SOURCE_EXPERIMENTS);
    if (snprintf(buf, len, "%s/%s", dir, given) < (int)len && access(buf, R_OK) == 0) return buf;
    return given;
}

static int plan(const char *given)
{
    char found[4200];
    const char *path = find_experiment(given, found, sizeof found);
    experiment_t e;
    char msg[400];
    int rc = experiment_load(path, &e, msg, sizeof msg);
    if (rc != EXPERIMENT_OK) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", path, msg);
        return rc == EXPERIMENT_E_IO ? EXIT_IO : EXIT_USAGE;
    }
    run_plan_t p;
    if (run_plan_make(&e, &p, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", path, msg);
        experiment_free(&e);
        return EXIT_USAGE;
    }
    rc = run_plan_write_csv(&e, &p, stdout) || fflush(stdout) ? EXIT_IO : EXIT_OK;
    if (rc)
        perror("swarmcast: writing the plan");
    else
        fprintf(stderr, "swarmcast: %zu runs (%zu design points × %" PRIu32 " replicates), %" PRIu64 " steps %s\n",
                p.n_runs, p.design.n_points, e.replicates, e.steps, e.swept >= 0 ? "per swept value" : "each");
    run_plan_free(&p);
    experiment_free(&e);
    return rc;
}

/* A whole number in [lo, hi] from text, or -1. */
static long long whole(const char *text, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    return errno || end == text || *end || v < lo || v > hi ? -1 : v;
}

static int run(int argc, char **argv)
{
    const char *file = NULL, *dir = NULL;
    char found[4200];
    runner_options_t o = {.only = -1, .progress = isatty(STDERR_FILENO) != 0};
    pool_options_t pool = {.ack_wait_s = 30, .max_deliver = 3, .progress = o.progress};
    bool local_only = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--out") == 0 && v) {
            dir = v;
            i++;
        } else if (strcmp(a, "--workers") == 0 && v) {
            long long n = whole(v, 1, 1024);
            if (n < 0) return usage_error("--workers %s: a whole number from 1 to 1024", v);
            o.workers = (unsigned)n;
            local_only = true;
            i++;
        } else if (strcmp(a, "--shard") == 0 && v) {
            unsigned s, n;
            char end;
            if (sscanf(v, "%u/%u%c", &s, &n, &end) != 2 || n < 1 || s >= n)
                return usage_error("--shard %s: I/N with 0 <= I < N (e.g. 0/4)", v);
            o.shard = s;
            o.shards = n;
            local_only = true;
            i++;
        } else if (strcmp(a, "--index") == 0 && v) {
            if ((o.only = whole(v, 0, 1LL << 40)) < 0) return usage_error("--index %s: a run's number, from 0", v);
            local_only = true;
            i++;
        } else if (strcmp(a, "--nats") == 0 && v) {
            pool.url = v;
            i++;
        } else if (strcmp(a, "--ack-wait") == 0 && v) {
            char *end;
            pool.ack_wait_s = strtod(v, &end);
            if (*end || end == v || !(pool.ack_wait_s >= 0.5 && pool.ack_wait_s <= 86400))
                return usage_error("--ack-wait %s: seconds, from 0.5 to 86400", v);
            i++;
        } else if (strcmp(a, "--max-deliver") == 0 && v) {
            long long n = whole(v, 1, 1000);
            if (n < 0) return usage_error("--max-deliver %s: a whole number from 1 to 1000", v);
            pool.max_deliver = (unsigned)n;
            i++;
        } else if (a[0] != '-' && !file) {
            file = find_experiment(a, found, sizeof found);
        } else {
            return usage_error("run: unexpected '%s'", a);
        }
    }
    if (!file || !dir) return usage_error("%s", "run needs FILE and --out DIR");
    if (o.only >= 0 && o.shards > 1) return usage_error("%s", "run takes --shard or --index, not both");
    if (pool.url && local_only)
        return usage_error("%s", "--nats spreads the runs over the pool's workers: no --workers, --shard or --index");
    return pool.url ? pool_coordinator_run(file, dir, &pool) : runner_run(file, dir, &o);
}

static int merge(int argc, char **argv)
{
    const char *out = NULL;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int n = 0;
    if (!dirs) return EXIT_IO;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-')
            dirs[n++] = argv[i];
        else {
            free(dirs);
            return usage_error("merge: unexpected '%s'", argv[i]);
        }
    }
    int rc = !out || n < 1 ? usage_error("%s", "merge needs --out DIR and the folders to join") : merge_run(out, dirs, n);
    free(dirs);
    return rc;
}

int experiment_main(int argc, char **argv)
{
    const char *cmd = argc >= 2 ? argv[1] : "";
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(experiment_usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "plan") == 0 && argc == 3) return plan(argv[2]);
    if (strcmp(cmd, "run") == 0) return run(argc - 2, argv + 2);
    if (strcmp(cmd, "merge") == 0) return merge(argc - 2, argv + 2);
    if (strcmp(cmd, "scenario") == 0 && argc == 4) return run_scenario_write(argv[2], argv[3], stdout);
    fputs(experiment_usage, stderr);
    return EXIT_USAGE;
}
