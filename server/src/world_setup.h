/* world_setup: the world of a run without network, built from the flags and
 * an optional scenario file exactly as `--headless` builds it (parameters
 * from the scenario, then --set, then the agents drawn from the seed or
 * placed from the scenario's agent_list, then obstacles and targets). The
 * experiment runner builds every run with it, so a run of a sweep is
 * byte-identical to the same headless command typed by hand. */
#ifndef SWARMCAST_WORLD_SETUP_H
#define SWARMCAST_WORLD_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "sim/world.h"

enum { SETUP_OK = 0, SETUP_E_IO = 1, SETUP_E_INPUT = 2 };

/* Initialises *world and sets it up; *steps := the steps the run makes (the
 * flag's, else the scenario's). On failure the world is freed and msg says
 * why (as "scenario FILE: ..." or "--set: ..."): SETUP_E_INPUT for bad
 * flags or a bad scenario, SETUP_E_IO when memory or the file fails. */
int world_setup(const config_t *cfg, world_t *world, uint64_t *steps, char *msg, size_t msg_len);

#endif
