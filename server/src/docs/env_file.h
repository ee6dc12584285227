/* env_file: `swarmcast --env-file`, a commented environment file with every
 * SWARMCAST_* setting of the option table (config_options.c), each set to
 * nothing (its default). The package installs it as
 * /etc/swarmcast/swarmcast.env, which swarmcast.service reads. */
#ifndef SWARMCAST_ENV_FILE_H
#define SWARMCAST_ENV_FILE_H

#include <stdio.h>

void env_file_write(FILE *f);

#endif
