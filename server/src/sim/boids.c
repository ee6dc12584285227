/* boids: Reynolds' flocking rules as steering vectors, plus obstacle
 * avoidance and leaders seeking targets, for one range of agents.
 *
 * Every rule yields a steering vector "desired velocity − velocity", with the
 * desired velocity of length max_speed and the steer limited to max_force.
 * The rules that act on an agent this tick are combined as a weighted
 * average (report eq. 3.11–3.12, over the rules that fired), then
 * v += a·dt, |v| ≤ max_speed, p += v·dt.
 *
 * The pass reads only w->cur and writes only w->next, so the result for an
 * agent does not depend on the order agents are visited in, nor on how the
 * cells are shared out between threads. */
#include <math.h>
#include <string.h>

#include "sim/neighbours.h"
#include "sim/world.h"

typedef struct {
    float x, y;
} vec2;

/* Shortest displacement on a torus of the given extent. */
static inline float wrap_delta(float d, float extent)
{
    if (d > 0.5f * extent) return d - extent;
    if (d < -0.5f * extent) return d + extent;
    return d;
}

/* Look-ahead obstacle avoidance. Of the obstacles whose buffered circle the
 * straight path enters within the look-ahead distance, take the nearest hit
 * and steer along the circle's normal at the would-be intersection — only
 * its part across the heading, so the agent turns around the obstacle
 * instead of braking into a U-turn (Reynolds 1999 steers laterally too).
 * Inside the buffer the full outward normal applies. */
static bool avoid_obstacles(const world_t *w, float px, float py, float vx, float vy, vec2 *out)
{
    const sim_params_t *p = &w->params;
    float speed = sqrtf(vx * vx + vy * vy);
    if (!(speed > 0.0f) || w->n_obstacles == 0) return false;
    float ux = vx / speed, uy = vy / speed;
    float look = speed * p->avoid_lookahead;
    bool wrap = p->border == BORDER_WRAP;
    float best_t = INFINITY, sx = 0.0f, sy = 0.0f;
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        float R = o->r + p->obstacle_buffer;
        float dx = o->x - px, dy = o->y - py;
        if (wrap) {
            dx = wrap_delta(dx, w->width);
            dy = wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        float reach = R + look;
        if (d2 > reach * reach) continue;
        if (d2 < R * R) { /* already inside the buffer: straight out */
            float d = sqrtf(d2);
            best_t = 0.0f; /* nothing is more urgent */
            sx = d > 0.0f ? -dx / d : -uy;
            sy = d > 0.0f ? -dy / d : ux;
            continue;
        }
        float along = dx * ux + dy * uy;  /* distance ahead to the closest approach */
        float perp2 = d2 - along * along; /* squared miss distance */
        if (along <= 0.0f || perp2 >= R * R) continue;
        float t_hit = along - sqrtf(R * R - perp2);
        if (t_hit > look || t_hit >= best_t) continue;
        best_t = t_hit;
        /* Outward normal at h = p + û·t_hit, then its lateral part. */
        float hx = ux * t_hit - dx, hy = uy * t_hit - dy;
        float lateral = hx * -uy + hy * ux; /* component along the left perpendicular */
        if (lateral == 0.0f) lateral = 1.0f; /* dead centre: pass on the left */
        float side = lateral > 0.0f ? 1.0f : -1.0f;
        sx = -uy * side;
        sy = ux * side;
    }
    if (best_t == INFINITY) return false;
    *out = (vec2){sx * p->max_force, sy * p->max_force};
    return true;
}

