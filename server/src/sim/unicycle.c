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
 * Angles and their sines come from angles.h, not libm (within 1.3e-7).
 *
 * The rule runs for eight agents at once, one per vector lane, with the
 * same IEEE operations in the same order as one agent at a time: an
 * agent's result does not depend on its batch. Targets, obstacles and
 * predators are looked up lane by lane. */
#include <math.h>
#include <stdbool.h>

#include "sim/angles.h"
#include "sim/clones.h"
#include "sim/heading_lanes.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"
#include "sim/prng.h"
#include "sim/prng_lanes.h"

/* Streams of the counter-based generator (arbitrary distinct constants). */
#define SPEED_STREAM 0x756e695f7370ull
#define JITTER_STREAM 0x756e695f6a74ull

/* (dx, dy) += gain · (x, y)/|(x, y)|; nothing for a zero vector. */
static void add_unit(float *dx, float *dy, float gain, float x, float y)
{
    float len2 = x * x + y * y;
    if (!(len2 > 0.0f)) return;
    float k = gain / sqrtf(len2);
    *dx += x * k;
    *dy += y * k;
}

/* add_unit in the lanes of `on`. A lane left out adds +0, which changes
 * nothing: a sum that starts at +0 is never −0. */
LANES_INLINE void add_unit_lanes(lanes_f *dx, lanes_f *dy, lanes_i on, lanes_f gain, lanes_f x, lanes_f y)
{
    const lanes_f one = (lanes_f){0} + 1.0f;
    const lanes_f len2 = x * x + y * y;
    const lanes_i some = on & (len2 > 0.0f);
    const lanes_f k = gain / lanes_sqrt(lanes_select(some, len2, one));
    *dx += lanes_keep(some, x * k);
    *dy += lanes_keep(some, y * k);
}

void unicycle_agent(const world_t *w, size_t i, const sense_sums_t *s, unicycle_batch_t *out)
{
    if (out->count && i != out->first + (size_t)out->count) unicycle_flush(w, out);
    if (!out->count) out->first = i;
    const int k = out->count++;
    out->sep_x[k] = s->sep_x, out->sep_y[k] = s->sep_y, out->ali_x[k] = s->ali_x, out->ali_y[k] = s->ali_y;
    out->coh_x[k] = s->coh_x, out->coh_y[k] = s->coh_y, out->pair_x[k] = s->pair_x, out->pair_y[k] = s->pair_y;
    out->n_ali[k] = s->n_ali, out->n_any[k] = s->n_any, out->n_ahead[k] = s->n_ahead;
    if (out->count == LANES) unicycle_flush(w, out);
}

/* The parameters the lanes' rule reads, each lane its agent's species'
 * (the target's, read lane by lane, come from the agent's sim_params_t).
 * Switches are 1 or 0. */
enum { SPEED_MIN, SPEED_MAX, JITTER_MIN, JITTER_MAX, K_SEP, K_ALI, K_COH, K_HEADING, PERSONAL_SPACE, RULE_SEP,
       RULE_ALI, RULE_COH, UNI_PARAMS };

static void uni_params_of(const sim_params_t *p, float out[UNI_PARAMS])
{
    out[SPEED_MIN] = p->uni_speed_min, out[SPEED_MAX] = p->uni_speed_max;
    out[JITTER_MIN] = p->uni_jitter_min, out[JITTER_MAX] = p->uni_jitter_max;
    out[K_SEP] = p->uni_k_sep, out[K_ALI] = p->uni_k_ali, out[K_COH] = p->uni_k_coh;
    out[K_HEADING] = p->uni_k_heading, out[PERSONAL_SPACE] = p->personal_space;
    out[RULE_SEP] = p->rule_sep ? 1.0f : 0.0f, out[RULE_ALI] = p->rule_ali ? 1.0f : 0.0f;
    out[RULE_COH] = p->rule_coh ? 1.0f : 0.0f;
}

