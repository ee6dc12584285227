/* predators: agents of another kind that hunt the flock (Reynolds'
 * pursuit). How the flock evades them is in motion.c (motion_evade). */
#include "sim/predators.h"

#include <math.h>
#include <stdlib.h>

#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/motion.h"

/* Stream of the counter-based generator for where predators appear. */
#define PREDATOR_STREAM 0x70726564ull

/* Matches the number of predators to the parameter: new ones appear at
 * random places, flying in a random direction. */
void predators_configure(world_t *w)
{
    size_t want = (size_t)w->params.predators;
    for (size_t k = w->n_predators; k < want; k++) {
        float heading = 6.28318531f * prng_hash_unit(w->seed, PREDATOR_STREAM, w->tick, k * 3);
        w->predators[k] = (predator_t){
            w->width * prng_hash_unit(w->seed, PREDATOR_STREAM, w->tick, k * 3 + 1),
            w->height * prng_hash_unit(w->seed, PREDATOR_STREAM, w->tick, k * 3 + 2),
            w->params.predator_speed * cosf(heading),
            w->params.predator_speed * sinf(heading),
        };
    }
    w->n_predators = want;
}

/* Rings of cells a predator searches for prey before it gives up and
 * flies straight on. */
#define HUNT_RINGS 8

/* The scan of one cell's agents [from, to) one by one, in index order:
 * each strictly nearer than *best_d2 becomes *best. Eight agents at a
 * time: the cell's nearest (the lowest index among equals) is where the
 * scan one by one ends, and it replaces *best only if strictly nearer, so
 * the answer is the same. A predator in a crowd scans the whole crowd. */
KERNEL_CLONES
static void nearest_in_cell(const world_t *w, uint32_t from, uint32_t to, float x, float y, bool wrap, float *best_d2,
                            long *best)
{
    const lanes_f zero = {0};
    lanes_f least = zero + INFINITY, least_b = least;
    lanes_i at = (lanes_i){0} - 1, at_b = at, j = (lanes_i){0, 1, 2, 3, 4, 5, 6, 7} + (int32_t)from;
    uint32_t k = from;
    /* Two chains of "strictly nearer replaces" side by side, over
     * alternate vectors, so that one compare need not wait for the other;
     * merged lane by lane by distance, then by the lower index. */
    for (; k + 2 * LANES <= to; k += 2 * LANES, j += 2 * LANES) {
        lanes_f dx, dy;
        const lanes_f d2 = motion_d2_lanes_wrapping(w, wrap, lanes_load(w->cur.x + k), lanes_load(w->cur.y + k),
                                                    zero + x, zero + y, &dx, &dy);
        const lanes_f d2_b = motion_d2_lanes_wrapping(w, wrap, lanes_load(w->cur.x + k + LANES),
                                                      lanes_load(w->cur.y + k + LANES), zero + x, zero + y, &dx, &dy);
        const lanes_i closer = d2 < least, closer_b = d2_b < least_b;
        least = lanes_select(closer, d2, least);
        at = (closer & j) | (~closer & at);
        least_b = lanes_select(closer_b, d2_b, least_b);
        at_b = (closer_b & (j + LANES)) | (~closer_b & at_b);
    }
    for (; k + LANES <= to; k += LANES, j += LANES) { /* chain a's indices stay ascending */
        lanes_f dx, dy;
        const lanes_f d2 = motion_d2_lanes_wrapping(w, wrap, lanes_load(w->cur.x + k), lanes_load(w->cur.y + k),
                                                    zero + x, zero + y, &dx, &dy);
        const lanes_i closer = d2 < least;
        least = lanes_select(closer, d2, least);
        at = (closer & j) | (~closer & at);
    }
    const lanes_i takes = (least_b < least) | ((least_b == least) & (at_b >= 0) & ((at_b < at) | (at < 0)));
    least = lanes_select(takes, least_b, least);
    at = (takes & at_b) | (~takes & at);
    float m = INFINITY;
    long mk = -1;
    for (int l = 0; l < LANES; l++)
        if (at[l] >= 0 && (least[l] < m || (least[l] == m && at[l] < mk))) m = least[l], mk = at[l];
    for (; k < to; k++) { /* the last few, after every lane's */
        float ddx = w->cur.x[k] - x, ddy = w->cur.y[k] - y;
        if (wrap) {
            ddx = motion_wrap_delta(ddx, w->width);
            ddy = motion_wrap_delta(ddy, w->height);
        }
        const float d2 = ddx * ddx + ddy * ddy;
        if (d2 < m) m = d2, mk = (long)k;
    }
    if (mk >= 0 && m < *best_d2) *best_d2 = m, *best = mk;
}