/* Nearest target by (wrapped) distance; false if there is none. */
static bool nearest_target(const world_t *w, float px, float py, float *dx_out, float *dy_out)
{
    bool wrap = w->params.border == BORDER_WRAP;
    float best = INFINITY;
    for (size_t k = 0; k < w->n_targets; k++) {
        float dx = w->targets[k].x - px, dy = w->targets[k].y - py;
        if (wrap) {
            dx = wrap_delta(dx, w->width);
            dy = wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        if (d2 < best) {
            best = d2;
            *dx_out = dx;
            *dy_out = dy;
        }
    }
    return best < INFINITY;
}

/* Obstacles are solid: an agent that ends a step inside one is put back on
 * its surface and loses the inward part of its velocity. Steering avoids
 * them; this guarantees it when steering alone cannot (a crowd pushing). */
static void push_out_of_obstacles(const world_t *w, float *x, float *y, float *vx, float *vy)
{
    bool wrap = w->params.border == BORDER_WRAP;
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        float dx = *x - o->x, dy = *y - o->y;
        if (wrap) {
            dx = wrap_delta(dx, w->width);
            dy = wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        if (d2 >= o->r * o->r) continue;
        float d = sqrtf(d2);
        float nx = d > 0.0f ? dx / d : 1.0f, ny = d > 0.0f ? dy / d : 0.0f;
        /* A hair outside, so rounding cannot leave the agent on the inside. */
        float r = o->r * 1.0001f + 1e-4f;
        *x = o->x + nx * r;
        *y = o->y + ny * r;
        float vn = *vx * nx + *vy * ny;
        if (vn < 0.0f) {
            *vx -= vn * nx;
            *vy -= vn * ny;
        }
    }
}

static void apply_border(const world_t *w, float *x, float *y, float *vx, float *vy)
{
    float W = w->width, H = w->height;
    if (w->params.border == BORDER_WRAP) {
        /* One step moves less than the world, so one correction suffices;
         * the second test catches x + W rounding to exactly W. */
        if (*x < 0.0f) *x += W;
        if (*x >= W) *x -= W;
        if (*y < 0.0f) *y += H;
        if (*y >= H) *y -= H;
        if (!(*x >= 0.0f && *x < W)) *x = 0.0f;
        if (!(*y >= 0.0f && *y < H)) *y = 0.0f;
    } else {
        if (*x < 0.0f) {
            *x = fminf(-*x, W);
            *vx = fabsf(*vx);
        } else if (*x > W) {
            *x = fmaxf(2.0f * W - *x, 0.0f);
            *vx = -fabsf(*vx);
        }
        if (*y < 0.0f) {
            *y = fminf(-*y, H);
            *vy = fabsf(*vy);
        } else if (*y > H) {
            *y = fmaxf(2.0f * H - *y, 0.0f);
            *vy = -fabsf(*vy);
        }
    }
}

/* Rules, steering and integration for agent i of the cell-sorted state. */
static inline void steer_and_move(const world_t *w, size_t i, const sense_sums_t *s, agents_t *out)
{
    const sim_params_t *p = &w->params;
    const agents_t *a = &w->cur;
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];
    const float max_speed = p->max_speed, max_force = p->max_force, dt = w->dt;

    /* A leader: no neighbour in any zone, so it steers to the nearest
     * target; agents that see it follow, and the flock is led. */
    uint8_t flags = 0;
    float tx = 0.0f, ty = 0.0f;
    if (s->n_any == 0 && nearest_target(w, px, py, &tx, &ty)) flags |= AGENT_LEADER;

    /* The four "steer toward a direction" rules — separation, alignment,
     * cohesion, leader — each d̂·max_speed − v limited to max_force, side by
     * side. A rule that did not fire, or has no direction, gets weight 0 and
     * adds nothing. */
    const float dir_x[4] = {s->sep_x, s->ali_x, s->coh_x, tx}, dir_y[4] = {s->sep_y, s->ali_y, s->coh_y, ty};
    const float weight[4] = {s->any_sep ? p->w_sep : 0.0f, s->any_ali ? p->w_ali : 0.0f, s->any_coh ? p->w_coh : 0.0f,
                             flags ? p->w_leader : 0.0f};
    float part_x[4], part_y[4], part_w[4];
    for (int k = 0; k < 4; k++) {
        float len2 = dir_x[k] * dir_x[k] + dir_y[k] * dir_y[k];
        bool some = len2 > 0.0f;
        float scale = max_speed / sqrtf(some ? len2 : 1.0f);
        float sx = dir_x[k] * scale - vx, sy = dir_y[k] * scale - vy;
        float s2 = sx * sx + sy * sy;
        float limit = s2 > max_force * max_force ? max_force / sqrtf(s2) : 1.0f;
        float wk = some ? weight[k] : 0.0f;
        part_x[k] = wk * (sx * limit);
        part_y[k] = wk * (sy * limit);
        part_w[k] = wk;
    }
    float accx = (part_x[0] + part_x[1]) + (part_x[2] + part_x[3]);
    float accy = (part_y[0] + part_y[1]) + (part_y[2] + part_y[3]);
    float wsum = (part_w[0] + part_w[1]) + (part_w[2] + part_w[3]);
    vec2 avoid;
    if (p->w_avoid > 0 && avoid_obstacles(w, px, py, vx, vy, &avoid)) {
        accx += p->w_avoid * avoid.x, accy += p->w_avoid * avoid.y, wsum += p->w_avoid;
    }

    float nvx = vx, nvy = vy;
    if (wsum > 0.0f) {
        float k = dt / wsum; /* the weighted average, applied for dt */
        nvx += accx * k;
        nvy += accy * k;
    }
    float speed2 = nvx * nvx + nvy * nvy;
    if (speed2 > max_speed * max_speed) {
        float k = max_speed / sqrtf(speed2);
        nvx *= k;
        nvy *= k;
    }
    float nx = px + nvx * dt, ny = py + nvy * dt;
    push_out_of_obstacles(w, &nx, &ny, &nvx, &nvy);
    apply_border(w, &nx, &ny, &nvx, &nvy);

    out->x[i] = nx;
    out->y[i] = ny;
    out->vx[i] = nvx;
    out->vy[i] = nvy;
    out->flags[i] = flags;
}

