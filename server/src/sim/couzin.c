/* couzin: the zone model of Couzin, Krause, James, Ruxton & Franks 2002
 * ("Collective memory and spatial sorting in animal groups", J. theor.
 * Biol. 218:1-11). Every agent flies at one constant speed s and, each
 * step, picks a desired direction d from the neighbours it perceives (all
 * round but a blind angle of 360° − α behind):
 *
 *   repulsion   (|r_ij| < r_r):          d = −Σ r̂_ij, and nothing else counts;
 *   otherwise   orientation (r_r … r_o):  d_o = Σ v̂_j over them and itself,
 *               attraction  (r_o … r_a):  d_a = Σ r̂_ij,
 *               d = ½(d̂_o + d̂_a) when both have neighbours, else the one
 *               that has, else its own heading;
 *
 * with r_o = r_r + Δr_o and r_a = r_o + Δr_a. d is rotated by Gaussian
 * noise, the heading turns toward it by at most θ·dt, and the agent moves
 * s·dt along its new heading.
 *
 * The paper's step is τ = 0.1 s; here the world's tick is, so the noise is
 * given per √s (cz_noise·√dt per tick: the same heading diffusion whatever
 * the tick rate) and the turn per tick is θ·dt. Obstacles and predators
 * (not in the paper) join d like in the other models, so that the live
 * world's features keep working; with neither present it is the paper's
 * model. Noise comes from the world's counter-based generator by (tick,
 * id), so a step is the same whatever the thread count. Angles and their
 * sines come from angles.h, not libm (within 1.3e-7). */
#include <math.h>
#include <stdbool.h>

#include "sim/angles.h"
#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"
#include "sim/prng.h"

#define PI_F 3.14159265f
/* Stream of the counter-based generator for the angular noise. */
#define NOISE_STREAM 0x637a5f6e6f6973ull

couzin_consts_t couzin_consts(const sim_params_t *p)
{
    const float r_o = p->cz_r_r + p->cz_dr_o, r_a = r_o + p->cz_dr_a;
    return (couzin_consts_t){
        .rr2 = p->cz_r_r * p->cz_r_r,
        .ro2 = r_o * r_o,
        .ra2 = r_a * r_a,
        .cos_half = cosf(p->cz_fov * (PI_F / 360.0f)),
        .blind = p->cz_fov < 360.0f,
    };
}

float couzin_reach(const sim_params_t *p) { return p->cz_r_r + p->cz_dr_o + p->cz_dr_a; }

/* Eight candidates at a time, one accumulator per lane, lanes summed in a
 * fixed order at the end: the span is the same whichever thread senses
 * it, so the sums are too. VX/VY are the candidates' unit headings
 * (couzin_headings), worked out once per cell rather than once per pair. */
KERNEL_CLONES
void couzin_sense(const couzin_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, couzin_sums_t *out)
{
    const lanes_f zero = {0}, one = zero + 1.0f;
    const float half_w = 0.5f * width, half_h = 0.5f * height;
    /* The agent's own unit heading; one standing still sees all round. */
    const float speed = sqrtf(vx * vx + vy * vy);
    const bool blind = k->blind && speed > 0.0f;
    const float hx = speed > 0.0f ? vx / speed : 0.0f, hy = speed > 0.0f ? vy / speed : 0.0f;
    lanes_f rx = zero, ry = zero, ox = zero, oy = zero, ax = zero, ay = zero, nr = zero, no = zero, na = zero;
    for (int32_t j0 = 0; j0 < count; j0 += LANES) {
        lanes_f dx = lanes_load(X + j0) - px, dy = lanes_load(Y + j0) - py;
        if (pair_wrap) { /* motion_wrap_delta, lane by lane */
            dx = lanes_select(dx > half_w, dx - width, lanes_select(dx < -half_w, dx + width, dx));
            dy = lanes_select(dy > half_h, dy - height, lanes_select(dy < -half_h, dy + height, dy));
        }
        const lanes_f d2 = dx * dx + dy * dy;
        /* Distance 0 is the agent itself (or one on the very same spot,
         * which no zone can place); self is its entry when positions are
         * from the past. Past count the positions are out of range. */
        lanes_i in = (d2 > 0.0f) & (d2 < k->ra2);
        if (self >= 0) {
            lanes_i index;
            for (int l = 0; l < LANES; l++) index[l] = j0 + l;
            in &= index != self;
        }
        if (S) in &= lanes_load(S + j0) == species;
        /* Lanes out of range may divide by zero: masked out bit by bit. */
        const lanes_f inv = one / lanes_sqrt(d2);
        const lanes_f ux = dx * inv, uy = dy * inv;
        if (blind) in &= hx * ux + hy * uy >= k->cos_half; /* inside the field of perception */
        const lanes_i rep = in & (d2 < k->rr2);
        const lanes_i ori = in & ~rep & (d2 < k->ro2);
        const lanes_i att = in & ~rep & ~ori;
        rx -= lanes_keep(rep, ux);
        ry -= lanes_keep(rep, uy);
        ox += lanes_keep(ori, lanes_load(VX + j0));
        oy += lanes_keep(ori, lanes_load(VY + j0));
        ax += lanes_keep(att, ux);
        ay += lanes_keep(att, uy);
        nr += lanes_keep(rep, one);
        no += lanes_keep(ori, one);
        na += lanes_keep(att, one);
    }
    const quad_f q0 = lanes_sum4(rx, ry, ox, oy), q1 = lanes_sum4(ax, ay, nr, no), q2 = lanes_sum4(na, zero, zero, zero);
    *out = (couzin_sums_t){.rep_x = q0[0], .rep_y = q0[1], .ori_x = q0[2], .ori_y = q0[3], .att_x = q1[0],
                           .att_y = q1[1], .n_rep = (int)q1[2], .n_ori = (int)q1[3], .n_att = (int)q2[0]};
}

