#include "sim/inspect.h"

#include <math.h>
#include <string.h>

#include "sim/motion.h"

static unsigned species_of(uint8_t flags) { return (flags & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT; }

/* Displacement from agent i to j as the kernel sees it: across a wrapped
 * edge when that is shorter. */
static void displacement(const world_t *w, size_t i, size_t j, float *dx, float *dy)
{
    *dx = w->cur.x[j] - w->cur.x[i];
    *dy = w->cur.y[j] - w->cur.y[i];
    if (w->params.border == BORDER_WRAP) {
        *dx = motion_wrap_delta(*dx, w->width);
        *dy = motion_wrap_delta(*dy, w->height);
    }
}

long inspect_pick(const world_t *w, float x, float y, float max_dist)
{
    long best = -1;
    float best2 = max_dist * max_dist;
    for (size_t i = 0; i < w->n; i++) {
        float dx = w->cur.x[i] - x, dy = w->cur.y[i] - y, d2 = dx * dx + dy * dy;
        if (d2 <= best2) best = (long)i, best2 = d2;
    }
    return best;
}

long inspect_find(const world_t *w, uint32_t id)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->cur.id[i] == id) return (long)i;
    return -1;
}

/* A zone's field of view as the kernel tests it: visible iff the angle
 * between v and d is at most fov/2, compared squared (no trigonometry per
 * pair), everything when the view is 360° or the agent stands still. */
typedef struct view {
    bool sees_all, wide;
    float k; /* cos²(fov/2)·|v|² */
} view_t;

static view_t view_of(float fov, float vx, float vy)
{
    float cos_half = cosf(fov * (3.14159265f / 360.0f)), v2 = vx * vx + vy * vy;
    return (view_t){.sees_all = !(fov < 360.0f) || v2 == 0.0f, .wide = cos_half < 0.0f, .k = cos_half * cos_half * v2};
}

static bool in_view(const view_t *v, float vx, float vy, float dx, float dy, float d2)
{
    if (v->sees_all) return true;
    float dot = vx * dx + vy * dy;
    return dot * fabsf(dot) >= (v->wide ? -v->k : v->k) * d2;
}

/* One "steer toward a direction" rule of reynolds.c: d̂·speed − v, limited
 * to max_dv; zero when there is no direction. */
static void steer_toward(float dir_x, float dir_y, float speed, float vx, float vy, float max_dv, float out[2])
{
    float len2 = dir_x * dir_x + dir_y * dir_y;
    out[0] = out[1] = 0.0f;
    if (!(len2 > 0.0f)) return;
    float scale = speed / sqrtf(len2), sx = dir_x * scale - vx, sy = dir_y * scale - vy, s2 = sx * sx + sy * sy;
    float limit = s2 > max_dv * max_dv ? max_dv / sqrtf(s2) : 1.0f;
    out[0] = sx * limit, out[1] = sy * limit;
}

/* Reynolds' rules as reynolds.c combines them: each weighted part over the
 * sum of the weights of the rules that fired, per second (over the time a
 * steer stands for, world_steer_dt: with staggered steering the change
 * is k ticks' worth). Wandering is left out (asking for it would move the
 * agent's wander point). */
static void reynolds_steering(const world_t *w, const sim_params_t *p, size_t i, const float dir[3][2], int n_any,
                              int n_ahead, inspect_t *out)
{
    const float steer_dt = world_steer_dt(w);
    const float vx = out->vx, vy = out->vy, max_dv = p->max_force * steer_dt;
    const float weight[3] = {p->rule_sep ? p->w_sep : 0.0f, p->rule_ali ? p->w_ali : 0.0f,
                             p->rule_coh ? p->w_coh : 0.0f};
    float part[INSPECT_RULES][2] = {{0}}, wsum = 0.0f;
    for (int r = 0; r < 3; r++) {
        steer_toward(dir[r][0], dir[r][1], p->max_speed, vx, vy, max_dv, part[r]);
        if (part[r][0] != 0.0f || part[r][1] != 0.0f || dir[r][0] != 0.0f || dir[r][1] != 0.0f) {
            part[r][0] *= weight[r], part[r][1] *= weight[r];
            wsum += weight[r];
        }
    }
    vec2 to;
    const bool leads = (p->leader_rule == LEADER_FRONT ? n_ahead : n_any) == 0;
    if ((leads || p->w_target > 0.0f) && motion_nearest_target(w, out->x, out->y, &to)) {
        float d2 = to.x * to.x + to.y * to.y;
        float wt = leads ? p->w_leader : (d2 > p->target_radius * p->target_radius ? p->w_target : 0.0f);
        float speed = p->max_speed;
        if (leads && p->arrive_radius > 0.0f && sqrtf(d2) < p->arrive_radius) speed = p->max_speed * sqrtf(d2) / p->arrive_radius;
        steer_toward(to.x, to.y, speed, vx, vy, max_dv, part[INSPECT_TARGET]);
        part[INSPECT_TARGET][0] *= wt, part[INSPECT_TARGET][1] *= wt;
        if (to.x != 0.0f || to.y != 0.0f) wsum += wt;
    }
    vec2 other;
    if (p->w_avoid > 0 && motion_avoid(w, out->x, out->y, vx, vy, &other)) wsum += p->w_avoid;
    if (w->n_predators && p->w_flee > 0.0f && motion_evade(w, out->x, out->y, &other)) wsum += p->w_flee;
    (void)i;
    for (int r = 0; r < INSPECT_RULES; r++)
        for (int c = 0; c < 2; c++) out->steer[r][c] = wsum > 0.0f ? part[r][c] / wsum / steer_dt : 0.0f;
    out->has_steering = true;
}