/* Copies the runs into the scratch span; returns the count, or -1 when they
 * do not fit. *self_base is where the cell's own agents (from index first
 * on) start in the span. */
static int64_t gather(const agents_t *a, const grid_run_t *runs, int n_runs, uint32_t first, sense_scratch_t *s,
                      int32_t *self_base)
{
    uint32_t count = 0;
    for (int r = 0; r < n_runs; r++) {
        uint32_t len = runs[r].end - runs[r].begin, b = runs[r].begin;
        if (len > s->cap - count) return -1;
        if (first >= b && first < runs[r].end) *self_base = (int32_t)(count + (first - b));
        const float shx = runs[r].shift_x, shy = runs[r].shift_y;
        if (shx == 0.0f && shy == 0.0f) {
            memcpy(s->x + count, a->x + b, len * sizeof(float));
            memcpy(s->y + count, a->y + b, len * sizeof(float));
        } else {
            for (uint32_t k = 0; k < len; k++) {
                s->x[count + k] = a->x[b + k] + shx;
                s->y[count + k] = a->y[b + k] + shy;
            }
        }
        memcpy(s->vx + count, a->vx + b, len * sizeof(float));
        memcpy(s->vy + count, a->vy + b, len * sizeof(float));
        count += len;
    }
    for (uint32_t k = count; k < count + SENSE_LANES; k++) s->x[k] = s->y[k] = SENSE_FAR;
    return count;
}

/* The neighbour kernel is written for 8-lane vectors. Where the compiler can
 * (GCC/Clang on x86-64), this function is built three times — AVX-512,
 * AVX2 and baseline — and the best one the CPU runs is picked at load time.
 * Every version does the same IEEE operations in the same order, so they
 * produce the same bits; only their speed differs. Sanitizer builds keep one
 * version: the clones' resolver runs before the sanitizer runtime is up. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef KERNEL_CLONES
#define KERNEL_CLONES
#endif

KERNEL_CLONES
uint64_t boids_step_cells(world_t *w, uint32_t cell_begin, uint32_t cell_end, sense_scratch_t *scratch)
{
    const sim_params_t *p = &w->params;
    const agents_t *a = &w->cur;
    const grid_t *g = &w->grid;
    const bool wrap = p->border == BORDER_WRAP;
    const float cos_half = cosf(p->fov_deg * (3.14159265f / 360.0f));
    sense_params_t sp = {
        .sep2 = p->sep_radius * p->sep_radius,
        .ali2 = p->ali_radius * p->ali_radius,
        .coh2 = p->coh_radius * p->coh_radius,
        .blind = p->fov_deg < 360.0f,
        .wide = cos_half < 0.0f,
        .cos_half2 = cos_half * cos_half,
        .width = w->width,
        .height = w->height,
    };
    sp.reach2 = fmaxf(sp.sep2, fmaxf(sp.ali2, sp.coh2));

    uint64_t neighbours = 0;
    for (uint32_t c = cell_begin; c < cell_end; c++) {
        const uint32_t first = g->cell_start[c], last = g->cell_start[c + 1];
        if (first == last) continue;
        /* Every agent of a cell has the same candidates: find them once. */
        grid_run_t runs[GRID_MAX_RUNS];
        int n_runs = grid_runs(g, (int)(c % (uint32_t)g->nx), (int)(c / (uint32_t)g->nx), wrap, runs, &sp.pair_wrap);
        int32_t self_base = 0;
        int64_t span = sp.pair_wrap ? -1 : gather(a, runs, n_runs, first, scratch, &self_base);
        for (uint32_t i = first; i < last; i++) {
            const float px = a->x[i], py = a->y[i];
            const sense_self_t me = sense_self(&sp, a->vx[i], a->vy[i]);
            sense_acc_t acc = {0};
            if (span >= 0) {
                sense_span(&acc, scratch->x, scratch->y, scratch->vx, scratch->vy, 0, (int32_t)span, true,
                           self_base + (int32_t)(i - first), px, py, &me, &sp);
            } else {
                for (int r = 0; r < n_runs; r++)
                    sense_span(&acc, a->x, a->y, a->vx, a->vy, (int32_t)runs[r].begin, (int32_t)runs[r].end, false,
                               (int32_t)i, px - runs[r].shift_x, py - runs[r].shift_y, &me, &sp);
            }
            sense_sums_t s = sense_finish(&acc);
            neighbours += (uint64_t)s.n_any;
            steer_and_move(w, i, &s, &w->next);
        }
    }
    return neighbours;
}
