/* neighbours: what one agent senses of the others — the sums the Reynolds
 * rules need, over the neighbour candidates the grid gives as runs.
 *
 * This is the innermost loop of the simulation. It works on SENSE_LANES
 * candidates at a time, one accumulator per lane, masks instead of branches;
 * the lanes are summed in a fixed order at the end. No step depends on the
 * vector width, the thread or the visiting order, so results are
 * bit-identical however the work is split. The agent arrays must be readable
 * SENSE_LANES entries past the last agent (the world pads them). */
#ifndef SWARMCAST_NEIGHBOURS_H
#define SWARMCAST_NEIGHBOURS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim/grid.h"
#include "sim/lanes.h"

/* The kernel is written for 8 lanes (lanes_sum4 assumes it). */
#define SENSE_LANES LANES

/* Zones in the order the kernel keeps them. */
enum { ZONE_SEP, ZONE_ALI, ZONE_COH, ZONES };

typedef struct sense_params {
    float sep2, ali2, coh2;  /* squared zone radii (sense_self may narrow ali and coh) */
    bool blind[ZONES];       /* that zone's field of view is under 360° */
    bool wide[ZONES];        /* … and wider than 180° (cos(fov/2) < 0) */
    float cos_half2[ZONES];  /* cos²(fov/2) */
    bool pair_wrap;          /* shortest displacement per pair (tiny wrapped grids) */
    bool count_ahead;        /* count the cohesion-zone neighbours in front (leader rule "front") */
    bool count_zones;        /* count the alignment and cohesion neighbours (density-dependent radii) */
    float width, height;
} sense_params_t;

typedef struct sense_sums {
    float sep_x, sep_y; /* Σ −d/|d|² over the separation zone */
    float ali_x, ali_y; /* Σ v_j over the alignment zone */
    float coh_x, coh_y; /* Σ d over the cohesion zone */
    bool any_sep, any_ali, any_coh; /* did the zone see anyone */
    int n_any;                      /* neighbours in any zone */
    int n_ali, n_coh;               /* neighbours in the alignment and cohesion zones */
    int n_ahead;                    /* cohesion-zone neighbours in front (counted for leader rule "front") */
} sense_sums_t;


typedef float quad_f __attribute__((vector_size(4 * sizeof(float))));

/* Sums of four 8-lane vectors at once, each in the fixed order
 * ((v0+v4)+(v2+v6)) + ((v1+v5)+(v3+v7)): the same on every target, and a few
 * shuffles instead of 4×7 dependent scalar additions. */
LANES_INLINE quad_f lanes_sum4(lanes_f a, lanes_f b, lanes_f c, lanes_f d)
{
    quad_f ha = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
    quad_f hb = __builtin_shufflevector(b, b, 0, 1, 2, 3) + __builtin_shufflevector(b, b, 4, 5, 6, 7);
    quad_f hc = __builtin_shufflevector(c, c, 0, 1, 2, 3) + __builtin_shufflevector(c, c, 4, 5, 6, 7);
    quad_f hd = __builtin_shufflevector(d, d, 0, 1, 2, 3) + __builtin_shufflevector(d, d, 4, 5, 6, 7);
    quad_f p = __builtin_shufflevector(ha, hb, 0, 4, 1, 5) + __builtin_shufflevector(ha, hb, 2, 6, 3, 7);
    quad_f q = __builtin_shufflevector(hc, hd, 0, 4, 1, 5) + __builtin_shufflevector(hc, hd, 2, 6, 3, 7);
    return __builtin_shufflevector(p, q, 0, 1, 4, 5) + __builtin_shufflevector(p, q, 2, 3, 6, 7);
}

/* A cell's neighbour candidates copied into one contiguous span (shifted
 * across wrapped edges), so that the kernel runs over one span instead of up
 * to six partial runs. Fixed capacity: a denser block falls back to runs. */
typedef struct sense_scratch {
    float *x, *y, *vx, *vy; /* cap + SENSE_LANES entries each */
    float *species;         /* each candidate's species, when the world has several */
    uint32_t cap;
} sense_scratch_t;

#define SENSE_SCRATCH_CAP 4096

/* Per-lane partial sums of one agent's sensing. Which zones saw anyone is
 * all the rules need, so those are or-ed masks, not counts. */
