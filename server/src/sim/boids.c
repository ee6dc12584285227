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
 * agent does not depend on the order agents are visited in. */
#include <math.h>

#include "sim/world.h"

typedef struct {
    float x, y;
} vec2;

/* Steering toward direction d at max_speed: (d̂·max_speed − v), limited. */
static vec2 steer_toward(float dx, float dy, float vx, float vy, float max_speed, float max_force)
{
    float len2 = dx * dx + dy * dy;
    if (!(len2 > 0.0f)) return (vec2){0.0f, 0.0f};
    float k = max_speed / sqrtf(len2);
    float sx = dx * k - vx, sy = dy * k - vy;
    float s2 = sx * sx + sy * sy;
    if (s2 > max_force * max_force) {
        float m = max_force / sqrtf(s2);
        sx *= m;
        sy *= m;
    }
    return (vec2){sx, sy};
}

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

void boids_step_range(world_t *w, size_t begin, size_t end)
{
    const sim_params_t *p = &w->params;
    const agents_t *a = &w->cur;
    agents_t *out = &w->next;
    const grid_t *g = &w->grid;
    const uint32_t *start = g->cell_start;
    const bool wrap = p->border == BORDER_WRAP;
    const float W = w->width, H = w->height;
    const float sep2 = p->sep_radius * p->sep_radius;
    const float ali2 = p->ali_radius * p->ali_radius;
    const float coh2 = p->coh_radius * p->coh_radius;
    const float reach2 = fmaxf(sep2, fmaxf(ali2, coh2));
    /* Field of view without trigonometry per pair: neighbour d is visible iff
     * angle(v, d) ≤ fov/2, i.e. v·d ≥ cos(fov/2)·|v|·|d|, compared squared. */
    const bool blind = p->fov_deg < 360.0f;
    const float cos_half = cosf(p->fov_deg * (3.14159265f / 360.0f));
    const float cos_half2 = cos_half * cos_half;
    const float max_speed = p->max_speed, max_force = p->max_force, dt = w->dt;

    for (size_t i = begin; i < end; i++) {
        const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];
        const float k_fov = cos_half2 * (vx * vx + vy * vy);
        const bool sees_all = !blind || k_fov == 0.0f;
        float sx = 0, sy = 0, ax = 0, ay = 0, cx = 0, cy = 0;
        int ns = 0, na = 0, nc = 0;

        uint32_t cells[9];
        int ncells = grid_block(g, grid_cell_x(g, px), grid_cell_y(g, py), wrap, cells);
        for (int c = 0; c < ncells; c++) {
            for (uint32_t j = start[cells[c]], stop = start[cells[c] + 1]; j < stop; j++) {
                if (j == i) continue;
                float dx = a->x[j] - px, dy = a->y[j] - py;
                if (wrap) {
                    dx = wrap_delta(dx, W);
                    dy = wrap_delta(dy, H);
                }
                float d2 = dx * dx + dy * dy;
                if (d2 >= reach2) continue;
                if (!sees_all) {
                    float dot = vx * dx + vy * dy;
                    bool visible = cos_half >= 0.0f ? (dot >= 0.0f && dot * dot >= k_fov * d2)
                                                    : (dot >= 0.0f || dot * dot <= k_fov * d2);
                    if (!visible) continue;
                }
                if (d2 < sep2 && d2 > 0.0f) {
                    /* Away from the neighbour, weighted by 1/distance:
                     * (−d/|d|)·(1/|d|) = −d/|d|². */
                    sx -= dx / d2;
                    sy -= dy / d2;
                    ns++;
                } else if (d2 < sep2) {
                    ns++; /* same spot: a neighbour, but no direction to flee */
                }
                if (d2 < ali2) {
                    ax += a->vx[j];
                    ay += a->vy[j];
                    na++;
                }
                if (d2 < coh2) {
                    cx += dx;
                    cy += dy;
                    nc++;
                }
            }
        }

        float accx = 0, accy = 0, wsum = 0;
        if (ns && p->w_sep > 0) {
            vec2 s = steer_toward(sx, sy, vx, vy, max_speed, max_force);
            accx += p->w_sep * s.x, accy += p->w_sep * s.y, wsum += p->w_sep;
        }
        if (na && p->w_ali > 0) {
            vec2 s = steer_toward(ax, ay, vx, vy, max_speed, max_force);
            accx += p->w_ali * s.x, accy += p->w_ali * s.y, wsum += p->w_ali;
        }
        if (nc && p->w_coh > 0) {
            vec2 s = steer_toward(cx, cy, vx, vy, max_speed, max_force);
            accx += p->w_coh * s.x, accy += p->w_coh * s.y, wsum += p->w_coh;
        }
        vec2 avoid;
        if (p->w_avoid > 0 && avoid_obstacles(w, px, py, vx, vy, &avoid)) {
            accx += p->w_avoid * avoid.x, accy += p->w_avoid * avoid.y, wsum += p->w_avoid;
        }
        /* A leader: no neighbour in any zone, so it steers to the nearest
         * target; agents that see it follow, and the flock is led. */
        uint8_t flags = 0;
        float tx = 0.0f, ty = 0.0f;
        if (ns + na + nc == 0 && nearest_target(w, px, py, &tx, &ty)) {
            flags |= AGENT_LEADER;
            if (p->w_leader > 0) {
                vec2 s = steer_toward(tx, ty, vx, vy, max_speed, max_force);
                accx += p->w_leader * s.x, accy += p->w_leader * s.y, wsum += p->w_leader;
            }
        }

        float nvx = vx, nvy = vy;
        if (wsum > 0.0f) {
            nvx += accx / wsum * dt;
            nvy += accy / wsum * dt;
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
}
