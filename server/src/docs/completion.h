/* completion: `swarmcast --bash-completion`, the bash completion script,
 * from the option table (config_options.c) and the parameter registry; the
 * package installs it as /usr/share/bash-completion/completions/swarmcast. */
#ifndef SWARMCAST_COMPLETION_H
#define SWARMCAST_COMPLETION_H

#include <stdio.h>

void completion_write_bash(FILE *f);

#endif