void inspect_agent(const world_t *w, size_t i, inspect_t *out)
{
    memset(out, 0, sizeof *out);
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]);
    out->id = a->id[i];
    out->x = a->x[i], out->y = a->y[i], out->vx = a->vx[i], out->vy = a->vy[i];
    out->flags = a->flags[i];
    out->model = w->params.model;
    /* The coming step bins the agent by this position, so its row there is
     * this one. */
    out->steer_every = (uint32_t)world_steer_every(w);
    out->steers_in = world_row_steers_in(w, (uint32_t)grid_cell_y(&w->grid, out->y));
    out->zoned = p->model == MODEL_REYNOLDS || p->model == MODEL_UNICYCLE;
    const bool density = w->params.density_radii && w->radius_ali && w->radius_coh; /* world-only */
    if (out->zoned) {
        out->radius[0] = p->sep_radius;
        out->radius[1] = density ? w->radius_ali[out->id] : p->ali_radius;
        out->radius[2] = density ? w->radius_coh[out->id] : p->coh_radius;
        out->fov[0] = p->fov_sep, out->fov[1] = p->fov_ali, out->fov[2] = p->fov_coh;
    } else if (p->model == MODEL_COUZIN) { /* the zones' outer radii (each disk holds the ones inside) */
        const float r_o = p->cz_r_r + p->cz_dr_o;
        out->radius[0] = p->cz_r_r, out->radius[1] = r_o, out->radius[2] = r_o + p->cz_dr_a;
        for (int z = 0; z < 3; z++) out->fov[z] = p->cz_fov;
    } else { /* Olfati-Saber: one interaction range, all round */
        for (int z = 0; z < 3; z++) out->radius[z] = p->os_r, out->fov[z] = 360.0f;
    }
    view_t view[3];
    float r2[3];
    for (int z = 0; z < 3; z++) view[z] = view_of(out->fov[z], out->vx, out->vy), r2[z] = out->radius[z] * out->radius[z];
    const bool by_kind = w->params.species > 1;
    const bool by_heading = p->ali_mode == ALIGN_HEADING && w->head_x && w->head_y;
    float dir[3][2] = {{0}};
    int n_any = 0, n_ahead = 0;
    for (size_t j = 0; j < w->n; j++) {
        if (j == i || (by_kind && species_of(a->flags[j]) != species_of(a->flags[i]))) continue;
        float dx, dy;
        displacement(w, i, j, &dx, &dy);
        float d2 = dx * dx + dy * dy;
        if (!(d2 > 0.0f)) continue; /* as the kernel: no zone can say where it lies */
        bool in[3], any = false;
        for (int z = 0; z < 3; z++) {
            in[z] = d2 < r2[z] && in_view(&view[z], out->vx, out->vy, dx, dy, d2);
            any |= in[z];
            if (!in[z]) continue;
            if (out->listed[z] < INSPECT_MAX_LISTED) {
                out->pos[z][out->listed[z]][0] = out->x + dx;
                out->pos[z][out->listed[z]][1] = out->y + dy;
                out->listed[z]++;
            }
            out->count[z]++;
        }
        n_any += any;
        if (in[0]) dir[0][0] -= dx / d2, dir[0][1] -= dy / d2;
        if (in[1]) dir[1][0] += by_heading ? w->head_x[j] : a->vx[j], dir[1][1] += by_heading ? w->head_y[j] : a->vy[j];
        if (in[2]) {
            dir[2][0] += dx, dir[2][1] += dy;
            n_ahead += out->vx * dx + out->vy * dy > 0.0f;
        }
    }
    if (p->model == MODEL_REYNOLDS) reynolds_steering(w, p, i, dir, n_any, n_ahead, out);
}
