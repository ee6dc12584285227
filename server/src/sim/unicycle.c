/* unicycle: agents that only steer (lesson "Flocking" of the unicycle
 * course). Each flies at its own constant speed, drawn once per agent; its
 * heading turns at rate k_e · e, where e is the angle from the heading to
 * d = k_s ŝ + k_a â + k_c ĉ, the weighted sum of the unit vectors of
 * separation, alignment (neighbours' velocities and its own) and cohesion.
 * Every tick each gain is multiplied by a factor drawn from
 * [uni_jitter_min, uni_jitter_max], which makes the agents look alive.
 *
 * Departures from the lesson, on purpose: the three vectors come from the
 * Reynolds zones (separation weighted by 1/distance within sep_radius), not
 * from one radius where ŝ = −ĉ; the heading error is wrapped to (−π, π] and
 * steers toward d (the lesson's −k_e e turns away); obstacle avoidance and
 * targets (for agents without neighbours) join d like in the other models.
 * Angles and their sines come from angles.h, not libm (within 1.3e-7). */
#include <math.h>
#include <stdbool.h>

#include "sim/angles.h"
#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"

/* Streams of the counter-based generator (arbitrary distinct constants). */
#define SPEED_STREAM 0x756e695f7370ull
#define JITTER_STREAM 0x756e695f6a74ull

static void add_unit(float *dx, float *dy, float gain, float x, float y)
{
    float len2 = x * x + y * y;
    if (!(len2 > 0.0f)) return;
    float k = gain / sqrtf(len2);
    *dx += x * k;
    *dy += y * k;
}

KERNEL_CLONES
void unicycle_agent(const world_t *w, size_t i, const sense_sums_t *s, unicycle_batch_t *out)
{
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]); /* its species' */
    const uint32_t id = a->id[i];
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];

    /* Speed is a property of the agent, the same every tick. */
    float speed = p->uni_speed_min + (p->uni_speed_max - p->uni_speed_min) * prng_hash_unit(w->seed, SPEED_STREAM, id, 0);
    /* Its unit heading (one at rest, only ever placed so, faces along x). */
    const float v_len = sqrtf(vx * vx + vy * vy);
    const float hx = v_len > 0.0f ? vx / v_len : 1.0f, hy = v_len > 0.0f ? vy / v_len : 0.0f;

    float jitter[4];
    for (int k = 0; k < 4; k++) {
        float u = prng_hash_unit(w->seed, JITTER_STREAM, w->tick, (uint64_t)id * 4 + (uint64_t)k);
        jitter[k] = p->uni_jitter_min + (p->uni_jitter_max - p->uni_jitter_min) * u;
    }

    float dx = 0.0f, dy = 0.0f;
    uint8_t flags = 0;
    /* A zone that saw no one has a zero sum, which add_unit skips; the
     * alignment term also adds the agent's own velocity, so it needs the
     * count. */
    if (p->rule_sep) {
        /* Separation's gain grows as bodies come inside 1.5 personal_space
         * (the contact sum C, kernel.c; as the Reynolds push, reynolds.c):
         * 1 + 2r·|C|, r = personal_space. An agent that cannot slow down
         * can only turn away, harder the closer they are. */
        const float crowding = sqrtf(s->pair_x * s->pair_x + s->pair_y * s->pair_y) * 2.0f * p->personal_space;
        const float urgency = 1.0f + fminf(crowding, 10.0f);
        add_unit(&dx, &dy, p->uni_k_sep * jitter[0] * urgency, s->sep_x, s->sep_y);
    }
    if (p->rule_ali && s->n_ali > 0) add_unit(&dx, &dy, p->uni_k_ali * jitter[1], s->ali_x + vx, s->ali_y + vy);
    if (p->rule_coh) add_unit(&dx, &dy, p->uni_k_coh * jitter[2], s->coh_x, s->coh_y);
    vec2 to_target;
    const bool leads = (p->leader_rule == LEADER_FRONT ? s->n_ahead : s->n_any) == 0;
    if ((leads || p->w_target > 0.0f) && motion_nearest_target(w, px, py, &to_target)) {
        if (leads) flags |= AGENT_LEADER;
        float d2 = to_target.x * to_target.x + to_target.y * to_target.y;
        /* A follower's pull fades to nothing at target_radius (reynolds.c). */
        const float r = p->target_radius;
        const float fade = r > 0.0f ? fminf(fmaxf((sqrtf(d2) - r) / r, 0.0f), 1.0f) : 1.0f;
        if (leads || d2 > r * r)
            add_unit(&dx, &dy, leads ? p->w_leader : p->w_target * fade * fade, to_target.x, to_target.y);
    }
    vec2 avoid, away;
    if (p->w_avoid > 0 && motion_avoid(w, px, py, vx, vy, &avoid)) add_unit(&dx, &dy, p->w_avoid, avoid.x, avoid.y);
    if (w->n_predators && p->w_flee > 0 && motion_evade(w, px, py, &away)) add_unit(&dx, &dy, p->w_flee, away.x, away.y);

    /* The turn waits for the batch (unicycle_flush). */
    if (out->count && i != out->first + (size_t)out->count) unicycle_flush(w, out);
    if (!out->count) out->first = i;
    const int k = out->count++;
    out->px[k] = px, out->py[k] = py, out->hx[k] = hx, out->hy[k] = hy, out->dx[k] = dx, out->dy[k] = dy;
    out->speed[k] = speed, out->gain[k] = p->uni_k_heading * jitter[3], out->flags[k] = flags;
    if (out->count == LANES) unicycle_flush(w, out);
}

KERNEL_CLONES
void unicycle_flush(const world_t *w, unicycle_batch_t *b)
{
    if (!b->count) return;
    /* The heading turns by k_e·e·dt, e the angle from it to d in [−π, π]:
     * the heading rotated, rather than an angle of its own turned, which
     * takes one atan2 where the angles took two. Lanes past count hold
     * what an earlier batch left; their results are not stored. */
    const lanes_f hx = lanes_load(b->hx), hy = lanes_load(b->hy), dx = lanes_load(b->dx), dy = lanes_load(b->dy);
    const lanes_i turning = (dx != 0.0f) | (dy != 0.0f);
    const lanes_f error = angle_atan2_lanes(hx * dy - hy * dx, hx * dx + hy * dy);
    const lanes_f turn = lanes_keep(turning, lanes_load(b->gain) * error * w->dt);
    lanes_f sin_t, cos_t;
    angle_sincos_lanes(turn, &sin_t, &cos_t);
    const lanes_f speed = lanes_load(b->speed);
    const lanes_f nvx = speed * (hx * cos_t - hy * sin_t), nvy = speed * (hx * sin_t + hy * cos_t);
    float x[LANES], y[LANES], vx[LANES], vy[LANES];
    lanes_store(x, lanes_load(b->px) + nvx * w->dt);
    lanes_store(y, lanes_load(b->py) + nvy * w->dt);
    lanes_store(vx, nvx);
    lanes_store(vy, nvy);
    motion_finish_lanes(w, b->first, b->count, x, y, vx, vy, b->flags);
    b->count = 0;
}