LANES_INLINE void uni_params_lanes(const sim_params_t *const ps[LANES], bool uniform, lanes_f v[UNI_PARAMS])
{
    float f[UNI_PARAMS];
    uni_params_of(ps[0], f);
    for (int j = 0; j < UNI_PARAMS; j++) v[j] = (lanes_f){0} + f[j];
    for (int k = 1; k < LANES && !uniform; k++) {
        uni_params_of(ps[k], f);
        for (int j = 0; j < UNI_PARAMS; j++) v[j][k] = f[j];
    }
}

/* A follower's (or leader's) pull toward its nearest target, for the
 * agents of the batch that have one: the weight of its unit vector,
 * where it lies, and whether the agent leads. */
static void target_pulls(const world_t *w, const unicycle_batch_t *b, const sim_params_t *const ps[LANES],
                         lanes_f *weight, lanes_f *tx, lanes_f *ty, lanes_i *pulled, uint8_t flags[LANES])
{
    const agents_t *a = &w->cur;
    float txs[LANES], tys[LANES];
    int32_t found[LANES];
    motion_nearest_target_agents(w, b->count, a->x + b->first, a->y + b->first, txs, tys, found);
    for (int k = 0; k < b->count; k++) {
        const sim_params_t *p = ps[k];
        const bool leads = (p->leader_rule == LEADER_FRONT ? b->n_ahead[k] : b->n_any[k]) == 0;
        const vec2 to_target = {txs[k], tys[k]};
        if (!(leads || p->w_target > 0.0f) || !found[k]) continue;
        if (leads) flags[k] |= AGENT_LEADER;
        float d2 = to_target.x * to_target.x + to_target.y * to_target.y;
        /* A follower's pull fades to nothing at target_radius (reynolds.c). */
        const float r = p->target_radius;
        const float fade = r > 0.0f ? fminf(fmaxf((sqrtf(d2) - r) / r, 0.0f), 1.0f) : 1.0f;
        if (!(leads || d2 > r * r)) continue;
        (*weight)[k] = leads ? p->w_leader : p->w_target * fade * fade;
        (*tx)[k] = to_target.x, (*ty)[k] = to_target.y, (*pulled)[k] = -1;
    }
}