typedef struct sense_acc {
    lanes_f sx, sy, ax, ay, cx, cy;
    lanes_f nn, na, nc; /* neighbours in any zone, in alignment's, in cohesion's */
    lanes_f nf;         /* cohesion-zone neighbours in front, when counted */
    lanes_i any_sep, any_ali, any_coh;
} sense_acc_t;

/* What is fixed for one agent while it looks at its candidates. */
typedef struct sense_self {
    float vx, vy;
    float ali2, coh2;        /* this agent's alignment and cohesion zones, squared */
    float k_fov[ZONES];      /* cos²(fov/2)·|v|² per zone */
    bool sees_all[ZONES];    /* no blind angle in that zone, or standing still */
    bool sees_everything;    /* all three */
    bool sep_view_is_ali, coh_view_is_ali; /* the same field of view: one mask serves both */
    bool coh_is_ali;         /* the same zone and view: one mask for both (the default) */
    float species;           /* only candidates of this species count; < 0: all */
} sense_self_t;

/* ali_r and coh_r: this agent's zone radii (density-dependent perception),
 * or 0 for the parameters' radii. */
LANES_INLINE sense_self_t sense_self(const sense_params_t *sp, float vx, float vy, float ali_r, float coh_r)
{
    /* Visible iff angle(v, d) ≤ fov/2: v·d ≥ cos(fov/2)·|v|·|d|, compared
     * squared so that no square root or trigonometry runs per pair. */
    sense_self_t me = {.vx = vx, .vy = vy, .sees_everything = true, .species = -1.0f};
    me.ali2 = ali_r > 0.0f ? ali_r * ali_r : sp->ali2;
    me.coh2 = coh_r > 0.0f ? coh_r * coh_r : sp->coh2;
    float v2 = vx * vx + vy * vy;
    for (int z = 0; z < ZONES; z++) {
        me.k_fov[z] = sp->cos_half2[z] * v2;
        me.sees_all[z] = !sp->blind[z] || v2 == 0.0f;
        me.sees_everything &= me.sees_all[z];
    }
    me.sep_view_is_ali = me.sees_all[ZONE_SEP] == me.sees_all[ZONE_ALI] && me.k_fov[ZONE_SEP] == me.k_fov[ZONE_ALI] &&
                         sp->wide[ZONE_SEP] == sp->wide[ZONE_ALI];
    me.coh_view_is_ali = me.sees_all[ZONE_COH] == me.sees_all[ZONE_ALI] && me.k_fov[ZONE_COH] == me.k_fov[ZONE_ALI] &&
                         sp->wide[ZONE_COH] == sp->wide[ZONE_ALI];
    me.coh_is_ali = me.coh_view_is_ali && me.coh2 == me.ali2;
    return me;
}

/* Lanes where d lies inside a field of view: for a view wider than 180°
 * everything in front, and behind unless inside the blind cone; for a
 * narrower one, in front and inside the cone. */
LANES_INLINE lanes_i lanes_in_view(lanes_i front, lanes_f dot2, lanes_f d2, float k_fov, bool wide)
{
    const lanes_f edge = k_fov * d2;
    return wide ? (front | (dot2 <= edge)) : (front & (dot2 >= edge));
}

/* A far-away position for the lanes past the end of a gathered span: no zone
 * reaches it, so those lanes need no bounds mask. */
#define SENSE_FAR 1e30f

/* Adds candidates [begin, end) of X/Y, seen from (qx, qy), skipping index
 * self; VX/VY are what alignment averages (velocities or unit headings);
 * S holds each candidate's species, read only when me->species ≥ 0.
 * The arrays must be readable up to end + SENSE_LANES − 1, those extra
 * entries holding SENSE_FAR positions. */
