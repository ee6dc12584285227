/* kernel: one step's pass over a range of agents (in cell order). For each
 * of their cells it finds the neighbour candidates once (the 3x3 block as
 * runs of the cell-sorted arrays, copied into one contiguous span while
 * the cell before is being sensed), then for each agent of the cell senses
 * them with the variant of the sensing loop that fits and hands the sums
 * to the model's rule (the Reynolds rules collect eight consecutive agents
 * and run for all at once).
 *
 * The work is bounded: a block holding more than max_candidates agents
 * (a dense crowd, or radii so large that a few cells hold everyone) is
 * sensed through an even sample of max_candidates of them, so a step costs
 * at most about N·max_candidates pair tests whatever the density.
 *
 * With staggered steering (steer_every k > 1) only the rows of cells due
 * on this tick are sensed and steered; the agents of the other rows coast
 * (motion_coast), without a gather or a look at a neighbour. */
#include <math.h>
#include <string.h>

#include "sim/clones.h"
#include "sim/models.h"
#include "sim/motion.h"
#include "sim/olfati_beta.h"
#include "sim/neighbours.h"
#include "sim/neighbours_avx512.h"
#include "sim/prng.h"
#include "sim/world.h"

/* Where a step reads its neighbours from: the current state, or, with
 * delayed feedback, the state of delay_ticks ago (by agent id). */
typedef struct sources {
    const float *x, *y, *vx, *vy;  /* indexed like the cell-sorted arrays; NULL when by id */
    const float *hx, *hy, *hvx, *hvy; /* history frame, indexed by id */
    const uint32_t *id;
    const uint8_t *flags; /* for each candidate's species; NULL with one species */
} sources_t;

/* dst[k] = src[k] for k < len, a whole vector at a time: it may write up
 * to SENSE_LANES − 1 entries past len (the scratch span has room, and the
 * next run or the padding overwrites them) and read as far past the
 * source (agent and history arrays are padded). Runs are short (a few to a
 * few dozen agents), too short for memcpy's set-up to pay. */
LANES_INLINE void copy_lanes(float *restrict dst, const float *restrict src, uint32_t len)
{
    for (uint32_t k = 0; k < len; k += SENSE_LANES) lanes_store(dst + k, lanes_load(src + k));
}

/* The same, plus shift: a run seen across a wrapped edge. */
LANES_INLINE void copy_lanes_shifted(float *restrict dst, const float *restrict src, uint32_t len, float shift)
{
    for (uint32_t k = 0; k < len; k += SENSE_LANES) lanes_store(dst + k, lanes_load(src + k) + shift);
}