KERNEL_CLONES
void unicycle_flush(const world_t *w, unicycle_batch_t *b)
{
    if (!b->count) return;
    const agents_t *a = &w->cur;
    const size_t i0 = b->first;
    const int count = b->count;
    const lanes_f zero = {0};
    /* Lanes past count hold what an earlier batch left; their results
     * are not stored. */
    const heading_lanes_t h = heading_lanes_load(w, i0);
    const lanes_f vx = h.vx, vy = h.vy, hx = h.hx, hy = h.hy;
    const sim_params_t *ps[LANES];
    for (int k = 0; k < LANES; k++) ps[k] = k < count ? world_params_for(w, a->flags[i0 + k]) : &w->params;
    lanes_f p[UNI_PARAMS];
    uni_params_lanes(ps, w->params.species <= 1, p);

    /* Speed is a property of the agent, the same every tick; the gains'
     * jitter is drawn anew each tick. */
    const uint64_t speeds = prng_hash_stream(w->seed, SPEED_STREAM);
    const uint64_t jitters = prng_hash_key(prng_hash_stream(w->seed, JITTER_STREAM), w->tick);
    const prng_lanes_t id = prng_ids_lanes(a->id, i0, count), none = {0};
    const lanes_f u_speed = prng_hash_unit_lanes(prng_hash_key_lanes(speeds, id), none);
    lanes_f u_jitter[4];
    for (int j = 0; j < 4; j++) u_jitter[j] = prng_hash_unit_lanes(none + jitters, id * 4 + (uint64_t)j);
    const lanes_f speed = p[SPEED_MIN] + (p[SPEED_MAX] - p[SPEED_MIN]) * u_speed;
    lanes_f jitter[4];
    for (int j = 0; j < 4; j++) jitter[j] = p[JITTER_MIN] + (p[JITTER_MAX] - p[JITTER_MIN]) * u_jitter[j];
    /* d: a zone that saw no one has a zero sum, which add_unit skips; the
     * alignment term also adds the agent's own velocity, so it needs the
     * count. */
    lanes_f dx = zero, dy = zero;
    {
        /* Separation's gain grows as bodies come inside 1.5 personal_space
         * (the contact sum C, kernel.c; as the Reynolds push, reynolds.c):
         * 1 + 2r·|C|, r = personal_space. An agent that cannot slow down
         * can only turn away, harder the closer they are. */
        const lanes_f pair_x = lanes_load(b->pair_x), pair_y = lanes_load(b->pair_y);
        const lanes_f crowding = lanes_sqrt(pair_x * pair_x + pair_y * pair_y) * 2.0f * p[PERSONAL_SPACE];
        const lanes_f urgency = 1.0f + lanes_select(crowding < 10.0f, crowding, zero + 10.0f); /* fminf's */
        add_unit_lanes(&dx, &dy, p[RULE_SEP] != 0.0f, p[K_SEP] * jitter[0] * urgency, lanes_load(b->sep_x),
                       lanes_load(b->sep_y));
    }
    lanes_i n_ali;
    memcpy(&n_ali, b->n_ali, sizeof n_ali);
    add_unit_lanes(&dx, &dy, (p[RULE_ALI] != 0.0f) & (n_ali > 0), p[K_ALI] * jitter[1], lanes_load(b->ali_x) + vx,
                   lanes_load(b->ali_y) + vy);
    add_unit_lanes(&dx, &dy, p[RULE_COH] != 0.0f, p[K_COH] * jitter[2], lanes_load(b->coh_x), lanes_load(b->coh_y));
    uint8_t flags[LANES] = {0};
    if (w->n_targets) {
        lanes_f weight = zero, tx = zero, ty = zero;
        lanes_i pulled = {0};
        target_pulls(w, b, ps, &weight, &tx, &ty, &pulled, flags);
        add_unit_lanes(&dx, &dy, pulled, weight, tx, ty);
    }
    if (w->n_obstacles || w->n_predators) {
        /* The looks at obstacles and predators, eight agents at a time
         * (the same bits as one by one), then added lane by lane. */
        float px[LANES], py[LANES], lvx[LANES], lvy[LANES];
        float avoid_x[LANES], avoid_y[LANES], away_x[LANES], away_y[LANES];
        int32_t steers[LANES] = {0}, fled[LANES] = {0};
        lanes_store(px, h.px), lanes_store(py, h.py), lanes_store(lvx, vx), lanes_store(lvy, vy);
        if (w->n_obstacles) motion_avoid_agents(w, count, px, py, lvx, lvy, avoid_x, avoid_y, steers);
        if (w->n_predators) motion_evade_agents(w, count, px, py, away_x, away_y, fled);
        for (int k = 0; k < count; k++) {
            const sim_params_t *pk = ps[k];
            float x = dx[k], y = dy[k];
            if (pk->w_avoid > 0 && steers[k]) add_unit(&x, &y, pk->w_avoid, avoid_x[k], avoid_y[k]);
            if (pk->w_flee > 0 && fled[k]) add_unit(&x, &y, pk->w_flee, away_x[k], away_y[k]);
            dx[k] = x, dy[k] = y;
        }
    }

    /* The heading turns by k_e·e·dt, e the angle from it to d in [−π, π]:
     * the heading rotated, rather than an angle of its own turned, which
     * takes one atan2 where the angles took two. With staggered steering
     * a turn stands for the ticks until the next (world_steer_dt), and is
     * then at most e: a turn past d would swing the heading to and fro. */
    const lanes_i turning = (dx != 0.0f) | (dy != 0.0f);
    const lanes_f error = angle_atan2_lanes(hx * dy - hy * dx, hx * dx + hy * dy);
    lanes_f turn = lanes_keep(turning, p[K_HEADING] * jitter[3] * error * world_steer_dt(w));
    if (world_steer_every(w) > 1) {
        const lanes_f most = lanes_select(error < 0.0f, -error, error);
        turn = lanes_select(turn > most, most, lanes_select(turn < -most, -most, turn));
    }
    heading_lanes_turn(w, &h, i0, count, turn, speed, flags);
    b->count = 0;
}
