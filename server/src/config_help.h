/* config_help: `swarmcast --help`, printed from the option table
 * (config_options.c), and the usage lines the manual page shares. */
#ifndef SWARMCAST_CONFIG_HELP_H
#define SWARMCAST_CONFIG_HELP_H

#include <stdio.h>

#include "config_options.h"

/* The ways to start swarmcast: "ARGUMENTS\tWHAT" (WHAT may be empty), NULL-terminated. */
extern const char *const config_synopsis[];
/* What swarmcast is, in a sentence. */
extern const char config_summary[];

void config_help(FILE *f);
/* The default of option o as --help and the manual show it, or NULL. */
const char *config_option_default(const struct config_option *o);

#endif
