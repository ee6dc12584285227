/* params: every tunable of the simulation, described once in a registry
 * (name, type, range, default, unit, help). set_param, the hello message,
 * the --set flag and the browser's controls are all driven by this table, so
 * a new parameter is one struct field and one registry line. */
#ifndef SWARMCAST_PARAMS_H
#define SWARMCAST_PARAMS_H

#include <stddef.h>

typedef enum { BORDER_WRAP = 0, BORDER_BOUNCE = 1 } border_mode_t;

typedef struct sim_params {
    float sep_radius, ali_radius, coh_radius;
    float fov_deg;
    float w_sep, w_ali, w_coh, w_avoid, w_leader;
    float max_speed, max_force;
    float obstacle_buffer, avoid_lookahead;
    int border; /* border_mode_t */
} sim_params_t;

typedef enum { PARAM_FLOAT, PARAM_INT, PARAM_BOOL, PARAM_ENUM } param_type_t;

typedef struct param_desc {
    const char *name;
    param_type_t type;
    double min, max, def;          /* for PARAM_ENUM: index range and default index */
    const char *unit;
    const char *help;
    size_t offset;                 /* of the field in sim_params_t */
    const char *const *enum_names; /* PARAM_ENUM only, `max + 1` names */
} param_desc_t;

/* Error codes shared by the simulation (0 is success). */
enum {
    SIM_OK = 0,
    SIM_E_OUT_OF_RANGE = -1,
    SIM_E_UNKNOWN_PARAM = -2,
    SIM_E_BAD_TYPE = -3,
    SIM_E_NOT_FOUND = -4,
    SIM_E_LIMIT = -5,
};

size_t params_count(void);
const param_desc_t *params_desc(size_t index);
/* Index of the named parameter, or -1. */
int params_find(const char *name);
void params_defaults(sim_params_t *p);

/* Current value as a double (enum: index, bool: 0/1). Floats come back as the
 * shortest decimal that round-trips the stored float (0.1f → 0.1), so that
 * what clients see is what they typed. */
double params_get(const sim_params_t *p, size_t index);
/* Validates and stores. Whole numbers are required for int/bool/enum.
 * On error, writes a human-readable reason to msg and changes nothing. */
int params_set(sim_params_t *p, size_t index, double value, char *msg, size_t msg_len);
/* Enum: index of the value name, or -1. */
int params_enum_index(const param_desc_t *d, const char *value_name);

#endif