KERNEL_CLONES
void couzin_headings(float *VX, float *VY, int32_t count)
{
    const lanes_f zero = {0}, one = zero + 1.0f;
    for (int32_t j0 = 0; j0 < count; j0 += LANES) {
        const lanes_f vxj = lanes_load(VX + j0), vyj = lanes_load(VY + j0);
        const lanes_f s2 = vxj * vxj + vyj * vyj;
        const lanes_i moving = s2 > 0.0f;
        const lanes_f vinv = one / lanes_sqrt(lanes_select(moving, s2, one));
        lanes_store(VX + j0, lanes_keep(moving, vxj * vinv));
        lanes_store(VY + j0, lanes_keep(moving, vyj * vinv));
    }
}

/* (x, y) scaled to length 1; false (and unchanged) when it has none. */
static bool normalise(float *x, float *y)
{
    const float len = sqrtf(*x * *x + *y * *y);
    if (!(len > 0.0f)) return false;
    *x /= len;
    *y /= len;
    return true;
}

/* A standard normal draw for agent id at this tick (Box-Muller). */
static float gaussian(const world_t *w, uint32_t id)
{
    const float u1 = 1.0f - prng_hash_unit(w->seed, NOISE_STREAM, w->tick, (uint64_t)id * 2); /* (0, 1] */
    const float u2 = prng_hash_unit(w->seed, NOISE_STREAM, w->tick, (uint64_t)id * 2 + 1);
    float s, c;
    angle_sincos(2.0f * PI_F * u2, &s, &c);
    return sqrtf(-2.0f * logf(u1)) * c;
}

bool couzin_direction(const couzin_sums_t *s, float hx, float hy, float *dx, float *dy)
{
    if (s->n_rep > 0) { /* repulsion has priority */
        *dx = s->rep_x, *dy = s->rep_y;
        return normalise(dx, dy);
    }
    float ox = s->ori_x + hx, oy = s->ori_y + hy, ax = s->att_x, ay = s->att_y;
    const bool has_o = s->n_ori > 0 && normalise(&ox, &oy);
    const bool has_a = s->n_att > 0 && normalise(&ax, &ay);
    if (has_o && has_a)
        *dx = 0.5f * (ox + ax), *dy = 0.5f * (oy + ay);
    else if (has_o)
        *dx = ox, *dy = oy;
    else if (has_a)
        *dx = ax, *dy = ay;
    else
        return false;
    return normalise(dx, dy);
}

float couzin_turn(float heading, float desired, float max_turn)
{
    float error = desired - heading;
    if (error > PI_F) error -= 2.0f * PI_F;
    if (error < -PI_F) error += 2.0f * PI_F;
    if (error > max_turn) error = max_turn;
    if (error < -max_turn) error = -max_turn;
    return heading + error;
}

KERNEL_CLONES
void couzin_agent(const world_t *w, size_t i, const couzin_sums_t *s, finish_batch_t *out)
{
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]); /* its species' */
    const uint32_t id = a->id[i];
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];
    const float speed = sqrtf(vx * vx + vy * vy);
    /* An agent standing still (only ever placed so) sets off along x. */
    const float hx = speed > 0.0f ? vx / speed : 1.0f, hy = speed > 0.0f ? vy / speed : 0.0f;

    float dx, dy;
    if (!couzin_direction(s, hx, hy, &dx, &dy)) dx = hx, dy = hy; /* no one perceived: keep going */
    vec2 avoid, away;
    bool extra = false;
    if (p->w_avoid > 0 && motion_avoid(w, px, py, vx, vy, &avoid) && normalise(&avoid.x, &avoid.y))
        dx += p->w_avoid * avoid.x, dy += p->w_avoid * avoid.y, extra = true;
    if (w->n_predators && p->w_flee > 0 && motion_evade(w, px, py, &away) && normalise(&away.x, &away.y))
        dx += p->w_flee * away.x, dy += p->w_flee * away.y, extra = true;
    if (extra && !normalise(&dx, &dy)) dx = hx, dy = hy;

    /* The desired direction's angle from the heading (in [−π, π]), the
     * noise added, wrapped and limited: the heading is rotated by that,
     * which takes one atan2 where two angles took two. */
    float desired = angle_atan2(hx * dy - hy * dx, hx * dx + hy * dy);
    if (p->cz_noise > 0.0f) desired += p->cz_noise * sqrtf(w->dt) * gaussian(w, id);
    const float turn = couzin_turn(0.0f, desired, p->cz_turn_rate * (PI_F / 180.0f) * w->dt);
    float sin_t, cos_t;
    angle_sincos(turn, &sin_t, &cos_t);
    const float nvx = p->cz_speed * (hx * cos_t - hy * sin_t), nvy = p->cz_speed * (hx * sin_t + hy * cos_t);
    finish_batch_add(w, out, i, px + nvx * w->dt, py + nvy * w->dt, nvx, nvy, 0);
}
