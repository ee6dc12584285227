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
    /* Separation "potential" (seed 001 §6.1): Σ F(d) d̂ away from each
     * neighbour within the separation radius, F(d) = −mA/d^(m+1) + nB/d^(n+1). */
    bool potential;
    int pot_m1, pot_n1;      /* m + 1, n + 1 */
    float pot_ma, pot_nb;    /* m·A, n·B */
    /* Contact (the steering rules' personal space, r): Σ d̂ (1/d − d/r²)
     * away from every body closer than r, all around; 0 when there is none
     * (r = 0, or the potential, which uses the same sums). */
    float contact2, inv_contact2; /* r², 1/r² */
    float width, height;
} sense_params_t;

typedef struct sense_sums {
    float sep_x, sep_y; /* Σ −d/|d|² over the separation zone */
    float ali_x, ali_y; /* Σ v_j over the alignment zone */
    float coh_x, coh_y; /* Σ d over the cohesion zone */
    int n_any;          /* neighbours in any zone */
    int n_ali;          /* … in the alignment zone (the fast variants' is n_any: the same there) */
    int n_coh;          /* … in the cohesion zone (generic variant only) */
    int n_ahead;        /* cohesion-zone neighbours in front (leader rule "front"; generic only) */
    /* Σ F(d) d̂ away from each neighbour when sp->potential (generic only),
     * else the contact sum inside personal space (sp->contact2) */
    float pair_x, pair_y;
} sense_sums_t;

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
 * to six partial runs. Fixed capacity: a denser block is sampled down to
 * max_candidates (kernel.c), which is never more. */
typedef struct sense_scratch {
    float *x, *y, *vx, *vy; /* cap + 2·SENSE_LANES entries each (copies run a vector past the end) */
    float *species;         /* each candidate's species, when the world has several */
    uint32_t cap;
} sense_scratch_t;

/* A far-away position for the lanes past the end of a gathered span: no
 * zone reaches it, so those lanes need no bounds mask. */
#define SENSE_FAR 1e30f

/* Per-lane partial sums of one agent's sensing. */
typedef struct sense_acc {
    lanes_f sx, sy, ax, ay, cx, cy;
    lanes_f nn, na, nc; /* neighbours in any zone, in alignment's, in cohesion's (generic variant) */
    lanes_i minus_n;    /* the fast variants' count of neighbours in any zone: each adds its mask, −1
                           (an integer add, off the float ports; whole numbers, so the same count) */
    lanes_f nf;         /* cohesion-zone neighbours in front, when counted */
    lanes_f px, py;     /* the potential's force, or the contact sum */
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
    int32_t self;            /* the agent's own index among the candidates when it is
                                not at distance 0 from itself (delayed positions); else −1 */
} sense_self_t;

/* ali_r and coh_r: this agent's zone radii (density-dependent perception),
 * or 0 for the parameters' radii. */
