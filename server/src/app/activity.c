/* activity: the activity feed's sentences. What an applied command did, as
 * the end of a sentence whose subject is its sender ("set separation weight
 * to 2.5"); the loop thread adds the sender's name (presence.c). Pure: it
 * reads the world and the command's result, and is called on the
 * simulation thread right after the command is applied. */
#include "activity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "people/presence.h"
#include "protocol/utf8.h"
#include "sim/params.h"

/* A parameter's readable name: its help up to the first ':', ';' or '(' —
 * "separation weight" — or its name when that says more. */
static void param_label(const param_desc_t *d, char *out, size_t cap)
{
    size_t n = strcspn(d->help, ":;(");
    while (n && d->help[n - 1] == ' ') n--;
    if (n == 0 || n > 48) n = 0;
    snprintf(out, cap, "%.*s", (int)(n ? n : strlen(d->name)), n ? d->help : d->name);
    size_t len = strlen(out);
    /* "separation rule on" (a switch's help says what on means) */
    if (d->type == PARAM_BOOL && len > 3 && strcmp(out + len - 3, " on") == 0) out[len - 3] = '\0';
}

/* What a command did, as the end of a sentence whose subject is its
 * sender ("set separation weight to 2.5"), for the activity feed; NULL for
 * the commands too frequent or too small to tell (targets, moves). */
char *activity_of(const world_t *w, const sim_cmd_t *cmd, const sim_result_t *res)
{
    char text[PRESENCE_WHAT_BYTES], label[64], value[64];
    switch (cmd->kind) {
    case CMD_SET_PARAM: {
        const param_desc_t *d = params_desc((size_t)res->param);
        param_label(d, label, sizeof label);
        if (d->type == PARAM_ENUM)
            snprintf(value, sizeof value, "%s", d->enum_names[(int)res->value]);
        else if (d->type == PARAM_BOOL)
            snprintf(value, sizeof value, "%s", res->value ? "on" : "off");
        else
            snprintf(value, sizeof value, "%g%s%s", res->value, d->unit[0] ? " " : "", d->unit);
        char species[32] = "";
        if (res->species >= 0) snprintf(species, sizeof species, " for species %d", res->species);
        /* text_t: a long label and value are cut between characters, never mid-way */
        text_t t;
        text_init(&t, text, sizeof text);
        if (d->type == PARAM_BOOL)
            text_addf(&t, "switched %s %s%s", label, value, species);
        else
            text_addf(&t, "set %s to %s%s", label, value, species);
        break;
    }
    case CMD_SET_MODEL:
        snprintf(text, sizeof text, "switched the model to %s", params_desc((size_t)res->param)->enum_names[res->model]);
        break;
    case CMD_ADD_OBSTACLE: snprintf(text, sizeof text, "added an obstacle"); break;
    case CMD_REMOVE_OBSTACLE: snprintf(text, sizeof text, "removed an obstacle"); break;
    case CMD_ADD_AGENTS: snprintf(text, sizeof text, "added %u agents", (unsigned)res->count); break;
    case CMD_RESET: snprintf(text, sizeof text, "reset the world (%u agents)", (unsigned)res->count); break;
    case CMD_PAUSE: snprintf(text, sizeof text, "paused the simulation"); break;
    case CMD_RESUME: snprintf(text, sizeof text, "resumed the simulation"); break;
    case CMD_STEP: snprintf(text, sizeof text, "stepped one tick (to tick %llu)", (unsigned long long)w->tick); break;
    default: return NULL;
    }
    return strdup(text);
}
