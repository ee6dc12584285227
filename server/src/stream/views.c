#include "stream/views.h"

#include <math.h>
#include <stdlib.h>

typedef struct view {
    view_spec_t spec;
    size_t viewers;
} view_t;

struct views {
    view_t *items;
    size_t n, cap_items;
    size_t max_views;
    uint32_t last_id;
    bool changed;
    view_spec_t *specs;
};

views_t *views_create(size_t cap)
{
    views_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->max_views = cap ? cap : 1;
    return r;
}

void views_destroy(views_t *r)
{
    if (!r) return;
    free(r->items);
    free(r->specs);
    free(r);
}

/* floor / ceil of a viewport edge in tiles, clamped to [0, side]. */
static long tile_floor(double edge, double tile, long side)
{
    double t = floor(edge / tile);
    return t < 0 ? 0 : t > (double)side ? side : (long)t;
}

static long tile_ceil(double edge, double tile, long side)
{
    double t = ceil(edge / tile);
    return t < 0 ? 0 : t > (double)side ? side : (long)t;
}

wire2_rect_t views_rect_for(float width, float height, viewport_t vp)
{
    unsigned level = 0;
    for (unsigned l = VIEWS_MAX_LEVEL;; l--) {
        double side = (double)(1u << l);
        if ((double)width / side >= vp.w / 8 && (double)height / side >= vp.h / 8) {
            level = l;
            break;
        }
        if (l == 0) break;
    }
    long side = 1l << level;
    double tw = (double)width / (double)side, th = (double)height / (double)side;
    long x0 = tile_floor(vp.x, tw, side), x1 = tile_ceil(vp.x + vp.w, tw, side);
    long y0 = tile_floor(vp.y, th, side), y1 = tile_ceil(vp.y + vp.h, th, side);
    /* Outside the world (or a sliver on its edge): the nearest tile. */
    if (x0 >= side) x0 = side - 1;
    if (y0 >= side) y0 = side - 1;
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    return (wire2_rect_t){(uint8_t)level, (uint16_t)x0, (uint16_t)y0, (uint16_t)x1, (uint16_t)y1};
}

/* A rect in tiles of the finest level, to compare rects of any level. */
typedef struct fine {
    uint32_t x0, y0, x1, y1;
} fine_t;

static fine_t fine_of(wire2_rect_t r)
{
    unsigned s = r.level <= WIRE2_MAX_LEVEL ? WIRE2_MAX_LEVEL - r.level : 0;
    return (fine_t){(uint32_t)r.x0 << s, (uint32_t)r.y0 << s, (uint32_t)r.x1 << s, (uint32_t)r.y1 << s};
}

static bool contains(wire2_rect_t outer, wire2_rect_t inner)
{
    fine_t o = fine_of(outer), i = fine_of(inner);
    return o.x0 <= i.x0 && o.y0 <= i.y0 && o.x1 >= i.x1 && o.y1 >= i.y1;
}

static uint64_t area(wire2_rect_t r)
{
    fine_t f = fine_of(r);
    return (uint64_t)(f.x1 - f.x0) * (f.y1 - f.y0);
}

static view_t *find(views_t *r, wire2_rect_t rect, wire2_mode_t mode)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].spec.mode == mode && wire2_rect_equal(r->items[i].spec.rect, rect)) return &r->items[i];
    return NULL;
}

/* The smallest view of this mode containing rect, or NULL. */
static view_t *smallest_containing(views_t *r, wire2_rect_t rect, wire2_mode_t mode)
{
    view_t *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        view_t *v = &r->items[i];
        if (v->spec.mode == mode && contains(v->spec.rect, rect) && (!best || area(v->spec.rect) < area(best->spec.rect)))
            best = v;
    }
    return best;
}

static view_t *add(views_t *r, wire2_rect_t rect, wire2_mode_t mode)
{
    if (r->n == r->cap_items) {
        size_t cap = r->cap_items ? 2 * r->cap_items : 16;
        view_t *grown = realloc(r->items, cap * sizeof *grown);
        if (!grown) return NULL;
        r->items = grown;
        r->cap_items = cap;
    }
    if (++r->last_id == 0) r->last_id = 1;
    r->items[r->n] = (view_t){{r->last_id, rect, mode}, 0};
    r->changed = true;
    return &r->items[r->n++];
}

static bool is_world(wire2_rect_t rect)
{
    uint32_t side = 1u << rect.level;
    return rect.x0 == 0 && rect.y0 == 0 && rect.x1 == side && rect.y1 == side;
}

uint32_t views_acquire(views_t *r, wire2_rect_t rect, wire2_mode_t mode, wire2_rect_t *got_rect)
{
    view_t *v = find(r, rect, mode);
    if (!v && r->n >= r->max_views) {
        /* The whole world is always allowed (a view covering it may be new:
         * the registry then holds the cap plus at most one per mode). */
        v = smallest_containing(r, rect, mode);
        if (!v && !is_world(rect)) {
            rect = views_rect_for(1, 1, (viewport_t){0, 0, 1, 1});
            v = find(r, rect, mode);
        }
    }
    if (!v && !(v = add(r, rect, mode))) return 0;
    v->viewers++;
    if (got_rect) *got_rect = v->spec.rect;
    return v->spec.id;
}

void views_release(views_t *r, uint32_t id)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].spec.id != id) continue;
        if (--r->items[i].viewers == 0) {
            r->items[i] = r->items[--r->n];
            r->changed = true;
        }
        return;
    }
}

size_t views_count(const views_t *r) { return r->n; }

bool views_changed(const views_t *r) { return r->changed; }

bool views_spec_of(const views_t *r, uint32_t id, view_spec_t *out)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].spec.id == id) {
            *out = r->items[i].spec;
            return true;
        }
    return false;
}

const view_spec_t *views_specs(views_t *r, size_t *n)
{
    view_spec_t *specs = realloc(r->specs, (r->n ? r->n : 1) * sizeof *specs);
    if (!specs) {
        *n = 0;
        return NULL;
    }
    r->specs = specs;
    for (size_t i = 0; i < r->n; i++) specs[i] = r->items[i].spec;
    r->changed = false;
    *n = r->n;
    return specs;
}
