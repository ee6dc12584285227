/* reynolds: Reynolds' boids as steering behaviours (report chapter 3).
 *
 * Every rule yields a steering vector "desired velocity − velocity", with the
 * desired velocity of length max_speed. As in the report (eq. 3.11–3.17),
 * where a step's steering is the step's change of velocity, a steer is the
 * change the rule asks for this tick, limited to max_force·dt; the rules
 * that act on an agent are combined as a weighted average (over the rules
 * that fired), then v += Δv, |v| ≤ max_speed, p += v·dt. So max_force is
 * the agent's real acceleration limit, whatever the tick rate. */
#include <math.h>
#include <stdbool.h>

#include "sim/clones.h"
#include "sim/models.h"
#include "sim/motion.h"

KERNEL_CLONES
void reynolds_agent(const world_t *w, size_t i, const sense_sums_t *s)
{
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]); /* its species' */
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];
    const float max_speed = p->max_speed, dt = w->dt, max_dv = p->max_force * dt;

    /* A leader: no neighbour in any zone (or, by leader_rule "front", none
     * ahead), so it steers to the nearest target with w_leader; agents that
     * see it follow, and the flock is led. Inside arrive_radius it wants to
     * go slower, down to a stop on the target. */
    uint8_t flags = 0;
    vec2 to_target = {0.0f, 0.0f};
    float leader_speed = max_speed, target_weight = 0.0f;
    const bool leads = (p->leader_rule == LEADER_FRONT ? s->n_ahead : s->n_any) == 0;
    /* Every agent may also be drawn to the nearest target a little
     * (w_target), leader or not: the click a viewer makes is felt by all. */
    if ((leads || p->w_target > 0.0f) && motion_nearest_target(w, px, py, &to_target)) {
        if (leads) flags |= AGENT_LEADER;
        /* The pull on followers stops within target_radius: the flock
         * gathers round the target instead of crushing onto one point. */
        float d2 = to_target.x * to_target.x + to_target.y * to_target.y;
        target_weight = leads ? p->w_leader : (d2 > p->target_radius * p->target_radius ? p->w_target : 0.0f);
        if (p->arrive_radius > 0.0f) {
            float d = sqrtf(to_target.x * to_target.x + to_target.y * to_target.y);
            if (d < p->arrive_radius) leader_speed = max_speed * d / p->arrive_radius;
        }
    }

    /* The four "steer toward a direction" rules — separation, alignment,
     * cohesion, leader — each d̂·speed − v limited to max_force·dt, side by
     * side. A rule that did not fire, or has no direction, gets weight 0 and
     * adds nothing. */
    const float dir_x[4] = {s->sep_x, s->ali_x, s->coh_x, to_target.x};
    const float dir_y[4] = {s->sep_y, s->ali_y, s->coh_y, to_target.y};
    const float speed[4] = {max_speed, max_speed, max_speed, leader_speed};
    const float weight[4] = {s->any_sep ? p->w_sep : 0.0f, s->any_ali ? p->w_ali : 0.0f, s->any_coh ? p->w_coh : 0.0f,
                             target_weight};
    float part_x[4], part_y[4], part_w[4];
    for (int k = 0; k < 4; k++) {
        float len2 = dir_x[k] * dir_x[k] + dir_y[k] * dir_y[k];
        bool some = len2 > 0.0f;
        float scale = speed[k] / sqrtf(some ? len2 : 1.0f);
        float sx = dir_x[k] * scale - vx, sy = dir_y[k] * scale - vy;
        float s2 = sx * sx + sy * sy;
        float limit = s2 > max_dv * max_dv ? max_dv / sqrtf(s2) : 1.0f;
        float wk = some ? weight[k] : 0.0f;
        part_x[k] = wk * (sx * limit);
        part_y[k] = wk * (sy * limit);
        part_w[k] = wk;
    }
    float accx = (part_x[0] + part_x[1]) + (part_x[2] + part_x[3]);
    float accy = (part_y[0] + part_y[1]) + (part_y[2] + part_y[3]);
    float wsum = (part_w[0] + part_w[1]) + (part_w[2] + part_w[3]);
    /* Evading predators and wandering: two more "toward a direction" rules. */
    vec2 dir[2];
    float wt[2] = {0.0f, 0.0f};
    if (w->n_predators && p->w_flee > 0.0f && motion_evade(w, px, py, &dir[0])) wt[0] = p->w_flee;
    if (w->wander && p->w_wander > 0.0f) dir[1] = motion_wander(w, a->id[i], vx, vy), wt[1] = p->w_wander;
    for (int k = 0; k < 2; k++) {
        float len2 = wt[k] > 0.0f ? dir[k].x * dir[k].x + dir[k].y * dir[k].y : 0.0f;
        if (!(len2 > 0.0f)) continue;
        float scale = max_speed / sqrtf(len2);
        float sx = dir[k].x * scale - vx, sy = dir[k].y * scale - vy, s2 = sx * sx + sy * sy;
        float limit = s2 > max_dv * max_dv ? max_dv / sqrtf(s2) : 1.0f;
        accx += wt[k] * sx * limit, accy += wt[k] * sy * limit, wsum += wt[k];
    }
    vec2 avoid; /* of length max_force: as a change of velocity, times dt */
    if (p->w_avoid > 0 && motion_avoid(w, px, py, vx, vy, &avoid)) {
        accx += p->w_avoid * avoid.x * dt, accy += p->w_avoid * avoid.y * dt, wsum += p->w_avoid;
    }

    float nvx = vx, nvy = vy;
    if (wsum > 0.0f) { /* the weighted average */
        nvx += accx / wsum;
        nvy += accy / wsum;
    }
    float speed2 = nvx * nvx + nvy * nvy;
    if (speed2 > max_speed * max_speed) {
        float k = max_speed / sqrtf(speed2);
        nvx *= k;
        nvy *= k;
    }
    motion_finish(w, i, px + nvx * dt, py + nvy * dt, nvx, nvy, flags);
}
