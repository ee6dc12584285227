#include "sim/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const border_names[] = {"wrap", "bounce", "respawn"};
static const char *const model_names[] = {"reynolds", "olfati1", "olfati2", "olfati3", "unicycle", "couzin"};
static const char *const align_names[] = {"velocity", "heading"};
static const char *const delay_names[] = {"both", "positions", "velocities"};
static const char *const leader_names[] = {"alone", "front"};
static const char *const separation_names[] = {"steer", "potential"};

#define F(field) offsetof(sim_params_t, field)
/* Marks a parameter the world's alone (param_desc_t.world_only): every read
 * of it in the step is of the world's value (w->params), none of an agent's
 * species', so a species' own value would be stored and echoed but change
 * nothing. Found by reading every use in server/src (border: the one read
 * through a species, Olfati-Saber's wrap toward the moving reference, is of
 * the world's edge, which agents cross by the world's value; density_radii:
 * the one read through a species, inspect's, reports what the step does,
 * which is by the world's value). */
#define WORLD true
/* A species may have its own value (set_param with species). */
#define SPECIES false

/* Reynolds defaults follow the report's tables (zones 25/50/50, field of
 * view 5/3 π, weights 1.5/1/1, avoidance 1.5, leader 10), speeds in u/s.
 * Olfati-Saber's follow the paper's simulations (ε = 0.1, a = b = 5,
 * h_α = 0.2, h_β = 0.9, r = 1.2 d, d' = 0.6 d, r' = 1.2 d') with d = 7
 * scaled to d = 25 u; the gains keep the paper's order c1α < c1γ·‖q‖ < c1β
 * and c2 = 2√c1. The unicycle's follow the lesson (gains 1, 0.3, 1,
 * 1.3; jitter 0.9-1.2; speeds 25-35 px/s scaled ×4). Couzin's follow
 * the paper's Table 1 with one body length = 10 u and the paper's time run
 * 4× faster (r_r = 1 → 10 u; s = 3 /s → 120 u/s; θ = 40°/s → 160°/s;
 * σ = 0.05 rad per τ = 0.1 s → 0.05/√(0.1/4) = 0.316 rad/√s), Δr_o = 2
 * and Δr_a = 14 body lengths. */
