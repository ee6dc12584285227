/* capacity_rows: swarmcast-bench's rows for issue 25 — the default
 * population limit as the server derives it, and a million Reynolds
 * agents stepped on the bench's threads — printed so that a check can read
 * them (docs/BENCHMARKS.md, "Population limit and a million agents"). */
#ifndef SWARMCAST_BENCH_CAPACITY_ROWS_H
#define SWARMCAST_BENCH_CAPACITY_ROWS_H

/* "limit: N agents (…)" and the server's start-up line; 0, or 1 on failure. */
int bench_limit_row(int threads);
/* The 1M row; 0, or 1 on failure. */
int bench_million_row(int threads);

#endif
