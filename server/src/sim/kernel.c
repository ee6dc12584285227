/* kernel: one step's pass over a range of grid cells. For each cell it finds
 * the neighbour candidates once (the 3x3 block as runs of the cell-sorted
 * arrays, copied into one contiguous span), then for each agent of the cell
 * senses them with the model's kernel and calls the model's rule. */
#include <math.h>
#include <string.h>

#include "sim/models.h"
#include "sim/neighbours.h"
#include "sim/world.h"

/* Copies the runs into the scratch span; returns the count, or -1 when they
 * do not fit. *self_base is where the cell's own agents (from index first
 * on) start in the span. AVX/AVY are the velocities the model reads of its
 * neighbours (unit headings for alignment by heading). */
static int64_t gather(const agents_t *a, const float *AVX, const float *AVY, const grid_run_t *runs, int n_runs,
                      uint32_t first, sense_scratch_t *s, int32_t *self_base)
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
        memcpy(s->vx + count, AVX + b, len * sizeof(float));
        memcpy(s->vy + count, AVY + b, len * sizeof(float));
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

static sense_params_t sense_params_of(const world_t *w)
{
    const sim_params_t *p = &w->params;
    const float fov[ZONES] = {p->fov_sep, p->fov_ali, p->fov_coh};
    sense_params_t sp = {
        .sep2 = p->sep_radius * p->sep_radius,
        .ali2 = p->ali_radius * p->ali_radius,
        .coh2 = p->coh_radius * p->coh_radius,
        .width = w->width,
        .height = w->height,
    };
    for (int z = 0; z < ZONES; z++) {
        float cos_half = cosf(fov[z] * (3.14159265f / 360.0f));
        sp.blind[z] = fov[z] < 360.0f;
        sp.wide[z] = cos_half < 0.0f;
        sp.cos_half2[z] = cos_half * cos_half;
    }
    return sp;
}

KERNEL_CLONES
uint64_t step_cells(world_t *w, uint32_t cell_begin, uint32_t cell_end, sense_scratch_t *scratch)
{
    const sim_params_t *p = &w->params;
    const agents_t *a = &w->cur;
    const grid_t *g = &w->grid;
    const bool wrap = p->border == BORDER_WRAP;
    const int model = p->model;
    const bool olfati = model == MODEL_OLFATI1 || model == MODEL_OLFATI2 || model == MODEL_OLFATI3;
    const olfati_consts_t oc = olfati_consts(p);
    sense_params_t sp = sense_params_of(w);
    /* What alignment averages: velocities, or unit headings. */
    const bool by_heading = !olfati && p->ali_mode == ALIGN_HEADING;
    const float *AVX = by_heading ? w->head_x : a->vx, *AVY = by_heading ? w->head_y : a->vy;

    uint64_t neighbours = 0;
    for (uint32_t c = cell_begin; c < cell_end; c++) {
        const uint32_t first = g->cell_start[c], last = g->cell_start[c + 1];
        if (first == last) continue;
        /* Every agent of a cell has the same candidates: find them once. */
        grid_run_t runs[GRID_MAX_RUNS];
        int n_runs = grid_runs(g, (int)(c % (uint32_t)g->nx), (int)(c / (uint32_t)g->nx), wrap, runs, &sp.pair_wrap);
        int32_t self_base = 0;
        int64_t span = sp.pair_wrap ? -1 : gather(a, AVX, AVY, runs, n_runs, first, scratch, &self_base);
        for (uint32_t i = first; i < last; i++) {
            const float px = a->x[i], py = a->y[i];
            if (olfati) {
                olfati_sums_t s = {0};
                if (span >= 0) {
                    olfati_sense(&oc, scratch->x, scratch->y, scratch->vx, scratch->vy, (int32_t)span,
                                 self_base + (int32_t)(i - first), px, py, a->vx[i], a->vy[i], false, w->width,
                                 w->height, &s);
                } else {
                    for (int r = 0; r < n_runs; r++) {
                        const uint32_t b = runs[r].begin;
                        olfati_sense(&oc, a->x + b, a->y + b, a->vx + b, a->vy + b, (int32_t)(runs[r].end - b),
                                     (int32_t)i - (int32_t)b, px - runs[r].shift_x, py - runs[r].shift_y, a->vx[i],
                                     a->vy[i], sp.pair_wrap, w->width, w->height, &s);
                    }
                }
                neighbours += (uint64_t)s.neighbours;
                olfati_agent(w, &oc, i, &s);
                continue;
            }
            const sense_self_t me = sense_self(&sp, a->vx[i], a->vy[i]);
            sense_acc_t acc = {0};
            if (span >= 0) {
                sense_span(&acc, scratch->x, scratch->y, scratch->vx, scratch->vy, 0, (int32_t)span, true,
                           self_base + (int32_t)(i - first), px, py, &me, &sp);
            } else {
                for (int r = 0; r < n_runs; r++)
                    sense_span(&acc, a->x, a->y, AVX, AVY, (int32_t)runs[r].begin, (int32_t)runs[r].end, false,
                               (int32_t)i, px - runs[r].shift_x, py - runs[r].shift_y, &me, &sp);
            }
            sense_sums_t s = sense_finish(&acc);
            neighbours += (uint64_t)s.n_any;
            if (model == MODEL_UNICYCLE)
                unicycle_agent(w, i, &s);
            else
                reynolds_agent(w, i, &s);
        }
    }
    return neighbours;
}