static const param_desc_t registry[] = {
    {"model", PARAM_ENUM, 0, 5, MODEL_REYNOLDS, "", "flocking model: reynolds, olfati1/2/3 (Olfati-Saber Algorithm 1, +gamma target feedback, +beta obstacles), unicycle, couzin (Couzin et al. 2002 zones of repulsion, orientation and attraction)", F(model), model_names, SPECIES},
    {"species", PARAM_INT, 1, SIM_MAX_SPECIES, 1, "", "species in the world (agent id mod species); each flocks only with its own kind (separation keeps off every agent) and may have its own parameters (set_param with species), all but the world-only ones", F(species), NULL, WORLD},
    {"sep_radius", PARAM_FLOAT, 1, 200, 25, "u", "separation zone radius", F(sep_radius), NULL, SPECIES},
    {"ali_radius", PARAM_FLOAT, 1, 200, 50, "u", "alignment zone radius", F(ali_radius), NULL, SPECIES},
    {"coh_radius", PARAM_FLOAT, 1, 200, 50, "u", "cohesion zone radius", F(coh_radius), NULL, SPECIES},
    {"fov_sep", PARAM_FLOAT, 0, 360, 300, "deg", "field of view of separation; the blind angle behind is 360 - fov", F(fov_sep), NULL, SPECIES},
    {"fov_ali", PARAM_FLOAT, 0, 360, 300, "deg", "field of view of alignment", F(fov_ali), NULL, SPECIES},
    {"fov_coh", PARAM_FLOAT, 0, 360, 300, "deg", "field of view of cohesion", F(fov_coh), NULL, SPECIES},
    {"max_candidates", PARAM_INT, 16, SIM_MAX_CANDIDATES, 256, "agents", "the most neighbour candidates one agent senses per step: where the 3x3 block of grid cells around it holds more, it senses an even sample of them (a share of each cell), which bounds a step's work in a dense crowd; Olfati-Saber agents sense at most 256; in a population over 20,480 every agent senses at most 5,242,880 / N of them (but at least 128), so that a crowd's step costs at most about 5.2 million candidate tests", F(max_candidates), NULL, WORLD},
    {"steer_every", PARAM_INT, 1, SIM_MAX_STEER_EVERY, 1, "ticks", "staggered steering, a work bound: each agent senses its neighbours and steers only every this many ticks (the rows of grid cells take turns) and in between keeps its velocity and moves straight on (still kept out of obstacles and inside the border); a steer stands for the ticks it covers (max_force and the other rates times this), so the turning rate per second is the same, but agents react up to this many ticks late (3: 50 ms at 60 Hz) and the flock is not the same dynamics; 1: every agent every tick (exact); world-wide (the world's value, not a species' own). The Olfati-Saber models apply their feedback as one explicit step k ticks long: at 6 to 8, with the gains they start with, the target- and obstacle-following flocks (olfati2, olfati3) overshoot and shake apart", F(steer_every), NULL, WORLD},
    {"w_sep", PARAM_FLOAT, 0, 20, 1.5, "", "separation weight", F(w_sep), NULL, SPECIES},
    {"w_ali", PARAM_FLOAT, 0, 20, 1, "", "alignment weight", F(w_ali), NULL, SPECIES},
    {"w_coh", PARAM_FLOAT, 0, 20, 1, "", "cohesion weight", F(w_coh), NULL, SPECIES},
    {"rule_sep", PARAM_BOOL, 0, 1, 1, "", "separation rule on; off zeroes it (its weight is kept for when it comes back on)", F(rule_sep), NULL, SPECIES},
    {"rule_ali", PARAM_BOOL, 0, 1, 1, "", "alignment rule on; off zeroes it (its weight is kept)", F(rule_ali), NULL, SPECIES},
    {"rule_coh", PARAM_BOOL, 0, 1, 1, "", "cohesion rule on; off zeroes it (its weight is kept)", F(rule_coh), NULL, SPECIES},
    {"personal_space", PARAM_FLOAT, 0, 100, 14, "u", "contact: bodies closer than this (any species) push the agent away past max_force, harder the closer they are, and it matches its neighbours' velocity (an inelastic contact): a pressure that keeps the spacing of a crowd pulled to a target without shaking the flock's order; the unicycle turns away harder from 1.5 times this; 0: separation is capped by max_force like the other rules", F(personal_space), NULL, SPECIES},
    {"separation", PARAM_ENUM, 0, 1, SEPARATION_STEER, "", "steer: Reynolds' separation and cohesion rules; potential: both replaced by the pairwise force F(d) = -dU/dd of U(d) = -A/d^m + B/d^n (seed 001 6.1), equilibrium at (nB/mA)^(1/(n-m)), cut off at the separation radius", F(separation), separation_names, SPECIES},
    {"pot_a", PARAM_FLOAT, 0, 1e6, 20000, "u^(m+2)/s^2", "potential: attraction A (seed 001's 2000, times 10 for a force that holds against the other rules)", F(pot_a), NULL, SPECIES},
    {"pot_b", PARAM_FLOAT, 0, 1e7, 120000, "u^(n+2)/s^2", "potential: repulsion B (seed 001's 1000, times 10 and times 12: with m = 1, n = 2 the equilibrium is 12 u)", F(pot_b), NULL, SPECIES},
    {"pot_m", PARAM_INT, 1, 8, 1, "", "potential: attraction exponent m (below n)", F(pot_m), NULL, SPECIES},
    {"pot_n", PARAM_INT, 2, 9, 2, "", "potential: repulsion exponent n (above m)", F(pot_n), NULL, SPECIES},
    {"ali_mode", PARAM_ENUM, 0, 1, ALIGN_VELOCITY, "", "alignment by velocity matching (mean velocity) or by heading (mean of unit headings)", F(ali_mode), align_names, SPECIES},
    {"w_avoid", PARAM_FLOAT, 0, 20, 1.5, "", "obstacle avoidance weight", F(w_avoid), NULL, SPECIES},
    {"w_leader", PARAM_FLOAT, 0, 50, 10, "", "weight of target seeking for leaders", F(w_leader), NULL, SPECIES},
    {"max_speed", PARAM_FLOAT, 1, 1000, 150, "u/s", "speed limit", F(max_speed), NULL, SPECIES},
    {"max_force", PARAM_FLOAT, 1, 10000, 300, "u/s^2", "steering (acceleration) limit", F(max_force), NULL, SPECIES},
    {"leader_rule", PARAM_ENUM, 0, 1, LEADER_ALONE, "", "who leads to a target: alone (no neighbour in any zone, the report's rule) or front (no neighbour ahead in the cohesion zone: the front of every group)", F(leader_rule), leader_names, SPECIES},
    {"w_target", PARAM_FLOAT, 0, 20, 0.5, "", "weight with which every agent, not only leaders, steers to the nearest target", F(w_target), NULL, SPECIES},
    {"target_radius", PARAM_FLOAT, 0, 1000, 120, "u", "followers' pull to a target fades from full at twice this distance to nothing at it (they arrive and gather round it)", F(target_radius), NULL, SPECIES},
    {"arrive_radius", PARAM_FLOAT, 0, 500, 0, "u", "leaders slow down inside this distance of their target (arrive); 0 seeks at full speed", F(arrive_radius), NULL, SPECIES},
    {"w_wander", PARAM_FLOAT, 0, 20, 0, "", "weight of wandering: steering toward a point on a circle ahead whose angle drifts", F(w_wander), NULL, SPECIES},
    {"wander_radius", PARAM_FLOAT, 1, 500, 40, "u", "wander: radius of the circle", F(wander_radius), NULL, WORLD},
    {"wander_distance", PARAM_FLOAT, 0, 1000, 80, "u", "wander: how far ahead the circle's centre is", F(wander_distance), NULL, WORLD},
    {"wander_jitter", PARAM_FLOAT, 0, 100, 15, "rad/s", "wander: how fast the point's angle drifts at most", F(wander_jitter), NULL, WORLD},
    {"predators", PARAM_INT, 0, SIM_MAX_PREDATORS, 0, "", "predators that pursue the nearest agent (listed after the agents in snapshots)", F(predators), NULL, WORLD},
    {"predator_speed", PARAM_FLOAT, 1, 1000, 180, "u/s", "predators' speed", F(predator_speed), NULL, WORLD},
    {"fear_radius", PARAM_FLOAT, 0, 1000, 120, "u", "agents closer than this to a predator evade it", F(fear_radius), NULL, WORLD},
    {"w_flee", PARAM_FLOAT, 0, 50, 5, "", "weight of evading predators", F(w_flee), NULL, SPECIES},
    {"density_radii", PARAM_BOOL, 0, 1, 0, "", "density-dependent perception: alignment and cohesion radii shrink as neighbours crowd in", F(density_radii), NULL, WORLD},
    {"radius_min", PARAM_FLOAT, 1, 200, 10, "u", "density-dependent perception: the smallest alignment/cohesion radius", F(radius_min), NULL, SPECIES},
    {"radius_smoothing", PARAM_FLOAT, 0, 60, 1, "1/s", "density-dependent perception: how fast a radius moves toward its density target (s = smoothing * dt)", F(radius_smoothing), NULL, SPECIES},
    {"radius_influence", PARAM_FLOAT, 0, 50, 2, "u", "density-dependent perception: radius lost per neighbour (target = max radius - influence * neighbours)", F(radius_influence), NULL, SPECIES},
    {"delay_ticks", PARAM_INT, 0, SIM_MAX_DELAY_TICKS, 0, "ticks", "delayed feedback: agents see their neighbours as they were this many ticks ago", F(delay_ticks), NULL, WORLD},
    {"delay_mode", PARAM_ENUM, 0, 2, DELAY_BOTH, "", "what the delay applies to: both, positions or velocities of the neighbours", F(delay_mode), delay_names, WORLD},
    {"obstacle_buffer", PARAM_FLOAT, 0, 200, 15, "u", "clearance agents keep from obstacle edges", F(obstacle_buffer), NULL, WORLD},
    {"avoid_lookahead", PARAM_FLOAT, 0.05, 5, 1, "s", "how far ahead (in time at current speed) agents look for obstacles", F(avoid_lookahead), NULL, WORLD},
    {"border", PARAM_ENUM, 0, 2, BORDER_WRAP, "", "what the world's edge does: wrap (torus), bounce (reflect) or respawn (reappear inside)", F(border), border_names, WORLD},
    {"os_d", PARAM_FLOAT, 1, 200, 25, "u", "Olfati-Saber: desired distance d between alpha-agents", F(os_d), NULL, SPECIES},
    {"os_r", PARAM_FLOAT, 1, 240, 30, "u", "Olfati-Saber: interaction range r (1.2 d in the paper)", F(os_r), NULL, SPECIES},
    {"os_d_beta", PARAM_FLOAT, 1, 200, 15, "u", "Olfati-Saber: desired distance d' to obstacles (0.6 d)", F(os_d_beta), NULL, SPECIES},
    {"os_r_beta", PARAM_FLOAT, 1, 240, 18, "u", "Olfati-Saber: obstacle interaction range r' (1.2 d')", F(os_r_beta), NULL, SPECIES},
    {"os_eps", PARAM_FLOAT, 0.001, 1, 0.1, "", "Olfati-Saber: sigma-norm parameter epsilon", F(os_eps), NULL, SPECIES},
    {"os_a", PARAM_FLOAT, 0.01, 100, 5, "", "Olfati-Saber: action function a (attraction), 0 < a <= b", F(os_a), NULL, SPECIES},
    {"os_b", PARAM_FLOAT, 0.01, 100, 5, "", "Olfati-Saber: action function b (repulsion)", F(os_b), NULL, SPECIES},
    {"os_h_alpha", PARAM_FLOAT, 0, 0.99, 0.2, "", "Olfati-Saber: bump function h for alpha-agents", F(os_h_alpha), NULL, SPECIES},
    {"os_h_beta", PARAM_FLOAT, 0, 0.99, 0.9, "", "Olfati-Saber: bump function h for beta-agents", F(os_h_beta), NULL, SPECIES},
    {"os_c1_alpha", PARAM_FLOAT, 0, 100, 3, "", "Olfati-Saber: gradient gain c1 of alpha-agents", F(os_c1_alpha), NULL, SPECIES},
    {"os_c2_alpha", PARAM_FLOAT, 0, 100, 3.46, "", "Olfati-Saber: consensus gain c2 of alpha-agents (2 sqrt c1)", F(os_c2_alpha), NULL, SPECIES},
    {"os_c1_beta", PARAM_FLOAT, 0, 1000, 100, "", "Olfati-Saber: gradient gain c1 of beta-agents (obstacles)", F(os_c1_beta), NULL, WORLD},
    {"os_c2_beta", PARAM_FLOAT, 0, 1000, 20, "", "Olfati-Saber: consensus gain c2 of beta-agents", F(os_c2_beta), NULL, WORLD},
    {"os_c1_gamma", PARAM_FLOAT, 0, 100, 0.05, "1/s^2", "Olfati-Saber: position feedback c1 of the gamma-agent (target)", F(os_c1_gamma), NULL, SPECIES},
    {"os_c2_gamma", PARAM_FLOAT, 0, 100, 0.45, "1/s", "Olfati-Saber: velocity feedback c2 of the gamma-agent", F(os_c2_gamma), NULL, SPECIES},
    {"os_ref_vx", PARAM_FLOAT, -500, 500, 0, "u/s", "Olfati-Saber: velocity of the gamma-agent when no client has a target (x)", F(os_ref_vx), NULL, SPECIES},
    {"os_ref_vy", PARAM_FLOAT, -500, 500, 0, "u/s", "Olfati-Saber: velocity of the gamma-agent when no client has a target (y)", F(os_ref_vy), NULL, SPECIES},
    {"uni_speed_min", PARAM_FLOAT, 1, 1000, 100, "u/s", "unicycle: slowest constant speed drawn for an agent", F(uni_speed_min), NULL, SPECIES},
    {"uni_speed_max", PARAM_FLOAT, 1, 1000, 140, "u/s", "unicycle: fastest constant speed drawn for an agent", F(uni_speed_max), NULL, SPECIES},
    {"uni_k_sep", PARAM_FLOAT, 0, 20, 1, "", "unicycle: gain of the separation unit vector", F(uni_k_sep), NULL, SPECIES},
    {"uni_k_ali", PARAM_FLOAT, 0, 20, 0.3, "", "unicycle: gain of the alignment unit vector", F(uni_k_ali), NULL, SPECIES},
    {"uni_k_coh", PARAM_FLOAT, 0, 20, 1, "", "unicycle: gain of the cohesion unit vector", F(uni_k_coh), NULL, SPECIES},
    {"uni_k_heading", PARAM_FLOAT, 0, 50, 1.3, "1/s", "unicycle: proportional gain on the heading error", F(uni_k_heading), NULL, SPECIES},
    {"uni_jitter_min", PARAM_FLOAT, 0, 2, 0.9, "", "unicycle: lowest factor the gains are multiplied by each tick", F(uni_jitter_min), NULL, SPECIES},
    {"uni_jitter_max", PARAM_FLOAT, 0, 2, 1.2, "", "unicycle: highest factor the gains are multiplied by each tick", F(uni_jitter_max), NULL, SPECIES},
    {"cz_r_r", PARAM_FLOAT, 1, 100, 10, "u", "couzin: radius r_r of the zone of repulsion (one body length in the paper; a neighbour inside it decides alone)", F(cz_r_r), NULL, SPECIES},
    {"cz_dr_o", PARAM_FLOAT, 0, 300, 20, "u", "couzin: width delta r_o of the zone of orientation, from r_r out (paper: 0-15 body lengths; swarm, torus, dynamic then highly parallel as it widens)", F(cz_dr_o), NULL, SPECIES},
    {"cz_dr_a", PARAM_FLOAT, 0, 300, 140, "u", "couzin: width delta r_a of the zone of attraction, beyond the zone of orientation (paper: 0-15 body lengths)", F(cz_dr_a), NULL, SPECIES},
    {"cz_fov", PARAM_FLOAT, 0, 360, 270, "deg", "couzin: field of perception alpha; the blind angle behind is 360 - alpha", F(cz_fov), NULL, SPECIES},
    {"cz_turn_rate", PARAM_FLOAT, 1, 3600, 160, "deg/s", "couzin: maximum turning rate theta (the heading turns at most theta * dt per tick)", F(cz_turn_rate), NULL, SPECIES},
    {"cz_speed", PARAM_FLOAT, 1, 1000, 120, "u/s", "couzin: constant speed s", F(cz_speed), NULL, SPECIES},
    {"cz_noise", PARAM_FLOAT, 0, 10, 0.316, "rad/sqrt(s)", "couzin: Gaussian angular noise on the desired direction, standard deviation cz_noise * sqrt(dt) per tick", F(cz_noise), NULL, SPECIES},
};

#undef F
#undef WORLD
#undef SPECIES

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

bool params_world_only(size_t index)
{
    return index < params_count() && registry[index].world_only;
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
