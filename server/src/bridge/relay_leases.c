#include "bridge/relay_leases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct held {
    lease_view_t asked;
    uint32_t view_id; /* 0: the registry had no memory for it */
    wire2_rect_t granted;
} held_t;

typedef struct relay {
    char name[LEASE_NAME_MAX + 1];
    uint64_t seen_ns;
    held_t views[LEASE_MAX_VIEWS];
    size_t n_views;
} relay_t;

typedef relay_leased_view_t leased_t;

struct relay_leases {
    views_t *views;
    relay_t *relays[LEASE_TAG_MAX + 1]; /* by tag; NULL: none live */
    size_t n_live;
    leased_t *leased; /* view ids relays hold, with how many holds */
    size_t n_leased, cap_leased;
};

relay_leases_t *relay_leases_create(views_t *views)
{
    relay_leases_t *l = calloc(1, sizeof *l);
    if (l) l->views = views;
    return l;
}

static void ref_view(relay_leases_t *l, uint32_t id, lease_view_t view)
{
    for (size_t i = 0; i < l->n_leased; i++)
        if (l->leased[i].view_id == id) {
            l->leased[i].holds++;
            return;
        }
    if (l->n_leased == l->cap_leased) {
        size_t cap = l->cap_leased ? 2 * l->cap_leased : 16;
        leased_t *grown = realloc(l->leased, cap * sizeof *grown);
        if (!grown) return; /* not published then; the view is still encoded */
        l->leased = grown;
        l->cap_leased = cap;
    }
    l->leased[l->n_leased++] = (leased_t){id, 1, view};
}

static void unref_view(relay_leases_t *l, uint32_t id)
{
    for (size_t i = 0; i < l->n_leased; i++)
        if (l->leased[i].view_id == id) {
            if (--l->leased[i].holds == 0) l->leased[i] = l->leased[--l->n_leased];
            return;
        }
}

static void release_all(relay_leases_t *l, relay_t *r)
{
    for (size_t i = 0; i < r->n_views; i++)
        if (r->views[i].view_id) {
            unref_view(l, r->views[i].view_id);
            views_release(l->views, r->views[i].view_id);
        }
    r->n_views = 0;
}

void relay_leases_destroy(relay_leases_t *l)
{
    if (!l) return;
    for (unsigned t = 0; t <= LEASE_TAG_MAX; t++)
        if (l->relays[t]) {
            release_all(l, l->relays[t]);
            free(l->relays[t]);
        }
    free(l->leased);
    free(l);
}

static bool same_view(lease_view_t a, lease_view_t b) { return a.mode == b.mode && wire2_rect_equal(a.rect, b.rect); }

int relay_leases_renew(relay_leases_t *l, const lease_request_t *req, uint64_t now_ns, lease_view_t *granted,
                       bool *is_new)
{
    if (req->tag == 0 || req->tag > LEASE_TAG_MAX) return -1;
    relay_t *r = l->relays[req->tag];
    *is_new = r == NULL;
    if (r && strcmp(r->name, req->relay) != 0) return RELAY_LEASE_TAG_TAKEN;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return -1;
        snprintf(r->name, sizeof r->name, "%s", req->relay);
        l->relays[req->tag] = r;
        l->n_live++;
    }
    r->seen_ns = now_ns;
    /* New holds first, then the old ones go: a view kept (or shared with
     * another asked rect) is never dropped and remade, so its id and delta
     * stream go on. */
    held_t next[LEASE_MAX_VIEWS];
    bool kept[LEASE_MAX_VIEWS] = {false};
    size_t n = req->n_views < LEASE_MAX_VIEWS ? req->n_views : LEASE_MAX_VIEWS;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < r->n_views && (kept[k] || !same_view(r->views[k].asked, req->views[i]))) k++;
        if (k < r->n_views) {
            next[i] = r->views[k];
            kept[k] = true;
            continue;
        }
        next[i].asked = req->views[i];
        next[i].granted = req->views[i].rect;
        next[i].view_id = views_acquire(l->views, req->views[i].rect, req->views[i].mode, &next[i].granted);
        if (next[i].view_id) ref_view(l, next[i].view_id, (lease_view_t){req->views[i].mode, next[i].granted});
    }
    for (size_t k = 0; k < r->n_views; k++)
        if (!kept[k] && r->views[k].view_id) {
            unref_view(l, r->views[k].view_id);
            views_release(l->views, r->views[k].view_id);
        }
    memcpy(r->views, next, n * sizeof *next);
    r->n_views = n;
    for (size_t i = 0; i < n; i++) granted[i] = (lease_view_t){next[i].asked.mode, next[i].granted};
    return RELAY_LEASE_OK;
}

bool relay_leases_live(const relay_leases_t *l, unsigned tag) { return tag && tag <= LEASE_TAG_MAX && l->relays[tag]; }

size_t relay_leases_expire(relay_leases_t *l, uint64_t now_ns, unsigned *dead, size_t max)
{
    size_t n = 0;
    for (unsigned t = 1; t <= LEASE_TAG_MAX && n < max; t++) {
        relay_t *r = l->relays[t];
        if (!r || now_ns < r->seen_ns || now_ns - r->seen_ns < RELAY_LEASE_TTL_NS) continue;
        release_all(l, r);
        free(r);
        l->relays[t] = NULL;
        l->n_live--;
        dead[n++] = t;
    }
    return n;
}

const char *relay_leases_name(const relay_leases_t *l, unsigned tag)
{
    return relay_leases_live(l, tag) ? l->relays[tag]->name : NULL;
}

size_t relay_leases_count(const relay_leases_t *l) { return l->n_live; }

bool relay_leases_view_leased(const relay_leases_t *l, uint32_t view_id)
{
    for (size_t i = 0; i < l->n_leased; i++)
        if (l->leased[i].view_id == view_id) return true;
    return false;
}

const relay_leased_view_t *relay_leases_views(const relay_leases_t *l, size_t *n)
{
    *n = l->n_leased;
    return l->leased;
}
