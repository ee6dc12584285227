/* olfati_beta: the β-agents of Olfati-Saber's Algorithm 3 (olfati.c has
 * the formulas): every obstacle within reach r_β of an agent's surface
 * point adds
 *   c1β φβ(‖q̂ − q‖σ) n̂ + c2β b(q) (p̂ − p)
 * to its control. A crowd among many obstacles has each in reach, so this
 * term, not the pair loop, is what such a crowd costs; during a step it is
 * worked out eight obstacles at a time. */
#ifndef SWARMCAST_OLFATI_BETA_H
#define SWARMCAST_OLFATI_BETA_H

#include "sim/models.h"
#include "sim/motion.h"

/* The β-agents' share of u for an agent at (px, py) moving at (vx, vy),
 * with the world's β gains and k's σ-norm and bump constants. During a
 * step (the obstacles' places copied, motion.h) eight obstacles at a time;
 * otherwise one by one. Both give the same bits: each obstacle's term by
 * the same IEEE operations, the terms summed in table order. */
vec2 olfati_beta_feedback(const world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy);

/* The largest error of that share against the paper's formulas in double
 * precision with libm, relative to the sum of its terms' sizes (c1β·2‖q̂ − q‖
 * /√(1 + ε‖q̂ − q‖²) + c2β‖p̂ − p‖₁ per obstacle in reach): float rounding,
 * the bump's polynomial (bump.h), ‖q̂ − q‖² taken as the gap squared and the
 * shared divisions. test_olfati_beta.c checks it: 2.2·10⁻⁶ at the default
 * parameters, 8.7·10⁻⁶ with h_β = 0.99 (the bump's argument scaled by
 * 1/(1 − h_β) = 100; the loop before the shared divisions gave the same). */
#define OLFATI_BETA_ERROR 2e-5

/* Fills k's per-step values for w's obstacles (olfati_consts_t): during a
 * step, after their places are copied (motion.h). The share is the same
 * bits with or without them; with them, it is cheaper. */
void olfati_beta_prepare(const world_t *w, olfati_consts_t *k);

/* The same one obstacle at a time over w->obstacles: the reference the
 * lanes are held to (test_olfati_beta.c). */
vec2 olfati_beta_feedback_one_by_one(const world_t *w, const olfati_consts_t *k, float px, float py, float vx,
                                     float vy);

#endif