long predators_nearest_agent(const world_t *w, float x, float y)
{
    const grid_t *g = &w->grid;
    const bool wrap = w->params.border == BORDER_WRAP;
    int cx = grid_cell_x(g, x), cy = grid_cell_y(g, y);
    long best = -1;
    float best_d2 = INFINITY, cell = fminf(w->width / (float)g->nx, w->height / (float)g->ny);
    for (int ring = 0; ring <= HUNT_RINGS; ring++) {
        /* Everything in later rings is at least (ring − 1) cells away. */
        float floor_d = (float)(ring - 1) * cell;
        if (best >= 0 && floor_d > 0.0f && floor_d * floor_d > best_d2) break;
        for (int dy = -ring; dy <= ring; dy++)
            for (int dx = -ring; dx <= ring; dx++) {
                if (abs(dx) != ring && abs(dy) != ring) continue; /* the ring's edge only */
                int gx = cx + dx, gy = cy + dy;
                if (wrap) {
                    if (2 * ring + 1 > g->nx || 2 * ring + 1 > g->ny) continue; /* would revisit cells */
                    gx = (gx % g->nx + g->nx) % g->nx;
                    gy = (gy % g->ny + g->ny) % g->ny;
                } else if (gx < 0 || gy < 0 || gx >= g->nx || gy >= g->ny) {
                    continue;
                }
                const uint32_t c = (uint32_t)(gy * g->nx + gx);
                nearest_in_cell(w, g->cell_start[c], g->cell_start[c + 1], x, y, wrap, &best_d2, &best);
            }
    }
    return best;
}

/* Predators pursue (Reynolds' pursuit: aim at where the prey will be) the
 * nearest agent, turning at twice the agents' max force. */
void predators_hunt(world_t *w)
{
    const sim_params_t *p = &w->params;
    const bool wrap = p->border == BORDER_WRAP;
    for (size_t k = 0; k < w->n_predators; k++) {
        predator_t *pr = &w->predators[k];
        long prey = predators_nearest_agent(w, pr->x, pr->y);
        if (prey >= 0) {
            float dx = w->cur.x[prey] - pr->x, dy = w->cur.y[prey] - pr->y;
            if (wrap) {
                dx = motion_wrap_delta(dx, w->width);
                dy = motion_wrap_delta(dy, w->height);
            }
            float lead = fminf(sqrtf(dx * dx + dy * dy) / p->predator_speed, 1.0f);
            dx += w->cur.vx[prey] * lead;
            dy += w->cur.vy[prey] * lead;
            float len = sqrtf(dx * dx + dy * dy);
            if (len > 0.0f) {
                float sx = dx / len * p->predator_speed - pr->vx, sy = dy / len * p->predator_speed - pr->vy;
                float s = sqrtf(sx * sx + sy * sy), max_dv = 2.0f * p->max_force * w->dt;
                if (s > max_dv) sx *= max_dv / s, sy *= max_dv / s;
                pr->vx += sx;
                pr->vy += sy;
            }
        }
        float speed = sqrtf(pr->vx * pr->vx + pr->vy * pr->vy);
        if (speed > p->predator_speed) pr->vx *= p->predator_speed / speed, pr->vy *= p->predator_speed / speed;
        pr->x += pr->vx * w->dt;
        pr->y += pr->vy * w->dt;
        if (wrap || p->border == BORDER_RESPAWN) {
            pr->x -= w->width * floorf(pr->x / w->width);
            pr->y -= w->height * floorf(pr->y / w->height);
        } else {
            if (pr->x < 0.0f || pr->x > w->width) pr->vx = -pr->vx, pr->x = fminf(fmaxf(pr->x, 0.0f), w->width);
            if (pr->y < 0.0f || pr->y > w->height) pr->vy = -pr->vy, pr->y = fminf(fmaxf(pr->y, 0.0f), w->height);
        }
    }
}

