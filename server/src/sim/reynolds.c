/* reynolds: Reynolds' boids as steering behaviours (report chapter 3).
 *
 * Every rule yields a steering vector "desired velocity − velocity", with the
 * desired velocity of length max_speed. As in the report (eq. 3.11–3.17),
 * where a step's steering is the step's change of velocity, a steer is the
 * change the rule asks for this tick, limited to max_force·dt; the rules
 * that act on an agent are combined as a weighted average (over the rules
 * that fired), then v += Δv, |v| ≤ max_speed, p += v·dt. So max_force is
 * the agent's real acceleration limit, whatever the tick rate.
 *
 * The rules run for eight agents at once, one per vector lane, with the
 * same IEEE operations in the same order as one agent at a time would do
 * them: an agent's result does not depend on its batch. The looks at
 * predators and obstacles, and wandering, are eight agents at a time too
 * (motion.h), each lane with its agent's operations. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"

/* Each lane's value of a float parameter: broadcast when all share one
 * species' parameters, else read from each agent's. */
LANES_INLINE lanes_f param_lanes(const sim_params_t *const ps[LANES], bool uniform, size_t offset)
{
    lanes_f v;
    if (uniform) {
        float f;
        memcpy(&f, (const char *)ps[0] + offset, sizeof f);
        return (lanes_f){0} + f;
    }
    for (int k = 0; k < LANES; k++) memcpy(&v[k], (const char *)ps[k] + offset, sizeof(float));
    return v;
}
#define PARAM(field) param_lanes(ps, uniform, offsetof(sim_params_t, field))

/* Contact (issue 19): how fast separation's push grows as bodies come
 * inside personal_space, and the most it adds, in units of max_force (see
 * the push below). Stiff enough that a crowd pulled to a target holds
 * close to its free spacing; the cap only stops a pair met at d → 0 from
 * flinging the agents apart in one tick. */
#define CONTACT_STIFFNESS 8.0f
#define PUSH_MAX 24.0f
/* The most the potential's force changes velocity, in the same units. */
#define POTENTIAL_MAX 10.0f

/* What the rarer rules found for a batch's agents, eight at a time
 * (motion_evade_agents, motion_avoid_agents): lane k is agent i0 + k. */
typedef struct rare_looks {
    float away_x[LANES], away_y[LANES], avoid_x[LANES], avoid_y[LANES];
    int32_t fled[LANES], steers[LANES];
} rare_looks_t;

/* Evading predators and wandering, two more "toward a direction" rules,
 * then avoiding obstacles, added to the sums (accx, accy, wsum) of the
 * lanes they act on, lane by lane with the operations one agent alone
 * would do: a sum is left as it is (not added 0) where a rule does not
 * act. Wandering's points move eight at a time (motion_wander_agents). */
