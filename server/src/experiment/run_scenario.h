/* run_scenario: `swarmcast experiment scenario DIR RUN_ID` writes one run of
 * a sweep as a scenario file (the base scenario with the run's seed, steps,
 * population and parameter values), so that `swarmcast --headless
 * --scenario FILE` runs it again by hand, or it can be opened and changed.
 * A continuation run's scenario holds its first value; the path is said on
 * stderr. */
#ifndef SWARMCAST_RUN_SCENARIO_H
#define SWARMCAST_RUN_SCENARIO_H

#include <stdio.h>

/* The exit status: 0, 2 (no such run), 1 (I/O). */
int run_scenario_write(const char *dir, const char *run_id, FILE *out);

#endif
