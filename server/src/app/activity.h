/* activity: the activity feed's sentence for an applied command (activity.c). */
#ifndef SWARMCAST_APP_ACTIVITY_H
#define SWARMCAST_APP_ACTIVITY_H

#include "sim/commands.h"
#include "sim/world.h"

/* What a command did, as the end of a sentence whose subject is its
 * sender ("set separation weight to 2.5"), for the activity feed; NULL for
 * the commands too frequent or too small to tell (targets, moves). The
 * caller frees it. */
char *activity_of(const world_t *w, const sim_cmd_t *cmd, const sim_result_t *res);

#endif