LANES_INLINE void rare_rules(const world_t *w, const sim_params_t *const ps[LANES], bool uniform, size_t i0, int count,
                             const rare_looks_t *looks, lanes_f vx, lanes_f vy, lanes_f max_speed, lanes_f max_dv,
                             lanes_f *accx, lanes_f *accy, lanes_f *wsum)
{
    const agents_t *a = &w->cur;
    const lanes_f zero = {0}, one = zero + 1.0f;
    lanes_f dir_x[2] = {lanes_load(looks->away_x), zero}, dir_y[2] = {lanes_load(looks->away_y), zero};
    lanes_i flees, wanders = {0}, steers;
    memcpy(&flees, looks->fled, sizeof flees);
    memcpy(&steers, looks->steers, sizeof steers);
    if (!w->n_predators) flees = wanders;
    const lanes_f w_wander = PARAM(w_wander);
    for (int k = 0; k < count && w->wander; k++) wanders[k] = ps[k]->w_wander > 0.0f ? -1 : 0;
    if (lanes_any(wanders)) {
        float wx[LANES] = {0}, wy[LANES] = {0}, vxs[LANES], vys[LANES];
        lanes_store(vxs, vx), lanes_store(vys, vy);
        motion_wander_agents(w, count, a->id + i0, vxs, vys, (const int32_t *)&wanders, wx, wy);
        dir_x[1] = lanes_load(wx), dir_y[1] = lanes_load(wy);
    }
    const lanes_f wt[2] = {lanes_keep(flees, PARAM(w_flee)), lanes_keep(wanders, w_wander)};
    for (int r = 0; r < 2; r++) {
        const lanes_f len2 = dir_x[r] * dir_x[r] + dir_y[r] * dir_y[r];
        const lanes_i acts = (wt[r] > 0.0f) & (len2 > 0.0f);
        if (!lanes_any(acts)) continue;
        const lanes_f scale = max_speed / lanes_sqrt(lanes_select(acts, len2, one));
        const lanes_f sx = dir_x[r] * scale - vx, sy = dir_y[r] * scale - vy, s2 = sx * sx + sy * sy;
        const lanes_f limit = lanes_select(s2 > max_dv * max_dv, max_dv / lanes_sqrt(s2), one);
        *accx = lanes_select(acts, *accx + wt[r] * sx * limit, *accx);
        *accy = lanes_select(acts, *accy + wt[r] * sy * limit, *accy);
        *wsum = lanes_select(acts, *wsum + wt[r], *wsum);
    }
    /* The steer is of length max_force: as a change of velocity, times the
     * time a steer stands for (world_steer_dt). */
    const lanes_f w_avoid = PARAM(w_avoid), dt = zero + world_steer_dt(w);
    const lanes_i avoids = steers & (w_avoid > 0.0f);
    if (!lanes_any(avoids)) return;
    *accx = lanes_select(avoids, *accx + w_avoid * lanes_load(looks->avoid_x) * dt, *accx);
    *accy = lanes_select(avoids, *accy + w_avoid * lanes_load(looks->avoid_y) * dt, *accy);
    *wsum = lanes_select(avoids, *wsum + w_avoid, *wsum);
}

/* The looks at predators and obstacles of the batch's agents that ask for
 * them (their species' w_flee, w_avoid), eight at a time. */
static void rare_looks(const world_t *w, const sim_params_t *const ps[LANES], size_t i0, int count,
                       rare_looks_t *looks)
{
    const agents_t *a = &w->cur;
    bool flee = false, avoid = false;
    for (int k = 0; k < count; k++) flee |= ps[k]->w_flee > 0.0f, avoid |= ps[k]->w_avoid > 0;
    memset(looks->fled, 0, sizeof looks->fled);
    memset(looks->steers, 0, sizeof looks->steers);
    if (w->n_predators && flee)
        motion_evade_agents(w, count, a->x + i0, a->y + i0, looks->away_x, looks->away_y, looks->fled);
    if (w->n_obstacles && avoid)
        motion_avoid_agents(w, count, a->x + i0, a->y + i0, a->vx + i0, a->vy + i0, looks->avoid_x, looks->avoid_y,
                            looks->steers);
}

