/* design: the experiment's design points, one row of factor values each.
 *
 *   factorial  every combination, the first factor varying slowest (nested
 *              loops in the file's order)
 *   zip        the factors' lists side by side: point k takes value k of each
 *   lhs        a Latin hypercube: each factor's [lo, hi] cut into as many
 *              strata as points, each stratum hit exactly once, the pairing
 *              drawn from the master seed
 *   table      the rows of a CSV file made elsewhere (SALib, scipy.qmc), its
 *              header naming the factors (design_table.c)
 *
 * A swept factor (continuation) is not part of the points: each point's run
 * goes through all its values, so its column holds NAN. */
#ifndef SWARMCAST_DESIGN_H
#define SWARMCAST_DESIGN_H

#include <stddef.h>

#include "experiment/experiment_file.h"

typedef struct design {
    size_t n_points, n_factors;
    double *values; /* n_points × n_factors, row-major, in the experiment's factor order */
} design_t;

static inline double design_value(const design_t *d, size_t point, size_t factor)
{
    return d->values[point * d->n_factors + factor];
}

/* 0, or -1 with the reason in msg (a table's bad row, too many points). */
int design_expand(const experiment_t *e, design_t *d, char *msg, size_t msg_len);
void design_free(design_t *d);

/* Reads the table design's CSV into d (design_table.c). */
int design_read_table(const experiment_t *e, design_t *d, char *msg, size_t msg_len);

#endif