/* Each candidate's species, from its flags. */
LANES_INLINE void copy_species(float *restrict dst, const uint8_t *restrict flags, uint32_t len)
{
    for (uint32_t k = 0; k < len; k++) dst[k] = (float)((flags[k] & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT);
}

/* Copies the candidates of the runs (taken end to end; together at most
 * the span's capacity) into the scratch span, shifted across wrapped
 * edges, then SENSE_FAR padding. Returns how many were copied. */
LANES_INLINE uint32_t gather_runs(const sources_t *src, const grid_run_t *runs, int n_runs, sense_scratch_t *s)
{
    uint32_t count = 0;
    for (int r = 0; r < n_runs; r++) {
        const uint32_t b = runs[r].begin, len = runs[r].end - b;
        const float shx = runs[r].shift_x, shy = runs[r].shift_y;
        float *x = s->x + count, *y = s->y + count, *vx = s->vx + count, *vy = s->vy + count;
        if (src->x && src->vx && !src->flags && shx == 0.0f && shy == 0.0f) { /* most runs: one loop */
            for (uint32_t k = 0; k < len; k += SENSE_LANES) {
                lanes_store(x + k, lanes_load(src->x + b + k));
                lanes_store(y + k, lanes_load(src->y + b + k));
                lanes_store(vx + k, lanes_load(src->vx + b + k));
                lanes_store(vy + k, lanes_load(src->vy + b + k));
            }
            count += len;
            continue;
        }
        if (src->x && shx == 0.0f && shy == 0.0f) {
            copy_lanes(x, src->x + b, len);
            copy_lanes(y, src->y + b, len);
        } else if (src->x) {
            copy_lanes_shifted(x, src->x + b, len, shx);
            copy_lanes_shifted(y, src->y + b, len, shy);
        } else {
            for (uint32_t k = 0; k < len; k++) {
                uint32_t id = src->id[b + k];
                x[k] = src->hx[id] + shx;
                y[k] = src->hy[id] + shy;
            }
        }
        if (src->flags) copy_species(s->species + count, src->flags + b, len);
        if (src->vx) {
            copy_lanes(vx, src->vx + b, len);
            copy_lanes(vy, src->vy + b, len);
        } else {
            for (uint32_t k = 0; k < len; k++) vx[k] = src->hvx[src->id[b + k]], vy[k] = src->hvy[src->id[b + k]];
        }
        count += len;
    }
    const lanes_f far = (lanes_f){0} + SENSE_FAR;
    lanes_store(s->x + count, far);
    lanes_store(s->y + count, far);
    return count;
}

static sense_params_t sense_params_of(const world_t *w, const sim_params_t *p)
{
    const float fov[ZONES] = {p->fov_sep, p->fov_ali, p->fov_coh};
    sense_params_t sp = {
        .sep2 = p->sep_radius * p->sep_radius,
        .ali2 = p->ali_radius * p->ali_radius,
        .coh2 = p->coh_radius * p->coh_radius,
        .width = w->width,
        .height = w->height,
    };
    if (p->model == MODEL_REYNOLDS && p->separation == SEPARATION_POTENTIAL) {
        /* n > m, else there is no equilibrium: the nearer the stronger the pull. */
        const int m = p->pot_m, n = p->pot_n > p->pot_m ? p->pot_n : p->pot_m + 1;
        sp.potential = true;
        sp.pot_m1 = m + 1, sp.pot_n1 = n + 1;
        sp.pot_ma = (float)m * p->pot_a, sp.pot_nb = (float)n * p->pot_b;
    }
    /* The steering rules' contact zone (personal_space); the unicycle,
     * which cannot brake and can only turn away, which takes room, feels
     * it from half as far again. */
    const float contact = p->model == MODEL_UNICYCLE ? 1.5f * p->personal_space : p->personal_space;
    if ((p->model == MODEL_REYNOLDS || p->model == MODEL_UNICYCLE) && !sp.potential && contact > 0.0f) {
        sp.contact2 = contact * contact;
        sp.inv_contact2 = 1.0f / sp.contact2;
    }
    for (int z = 0; z < ZONES; z++) {
        float cos_half = cosf(fov[z] * (3.14159265f / 360.0f));
        sp.blind[z] = fov[z] < 360.0f;
        sp.wide[z] = cos_half < 0.0f;
        sp.cos_half2[z] = cos_half * cos_half;
    }
    return sp;
}

/* What one step_agents call needs to know, fixed for the whole pass. */
typedef struct pass {
    world_t *w;
    uint32_t agent_begin, agent_end; /* the agents this pass steers */
    sources_t src;
    int species;                             /* how many (1: no species tests) */
    sense_params_t sps[SIM_MAX_SPECIES];     /* each species' sensing */
    olfati_consts_t ocs[SIM_MAX_SPECIES];    /* … and Olfati-Saber terms */
    couzin_consts_t ccs[SIM_MAX_SPECIES];    /* … and Couzin's zones */
    bool wrap, olfati, couzin, unicycle, density, delayed, delayed_positions;
    bool common; /* Reynolds' (or the unicycle's) common case: see reynolds_cell */
    bool avx512; /* … sensed by reynolds_cell_avx512 */
    uint32_t max_candidates; /* a block holding more is sampled */
    uint64_t sample_seed;    /* this tick's: where each cell's slice starts */
    reynolds_batch_t batch;
    olfati_batch_t finish;   /* Olfati-Saber's agents, ended LANES at a time */
    unicycle_batch_t uni;    /* the unicycle's, steered LANES at a time */
    couzin_batch_t cz;       /* Couzin's, steered LANES at a time */
} pass_t;

/* One cell's agents and where their neighbour candidates are. */
typedef struct cell_block {
    uint32_t first, last;     /* the cell's agents this pass steers */
    grid_run_t runs[GRID_MAX_SAMPLE_RUNS]; /* the block's runs, or its sample's */
    int n_runs;
    uint32_t total;           /* candidates in all runs: at most max_candidates */
    grid_own_t own[2];        /* where the cell's own agents are among them */
    int n_own;
    bool pair_wrap;           /* shortest displacement pair by pair */
    bool delay_wrap;          /* … only because delayed places may have crossed an edge */
} cell_block_t;

/* Agent i's place among its cell's candidates, or −1 when a sample left it
 * out (then no candidate is itself). */
static inline int32_t own_place(const cell_block_t *b, uint32_t i)
{
    for (int k = 0; k < b->n_own; k++)
        if (i >= b->own[k].begin && i < b->own[k].end) return (int32_t)(b->own[k].at + (i - b->own[k].begin));
    return -1;
}

/* The pass steers cell c's agents that are in its range: all, or (where
 * the range starts or ends inside the cell) some, so that a crowd in one
 * cell can be shared between threads. Their candidates are the whole
 * block's. */
static void cell_block_of(const pass_t *ps, uint32_t c, cell_block_t *b)
{
    const grid_t *g = &ps->w->grid;
    const uint32_t cell_first = g->cell_start[c], cell_last = g->cell_start[c + 1];
    b->first = cell_first > ps->agent_begin ? cell_first : ps->agent_begin;
    b->last = cell_last < ps->agent_end ? cell_last : ps->agent_end;
    b->n_runs = grid_runs(g, (int)(c % (uint32_t)g->nx), (int)(c / (uint32_t)g->nx), ps->wrap, b->runs, &b->pair_wrap);
    /* A delayed neighbour may have crossed a wrapped edge since: take the
     * shortest displacement pair by pair (unless the gathered places show
     * that none can have: gather). */
    b->delay_wrap = !b->pair_wrap && ps->delayed && ps->wrap;
    b->pair_wrap |= b->delay_wrap;
    uint32_t total = 0, self_base = 0;
    for (int r = 0; r < b->n_runs; r++) {
        if (cell_first >= b->runs[r].begin && cell_first < b->runs[r].end) self_base = total + (cell_first - b->runs[r].begin);
        total += b->runs[r].end - b->runs[r].begin;
    }
    b->total = total;
    b->own[0] = (grid_own_t){cell_first, cell_last, self_base};
    b->n_own = 1;
    if (total > ps->max_candidates) {
        /* Too many to sense them all: an even sample, the same for every
         * agent of the cell (so it is copied once). */
        b->n_runs = grid_sample_block(g, (int)(c % (uint32_t)g->nx), (int)(c / (uint32_t)g->nx), ps->wrap,
                                      ps->max_candidates, ps->sample_seed, b->runs, b->own, &b->n_own);
        b->total = ps->max_candidates;
    }
}

/* Copies a cell's candidates into the span, as its model senses them:
 * Couzin's as unit headings, once for all the cell's agents. */
/* Whether every displacement from the block's agents to the count
 * candidates in the span is at most half the world each way, so that the
 * torus's shortest way is the plain difference: then sensing pair by pair
 * wrapped gives the same bits unwrapped (a float difference is monotone
 * in each operand, so the extremes bound every pair's, rounding
 * included). Not when a place is NaN, or −0 (which sense_span's wrap,
 * adding and taking away 0, turns into +0). A crowd far from the edges
 * with delayed positions is sensed without wrapping every pair. */
LANES_INLINE bool short_displacements(const pass_t *ps, const cell_block_t *b, const sense_scratch_t *s,
                                      uint32_t count)
{
    const agents_t *a = &ps->w->cur;
    const lanes_f zero = {0};
    lanes_f lo_x = zero + INFINITY, hi_x = zero - INFINITY, lo_y = lo_x, hi_y = hi_x;
    lanes_i odd = {0}; /* NaN or −0 */
    const lanes_i sign = (lanes_i){0} + INT32_MIN;
    for (uint32_t k = 0; k < count; k += SENSE_LANES) {
        const lanes_i live = (lanes_i){0, 1, 2, 3, 4, 5, 6, 7} + (int32_t)k < (int32_t)count;
        const lanes_f x = lanes_load(s->x + k), y = lanes_load(s->y + k);
        odd |= live & ((x != x) | (y != y) | ((lanes_i)x == sign) | ((lanes_i)y == sign));
        lo_x = lanes_select(live & (x < lo_x), x, lo_x), hi_x = lanes_select(live & (x > hi_x), x, hi_x);
        lo_y = lanes_select(live & (y < lo_y), y, lo_y), hi_y = lanes_select(live & (y > hi_y), y, hi_y);
    }
    if (lanes_any(odd)) return false;
    float min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
    for (int l = 0; l < SENSE_LANES; l++) {
        min_x = lo_x[l] < min_x ? lo_x[l] : min_x, max_x = hi_x[l] > max_x ? hi_x[l] : max_x;
        min_y = lo_y[l] < min_y ? lo_y[l] : min_y, max_y = hi_y[l] > max_y ? hi_y[l] : max_y;
    }
    float qx_lo = INFINITY, qx_hi = -INFINITY, qy_lo = INFINITY, qy_hi = -INFINITY;
    for (uint32_t i = b->first; i < b->last; i++) {
        qx_lo = a->x[i] < qx_lo ? a->x[i] : qx_lo, qx_hi = a->x[i] > qx_hi ? a->x[i] : qx_hi;
        qy_lo = a->y[i] < qy_lo ? a->y[i] : qy_lo, qy_hi = a->y[i] > qy_hi ? a->y[i] : qy_hi;
    }
    const float half_w = 0.5f * ps->w->width, half_h = 0.5f * ps->w->height;
    return max_x - qx_lo <= half_w && min_x - qx_hi >= -half_w && max_y - qy_lo <= half_h && min_y - qy_hi >= -half_h;
}

LANES_INLINE void gather(const pass_t *ps, cell_block_t *b, sense_scratch_t *s)
{
    const uint32_t count = gather_runs(&ps->src, b->runs, b->n_runs, s);
    if (b->delay_wrap && short_displacements(ps, b, s, count)) b->pair_wrap = false;
    if (ps->couzin) couzin_headings(s->vx, s->vy, (int32_t)count);
}

/* Hands agent i's sums to the Reynolds rules, which run for a batch of
 * consecutive agents at once. */
LANES_INLINE void batch_add(pass_t *ps, const sense_quads_t *quads)
{
    reynolds_batch_t *b = &ps->batch;
    memcpy(b->sums[b->count], quads->q, sizeof quads->q);
    if (++b->count == REYNOLDS_BATCH) {
        reynolds_batch(ps->w, b);
        b->first += REYNOLDS_BATCH;
        b->count = 0;
    }
}

/* What an agent of Reynolds' common case knows of itself (sense_self's
 * result for that case, without its tests). */
LANES_INLINE sense_self_t common_self(const sense_params_t *sp, float vx, float vy)
{
    const float v2 = vx * vx + vy * vy;
    return (sense_self_t){.vx = vx, .vy = vy, .ali2 = sp->ali2, .k_fov = {[ZONE_ALI] = sp->cos_half2[ZONE_ALI] * v2}};
}

/* Agent i's sums handed on to the rules (Reynolds' or the unicycle's). */
LANES_INLINE void common_done(pass_t *ps, uint32_t i, const sense_quads_t *quads)
{
    if (ps->unicycle) {
        const sense_sums_t sums = sense_sums_of(*quads);
        unicycle_agent(ps->w, i, &sums, &ps->uni);
    } else {
        batch_add(ps, quads);
    }
}

/* Reynolds' common case, for one cell whose candidates are in the
 * scratch span: one species, alignment and cohesion the same zone, one
 * view for all zones, no per-pair wrapping, no extra counts — what
 * sense_fast_ok accepts, decided once for the pass. The same results as
 * the general path, with nothing per agent but what this case needs. The
 * unicycle senses as Reynolds does, so its common case runs here too.
 * SENSE_SPAN is the sensing loop and FINISH its lane sums: sense_span and
 * sense_finish, or in reynolds_cell_avx512 sense_span_avx512, which counts
 * the neighbours apart, and sense_finish_counted (the same bits). */
#define REYNOLDS_CELL_BODY(SENSE_SPAN, FINISH)                                                            \
    const agents_t *a = &ps->w->cur;                                                                      \
    const sense_params_t *sp = &ps->sps[0];                                                               \
    const float *X = scratch->x, *Y = scratch->y, *VX = scratch->vx, *VY = scratch->vy;                   \
    const int32_t n = (int32_t)b->total;                                                                  \
    uint64_t neighbours = 0;                                                                              \
    for (uint32_t i = b->first; i < b->last; i++) {                                                       \
        const float px = a->x[i], py = a->y[i];                                                           \
        const sense_self_t me = common_self(sp, a->vx[i], a->vy[i]);                                      \
        sense_acc_t acc = {0};                                                                            \
        uint32_t counted;                                                                                 \
        if (!sp->blind[ZONE_ALI] || me.vx * me.vx + me.vy * me.vy == 0.0f)                                \
            counted = SENSE_SPAN(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_SEES_ALL);           \
        else if (sp->wide[ZONE_ALI])                                                                      \
            counted = SENSE_SPAN(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_WIDE_VIEW);          \
        else                                                                                              \
            counted = SENSE_SPAN(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_NARROW_VIEW);        \
        const sense_quads_t quads = FINISH(&acc, counted);                                                \
        neighbours += (uint32_t)quads.q[1][2];                                                            \
        common_done(ps, i, &quads);                                                                       \
    }                                                                                                     \
    return neighbours

/* The portable loop keeps its count in the lanes. */
#define SENSE_SPAN_LANES(...) (sense_span(__VA_ARGS__), 0u)
#define FINISH_LANES(acc, counted) ((void)(counted), sense_finish(acc, false))
LANES_INLINE uint64_t reynolds_cell(pass_t *ps, const cell_block_t *b, const sense_scratch_t *scratch)
{
    REYNOLDS_CELL_BODY(SENSE_SPAN_LANES, FINISH_LANES);
}

#ifdef SENSE_HAS_AVX512
/* The same with the mask-register loop (neighbours_avx512.h), on a CPU
 * that has AVX-512: the same bits. */
#define SENSE_SPAN_AVX512(acc, X, Y, VX, VY, S, n, px, py, me, sp, mode) \
    sense_span_avx512(acc, X, Y, VX, VY, n, px, py, me, sp, mode)
static __attribute__((noinline)) SENSE_AVX512_TARGET uint64_t reynolds_cell_avx512(pass_t *ps, const cell_block_t *b,
                                                                                   const sense_scratch_t *scratch)
{
    REYNOLDS_CELL_BODY(SENSE_SPAN_AVX512, sense_finish_counted);
}
#endif

/* Every other case, one cell: any model, species, density-dependent
 * radii, delayed positions. The block's candidates (or its sample) are
 * already in the span. */
LANES_INLINE uint64_t any_cell(pass_t *ps, const cell_block_t *b, sense_scratch_t *scratch)
{
    world_t *w = ps->w;
    const agents_t *a = &w->cur;
    const int model = w->params.model, species = ps->species;
    const int32_t n = (int32_t)b->total;
    for (int s = 0; s < species; s++) ps->sps[s].pair_wrap = b->pair_wrap;
    uint64_t neighbours = 0;
    for (uint32_t i = b->first; i < b->last; i++) {
        const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];
        const uint32_t id = a->id[i];
        const int s = species > 1 ? (int)((a->flags[i] & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT) : 0;
        const sense_params_t *sp = &ps->sps[s];
        const float *X = scratch->x, *Y = scratch->y, *VX = scratch->vx, *VY = scratch->vy;
        if (ps->olfati) {
            olfati_sums_t sums = {0};
            olfati_sense(&ps->ocs[s], X, Y, VX, VY, species > 1 ? scratch->species : NULL, (float)s, n,
                         ps->delayed_positions ? own_place(b, i) : -1, px, py, vx, vy, b->pair_wrap, w->width,
                         w->height, &sums);
            neighbours += (uint64_t)sums.neighbours;
            olfati_agent(w, &ps->ocs[s], i, &sums, &ps->finish);
            continue;
        }
        if (ps->couzin) {
            couzin_sums_t sums;
            couzin_sense(&ps->ccs[s], X, Y, VX, VY, species > 1 ? scratch->species : NULL, (float)s, n,
                         ps->delayed_positions ? own_place(b, i) : -1, px, py, vx, vy, b->pair_wrap, w->width,
                         w->height, &sums);
            neighbours += (uint64_t)(sums.n_rep + sums.n_ori + sums.n_att);
            couzin_agent(w, i, &sums, &ps->cz);
            continue;
        }
        /* Density-dependent perception: this agent's own radii, which only
         * it reads and writes (by id), so updating them in place cannot
         * race with other agents. */
        const bool density = ps->density;
        sense_self_t me = sense_self(sp, vx, vy, density ? w->radius_ali[id] : 0.0f, density ? w->radius_coh[id] : 0.0f);
        if (species > 1) me.species = (float)s;
        const bool generic = ps->delayed_positions || !sense_fast_ok(sp, &me, species > 1);
        /* Its own entry is where it was, not at distance 0: leave it out
         * by its place (none when a sample left it out). */
        if (ps->delayed_positions) me.self = own_place(b, i);
        sense_acc_t acc = {0};
        if (generic)
            sense_span(&acc, X, Y, VX, VY, scratch->species, n, px, py, &me, sp, SENSE_GENERIC);
        else if (me.sees_everything)
            sense_span(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_SEES_ALL);
        else if (sp->wide[ZONE_ALI])
            sense_span(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_WIDE_VIEW);
        else
            sense_span(&acc, X, Y, VX, VY, NULL, n, px, py, &me, sp, SENSE_NARROW_VIEW);
        const sense_quads_t quads = sense_finish(&acc, generic);
        const sense_sums_t sums = sense_sums_of(quads);
        neighbours += (uint64_t)sums.n_any;
        if (density) {
            /* radius ← max(r_min, (1 − s)·radius + s·(r_max − influence·n)),
             * s for the time this steer stands for (world_steer_dt), at
             * most 1 (the target itself) when steering is staggered. */
            const sim_params_t *p = &w->species_params[s];
            float k = p->radius_smoothing * world_steer_dt(w);
            if (world_steer_every(w) > 1 && k > 1.0f) k = 1.0f;
            w->radius_ali[id] = fmaxf(p->radius_min, (1.0f - k) * w->radius_ali[id] +
                                                         k * (p->ali_radius - p->radius_influence * (float)sums.n_ali));
            w->radius_coh[id] = fmaxf(p->radius_min, (1.0f - k) * w->radius_coh[id] +
                                                         k * (p->coh_radius - p->radius_influence * (float)sums.n_coh));
        }
        if (model == MODEL_UNICYCLE)
            unicycle_agent(w, i, &sums, &ps->uni);
        else
            batch_add(ps, &quads);
    }
    return neighbours;
}

/* Stream of the counter-based generator for where sampled slices start. */
#define SAMPLE_STREAM 0x73616d706c65ull

static void pass_init(pass_t *ps, world_t *w, uint32_t agent_begin, uint32_t agent_end, uint32_t span_cap)
{
    const sim_params_t *p = &w->params;
    const agents_t *a = &w->cur;
    const int model = p->model;
    ps->w = w;
    ps->agent_begin = agent_begin;
    ps->agent_end = agent_end;
    ps->wrap = p->border == BORDER_WRAP;
    ps->olfati = model == MODEL_OLFATI1 || model == MODEL_OLFATI2 || model == MODEL_OLFATI3;
    ps->couzin = model == MODEL_COUZIN;
    ps->unicycle = model == MODEL_UNICYCLE;
    ps->density = p->density_radii && model == MODEL_REYNOLDS;
    /* Each species senses with its own zones, views and Olfati-Saber terms. */
    ps->species = p->species > 1 ? p->species : 1;
    for (int s = 0; s < ps->species; s++) {
        ps->sps[s] = sense_params_of(w, &w->species_params[s]);
        ps->sps[s].count_ahead = w->species_params[s].leader_rule == LEADER_FRONT && w->n_targets > 0;
        ps->sps[s].count_zones = ps->density; /* the radii follow the counts */
        ps->ocs[s] = olfati_consts(&w->species_params[s]);
        /* olfati_agent asks for the β-agents by the species' own model */
        if (w->species_params[s].model == MODEL_OLFATI3) olfati_beta_prepare(w, &ps->ocs[s]);
        ps->ccs[s] = couzin_consts(&w->species_params[s]);
    }

    /* What neighbours are sensed from. Alignment may average unit headings
     * instead of velocities; delayed feedback reads the history by id. */
    const bool by_heading = !ps->olfati && p->ali_mode == ALIGN_HEADING;
    ps->src = (sources_t){a->x, a->y, by_heading ? w->head_x : a->vx, by_heading ? w->head_y : a->vy,
                          NULL, NULL, NULL, NULL, a->id, ps->species > 1 ? a->flags : NULL};
    ps->delayed = p->delay_ticks > 0 && w->history;
    if (ps->delayed) {
        const float *frame = world_history_frame(w, (uint64_t)p->delay_ticks);
        size_t stride = w->cap + SENSE_LANES;
        if (p->delay_mode != DELAY_VELOCITIES) ps->src.x = ps->src.y = NULL, ps->src.hx = frame, ps->src.hy = frame + stride;
        if (p->delay_mode != DELAY_POSITIONS && !by_heading)
            ps->src.vx = ps->src.vy = NULL, ps->src.hvx = frame + 2 * stride, ps->src.hvy = frame + 3 * stride;
    }
    /* Then an agent's own entry is where it was, not at distance 0. */
    ps->delayed_positions = ps->delayed && !ps->src.x;
    /* Reynolds' common case (see reynolds_cell); pair_wrap, which depends
     * on the cell, is left to each cell. */
    ps->common = (model == MODEL_REYNOLDS || model == MODEL_UNICYCLE) && !ps->delayed_positions && ps->species == 1 &&
                 sense_params_fast_ok(&ps->sps[0]);
#ifdef SENSE_HAS_AVX512
    ps->avx512 = ps->common && sense_avx512_usable();
#else
    ps->avx512 = false;
#endif
    ps->batch = (reynolds_batch_t){.first = agent_begin, .count = 0};
    ps->finish = (olfati_batch_t){.first = agent_begin, .count = 0};
    ps->uni = (unicycle_batch_t){.first = agent_begin, .count = 0};
    ps->cz = (couzin_batch_t){.first = agent_begin, .count = 0};
    /* The span holds the largest sample the parameter allows; Olfati-Saber's
     * pairs are dear, so its agents sense fewer (params.h). */
    uint32_t max_candidates = world_candidate_cap(w); /* fewer in a large population */
    if (ps->olfati && max_candidates > SIM_OLFATI_MAX_CANDIDATES) max_candidates = SIM_OLFATI_MAX_CANDIDATES;
    ps->max_candidates = max_candidates < span_cap ? max_candidates : span_cap;
    ps->sample_seed = prng_mix(prng_mix(w->seed ^ SAMPLE_STREAM) ^ w->tick);
}

/* The next cell from c on (up to end) that has agents. */
static uint32_t next_occupied(const grid_t *g, uint32_t c, uint32_t end)
{
    while (c < end && g->cell_start[c] == g->cell_start[c + 1]) c++;
    return c;
}

/* The cell that holds agent k (k below the population): the first whose
 * agents end after k. */
static uint32_t cell_holding(const grid_t *g, uint32_t k)
{
    uint32_t lo = 0, hi = (uint32_t)((size_t)g->nx * (size_t)g->ny) - 1;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (g->cell_start[mid + 1] <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Steers agents [begin, end) (inside the pass's range): their cells one
 * after the other, each cell's candidates gathered while the cell before
 * is sensed, then what the models still hold in their batches. */
LANES_INLINE uint64_t steer_range(pass_t *ps, uint32_t begin, uint32_t end, sense_scratch_t scratch[2])
{
    world_t *w = ps->w;
    const grid_t *g = &w->grid;
    ps->agent_begin = begin, ps->agent_end = end;
    ps->batch = (reynolds_batch_t){.first = begin, .count = 0};
    const uint32_t cell_end = cell_holding(g, end - 1) + 1;
    uint64_t neighbours = 0;
    /* Cells are pipelined: the next cell's candidates are copied into the
     * other span before this cell is sensed, so that the copy's stores have
     * reached the cache by the time they are read (a load from stores
     * still in flight, of another size or place, waits for them). */
    cell_block_t blocks[2];
    int cur = 0;
    uint32_t c = cell_holding(g, begin);
    cell_block_of(ps, c, &blocks[cur]);
    gather(ps, &blocks[cur], &scratch[cur]);
    while (c < cell_end) {
        const uint32_t next = next_occupied(g, c + 1, cell_end);
        if (next < cell_end) {
            cell_block_of(ps, next, &blocks[!cur]);
            gather(ps, &blocks[!cur], &scratch[!cur]);
        }
        const cell_block_t *b = &blocks[cur];
#ifdef SENSE_HAS_AVX512
        if (ps->common && !b->pair_wrap && ps->avx512)
            neighbours += reynolds_cell_avx512(ps, b, &scratch[cur]);
        else
#endif
        if (ps->common && !b->pair_wrap)
            neighbours += reynolds_cell(ps, b, &scratch[cur]);
        else
            neighbours += any_cell(ps, b, &scratch[cur]);
        c = next;
        cur = !cur;
    }
    if (ps->batch.count) reynolds_batch(w, &ps->batch);
    olfati_flush(w, &ps->finish);
    unicycle_flush(w, &ps->uni);
    couzin_flush(w, &ps->cz);
    return neighbours;
}

KERNEL_CLONES
uint64_t step_agents(world_t *w, uint32_t agent_begin, uint32_t agent_end, sense_scratch_t scratch[2])
{
    if (agent_begin >= agent_end) return 0;
    pass_t ps;
    pass_init(&ps, w, agent_begin, agent_end, scratch[0].cap < scratch[1].cap ? scratch[0].cap : scratch[1].cap);
    if (world_steer_every(w) == 1) return steer_range(&ps, agent_begin, agent_end, scratch);
    /* Staggered steering: row by row (a row's cells are consecutive in
     * cell order, so its agents are one range), the rows due this tick
     * steered, the others coasting. */
    const grid_t *g = &w->grid;
    const uint32_t nx = (uint32_t)g->nx, ny = (uint32_t)g->ny;
    uint64_t neighbours = 0;
    for (uint32_t row = cell_holding(g, agent_begin) / nx; row < ny; row++) {
        uint32_t begin = g->cell_start[row * nx], end = g->cell_start[(row + 1) * nx];
        if (begin < agent_begin) begin = agent_begin;
        if (end > agent_end) end = agent_end;
        if (begin < end) {
            if (world_row_steers(w, row))
                neighbours += steer_range(&ps, begin, end, scratch);
            else
                motion_coast(w, begin, end);
        }
        if (end >= agent_end) break;
    }
    return neighbours;
}
