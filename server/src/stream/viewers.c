#include "stream/viewers.h"

#include <stdlib.h>

typedef struct viewer {
    bool active, has_mode;
    viewport_t vp;
    double budget;
    viewer_view_t view;
    uint64_t applied_ns;
    bool pending;
    viewport_t pending_vp;
    double pending_budget;
} viewer_t;

struct viewers {
    viewer_t *slots;
    size_t n_slots;
    views_t *registry;
    float width, height;
    double max_budget;
    const count_grid_t *grid;
    uint64_t evaluated_ns;
};

viewers_t *viewers_create(size_t slots, views_t *registry, float width, float height, double max_budget)
{
    viewers_t *v = calloc(1, sizeof *v);
    if (!v || !(v->slots = calloc(slots ? slots : 1, sizeof *v->slots))) {
        free(v);
        return NULL;
    }
    v->n_slots = slots;
    v->registry = registry;
    v->width = width;
    v->height = height;
    v->max_budget = max_budget;
    return v;
}

void viewers_destroy(viewers_t *v)
{
    if (!v) return;
    free(v->slots);
    free(v);
}

void viewers_set_grid(viewers_t *v, const count_grid_t *grid) { v->grid = grid; }

/* Detail while the estimate stays within the budget; a viewer already in
 * one mode leaves it only 25% past the threshold, so that a flock at the
 * edge of the budget does not flip the mode (and force keys) every second. */
static wire2_mode_t choose_mode(const viewers_t *v, const viewer_t *w, wire2_rect_t rect)
{
    double est = v->grid ? count_grid_estimate(v->grid, rect) : 0;
    if (!w->has_mode) return est <= w->budget ? WIRE2_DETAIL : WIRE2_LOD;
    if (w->view.mode == WIRE2_DETAIL) return est > w->budget * (1 + VIEWERS_HYSTERESIS) ? WIRE2_LOD : WIRE2_DETAIL;
    return est < w->budget * (1 - VIEWERS_HYSTERESIS) ? WIRE2_DETAIL : WIRE2_LOD;
}

/* Moves w to (rect, mode) unless it is there already. */
static void switch_to(viewers_t *v, viewer_t *w, wire2_rect_t rect, wire2_mode_t mode)
{
    if (w->view.view_id && w->has_mode && w->view.mode == mode && wire2_rect_equal(w->view.rect, rect)) return;
    wire2_rect_t got = rect;
    uint32_t id = views_acquire(v->registry, rect, mode, &got);
    if (w->view.view_id) views_release(v->registry, w->view.view_id);
    w->view = (viewer_view_t){id, got, mode};
    w->has_mode = true;
}

static void apply(viewers_t *v, viewer_t *w, viewport_t vp, double budget, uint64_t now_ns)
{
    w->vp = vp;
    w->budget = budget;
    w->applied_ns = now_ns;
    w->pending = false;
    wire2_rect_t rect = views_rect_for(v->width, v->height, vp);
    switch_to(v, w, rect, choose_mode(v, w, rect));
}

void viewers_open(viewers_t *v, size_t slot, uint64_t now_ns)
{
    if (slot >= v->n_slots) return;
    viewer_t *w = &v->slots[slot];
    viewers_close(v, slot);
    w->active = true;
    apply(v, w, (viewport_t){0, 0, v->width, v->height},
          VIEWERS_DEFAULT_BUDGET < v->max_budget ? VIEWERS_DEFAULT_BUDGET : v->max_budget, now_ns);
    w->applied_ns = 0; /* its first request applies at once */
}

void viewers_close(viewers_t *v, size_t slot)
{
    if (slot >= v->n_slots) return;
    viewer_t *w = &v->slots[slot];
    if (w->active && w->view.view_id) views_release(v->registry, w->view.view_id);
    *w = (viewer_t){0};
}

void viewers_request(viewers_t *v, size_t slot, viewport_t vp, double budget, uint64_t now_ns)
{
    if (slot >= v->n_slots || !v->slots[slot].active) return;
    viewer_t *w = &v->slots[slot];
    if (budget < 0) budget = VIEWERS_DEFAULT_BUDGET;
    if (budget > v->max_budget) budget = v->max_budget;
    if (now_ns - w->applied_ns >= VIEWERS_MIN_INTERVAL_NS) {
        apply(v, w, vp, budget, now_ns);
    } else {
        w->pending = true;
        w->pending_vp = vp;
        w->pending_budget = budget;
    }
}

void viewers_poll(viewers_t *v, uint64_t now_ns)
{
    bool reevaluate = now_ns - v->evaluated_ns >= VIEWERS_REEVALUATE_NS;
    if (reevaluate) v->evaluated_ns = now_ns;
    for (size_t i = 0; i < v->n_slots; i++) {
        viewer_t *w = &v->slots[i];
        if (!w->active) continue;
        if (w->pending && now_ns - w->applied_ns >= VIEWERS_MIN_INTERVAL_NS) {
            apply(v, w, w->pending_vp, w->pending_budget, now_ns);
        } else if (reevaluate) {
            wire2_rect_t rect = views_rect_for(v->width, v->height, w->vp);
            switch_to(v, w, rect, choose_mode(v, w, rect));
        }
    }
}

viewer_view_t viewers_view_of(const viewers_t *v, size_t slot)
{
    return slot < v->n_slots && v->slots[slot].active ? v->slots[slot].view : (viewer_view_t){0};
}