KERNEL_CLONES
void reynolds_batch(const world_t *w, const reynolds_batch_t *b)
{
    const agents_t *a = &w->cur;
    const size_t i0 = b->first;
    const lanes_f zero = {0};
    const lanes_f px = lanes_load(a->x + i0), py = lanes_load(a->y + i0);
    const lanes_f vx = lanes_load(a->vx + i0), vy = lanes_load(a->vy + i0);
    const int count = b->count;

    /* What each agent sensed, one field per vector (the lanes past count
     * hold what an earlier batch left, or zeros; their results are not
     * stored). */
    const quad_f(*q)[3] = b->sums;
    lanes_f f0[4], f1[4], f2[4];
    lanes_from_quads(q[0][0], q[1][0], q[2][0], q[3][0], q[4][0], q[5][0], q[6][0], q[7][0], f0);
    lanes_from_quads(q[0][1], q[1][1], q[2][1], q[3][1], q[4][1], q[5][1], q[6][1], q[7][1], f1);
    lanes_from_quads(q[0][2], q[1][2], q[2][2], q[3][2], q[4][2], q[5][2], q[6][2], q[7][2], f2);
    const lanes_f sep_x = f0[0], sep_y = f0[1], ali_x = f0[2], ali_y = f0[3];
    const lanes_f coh_x = f1[0], coh_y = f1[1], n_any = f1[2], n_ahead = f2[1];
    /* Σ F(d) d̂ away from each neighbour (the potential), or the contact
     * sum Σ d̂ (1/d − d/r²) over the bodies inside personal_space r */
    const lanes_f pair_x = f2[2], pair_y = f2[3];

    /* Each agent's species' parameters. */
    const sim_params_t *ps[LANES];
    const bool uniform = w->params.species <= 1;
    for (int k = 0; k < LANES; k++) ps[k] = k < count ? world_params_for(w, a->flags[i0 + k]) : &w->params;
    /* A steer's change of velocity stands for the ticks until the agent's
     * next (staggered steering, world_steer_dt): max_force·k·dt, the same
     * acceleration limit per second, so the same turning rate. */
    const float steer_dt = world_steer_dt(w);
    const lanes_f max_speed = PARAM(max_speed), max_dv = PARAM(max_force) * steer_dt;
    lanes_i front_rule;
    for (int k = 0; k < LANES; k++) front_rule[k] = ps[k]->leader_rule == LEADER_FRONT ? -1 : 0;

    /* A leader: no neighbour in any zone (or, by leader_rule "front", none
     * ahead), so it steers to the nearest target with w_leader; agents that
     * see it follow, and the flock is led. Inside arrive_radius it wants to
     * go slower, down to a stop on the target. Every agent may also be
     * drawn to the nearest target a little (w_target), leader or not: the
     * click a viewer makes is felt by all; that pull fades to nothing at
     * target_radius, so the flock gathers round the target instead of
     * crushing onto one point. */
    const lanes_i leads = lanes_select(front_rule, n_ahead, n_any) == 0.0f;
    const lanes_f w_target = PARAM(w_target);
    lanes_f to_x = zero, to_y = zero, leader_speed = max_speed, target_weight = zero;
    lanes_i leader = {0};
    const lanes_i wants = leads | (w_target > 0.0f);
    if (w->n_targets && lanes_any(wants)) {
        float tx[LANES], ty[LANES];
        lanes_i found;
        motion_nearest_target_agents(w, LANES, a->x + i0, a->y + i0, tx, ty, (int32_t *)&found);
        to_x = lanes_load(tx), to_y = lanes_load(ty);
        found &= wants;
        to_x = lanes_keep(found, to_x);
        to_y = lanes_keep(found, to_y);
        leader = leads & found;
        const lanes_f d2 = to_x * to_x + to_y * to_y, radius = PARAM(target_radius);
        /* A follower arrives: its pull fades from w_target, at twice
         * target_radius or farther, to nothing at target_radius (as the
         * square of the way left), so the flock's edge is not driven into
         * the crowd already gathered. */
        const lanes_f unit = zero + 1.0f;
        const lanes_f beyond = (lanes_sqrt(d2) - radius) / lanes_select(radius > 0.0f, radius, unit);
        const lanes_f fade = lanes_select(beyond < 1.0f, lanes_select(beyond > 0.0f, beyond, zero), unit);
        const lanes_f fading = w_target * lanes_select(radius > 0.0f, fade * fade, unit);
        const lanes_f pull = lanes_select(d2 > radius * radius, fading, zero);
        target_weight = lanes_keep(found, lanes_select(leads, PARAM(w_leader), pull));
        const lanes_f arrive = PARAM(arrive_radius);
        if (lanes_any(arrive > 0.0f)) {
            const lanes_f d = lanes_sqrt(d2);
            const lanes_i slow = found & (arrive > 0.0f) & (d < arrive);
            leader_speed = lanes_select(slow, max_speed * d / arrive, max_speed);
        }
    }

    /* The four "steer toward a direction" rules — separation, alignment,
     * cohesion, leader — each d̂·speed − v limited to max_force·dt, side by
     * side. A rule with no direction (it saw no one, or its sum is 0) gets
     * weight 0 and adds nothing. */
    const lanes_f dir_x[4] = {sep_x, ali_x, coh_x, to_x};
    const lanes_f dir_y[4] = {sep_y, ali_y, coh_y, to_y};
    const lanes_f speed[4] = {max_speed, max_speed, max_speed, leader_speed};
    /* A rule switched off (rule_sep/ali/coh = 0) weighs nothing; on, its
     * weight is the parameter's bit for bit (so the defaults step as before). */
    lanes_i sep_on, ali_on, coh_on, potential;
    for (int k = 0; k < LANES; k++) {
        /* Seed 001's potential function replaces separation and cohesion. */
        potential[k] = ps[k]->separation == SEPARATION_POTENTIAL ? -1 : 0;
        sep_on[k] = ps[k]->rule_sep && !potential[k] ? -1 : 0;
        ali_on[k] = ps[k]->rule_ali ? -1 : 0;
        coh_on[k] = ps[k]->rule_coh && !potential[k] ? -1 : 0;
    }
    const lanes_f weight[4] = {lanes_keep(sep_on, PARAM(w_sep)), lanes_keep(ali_on, PARAM(w_ali)),
                               lanes_keep(coh_on, PARAM(w_coh)), target_weight};
    const lanes_f one = zero + 1.0f;
    lanes_f part_x[4], part_y[4], part_w[4];
    for (int k = 0; k < 4; k++) {
        const lanes_f len2 = dir_x[k] * dir_x[k] + dir_y[k] * dir_y[k];
        const lanes_i some = len2 > 0.0f;
        const lanes_f scale = speed[k] / lanes_sqrt(lanes_select(some, len2, one));
        const lanes_f sx = dir_x[k] * scale - vx, sy = dir_y[k] * scale - vy;
        const lanes_f s2 = sx * sx + sy * sy;
        const lanes_f limit = lanes_select(s2 > max_dv * max_dv, max_dv / lanes_sqrt(s2), one);
        const lanes_f wk = lanes_keep(some, weight[k]);
        part_x[k] = wk * (sx * limit);
        part_y[k] = wk * (sy * limit);
        part_w[k] = wk;
    }
    lanes_f accx = (part_x[0] + part_x[1]) + (part_x[2] + part_x[3]);
    lanes_f accy = (part_y[0] + part_y[1]) + (part_y[2] + part_y[3]);
    lanes_f wsum = (part_w[0] + part_w[1]) + (part_w[2] + part_w[3]);
    /* Seed 001's potential takes the place of separation and cohesion in
     * the average, with their weights, so that the other rules keep their
     * shares. Its change of velocity is the force times dt, not limited to
     * max_force·dt (that cap is what lets a pull crush a crowd, above),
     * only to POTENTIAL_MAX times it, so that a pair at d → 0 cannot fling
     * the agents across the world in one tick. */
    if (lanes_any(potential)) {
        lanes_f pot_w = zero;
        for (int k = 0; k < LANES; k++)
            pot_w[k] = (ps[k]->rule_sep ? ps[k]->w_sep : 0.0f) + (ps[k]->rule_coh ? ps[k]->w_coh : 0.0f);
        const lanes_f fx = pair_x * steer_dt, fy = pair_y * steer_dt;
        const lanes_f force2 = fx * fx + fy * fy, cap = POTENTIAL_MAX * max_dv;
        const lanes_f magnitude = lanes_sqrt(lanes_select(force2 > 0.0f, force2, one));
        const lanes_f scale = lanes_select(force2 > cap * cap, cap / magnitude, one);
        const lanes_i acts = potential & (force2 > 0.0f);
        pot_w = lanes_keep(acts, pot_w);
        accx += pot_w * (fx * scale);
        accy += pot_w * (fy * scale);
        wsum += pot_w;
    }

    if (w->n_predators || w->wander || w->n_obstacles) {
        rare_looks_t looks;
        rare_looks(w, ps, i0, count, &looks);
        rare_rules(w, ps, uniform, i0, count, &looks, vx, vy, max_speed, max_dv, &accx, &accy, &wsum);
    }

    /* The weighted average, then the speed limit. */
    lanes_f nvx = lanes_select(wsum > 0.0f, vx + accx / wsum, vx);
    lanes_f nvy = lanes_select(wsum > 0.0f, vy + accy / wsum, vy);
    /* Contact (issue 19): inside personal_space r, separation has a
     * budget of its own, added after the average. In the average, a
     * separation limited to max_force like every other rule weighs the
     * same whether neighbours are 20 u or 1 u away, so any steady pull (a
     * target, cohesion, a turning mill) packs a crowd until agents
     * overlap. The contact sum C = Σ d̂ (1/d − d/r²) counts only the bodies
     * inside r, of any species, all round (the kernel's pair sums); its
     * push, CONTACT_STIFFNESS·r·|C| times w_sep·max_force along Ĉ (up to
     * PUSH_MAX), is nothing at r and grows as they close in: a pressure
     * that balances the pull at a spacing. Ordinary flight, where bodies
     * stay outside r, never feels it.
     *
     * And the contact is inelastic: an agent pushed also matches its
     * neighbours' mean velocity (alignment's sum) within the same budget.
     * A push alone is a spring: it bounces, and in a crowd every bounce
     * is heading noise that melts the flock's order (3,000 agents in the
     * default world stayed disordered); damped, the crowd settles into a
     * lattice that flies as one. */
    const lanes_f personal = PARAM(personal_space);
    if (lanes_any(personal > 0.0f)) {
        const lanes_f c_len = lanes_sqrt(pair_x * pair_x + pair_y * pair_y);
        const lanes_f crowding = CONTACT_STIFFNESS * personal * c_len;
        const lanes_f capped = lanes_select(crowding < PUSH_MAX, crowding, zero + PUSH_MAX);
        const lanes_f w_sep = PARAM(w_sep);
        const lanes_i pushes = sep_on & (w_sep > 0.0f) & (crowding > 0.0f) & (personal > 0.0f) & ~potential;
        const lanes_f push = lanes_keep(pushes, w_sep * max_dv * capped / lanes_select(pushes, c_len, one));
        lanes_f push_x = push * pair_x, push_y = push * pair_y;
        /* Sideways and braking, never turning the agent round: a push
         * against its velocity at most halves it (a neighbour met head-on
         * is passed, not fled from, which would scramble the headings of
         * a flock in flight). */
        const lanes_f v2 = vx * vx + vy * vy, against = push_x * vx + push_y * vy;
        const lanes_i too_hard = (against < -0.5f * v2) & (v2 > 0.0f);
        const lanes_f give_back = lanes_keep(too_hard, (-0.5f * v2 - against) / lanes_select(too_hard, v2, one));
        push_x += give_back * vx;
        push_y += give_back * vy;
        nvx += push_x;
        nvy += push_y;
        /* The neighbours' mean velocity: alignment's sum over its count
         * (by heading, the mean heading at full speed). */
        const lanes_f n_ali = f1[3];
        const lanes_i damps = pushes & ali_on & (n_ali > 0.0f);
        lanes_f per;
        for (int k = 0; k < LANES; k++) per[k] = ps[k]->ali_mode == ALIGN_HEADING ? ps[k]->max_speed : 1.0f;
        per = per / lanes_select(damps, n_ali, one);
        const lanes_f rx = ali_x * per - nvx, ry = ali_y * per - nvy, r2 = rx * rx + ry * ry;
        const lanes_f budget = max_dv * capped;
        const lanes_f match = lanes_select(r2 > budget * budget, budget / lanes_sqrt(lanes_select(r2 > 0.0f, r2, one)), one);
        nvx += lanes_keep(damps, rx * match);
        nvy += lanes_keep(damps, ry * match);
    }
    const lanes_f speed2 = nvx * nvx + nvy * nvy;
    const lanes_i too_fast = speed2 > max_speed * max_speed;
    const lanes_f slow_down = max_speed / lanes_sqrt(speed2);
    nvx = lanes_select(too_fast, nvx * slow_down, nvx);
    nvy = lanes_select(too_fast, nvy * slow_down, nvy);

    float x[LANES], y[LANES], out_vx[LANES], out_vy[LANES];
    uint8_t flags[LANES];
    lanes_store(x, px + nvx * w->dt);
    lanes_store(y, py + nvy * w->dt);
    lanes_store(out_vx, nvx);
    lanes_store(out_vy, nvy);
    for (int k = 0; k < LANES; k++) flags[k] = leader[k] ? AGENT_LEADER : 0;
    motion_finish_lanes(w, i0, count, x, y, out_vx, out_vy, flags);
}
