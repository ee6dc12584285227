/* views: the registry of distinct views, (tile rect, mode) pairs, each
 * watched by some viewers and encoded once per snapshot whatever their
 * number. A view nobody watches any more is dropped. Past the cap on
 * distinct views a new one is not made: the viewer shares the smallest
 * existing view of its mode that contains the rect it asked for, else the
 * whole-world view of that mode. Loop thread only. */
#ifndef SWARMCAST_VIEWS_H
#define SWARMCAST_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "stream/encoder.h"

/* Finest level a viewport is mapped to (the wire allows 7). */
#define VIEWS_MAX_LEVEL 6u

/* A viewport in world units. */
typedef struct viewport {
    double x, y, w, h;
} viewport_t;

typedef struct views views_t;

views_t *views_create(size_t cap);
void views_destroy(views_t *r);

/* The tiles covering a viewport: the largest level L ≤ VIEWS_MAX_LEVEL
 * with width/2^L ≥ w/8 and height/2^L ≥ h/8 (so that at most about 9
 * tiles span it), clamped to the world (a viewport outside it gets the
 * nearest tile). vp.w and vp.h must be positive and finite. */
wire2_rect_t views_rect_for(float width, float height, viewport_t vp);

/* A view for (rect, mode), one more viewer on it: an existing one, a new
 * one, or past the cap a containing one. Its id (never 0), or 0 when out
 * of memory. *got_rect receives the rect actually given (may be NULL). */
uint32_t views_acquire(views_t *r, wire2_rect_t rect, wire2_mode_t mode, wire2_rect_t *got_rect);
/* One viewer less; at none the view is dropped. */
void views_release(views_t *r, uint32_t id);
size_t views_count(const views_t *r);
/* Whether the set of views changed since the last views_specs. */
bool views_changed(const views_t *r);
/* The spec of view id (false when there is none); changes nothing. */
bool views_spec_of(const views_t *r, uint32_t id, view_spec_t *out);
/* The current views for the encoder (pointer valid until the next change). */
const view_spec_t *views_specs(views_t *r, size_t *n);

#endif
