#include "sim/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const border_names[] = {"wrap", "bounce"};

#define F(field) offsetof(sim_params_t, field)

/* Defaults follow the report's tables (zones 25/50/50, field of view 5/3 π,
 * weights 1.5/1/1, avoidance 1.5, leader 10), speeds scaled to units/second. */
static const param_desc_t registry[] = {
    {"sep_radius", PARAM_FLOAT, 1, 200, 25, "u", "separation zone radius", F(sep_radius), NULL},
    {"ali_radius", PARAM_FLOAT, 1, 200, 50, "u", "alignment zone radius", F(ali_radius), NULL},
    {"coh_radius", PARAM_FLOAT, 1, 200, 50, "u", "cohesion zone radius", F(coh_radius), NULL},
    {"fov", PARAM_FLOAT, 0, 360, 300, "deg", "field of view; the blind angle behind is 360 - fov", F(fov_deg), NULL},
    {"w_sep", PARAM_FLOAT, 0, 20, 1.5, "", "separation weight", F(w_sep), NULL},
    {"w_ali", PARAM_FLOAT, 0, 20, 1, "", "alignment weight", F(w_ali), NULL},
    {"w_coh", PARAM_FLOAT, 0, 20, 1, "", "cohesion weight", F(w_coh), NULL},
    {"w_avoid", PARAM_FLOAT, 0, 20, 1.5, "", "obstacle avoidance weight", F(w_avoid), NULL},
    {"w_leader", PARAM_FLOAT, 0, 50, 10, "", "weight of target seeking for leaders", F(w_leader), NULL},
    {"max_speed", PARAM_FLOAT, 1, 1000, 150, "u/s", "speed limit", F(max_speed), NULL},
    {"max_force", PARAM_FLOAT, 1, 10000, 300, "u/s^2", "steering (acceleration) limit", F(max_force), NULL},
    {"obstacle_buffer", PARAM_FLOAT, 0, 200, 15, "u", "clearance agents keep from obstacle edges", F(obstacle_buffer), NULL},
    {"avoid_lookahead", PARAM_FLOAT, 0.05, 5, 1, "s", "how far ahead (in time at current speed) agents look for obstacles", F(avoid_lookahead), NULL},
    {"border", PARAM_ENUM, 0, 1, BORDER_WRAP, "", "what the world's edge does: wrap (torus) or bounce (reflect)", F(border), border_names},
};

#undef F

size_t params_count(void) { return sizeof registry / sizeof registry[0]; }

const param_desc_t *params_desc(size_t index)
{
    return index < params_count() ? &registry[index] : NULL;
}

int params_find(const char *name)
{
    for (size_t i = 0; i < params_count(); i++)
        if (strcmp(registry[i].name, name) == 0) return (int)i;
    return -1;
}

int params_enum_index(const param_desc_t *d, const char *value_name)
{
    if (d->type != PARAM_ENUM) return -1;
    for (int i = 0; i <= (int)d->max; i++)
        if (strcmp(d->enum_names[i], value_name) == 0) return i;
    return -1;
}

static void store(sim_params_t *p, const param_desc_t *d, double v)
{
    char *field = (char *)p + d->offset;
    if (d->type == PARAM_FLOAT) {
        float f = (float)v;
        memcpy(field, &f, sizeof f);
    } else {
        int i = (int)v;
        memcpy(field, &i, sizeof i);
    }
}

void params_defaults(sim_params_t *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < params_count(); i++) store(p, &registry[i], registry[i].def);
}

double params_get(const sim_params_t *p, size_t index)
{
    const param_desc_t *d = params_desc(index);
    if (!d) return NAN;
    const char *field = (const char *)p + d->offset;
    if (d->type == PARAM_FLOAT) {
        float f;
        memcpy(&f, field, sizeof f);
        char text[32];
        /* Shortest of %.6g..%.9g that reads back as the same float. */
        for (int digits = 6; digits <= 9; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, (double)f);
            if ((float)strtod(text, NULL) == f) break;
        }
        return strtod(text, NULL);
    }
    int i;
    memcpy(&i, field, sizeof i);
    return i;
}

int params_set(sim_params_t *p, size_t index, double value, char *msg, size_t msg_len)
{
    const param_desc_t *d = params_desc(index);
    if (!d) {
        snprintf(msg, msg_len, "no parameter with index %zu", index);
        return SIM_E_UNKNOWN_PARAM;
    }
    if (!isfinite(value)) {
        snprintf(msg, msg_len, "%s: value must be a finite number", d->name);
        return SIM_E_BAD_TYPE;
    }
    if (d->type != PARAM_FLOAT && value != floor(value)) {
        snprintf(msg, msg_len, "%s: value must be a whole number, got %g", d->name, value);
        return SIM_E_BAD_TYPE;
    }
    if (value < d->min) {
        snprintf(msg, msg_len, "%s: %g is below the minimum %g", d->name, value, d->min);
        return SIM_E_OUT_OF_RANGE;
    }
    if (value > d->max) {
        snprintf(msg, msg_len, "%s: %g is above the maximum %g", d->name, value, d->max);
        return SIM_E_OUT_OF_RANGE;
    }
    store(p, d, value);
    return SIM_OK;
}
