/* escape: an agent the push-out left inside an obstacle takes the shortest
 * of its straight ways out (escape.h). */
#include "sim/escape.h"

#include <math.h>

#include "sim/motion.h"

/* The shortest way round a torus of the given extent, for the distances
 * met here (a few extents at most: a way ends within width + height). */
static double wrap_delta(double d, double extent)
{
    while (d > 0.5 * extent) d -= extent;
    while (d < -0.5 * extent) d += extent;
    return d;
}

/* The first obstacle (in table order) holding (x, y) by the metrics'
 * measure (float, the shortest way round on a torus); n_obstacles when
 * none. */
static size_t holder_of(const world_t *w, float x, float y)
{
    const bool wrap = w->params.border == BORDER_WRAP;
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        float dx = x - o->x, dy = y - o->y;
        if (wrap) dx = motion_wrap_delta(dx, w->width), dy = motion_wrap_delta(dy, w->height);
        if (dx * dx + dy * dy < o->r * o->r) return k;
    }
    return w->n_obstacles;
}

/* The largest coordinates inside a bounded world: its width and height,
 * but below them when the border respawns (an agent at x = width has gone
 * over the edge for respawn_if_outside). */
static float right_edge(const world_t *w)
{
    return w->params.border == BORDER_RESPAWN ? nextafterf(w->width, 0.0f) : w->width;
}

static float top_edge(const world_t *w)
{
    return w->params.border == BORDER_RESPAWN ? nextafterf(w->height, 0.0f) : w->height;
}

/* The place at distance t from (px, py) along (ux, uy), in float as the
 * agent will hold it: on a torus wrapped into the world. False when it is
 * outside a bounded world. */
static bool place_at(const world_t *w, double px, double py, double ux, double uy, double t, float *x, float *y)
{
    double nx = px + ux * t, ny = py + uy * t;
    if (w->params.border == BORDER_WRAP) {
        nx -= w->width * floor(nx / w->width), ny -= w->height * floor(ny / w->height);
        *x = (float)nx, *y = (float)ny;
        if (*x >= w->width) *x = 0.0f; /* rounded up to the far edge: the same place */
        if (*y >= w->height) *y = 0.0f;
        return true;
    }
    *x = (float)nx, *y = (float)ny;
    return *x >= 0.0f && *x <= right_edge(w) && *y >= 0.0f && *y <= top_edge(w);
}

/* How far from (px, py) along the unit direction (ux, uy) an agent must
 * go to be out of every obstacle, (*x, *y) the place it then takes:
 * past every obstacle the line is in or enters on the way (every image of
 * it on a torus), then `margin` further, and that place, rounded to float,
 * outside every obstacle by the metrics' measure (else on from there).
 * INFINITY when there is no such place: a bounded world's edge comes
 * first, or on a torus the line stays covered for longer than the world
 * is wide and high; or when *budget (obstacles to test, one taken per
 * test) runs out first. */
static double way_out(const world_t *w, double px, double py, double ux, double uy, double margin, float *x,
                      float *y, size_t *budget)
{
    const bool wrap = w->params.border == BORDER_WRAP;
    const double W = w->width, H = w->height;
    double t = 0.0;
    /* Each round that finds the point inside an obstacle moves it to where
     * the line leaves that obstacle: it cannot enter the same disc again,
     * but on a torus it may meet the disc's next image. */
    for (;;) {
        bool inside = false;
        for (size_t k = 0; k < w->n_obstacles; k++) {
            if (*budget == 0) return INFINITY;
            --*budget;
            const obstacle_t *o = &w->obstacles[k];
            double dx = px + ux * t - o->x, dy = py + uy * t - o->y;
            if (wrap) dx = wrap_delta(dx, W), dy = wrap_delta(dy, H);
            const double d2 = dx * dx + dy * dy, r = o->r;
            if (!(d2 < r * r)) continue;
            const double along = dx * ux + dy * uy; /* |d + u s| = r at s = −d·u + √((d·u)² − |d|² + r²) */
            const double disc = along * along - d2 + r * r;
            t += -along + sqrt(disc > 0.0 ? disc : 0.0);
            t += 1e-9 * (1.0 + t); /* past the edge for certain, not on it by rounding */
            if (t > W + H) return INFINITY; /* round the torus, or out of a bounded world */
            inside = true;
        }
        if (inside) continue;
        /* Out, exactly: the margin on, and the place the agent will hold
         * must be out too (the margin may reach an obstacle just beyond a
         * narrow gap; rounding to float may go back in). */
        t += margin;
        if (!place_at(w, px, py, ux, uy, t, x, y)) return INFINITY;
        if (holder_of(w, *x, *y) == w->n_obstacles) return t;
    }
}

/* The compass's ways: the axes first (along a wall), then the diagonals,
 * then the eight between; cos and sin written out (no library's rounding
 * in the way, and the axes exactly). */
#define C1 0.92387953251128674 /* cos 22.5° */
#define S1 0.38268343236508978 /* sin 22.5° */
#define D1 0.70710678118654752 /* cos 45° */
static const double compass[ESCAPE_WAYS][2] = {
    {1, 0},   {-1, 0},   {0, 1},    {0, -1},  {D1, D1},  {-D1, D1}, {-D1, -D1}, {D1, -D1},
    {C1, S1}, {S1, C1},  {-S1, C1}, {-C1, S1}, {-C1, -S1}, {-S1, -C1}, {S1, -C1}, {C1, -S1},
};

bool escape_obstacle(const world_t *w, float *x, float *y, float *vx, float *vy, int attempt)
{
    const size_t k = holder_of(w, *x, *y);
    if (k == w->n_obstacles) return false;
    /* What one agent's escape may cost, in obstacles tested: a world that
     * obstacles cover leaves every agent inside, every tick, with no way
     * out; each must cost no more than a push through a crowd of them. */
    size_t budget = ESCAPE_BUDGET;
    const bool wrap = w->params.border == BORDER_WRAP;
    const obstacle_t *o = &w->obstacles[k];
    const double px = *x, py = *y;
    double cx = px - o->x, cy = py - o->y; /* from its centre, the shortest way round */
    if (wrap) cx = wrap_delta(cx, w->width), cy = wrap_delta(cy, w->height);
    const double len = sqrt(cx * cx + cy * cy);
    /* Beyond the edge by a margin that outgrows a float's step anywhere in
     * the world (a few of them), wider with each attempt. */
    const double scale = fmax(fmax(fabs(px), fabs(py)), fmax(w->width, w->height));
    const double margin = (1e-4 + 4.0 * scale * 0x1p-24) * ldexp(1.0, 2 * (attempt - 1));
    /* Straight out first (where the point is not at the centre), then the
     * compass, while the budget lasts. */
    double best = INFINITY, ux = 0.0, uy = 0.0;
    float bx = *x, by = *y;
    for (int way = len > 0.0 ? -1 : 0; way < ESCAPE_WAYS; way++) {
        const double wx = way < 0 ? cx / len : compass[way][0], wy = way < 0 ? cy / len : compass[way][1];
        float fx = 0.0f, fy = 0.0f;
        const double t = way_out(w, px, py, wx, wy, margin, &fx, &fy, &budget);
        if (t < best) best = t, ux = wx, uy = wy, bx = fx, by = fy;
    }
    if (!(best < INFINITY)) return false; /* no room on any way: it stays */
    *x = bx, *y = by;
    const double v_n = *vx * ux + *vy * uy;
    if (v_n < 0.0) *vx = (float)(*vx - v_n * ux), *vy = (float)(*vy - v_n * uy);
    return true;
}