LANES_INLINE void sense_span(sense_acc_t *acc, const float *restrict X, const float *restrict Y,
                              const float *restrict VX, const float *restrict VY, const float *restrict S,
                              int32_t begin, int32_t end, int32_t self, float qx, float qy, const sense_self_t *me,
                              const sense_params_t *sp)
{
    const lanes_f zero = {0};
    const lanes_f one = zero + 1.0f;
    lanes_i lane;
    for (int k = 0; k < SENSE_LANES; k++) lane[k] = k;
    const float half_w = 0.5f * sp->width, half_h = 0.5f * sp->height;
    sense_acc_t a = *acc;
    for (int32_t j0 = begin; j0 < end; j0 += SENSE_LANES) {
        lanes_f dx = lanes_load(X + j0) - qx, dy = lanes_load(Y + j0) - qy;
        if (sp->pair_wrap) { /* shortest displacement on the torus */
            dx = dx - lanes_keep(dx > half_w, zero + sp->width) + lanes_keep(dx < -half_w, zero + sp->width);
            dy = dy - lanes_keep(dy > half_h, zero + sp->height) + lanes_keep(dy < -half_h, zero + sp->height);
        }
        const lanes_f d2 = dx * dx + dy * dy;
        const lanes_i index = lane + j0;
        lanes_i m = index != self;
        if (me->species >= 0.0f) m &= lanes_load(S + j0) == me->species; /* own kind only */
        lanes_i m_sep = m & (d2 < sp->sep2) & (d2 > 0.0f);
        lanes_i m_ali = m & (d2 < me->ali2);
        lanes_i m_coh = me->coh_is_ali ? m_ali : m & (d2 < me->coh2);
        if (!me->sees_everything) {
            /* Each zone's view, computed once when zones share it (the
             * default: all three see 300°). */
            const lanes_f dot = me->vx * dx + me->vy * dy;
            const lanes_i front = dot >= 0.0f;
            const lanes_f dot2 = dot * dot;
            lanes_i all = m | ~m; /* all ones */
            const lanes_i v_ali = me->sees_all[ZONE_ALI] ? all
                                                         : lanes_in_view(front, dot2, d2, me->k_fov[ZONE_ALI], sp->wide[ZONE_ALI]);
            const lanes_i v_sep = me->sep_view_is_ali ? v_ali
                                  : me->sees_all[ZONE_SEP]
                                      ? all
                                      : lanes_in_view(front, dot2, d2, me->k_fov[ZONE_SEP], sp->wide[ZONE_SEP]);
            m_sep &= v_sep;
            m_ali &= v_ali;
            if (me->coh_is_ali)
                m_coh = m_ali;
            else
                m_coh &= me->coh_view_is_ali ? v_ali
                         : me->sees_all[ZONE_COH]
                             ? all
                             : lanes_in_view(front, dot2, d2, me->k_fov[ZONE_COH], sp->wide[ZONE_COH]);
        }
        /* Neighbours in any zone; one at the very same spot counts (for
         * alignment and cohesion) though separation has no way from it. */
        m = m_ali | m_coh | m_sep;
        /* Lanes with d2 = 0 divide by zero here; their result is masked out
         * bit by bit below (IEEE division by zero is defined, not trapped). */
        const lanes_f inv = one / d2;
        a.sx -= lanes_keep(m_sep, dx * inv);
        a.sy -= lanes_keep(m_sep, dy * inv);
        a.ax += lanes_keep(m_ali, lanes_load(VX + j0));
        a.ay += lanes_keep(m_ali, lanes_load(VY + j0));
        a.cx += lanes_keep(m_coh, dx);
        a.cy += lanes_keep(m_coh, dy);
        a.nn += lanes_keep(m, one);
        if (sp->count_ahead) a.nf += lanes_keep(m_coh & (me->vx * dx + me->vy * dy > 0.0f), one);
        if (sp->count_zones) { /* only density-dependent perception needs them */
            a.na += lanes_keep(m_ali, one);
            a.nc += lanes_keep(m_coh, one);
        }
        a.any_sep |= m_sep;
        a.any_ali |= m_ali;
        a.any_coh |= m_coh;
    }
    *acc = a;
}

LANES_INLINE bool lanes_any(lanes_i m)
{
    int32_t r = 0;
    for (int k = 0; k < SENSE_LANES; k++) r |= m[k];
    return r != 0;
}

LANES_INLINE sense_sums_t sense_finish(const sense_acc_t *a)
{
    const lanes_f zero = {0};
    quad_f s1 = lanes_sum4(a->sx, a->sy, a->ax, a->ay);
    quad_f s2 = lanes_sum4(a->cx, a->cy, a->nn, a->na);
    quad_f s3 = lanes_sum4(a->nc, a->nf, zero, zero);
    return (sense_sums_t){
        .sep_x = s1[0],
        .sep_y = s1[1],
        .ali_x = s1[2],
        .ali_y = s1[3],
        .coh_x = s2[0],
        .coh_y = s2[1],
        .any_sep = lanes_any(a->any_sep),
        .any_ali = lanes_any(a->any_ali),
        .any_coh = lanes_any(a->any_coh),
        .n_any = (int)s2[2],
        .n_ali = (int)s2[3],
        .n_coh = (int)s3[0],
        .n_ahead = (int)s3[1],
    };
}

#endif
