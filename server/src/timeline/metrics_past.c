#include "timeline/metrics_past.h"

#include <pthread.h>
#include <stdlib.h>

struct metrics_past {
    pthread_mutex_t lock;
    metrics_t *rows; /* a ring: rows[(head + i) % cap] is the i-th oldest */
    size_t cap, head, len;
};

metrics_past_t *metrics_past_create(size_t max_rows)
{
    if (max_rows == 0) return NULL;
    metrics_past_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->rows = malloc(max_rows * sizeof *p->rows);
    if (!p->rows) {
        free(p);
        return NULL;
    }
    p->cap = max_rows;
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void metrics_past_destroy(metrics_past_t *p)
{
    if (!p) return;
    pthread_mutex_destroy(&p->lock);
    free(p->rows);
    free(p);
}

static const metrics_t *row(const metrics_past_t *p, size_t i)
{
    return &p->rows[(p->head + i) % p->cap];
}

void metrics_past_add(metrics_past_t *p, const metrics_t *m)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    if (p->len && m->tick <= row(p, p->len - 1)->tick) {
        if (m->tick == row(p, p->len - 1)->tick) {
            /* The same tick again (a paused world): the newest word on it. */
            p->rows[(p->head + p->len - 1) % p->cap] = *m;
            pthread_mutex_unlock(&p->lock);
            return;
        }
        p->head = p->len = 0; /* the ticks went back (a reset): the past starts again */
    }
    if (p->len == p->cap) {
        p->head = (p->head + 1) % p->cap;
        p->len--;
    }
    p->rows[(p->head + p->len) % p->cap] = *m;
    p->len++;
    pthread_mutex_unlock(&p->lock);
}

bool metrics_past_at(metrics_past_t *p, uint64_t tick, metrics_t *out)
{
    if (!p) return false;
    pthread_mutex_lock(&p->lock);
    size_t lo = 0, hi = p->len; /* the first row after `tick` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (row(p, mid)->tick <= tick)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool found = lo > 0;
    if (found) *out = *row(p, lo - 1);
    pthread_mutex_unlock(&p->lock);
    return found;
}

size_t metrics_past_rows(metrics_past_t *p)
{
    if (!p) return 0;
    pthread_mutex_lock(&p->lock);
    size_t n = p->len;
    pthread_mutex_unlock(&p->lock);
    return n;
}
