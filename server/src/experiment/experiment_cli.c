/* experiment_cli: `swarmcast experiment COMMAND ...`, the researcher's side of
 * the program (docs/EXPERIMENTS.md). */
#include "experiment/experiment_cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "experiment/experiment_file.h"
#include "experiment/run_plan.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

static const char USAGE[] =
    "usage: swarmcast experiment plan FILE   list the runs of an experiment as CSV\n"
    "                                        (run_id, point, replicate, seed, each factor)\n"
    "\n"
    "An experiment is one JSON file: a base scenario, factors and a design,\n"
    "replicates and a master seed, steps and what to record (docs/EXPERIMENTS.md).\n";

static int plan(const char *path)
{
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
    if (rc) perror("swarmcast: writing the plan");
    else
        fprintf(stderr, "swarmcast: %zu runs (%zu design points × %" PRIu32 " replicates), %" PRIu64 " steps %s\n",
                p.n_runs, p.design.n_points, e.replicates, e.steps, e.swept >= 0 ? "per swept value" : "each");
    run_plan_free(&p);
    experiment_free(&e);
    return rc;
}

int experiment_main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(USAGE, stdout);
        return EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[1], "plan") == 0) return plan(argv[2]);
    fputs(USAGE, stderr);
    return EXIT_USAGE;
}
