/* headless: runs the simulation without any network (--headless): from the
 * flags and an optional scenario file, or by replaying a --record log, steps
 * the world at the fixed dt, writes metrics as CSV and the final state as
 * JSON. The same seed and inputs give byte-identical files, whatever the
 * thread count. */
#ifndef SWARMCAST_HEADLESS_H
#define SWARMCAST_HEADLESS_H

#include "config.h"

/* Returns the process exit code: 0 success, 1 I/O error, 2 bad arguments or
 * bad input files (with a message on stderr). */
int headless_run(const config_t *cfg);

#endif