LANES_INLINE sense_self_t sense_self(const sense_params_t *sp, float vx, float vy, float ali_r, float coh_r)
{
    /* Visible iff angle(v, d) ≤ fov/2: v·d ≥ cos(fov/2)·|v|·|d|, compared
     * squared so that no square root or trigonometry runs per pair. */
    sense_self_t me = {.vx = vx, .vy = vy, .sees_everything = true, .species = -1.0f, .self = -1};
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

/* Lanes where d lies inside a field of view, from dot = v·d: for a view
 * wider than 180° everything in front, and behind unless inside the blind
 * cone (dot < 0 and dot² > k·|d|²); for a narrower one, in front and inside
 * the cone (dot ≥ 0 and dot² ≥ k·|d|²). Both in one comparison of
 * dot·|dot| (that is ±dot², exactly) with ∓k·|d|². */
LANES_INLINE lanes_i lanes_in_view(lanes_f dot, lanes_f d2, float k_fov, bool wide)
{
    const lanes_i sign = (lanes_i){0} + INT32_MIN;
    const lanes_f signed_dot2 = dot * (lanes_f)((lanes_i)dot & ~sign);
    return signed_dot2 >= (wide ? -k_fov : k_fov) * d2;
}

/* How sense_span is specialised. Each call site passes constants, so that
 * the compiler builds one loop per variant with no tests of the mode
 * inside: the common case (one species, all zones seeing alike) runs the
 * shortest loop, and every variant gives the same bits for the same agent. */
typedef struct sense_mode {
    bool generic; /* everything below read at run time from me and sp */
    bool view;    /* (fast variants) a blind angle shared by all zones */
    bool wide;    /* (fast variants) … wider than 180° */
} sense_mode_t;

#define SENSE_GENERIC ((sense_mode_t){.generic = true})
#define SENSE_SEES_ALL ((sense_mode_t){0})
#define SENSE_WIDE_VIEW ((sense_mode_t){.view = true, .wide = true})
#define SENSE_NARROW_VIEW ((sense_mode_t){.view = true})

/* True when an agent may sense with a fast variant: one species, no
 * per-pair wrapping or extra counts, alignment and cohesion the same zone,
 * separation's inside it, all three zones the same view. Then every
 * neighbour is in the alignment zone, so n_ali = n_any. */
LANES_INLINE bool sense_fast_ok(const sense_params_t *sp, const sense_self_t *me, bool several_species)
{
    return !several_species && !sp->pair_wrap && !sp->count_ahead && !sp->count_zones && !sp->potential &&
           me->coh_is_ali && me->sep_view_is_ali && sp->sep2 <= me->ali2;
}

/* True when, with one species, every agent may sense with a fast variant
 * whatever its velocity: sense_fast_ok's conditions on the parameters
 * alone (an agent standing still sees all around, which the fast variants
 * also cover). */
LANES_INLINE bool sense_params_fast_ok(const sense_params_t *sp)
{
    bool same_view = true;
    for (int z = 0; z < ZONES; z++)
        same_view &= sp->blind[z] == sp->blind[ZONE_ALI] && sp->wide[z] == sp->wide[ZONE_ALI] &&
                     sp->cos_half2[z] == sp->cos_half2[ZONE_ALI];
    return same_view && !sp->pair_wrap && !sp->count_ahead && !sp->count_zones && !sp->potential &&
           sp->coh2 == sp->ali2 && sp->sep2 <= sp->ali2;
}

/* Adds one vector of candidates at displacements (dx, dy) from the agent,
 * with velocities (or headings) VX/VY and species KIND (read only when
 * me->species ≥ 0); j0 is the first one's index among the candidates.
 *
 * A candidate at distance 0 is in no zone: that is how the agent itself,
 * which is among its candidates, is left out without a test of its index
 * (or a write into the span, which would stall the loads that follow). An
 * other agent at the very same spot is left out with it; no zone could say
 * which way it lies. Only when the candidates' positions are from the past
 * (delayed feedback) is the agent's own entry, me->self, tested. */
LANES_INLINE void sense_lanes(sense_acc_t *a, lanes_f dx, lanes_f dy, lanes_f VX, lanes_f VY, lanes_f KIND, int32_t j0,
                               const sense_self_t *me, const sense_params_t *sp, const sense_mode_t mode)
{
    const lanes_f zero = {0};
    const lanes_f one = zero + 1.0f;
    const bool sees_everything = mode.generic ? me->sees_everything : !mode.view;
    const bool coh_is_ali = mode.generic ? me->coh_is_ali : true;
    const lanes_f d2 = dx * dx + dy * dy;
    lanes_i apart = d2 > 0.0f;
    if (mode.generic && me->self >= 0) {
        lanes_i index;
        for (int k = 0; k < SENSE_LANES; k++) index[k] = j0 + k;
        apart &= index != me->self;
    }
    lanes_i m_sep = (d2 < sp->sep2) & apart;
    lanes_i m_ali = (d2 < me->ali2) & apart;
    lanes_i m_coh = coh_is_ali ? m_ali : (d2 < me->coh2) & apart;
    /* Alignment and cohesion (and being someone's neighbour) are for the
     * agent's own kind; separation keeps it off every body, of any kind
     * (else two species gathered at one target pass through each other). */
    lanes_i kind = apart;
    if (mode.generic && me->species >= 0.0f) { /* own kind only */
        kind = KIND == me->species;
        m_ali &= kind;
        m_coh &= kind;
    }
    if (!sees_everything) {
        /* Each zone's view, computed once when zones share it (the
         * default: all three see 300°). */
        const lanes_f dot = me->vx * dx + me->vy * dy;
        if (!mode.generic) {
            const lanes_i v = lanes_in_view(dot, d2, me->k_fov[ZONE_ALI], mode.wide);
            m_sep &= v;
            m_ali &= v;
            m_coh = m_ali;
        } else {
            lanes_i all = m_ali | ~m_ali; /* all ones */
            const lanes_i v_ali =
                me->sees_all[ZONE_ALI] ? all : lanes_in_view(dot, d2, me->k_fov[ZONE_ALI], sp->wide[ZONE_ALI]);
            const lanes_i v_sep = me->sep_view_is_ali      ? v_ali
                                  : me->sees_all[ZONE_SEP] ? all
                                                           : lanes_in_view(dot, d2, me->k_fov[ZONE_SEP], sp->wide[ZONE_SEP]);
            m_sep &= v_sep;
            m_ali &= v_ali;
            if (me->coh_is_ali)
                m_coh = m_ali;
            else
                m_coh &= me->coh_view_is_ali      ? v_ali
                         : me->sees_all[ZONE_COH] ? all
                                                  : lanes_in_view(dot, d2, me->k_fov[ZONE_COH], sp->wide[ZONE_COH]);
        }
    }
    /* Neighbours of its kind in any zone: in the fast variants, the
     * alignment zone's (cohesion's is the same, and separation's, as near
     * or nearer with the same view, lies inside it: sense_fast_ok). */
    const lanes_i m = mode.generic ? m_ali | m_coh | (m_sep & kind) : m_ali;
    /* Lanes with d2 = 0 divide by zero here; their result is masked out
     * bit by bit (IEEE division by zero is defined, not trapped). */
    const lanes_f inv_d2 = one / d2;
    const lanes_f inv = lanes_keep(m_sep, inv_d2);
    a->sx -= dx * inv;
    a->sy -= dy * inv;
    a->ax += lanes_keep(m_ali, VX);
    a->ay += lanes_keep(m_ali, VY);
    a->cx += lanes_keep(m_coh, dx);
    a->cy += lanes_keep(m_coh, dy);
    if (mode.generic)
        a->nn += lanes_keep(m, one);
    else
        a->minus_n += m;
    {
        /* Contact: d̂ (1/d − d/r²) = d (1/d² − 1/r²), from nothing at r to
         * 1/d close in, without a square root (the mask is all zeros when
         * contact2 is 0, which leaves the sums' bits as they were). */
        const lanes_i touching = (d2 < sp->contact2) & apart;
        const lanes_f k = lanes_keep(touching, inv_d2 - sp->inv_contact2);
        a->px -= dx * k;
        a->py -= dy * k;
    }
    if (mode.generic && sp->potential) {
        /* The pairwise force of U(d) = −A/d^m + B/d^n, pushing away when
         * positive, within the separation radius (the cut-off: past it
         * the seed's long-ranged 1/d² attraction of a whole crowd would
         * pack it) and all around (a potential has no blind angle).
         * Another kind only repels. Integer powers of 1/d by
         * multiplication: the same bits in every lane width. */
        const lanes_i near = (d2 < sp->sep2) & apart;
        if (lanes_any(near)) {
            const lanes_f inv_d = lanes_keep(near, one / lanes_sqrt(d2));
            lanes_f pow_k = inv_d, at_m1 = zero, at_n1 = zero;
            for (int k = 2; k <= sp->pot_n1; k++) {
                pow_k *= inv_d;
                if (k == sp->pot_m1) at_m1 = pow_k;
                if (k == sp->pot_n1) at_n1 = pow_k;
            }
            const lanes_f f = sp->pot_nb * at_n1 - sp->pot_ma * at_m1;
            const lanes_f force = lanes_select(kind, f, lanes_select(f > 0.0f, f, zero));
            a->px -= dx * inv_d * force;
            a->py -= dy * inv_d * force;
        }
    }
    if (mode.generic) {
        if (sp->count_ahead) a->nf += lanes_keep(m_coh & (me->vx * dx + me->vy * dy > 0.0f), one);
        a->na += lanes_keep(m_ali, one);
        a->nc += lanes_keep(m_coh, one);
    }
}

/* Adds candidates [0, end) of X/Y, seen from (qx, qy); VX/VY are what
 * alignment averages (velocities or unit headings); S holds each
 * candidate's species, read only when me->species ≥ 0. The arrays must be
 * readable up to end + SENSE_LANES − 1, those extra entries holding
 * SENSE_FAR positions. */
LANES_INLINE void sense_span(sense_acc_t *acc, const float *restrict X, const float *restrict Y,
                              const float *restrict VX, const float *restrict VY, const float *restrict S,
                              int32_t end, float qx, float qy, const sense_self_t *me, const sense_params_t *sp,
                              const sense_mode_t mode)
{
    const lanes_f zero = {0};
    const float half_w = 0.5f * sp->width, half_h = 0.5f * sp->height;
    const bool by_kind = mode.generic && me->species >= 0.0f;
    sense_acc_t a = *acc;
    for (int32_t j0 = 0; j0 < end; j0 += SENSE_LANES) {
        lanes_f dx = lanes_load(X + j0) - qx, dy = lanes_load(Y + j0) - qy;
        if (mode.generic && sp->pair_wrap) { /* shortest displacement on the torus */
            dx = dx - lanes_keep(dx > half_w, zero + sp->width) + lanes_keep(dx < -half_w, zero + sp->width);
            dy = dy - lanes_keep(dy > half_h, zero + sp->height) + lanes_keep(dy < -half_h, zero + sp->height);
        }
        sense_lanes(&a, dx, dy, lanes_load(VX + j0), lanes_load(VY + j0), by_kind ? lanes_load(S + j0) : zero, j0, me,
                    sp, mode);
    }
    *acc = a;
}

/* An agent's sums: quads (sep_x, sep_y, ali_x, ali_y), (coh_x, coh_y, n_any,
 * n_ali), (n_coh, n_ahead, pair_x, pair_y); n_coh and n_ahead only from
 * the generic variant (the fast ones' n_coh is n_any, n_ahead 0). */
typedef struct sense_quads {
    quad_f q[3];
} sense_quads_t;

/* The fast variants' quads, given their neighbour count (the generic
 * variant's nn lanes hold whole numbers under 2^24, whose sum in any order
 * is exact: a count gives the same number): two lane sums instead of three
 * (each quad element is its own vector's sum, in the same order wherever it
 * sits in lanes_sum4). */
LANES_INLINE sense_quads_t sense_finish_counted(const sense_acc_t *a, uint32_t count)
{
    const quad_f cp = lanes_sum4(a->cx, a->cy, a->px, a->py);
    const float n = (float)count;
    return (sense_quads_t){{lanes_sum4(a->sx, a->sy, a->ax, a->ay), (quad_f){cp[0], cp[1], n, n},
                            (quad_f){0.0f, 0.0f, cp[2], cp[3]}}};
}

LANES_INLINE sense_quads_t sense_finish(const sense_acc_t *a, bool generic)
{
    if (!generic) {
        int32_t minus_n = 0;
        for (int k = 0; k < SENSE_LANES; k++) minus_n += a->minus_n[k];
        return sense_finish_counted(a, (uint32_t)-minus_n);
    }
    sense_quads_t r;
    r.q[0] = lanes_sum4(a->sx, a->sy, a->ax, a->ay);
    r.q[1] = lanes_sum4(a->cx, a->cy, a->nn, a->na);
    r.q[2] = lanes_sum4(a->nc, a->nf, a->px, a->py);
    return r;
}

LANES_INLINE sense_sums_t sense_sums_of(sense_quads_t r)
{
    return (sense_sums_t){
        .sep_x = r.q[0][0],
        .sep_y = r.q[0][1],
        .ali_x = r.q[0][2],
        .ali_y = r.q[0][3],
        .coh_x = r.q[1][0],
        .coh_y = r.q[1][1],
        .n_any = (int)r.q[1][2],
        .n_ali = (int)r.q[1][3],
        .n_coh = (int)r.q[2][0],
        .n_ahead = (int)r.q[2][1],
        .pair_x = r.q[2][2],
        .pair_y = r.q[2][3],
    };
}

#endif
