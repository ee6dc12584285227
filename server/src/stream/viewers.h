/* viewers: what each v2 client watches. A client names its viewport and
 * budget (the most agents it wants drawn one by one); the server maps the
 * viewport to tiles and picks detail or LOD by the agents estimated there,
 * with 25% hysteresis, and re-checks every second as the flock moves. A
 * client that has named nothing watches the whole world. View requests
 * take effect at most VIEWERS_MIN_INTERVAL_NS apart (a newer one waiting
 * replaces an older one). Loop thread only. */
#ifndef SWARMCAST_VIEWERS_H
#define SWARMCAST_VIEWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/count_grid.h"
#include "stream/views.h"

#define VIEWERS_MIN_INTERVAL_NS 100000000ull /* 10 view changes a second */
#define VIEWERS_REEVALUATE_NS 1000000000ull
#define VIEWERS_HYSTERESIS 0.25
#define VIEWERS_DEFAULT_BUDGET 20000.0

typedef struct viewers viewers_t;

typedef struct viewer_view {
    uint32_t view_id; /* 0: none (out of memory) */
    wire2_rect_t rect;
    wire2_mode_t mode;
} viewer_view_t;

viewers_t *viewers_create(size_t slots, views_t *registry, float width, float height, double max_budget);
void viewers_destroy(viewers_t *v);
/* The census the estimates use (the newest bundle's; the pointer must stay valid). */
void viewers_set_grid(viewers_t *v, const count_grid_t *grid);
void viewers_open(viewers_t *v, size_t slot, uint64_t now_ns);
void viewers_close(viewers_t *v, size_t slot);
/* A view request (validated: w, h > 0 and finite; budget ≥ 0, or < 0 for
 * the default). Applied now, or within VIEWERS_MIN_INTERVAL_NS by
 * viewers_poll. Clamps the budget to max_budget. */
void viewers_request(viewers_t *v, size_t slot, viewport_t vp, double budget, uint64_t now_ns);
/* Applies requests that have waited long enough and re-checks modes once a second. */
void viewers_poll(viewers_t *v, uint64_t now_ns);
viewer_view_t viewers_view_of(const viewers_t *v, size_t slot);

#endif
