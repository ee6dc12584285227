/* world_setup: the world of a run, built from the flags and an optional
 * scenario file exactly as `--headless` builds it (parameters
 * from the scenario, then --set, then the agents drawn from the seed or
 * placed from the scenario's agent_list, then obstacles and targets). The
 * experiment runner builds every run with it, so a run of a sweep is
 * byte-identical to the same headless command typed by hand, and so does a
 * live server given --scenario, so that its world steps as that run did. */
#ifndef SWARMCAST_WORLD_SETUP_H
#define SWARMCAST_WORLD_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "sim/world.h"

enum { SETUP_OK = 0, SETUP_E_IO = 1, SETUP_E_INPUT = 2 };

/* Initialises *world and sets it up; *steps := the steps the run makes (the
 * flag's, else the scenario's; steps NULL: a live server, no length needed). On failure the world is freed and msg says
 * why (as "scenario FILE: ..." or "--set: ..."): SETUP_E_INPUT for bad
 * flags or a bad scenario, SETUP_E_IO when memory or the file fails. */
int world_setup(const config_t *cfg, world_t *world, uint64_t *steps, char *msg, size_t msg_len);

/* The largest target client_id a scenario may give a live server: its
 * viewers get the ids above (net_config_t.reserved_client_ids), and a
 * relay's from 1 << 22. */
#define SETUP_MAX_LIVE_TARGET_ID 65535u

/* A live server's `--scenario` (steps == NULL above: it runs until stopped):
 * builds the world once to check the file, then copies the flags into
 * *resolved with the world's size, population and seed as the scenario and
 * the flags decide them (marked as given, so that world_setup with
 * *resolved builds the same world again). Without a scenario, a plain copy.
 * SETUP_* and msg as world_setup. */
int world_setup_resolve(const config_t *cfg, config_t *resolved, char *msg, size_t msg_len);

#endif
