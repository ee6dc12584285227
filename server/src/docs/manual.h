/* manual: swarmcast(1), the manual page, as roff (`swarmcast --man`). Its
 * usage lines, options, environment variables and defaults are printed from
 * the same table as --help (config_options.c); the build installs it. */
#ifndef SWARMCAST_MANUAL_H
#define SWARMCAST_MANUAL_H

#include <stdio.h>

void manual_write(FILE *f);

#endif
