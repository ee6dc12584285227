/* params: every tunable of the simulation, described once in a registry
 * (name, type, range, default, unit, help). set_param, the hello message,
 * the --set flag and the browser's controls are all driven by this table, so
 * a new parameter is one struct field and one registry line. */
#ifndef SWARMCAST_PARAMS_H
#define SWARMCAST_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { BORDER_WRAP = 0, BORDER_BOUNCE = 1, BORDER_RESPAWN = 2 } border_mode_t;

typedef enum { MODEL_REYNOLDS = 0, MODEL_OLFATI1, MODEL_OLFATI2, MODEL_OLFATI3, MODEL_UNICYCLE, MODEL_COUZIN } model_t;

typedef enum { ALIGN_VELOCITY = 0, ALIGN_HEADING = 1 } align_mode_t;

typedef enum { DELAY_BOTH = 0, DELAY_POSITIONS = 1, DELAY_VELOCITIES = 2 } delay_mode_t;

typedef enum { LEADER_ALONE = 0, LEADER_FRONT = 1 } leader_rule_t;

/* Reynolds' separation and cohesion as two steering rules, or both replaced
 * by seed 001's pairwise potential U(d) = −A/d^m + B/d^n. */
typedef enum { SEPARATION_STEER = 0, SEPARATION_POTENTIAL = 1 } separation_mode_t;

#define SIM_MAX_DELAY_TICKS 30
#define SIM_MAX_PREDATORS 16
#define SIM_MAX_SPECIES 4
/* The largest steer_every: every agent still steers at 60/8 = 7.5 Hz. */
#define SIM_MAX_STEER_EVERY 8
/* The largest max_candidates: the kernel's scratch spans are this long. */
#define SIM_MAX_CANDIDATES 1024
/* Olfati-Saber's agents sense at most this many, whatever max_candidates
 * says: each of their pairs costs about ten Reynolds pairs (square roots,
 * divisions and a cosine), and its α-lattice has six or so neighbours in
 * range. The default cap, so that by default every model is exact below
 * it. */
#define SIM_OLFATI_MAX_CANDIDATES 256

typedef struct sim_params {
    int model;   /* model_t */
    int species; /* how many species share the world (agent id mod species) */
    /* Reynolds boids: zones, fields of view, weights, limits */
    float sep_radius, ali_radius, coh_radius;
    float fov_sep, fov_ali, fov_coh;
    int max_candidates; /* the most neighbour candidates one agent senses per step (a work bound) */
    int steer_every;    /* staggered steering: each agent senses and steers every this many ticks (a work bound) */
    float w_sep, w_ali, w_coh, w_avoid, w_leader;
    int rule_sep, rule_ali, rule_coh; /* each rule on (1) or off (0): off zeroes it, its weight kept */
    float personal_space; /* contact: separation pushes beyond max_force inside this distance */
    int separation;       /* separation_mode_t */
    float pot_a, pot_b;   /* potential: U(d) = −A/d^m + B/d^n … */
    int pot_m, pot_n;     /* … with n > m; cut off at the separation radius */
    int ali_mode; /* align_mode_t */
    float max_speed, max_force;
    float arrive_radius;
    int leader_rule; /* leader_rule_t */
    float w_target;  /* every agent's pull toward the nearest target … */
    float target_radius; /* … until it is this close */
    float w_wander, wander_radius, wander_distance, wander_jitter;
    int predators;
    float predator_speed, fear_radius, w_flee;
    int delay_ticks, delay_mode; /* delayed feedback: neighbours as they were delay_ticks ago */
    int density_radii;           /* density-dependent perception (Hemelrijk) */
    float radius_min, radius_smoothing, radius_influence;
    /* obstacles and borders */
    float obstacle_buffer, avoid_lookahead;
    int border; /* border_mode_t */
    /* Olfati-Saber, Algorithms 1-3 */
    float os_d, os_r, os_d_beta, os_r_beta, os_eps, os_a, os_b, os_h_alpha, os_h_beta;
    float os_c1_alpha, os_c2_alpha, os_c1_beta, os_c2_beta, os_c1_gamma, os_c2_gamma;
    float os_ref_vx, os_ref_vy;
    /* unicycle agents */
    float uni_speed_min, uni_speed_max;
    float uni_k_sep, uni_k_ali, uni_k_coh, uni_k_heading;
    float uni_jitter_min, uni_jitter_max;
    /* Couzin et al. 2002 zone model */
    float cz_r_r, cz_dr_o, cz_dr_a; /* zone of repulsion radius, widths of orientation and attraction */
    float cz_fov, cz_turn_rate, cz_speed, cz_noise;
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
    /* The world's alone: the step reads it from the world's parameters,
     * never from an agent's species, so a species' own value would change
     * nothing. set_param refuses it with a species (params_world_only). */
    bool world_only;
} param_desc_t;

/* Error codes shared by the simulation (0 is success). */
enum {
    SIM_OK = 0,
    SIM_E_OUT_OF_RANGE = -1,
    SIM_E_UNKNOWN_PARAM = -2,
    SIM_E_BAD_TYPE = -3,
    SIM_E_NOT_FOUND = -4,
    SIM_E_LIMIT = -5,
    SIM_E_FORBIDDEN = -6, /* the sender's role may not do that (a visitor, someone else's obstacle) */
    SIM_E_NOT_PAUSED = -7, /* step while the world runs */
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
/* Whether the parameter at index is the world's alone (see world_only). */
bool params_world_only(size_t index);
/* Enum: index of the value name, or -1. */
int params_enum_index(const param_desc_t *d, const char *value_name);

#endif
